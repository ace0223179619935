// `coolhand-sim tune` and `coolhand-sim merge` (tune shards) on the command
// line; see cmd_tune.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace coolhand::sim {

// Finds a bundled data file ("workloads/gaming.csv") or throws.
using DataLookup = std::function<std::string(const std::string&)>;

// Registers `tune` and a `merge` for tune shard files on `app`. The
// returned function, called after parsing, runs the one that was given and
// returns its exit status, or nullopt when neither was. Errors are thrown
// as std::runtime_error. (When a general `merge` for compare/bound shards
// exists, it should own the subcommand and hand files of kind "tune" to
// merge_tune_files; the registration here is then dropped.)
[[nodiscard]] std::function<std::optional<int>()> add_tune_command(CLI::App& app,
                                                                   const DataLookup& need_data);

// `merge` for tune shards: the shards' own `run` names the inputs; merges,
// runs the local stage and writes what one machine's `tune` writes to
// `out`. Returns the exit status; throws std::runtime_error on errors.
int merge_tune_files(const std::vector<std::string>& files, const std::string& out, bool quiet,
                     const DataLookup& need_data);

}  // namespace coolhand::sim
