// `coolhand-sim tune` and `coolhand-sim merge` (tune shards) on the command
// line; see cmd_tune.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace coolhand::sim {

// Finds a bundled data file ("workloads/gaming.csv") or throws.
using DataLookup = std::function<std::string(const std::string&)>;

// Registers `tune` on `app`. It runs from its own callback during parsing
// (run_in_callback, cmd_status.h): an error prints "coolhand-sim: <message>"
// and exits 1. (`merge`, cmd_merge.cpp, hands shard files of kind "tune" to
// merge_tune_files.)
void add_tune_command(CLI::App& app, const DataLookup& need_data);

// `merge` for tune shards: the shards' own `run` names the inputs; merges,
// runs the local stage and writes what one machine's `tune` writes to
// `out`. Returns the exit status; throws std::runtime_error on errors.
int merge_tune_files(const std::vector<std::string>& files, const std::string& out, bool quiet,
                     const DataLookup& need_data);

}  // namespace coolhand::sim
