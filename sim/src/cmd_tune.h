// `coolhand-sim tune` and `coolhand-sim merge` (tune shards) on the command
// line; see cmd_tune.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

namespace coolhand::sim {

// Finds a bundled data file ("workloads/gaming.csv") or throws.
using DataLookup = std::function<std::string(const std::string&)>;

// Registers the subcommands on `app`. The returned function, called after
// parsing, runs the one that was given and returns its exit status, or
// nullopt when neither was. Errors are thrown as std::runtime_error.
[[nodiscard]] std::function<std::optional<int>()> add_tune_command(CLI::App& app,
                                                                   DataLookup need_data);

}  // namespace coolhand::sim
