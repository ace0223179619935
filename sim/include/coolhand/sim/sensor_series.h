// Every sensor's value (physical and virtual) at each engine step of a
// replay, as the engine saw it: for sensors.csv and the replay plot, which
// shows each virtual sensor next to its inputs.
#pragma once

#include <string>
#include <vector>

#include "coolhand/policy/engine.h"

namespace coolhand::sim {

struct SensorSeries {
  std::vector<std::string> names;            // every sensor of the policy, in spec order
  std::vector<double> time_s;                // one per engine step
  std::vector<std::vector<double>> value_c;  // [sensor][step] in °C; NaN while unknown

  // Names from the engine's spec; call once before append().
  void init(const policy::Engine& engine);
  // The values after the step at `at`.
  void append(const policy::Engine& engine, policy::Time at);
  // time_s, then one column per sensor in °C (3 decimals); empty cell while unknown.
  [[nodiscard]] std::string csv() const;
};

// One panel per virtual sensor: its value (solid) with each of its inputs
// (dashed), on the replay's time axis; last, the physical sensors alone when
// the policy has no virtual sensor.
[[nodiscard]] std::string plot_sensors_svg(const SensorSeries& series,
                                           const policy::PolicySpec& spec,
                                           const std::string& title);

}  // namespace coolhand::sim
