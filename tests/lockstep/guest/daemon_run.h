// coolhandd in the lockstep guest (issue 14, the user_space row): the
// simulator's model runs a workload against the emulated platform while the
// real coolhandd, on its lockstep clock, decides the levels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coolhand/sim/model.h"

namespace coolhand::lockstep {

// Run `workload_path` with `seed` against the loaded coolhand_emul.ko
// (daemon_emul_params) and `daemon_argv` (coolhandd and its options; the
// driver adds --lockstep-fd), the daemon's output going to `daemon_log`.
// `policy_path` is the remapped policy the daemon runs, read here for the
// zone layout. Prints the level trace (lockstep_trace.h) labelled `label`
// on stdout; throws on any failure of the platform or the daemon.
int cmd_daemon_run(const sim::ModelSpec& spec, const std::string& policy_path,
                   const std::string& workload_path, std::uint64_t seed, const std::string& label,
                   const std::string& daemon_log, const std::vector<std::string>& daemon_argv);

}  // namespace coolhand::lockstep
