// The performance bound for models with cooling devices (fans): a linear
// relaxation of the bilinear model (see bound_fan.cpp for the argument).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/sim/model.h"

namespace coolhand::sim::detail {

// Fan configurations the bound enumerates at most (each is one matrix
// exponential and one lower-bound product per model step).
inline constexpr std::size_t kBoundMaxFanConfigurations = 64;

// The model with every cooling device folded in at its strongest cooling
// (its deepest level's conductances added to the nodes' own), its power at
// its lowest level's and its performance 1 (noise cost dropped): a model
// with no cooling devices, the same devices in the same order, each fan
// with one level.
[[nodiscard]] ModelSpec relax_fans(const ModelSpec& model);

// A model with exactly one cooling device (fan) with that fan held at each
// of its levels (BoundOptions::fan_schedule): per level the model with the
// level's conductances folded into the nodes' own and no cooling devices
// left, the fan still a device (its power and performance tables kept).
struct HeldFan {
  std::size_t device = 0;            // the fan's index in the model's devices
  std::vector<ModelSpec> per_level;  // [level]
};
[[nodiscard]] std::variant<HeldFan, std::string> hold_fan(const ModelSpec& model);

// The cooling credit that makes the relaxed model a lower bound on every
// node temperature of the real one at every step, even where a node may be
// below ambient (where more airflow warms it): per model step k, the n node
// temperatures (°C) to subtract after the relaxed model's step k. The
// workload is given as the bound replays it: segment s starts at model step
// first[s] with demand[s * devices + d] and ambient_c[s].
struct FanCredit {
  std::size_t nodes = 0;
  std::vector<std::uint64_t> steps;  // model steps with a nonzero credit, ascending
  std::vector<double> values;        // steps.size() x nodes, °C, >= 0
  double max_c = 0;                  // the largest single credit, °C
  // Subtracts the credit after step k (if any) from the `nodes` values at
  // `t`. Calls must come with k not decreasing for one `cursor` (start it
  // at 0).
  void subtract(std::uint64_t k, std::size_t& cursor, double* t) const;
};
[[nodiscard]] std::variant<FanCredit, std::string> fan_credit(const ModelSpec& model,
                                                              std::uint64_t steps,
                                                              std::span<const std::uint64_t> first,
                                                              std::span<const double> demand,
                                                              std::span<const double> ambient_c);

}  // namespace coolhand::sim::detail
