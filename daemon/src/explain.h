// Why each device is at its level, for D-Bus Explain and `coolhandctl
// explain`: "why is the GPU at level 3?" answered from the live loop's last
// engine step (policy::Engine::explain): the winning controller, its input
// and that input's value, the threshold or setpoint it compares against
// (with the active profile applied), and since when the level holds
// (monotonic ms, the engine's clock). Plain values; no D-Bus types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coolhand/policy/engine.h"

namespace coolhand::daemon {

struct DeviceWhy {
  std::string name;
  std::uint32_t level = 0;
  std::uint32_t max_level = 0;
  // "controller": a controller's request won; "safe": it won while its
  // input is unknown (the controller asks for its safe level); "forced": a
  // trip's force_deepest action holds it; "released": nothing asks for more
  // than the device's floor.
  std::string reason;
  std::string controller;       // the winner's name; empty unless controller/safe
  std::string controller_kind;  // "step_wise", "pid", ...
  std::string input;            // the winner's input sensor
  std::optional<policy::MilliC> input_value;
  std::string limit_kind;  // "threshold", "setpoint", "table row"
  std::optional<policy::MilliC> limit;
  std::optional<policy::Time> since;  // when the level was last changed (none: never)
};

// Every device of the running policy, in policy order.
[[nodiscard]] std::vector<DeviceWhy> explain(const policy::Engine& engine);

}  // namespace coolhand::daemon
