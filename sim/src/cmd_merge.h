// `coolhand-sim merge`'s command line (cmd_merge.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include "cmd_tune.h"

namespace coolhand::sim {

// Adds `merge` to `app`. It runs from its own callback during parsing
// (run_in_callback, cmd_status.h); a failure prints "coolhand-sim:
// <message>" and exits 1.
// compare and bound shards go through merge_shards (merge.h); tune shards
// through merge_tune_files (cmd_tune.h), which runs tune's local stage and
// needs the bundled data (need_data).
void add_merge_command(CLI::App& app, const DataLookup& need_data);

}  // namespace coolhand::sim
