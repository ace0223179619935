// `coolhand-sim fit` (cmd_fit.cpp): registers the subcommand; it runs from
// its own callback during parsing and ends the program's parse with its
// exit status.
#pragma once

#include <CLI/CLI.hpp>

namespace coolhand::sim {

void add_fit_command(CLI::App& app);

}  // namespace coolhand::sim
