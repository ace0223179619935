// The bound's linear view of a model and a workload (bound.h): the model's
// exact 100 ms step split by input, per held fan level, and the workload
// replayed as the runner applies it, with a forward pass over every model
// step. Shared by the LP (bound_lp.cpp), the dual pass (bound.cpp) and the
// fan bound's boxes (bound_fan_tight.cpp).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "bound_fan.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim::detail {

// The model's exact step, split by input: T' = ad T + idle_in + ba * ambient
// + sum_d h[:, d] * demand_d * p_d, with p_d the device's power at full
// demand (W) at its level, or the mix of levels the schedule gives it.
struct Dynamics {
  Eigen::MatrixXd ad;
  Eigen::VectorXd ba;
  Eigen::MatrixXd h;  // n x devices: one watt of the device, spread by its shares
  Eigen::VectorXd idle_in;
};

// The model's step per fan level held (BoundOptions::fan_schedule), or its
// one step (no fan held); Inputs::held says which applies at each step.
struct Linear {
  std::size_t n = 0;
  std::size_t devices = 0;
  std::vector<Dynamics> dyn;
  std::optional<std::size_t> held_fan;  // the held fan's device index
  Eigen::VectorXd t0;
  std::vector<std::size_t> skin;
  std::vector<std::vector<double>> power_w, performance;  // per device, per level
};

// `specs`: one model, or one per level of a held fan (the same nodes and
// devices, hold_fan).
Linear linearise(const std::vector<ModelSpec>& specs);

// The workload as the runner applies it (runner.cpp): a new segment at every
// step where seek() applied a row; the ambient holds when a row has none.
struct Inputs {
  std::uint64_t steps = 0;
  std::vector<std::uint64_t> first;  // first model step of each segment
  std::vector<double> demand;        // [segment * devices + device]
  std::vector<double> ambient_c;     // per segment
  std::vector<double> weight;        // per device
  double total_weighted_demand = 0;  // sum_d w_d sum_k demand_d(k)
  FanCredit fan_credit;              // models with fans: bound_fan.h
  std::vector<std::size_t> held;     // per model step: the held fan's level (else empty)
  [[nodiscard]] std::size_t dyn(std::uint64_t k) const { return held.empty() ? 0 : held[k]; }
};

Inputs replay_inputs(const ModelSpec& spec, Workload workload);

// Steps the model forward over the whole run with device d drawing
// p(d, decision step) watts at full demand; visit(k, T) sees the node
// temperatures at the start of every step k, as the runner's metrics do.
template <typename Power, typename Visit>
void forward(const Linear& lin, const Inputs& in, std::uint64_t per_decision, Power p,
             Visit visit) {
  Eigen::VectorXd t = lin.t0;
  Eigen::VectorXd next(t.size());
  std::size_t seg = 0;
  std::size_t credit_cursor = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    while (seg + 1 < in.first.size() && in.first[seg + 1] <= k) ++seg;
    visit(k, t);
    const Dynamics& dyn = lin.dyn[in.dyn(k)];
    next.noalias() = dyn.ad * t;
    next += dyn.idle_in + dyn.ba * in.ambient_c[seg];
    for (std::size_t d = 0; d < lin.devices; ++d) {
      const double w = in.demand[seg * lin.devices + d] * p(d, k / per_decision);
      if (w != 0.0) next += w * dyn.h.col(static_cast<Eigen::Index>(d));
    }
    in.fan_credit.subtract(k, credit_cursor, next.data());
    t.swap(next);
  }
}

inline double peak_skin(const Linear& lin, const Eigen::VectorXd& t) {
  double peak = -1e300;
  for (const auto s : lin.skin) peak = std::max(peak, t(static_cast<Eigen::Index>(s)));
  return peak;
}

}  // namespace coolhand::sim::detail
