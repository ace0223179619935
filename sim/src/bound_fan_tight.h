// The tight performance bound for a model with one fan (`bound --fan-bound
// tight`): a Lagrangian dual of the per-level (perspective) form of the
// bilinear model over state boxes tightened for the schedules that matter.
// The argument is in bound_fan_tight.cpp's header comment.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bound_linear.h"
#include "bound_lp.h"
#include "coolhand/sim/bound.h"

namespace coolhand::sim::detail {

// Per model step k (0..steps-1) and node i, bounds on the node temperature
// at the start of step k, °C: lo[k * n + i] <= T_i(k) <= hi[k * n + i].
struct FanBoxes {
  std::size_t n = 0;
  std::vector<double> lo, hi;
};

// Boxes valid for every schedule: forward interval steps, each node's
// lowest (highest) value over the fan's levels with every other device at
// its lowest (highest) power; `floor_lo` (same layout, may be empty) raises
// the lower bounds where it is higher before they are stepped on.
[[nodiscard]] FanBoxes interval_boxes(const Linear& per_level, const Inputs& in,
                                      const std::vector<double>& floor_lo);

// What the dual bounds: performance_weight * performance + floor_multiplier
// * (performance - floor) - T_node(node_step) (the last term only when
// minimise_node), subject to skin <= limit (multipliers skin(k, s) >= 0)
// and T(k) in the boxes. Its value is >= that maximum over every schedule
// whose trajectory stays in the boxes.
struct FanDualTerms {
  double performance_weight = 1;
  double floor = 0;
  double floor_multiplier = 0;
  bool minimise_node = false;
  std::uint64_t node_step = 0;
  std::size_t node = 0;
};
[[nodiscard]] double fan_dual(const Linear& per_level, const Inputs& in, const FanBoxes& box,
                              double limit_c,
                              const std::function<double(std::uint64_t, std::size_t)>& skin,
                              const FanDualTerms& terms);

// The figures of bound.h's FanTightResult but `relaxed` and `seconds`,
// which the caller fills (lower_c: the final boxes' FanBoxes::lo).
// `lp` is the relaxation's coarse LP (bound.h), solved for performance;
// `skin_multiplier(b, s)` its multipliers, read before this is called (the
// LP is re-solved here). `nodes`: the nodes whose lower bounds are
// tightened at every decision-step start (the fan's cooled nodes and their
// neighbours). Errors (a solver failure) come back as text.
[[nodiscard]] std::variant<FanTightResult, std::string> tight_fan_bound(
    const Linear& per_level, const Inputs& in, CoarseLp& lp,
    const std::vector<std::vector<double>>& skin_multiplier, std::uint64_t per_decision,
    double limit_c, double floor, const std::vector<std::size_t>& nodes, int rounds,
    const std::function<void(std::string_view)>& progress);

}  // namespace coolhand::sim::detail
