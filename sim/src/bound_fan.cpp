// The performance bound for models with cooling devices (fans). A fan's
// level sets a conductance to ambient, so the node temperatures are
// bilinear in the schedule (level times temperature) and the bound's LP
// (bound.h) does not apply as it stands. It is applied instead to a
// relaxation whose every node temperature is, at every step, at or below
// the real model's under ANY schedule:
//
//   1. Every fan at its strongest cooling (its deepest level: conductances
//      do not decrease with the level, model_parse.cpp), its heat at its
//      lowest level's power and its performance 1 (the noise cost dropped).
//      Write Ad_c, Bp_c, ba_c for the exact step of fan configuration c
//      (power and ambient columns) and "max" for the strongest one. The
//      step matrices are monotone in the conductances (expm of a Metzler
//      matrix grows with its entries, checked below), so Ad_max <= Ad_c and
//      Bp_max <= Bp_c elementwise, and each configuration's rows of
//      [Ad ba] sum to 1 (a device at ambient with no power stays there).
//   2. With T the real trajectory (configuration c at step k, powers P) and
//      T' the relaxed one (powers P' <= P), the difference after a step is
//        T'+ - T+ = Ad_max (T' - T) + (Ad_max - Ad_c)(T - a 1)
//                   + Bp_max P' - Bp_c P.
//      The last term is <= 0. The middle one is <= 0 when every node is at
//      or above the ambient a, the usual case (a hot device: more airflow
//      only cools). Where a node may be below ambient (a cold device in a
//      hot car) more airflow warms it, so the relaxed step subtracts a
//      credit e = max(0, max_c (Ad_max - Ad_c)(L - a 1)) >= the middle term,
//      with L a lower bound on T: L+ = min_c (Ad_c L + Bp_c P_min,c + ba_c a)
//      elementwise, P_min,c every other device at its lowest power. By
//      induction T' <= T at every step for every schedule.
//   3. So every schedule that keeps the real skin <= limit keeps the
//      relaxed skin <= limit too, with at least the same performance once
//      the fan's noise cost is dropped: the relaxed bound is an upper bound
//      on every controller's performance, and its lowest peak skin a lower
//      bound on the real one's (no longer exact). How loose: the fan's
//      noise cost (its weight in the metric) and the cooling the fan could
//      not have given while the device ran cooler, both unknown.
#include "bound_fan.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>

#include "coolhand/sim/bound.h"

namespace coolhand::sim::detail {

namespace {

NodeSpec& node_named(ModelSpec& m, const std::string& name) {
  return *std::find_if(m.nodes.begin(), m.nodes.end(),
                       [&](const NodeSpec& n) { return n.name == name; });
}

// The model with each cooling device's conductances at `level[d]` folded
// into its nodes and no cooling devices left.
ModelSpec fold(const ModelSpec& model, const std::vector<std::size_t>& level) {
  ModelSpec m = model;
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    for (const auto& e : m.devices[d].cooling)
      node_named(m, e.node).to_ambient_w_per_k += e.to_ambient_w_per_k[level[d]];
    m.devices[d].cooling.clear();
  }
  return m;
}

struct Step {
  Eigen::MatrixXd ad, bp;
  Eigen::VectorXd ba;
};

Step step_of(const ModelSpec& spec) {
  const auto m = ThermalModel(spec).step_matrices();
  const auto n = static_cast<Eigen::Index>(m.nodes);
  Step s{Eigen::MatrixXd(n, n), Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      s.ad(i, j) = m.ad[static_cast<std::size_t>(i * n + j)];
      s.bp(i, j) = m.bd[static_cast<std::size_t>(i * (n + 1) + j)];
    }
    s.ba(i) = m.bd[static_cast<std::size_t>(i * (n + 1) + n)];
  }
  return s;
}

}  // namespace

void FanCredit::subtract(std::uint64_t k, std::size_t& cursor, double* t) const {
  while (cursor < steps.size() && steps[cursor] < k) ++cursor;
  if (cursor == steps.size() || steps[cursor] != k) return;
  for (std::size_t i = 0; i < nodes; ++i) t[i] -= values[cursor * nodes + i];
}

ModelSpec relax_fans(const ModelSpec& model) {
  std::vector<std::size_t> strongest;
  for (const auto& d : model.devices) strongest.push_back(d.power_w.size() - 1);
  ModelSpec m = fold(model, strongest);
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    if (model.devices[d].cooling.empty()) continue;
    auto& dev = m.devices[d];
    dev.power_w = {*std::min_element(dev.power_w.begin(), dev.power_w.end())};
    dev.performance = {1.0};
  }
  return m;
}

std::variant<HeldFan, std::string> hold_fan(const ModelSpec& model) {
  HeldFan out;
  std::size_t fans = 0;
  for (std::size_t d = 0; d < model.devices.size(); ++d)
    if (!model.devices[d].cooling.empty()) {
      out.device = d;
      ++fans;
    }
  if (fans != 1)
    return "holding the fan to a schedule needs a model with one fan; this one has " +
           std::to_string(fans);
  std::vector<std::size_t> level(model.devices.size(), 0);
  for (std::size_t l = 0; l < model.devices[out.device].power_w.size(); ++l) {
    level[out.device] = l;
    out.per_level.push_back(fold(model, level));
  }
  return out;
}

std::variant<FanCredit, std::string> fan_credit(const ModelSpec& model, std::uint64_t steps,
                                                std::span<const std::uint64_t> first,
                                                std::span<const double> demand,
                                                std::span<const double> ambient_c) {
  const std::size_t nd = model.devices.size();
  std::vector<std::size_t> fans;
  std::size_t configurations = 1;
  for (std::size_t d = 0; d < nd; ++d)
    if (!model.devices[d].cooling.empty()) {
      fans.push_back(d);
      configurations *= model.devices[d].power_w.size();
    }
  if (configurations > kBoundMaxFanConfigurations)
    return "the bound handles at most " + std::to_string(kBoundMaxFanConfigurations) +
           " fan configurations; this model has " + std::to_string(configurations);
  const ThermalModel initial(model);
  const auto n = static_cast<Eigen::Index>(model.nodes.size());

  // Per configuration: its step, and each device's power (W at full
  // demand) in the lower bound: a fan at the configuration's level, any
  // other device at its lowest level.
  std::vector<Step> step;
  std::vector<std::vector<double>> device_power;
  std::vector<std::size_t> level(nd, 0);
  for (std::size_t c = 0; c < configurations; ++c) {
    std::size_t rest = c;
    for (const auto f : fans) {
      level[f] = rest % model.devices[f].power_w.size();
      rest /= model.devices[f].power_w.size();
    }
    step.push_back(step_of(fold(model, level)));
    std::vector<double> p;
    for (std::size_t d = 0; d < nd; ++d) {
      const auto& w = model.devices[d].power_w;
      p.push_back(model.devices[d].cooling.empty() ? *std::min_element(w.begin(), w.end())
                                                   : w[level[d]]);
    }
    device_power.push_back(std::move(p));
  }
  const Step& strongest = step.back();  // every fan at its deepest level
  std::vector<Eigen::MatrixXd> diff;    // Ad_max - Ad_c, <= 0
  for (const auto& s : step) {
    if ((strongest.ad.array() > s.ad.array() + 1e-12).any() ||
        (strongest.bp.array() > s.bp.array() + 1e-12).any())
      return std::string(
          "more airflow does not lower the model's step matrices elementwise; the bound's fan "
          "relaxation needs a monotone RC model");
    diff.push_back((strongest.ad - s.ad).cwiseMin(0.0));  // rounding above 0 is noise
  }
  // One watt of each device, spread over its nodes.
  Eigen::MatrixXd heat = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(nd));
  Eigen::VectorXd idle = Eigen::VectorXd::Zero(n);
  for (std::size_t d = 0; d < nd; ++d)
    for (const auto& share : model.devices[d].heat) {
      const auto i = static_cast<Eigen::Index>(*initial.node_index(share.node));
      heat(i, static_cast<Eigen::Index>(d)) += share.share;
      idle(i) += share.share * model.devices[d].idle_w;
    }

  FanCredit out;
  out.nodes = model.nodes.size();
  Eigen::VectorXd low(n), next(n), credit(n), power(n);
  for (Eigen::Index i = 0; i < n; ++i) low(i) = initial.node_c(static_cast<std::size_t>(i));
  std::size_t seg = 0;
  for (std::uint64_t k = 0; k < steps; ++k) {
    while (seg + 1 < first.size() && first[seg + 1] <= k) ++seg;
    const double a = ambient_c[seg];
    const Eigen::VectorXd below = low.array() - a;
    credit.setZero();
    next.setConstant(1e300);
    for (std::size_t c = 0; c < configurations; ++c) {
      credit = credit.cwiseMax(diff[c] * below);
      power = idle;
      for (std::size_t d = 0; d < nd; ++d)
        power += demand[seg * nd + d] * device_power[c][d] * heat.col(static_cast<Eigen::Index>(d));
      next = next.cwiseMin(step[c].ad * low + step[c].bp * power + step[c].ba * a);
    }
    if (credit.maxCoeff() > 0) {
      out.steps.push_back(k);
      out.values.insert(out.values.end(), credit.data(), credit.data() + n);
      out.max_c = std::max(out.max_c, credit.maxCoeff());
    }
    low.swap(next);
  }
  return out;
}

}  // namespace coolhand::sim::detail

namespace coolhand::sim {

std::string fan_relaxation_note(const BoundResult& r) {
  if (!r.fan_relaxation) return {};
  if (r.fan_tight)
    return fmt::format(
        "fan bound: tight (--fan-bound tight, bound_fan_tight.cpp): max(floor {:.4f}, the "
        "per-level dual {:.4f} over state boxes tightened for the runs that hold the limit and "
        "reach the floor; {} LPs, {} without an optimum, lower bounds raised {:.3f} °C on "
        "average, {:.1f} s) against the relaxation's {:.4f}: an upper bound for every controller "
        "and fan schedule; the lowest peak skin is the relaxation's, a lower bound",
        r.fan_tight->floor, r.fan_tight->dual, r.fan_tight->lps, r.fan_tight->failed,
        r.fan_tight->mean_gain_c, r.fan_tight->seconds, r.fan_tight->relaxed);
  return fmt::format(
      "fan relaxation: fans at their strongest cooling and lowest power, noise cost dropped, "
      "below-ambient credit on {} steps (at most {:.3f} °C): the performance figure is an upper "
      "bound for every controller and fan schedule, the lowest peak skin a lower bound",
      r.fan_relaxation->credited_steps, r.fan_relaxation->max_credit_c);
}

}  // namespace coolhand::sim
