// `coolhand-sim port inspect|lab|paste|check` (cmd_port.cpp): registers the
// subcommand; each runs from its own callback during parsing
// (run_in_callback, cmd_status.h); an error prints "coolhand-sim: port
// <name>: <file:line:column: message>" and exits 1.
#pragma once

#include <CLI/CLI.hpp>

namespace coolhand::sim {

void add_port_command(CLI::App& app);

}  // namespace coolhand::sim
