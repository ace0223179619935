// The model loader's second half, for readers that already hold the node
// tree of a model text (fit's skeleton reader parses its text once and
// checks the same tree as a model).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <variant>

#include "coolhand/config/error.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim::detail {

// `root`, a mapping that came from config's YAML front end (read_yaml), as a
// validated model: exactly parse_model's checks after its read_yaml. Errors
// are at `root`'s marks and name `file`.
[[nodiscard]] std::variant<ModelSpec, config::ConfigError> parse_model_tree(const YAML::Node& root,
                                                                            std::string_view file);

}  // namespace coolhand::sim::detail
