// `coolhand-sim fit` (cmd_fit.cpp): registers the subcommand; it runs from
// its own callback during parsing (run_in_callback, cmd_status.h) and ends
// the program's parse with its exit status; an error prints
// "coolhand-sim: fit: <message>" and exits 1.
#pragma once

#include <CLI/CLI.hpp>

namespace coolhand::sim {

void add_fit_command(CLI::App& app);

}  // namespace coolhand::sim
