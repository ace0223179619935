// `coolhand-sim replay` (a sensor trace, or a coolhandd flight recording,
// through a policy) and `coolhand-sim export` (a recording as CSV), the
// subcommands that read what ran elsewhere (cmd_replay.cpp). Each runs from
// its own callback during parsing (run_in_callback, cmd_status.h); an error
// prints "coolhand-sim: <message>" and exits 1.
#pragma once

#include <CLI/CLI.hpp>

namespace coolhand::sim {

void add_replay_commands(CLI::App& app);

}  // namespace coolhand::sim
