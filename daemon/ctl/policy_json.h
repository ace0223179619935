// A PolicyDocument as JSON, for `coolhandctl dump-config`: what the daemon
// will run after defaults are filled in and units converted. Temperatures
// are °C (`_c`), durations milliseconds (`_ms`), knob values in the knob's
// unit (`unit`).
#pragma once

#include <nlohmann/json.hpp>

#include "coolhand/config/policy_file.h"

namespace coolhand::ctl {

[[nodiscard]] nlohmann::ordered_json to_json(const config::PolicyDocument& doc);

}  // namespace coolhand::ctl
