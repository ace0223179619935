// `--fan-bound relaxed|tight`: which performance bound a model with one fan
// gets (FanBoundChoice, compare.h). The one parser of the option for the
// commands that take it (bound, compare, tune), each with its own help and
// default (the value `choice` holds when the option is not given).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "coolhand/sim/compare.h"

namespace coolhand::sim {

// Adds `--fan-bound` to `cmd`, writing the choice to `choice` (which must
// outlive the parse); any other word is refused by CLI11 with the two names.
CLI::Option* add_fan_bound_option(CLI::App& cmd, FanBoundChoice& choice, const std::string& help);

}  // namespace coolhand::sim
