// `coolhand-sim merge`'s command line (cmd_merge.cpp).
#pragma once

#include <CLI/CLI.hpp>

namespace coolhand::sim {

// Adds `merge` to `app`. It runs from its own callback during parsing; a
// failure prints "coolhand-sim: <message>" and exits 1 (CLI::RuntimeError).
CLI::App* add_merge_command(CLI::App& app);

}  // namespace coolhand::sim
