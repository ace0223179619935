// The offline-optimal throttle schedule as a linear programme (see bound.h
// for the formulation and what is guaranteed). Steps:
//   1. replay the workload as the runner applies it, one segment per row;
//   2. the lowest peak skin: every device at its lowest power, forward;
//   3. the coarse LP over decision steps, solved with GLPK's simplex;
//   4. the fine LP's Lagrangian dual value at the coarse skin multipliers,
//      one backward (adjoint) pass over every model step: the bound;
//   5. the coarse schedule replayed at every model step: its peak skin;
//   6. with --fan-bound tight, the per-level dual over tightened state
//      boxes (bound_fan_tight.cpp), which replaces the relaxation's figure
//      where lower.
#include "coolhand/sim/bound.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "bound_fan.h"
#include "bound_fan_tight.h"
#include "bound_linear.h"
#include "bound_lp.h"

namespace coolhand::sim {

namespace {

using detail::CoarseLp;
using detail::Dynamics;
using detail::forward;
using detail::Inputs;
using detail::Linear;
using detail::peak_skin;

// The fine LP's Lagrangian dual value (bound.h) for multipliers lambda on
// "skin node s <= limit at the start of step k", nonzero only at the starts
// of decision steps 1..B-1:
//   sum_{k,s} lambda(L - F_s(k))
//     + sum_{k,d} demand_d(k) max_l (w_d perf_l / W - power_l pi_d(k))
// with F the temperatures under idle power and ambient alone, and pi_d(k)
// the multiplier-weighted skin rise per watt of device d during step k,
// from the adjoint v(k-1) = ad^T v(k) + lambda(k), v(N-1) = 0.
double dual_bound(const Linear& lin, const Inputs& in, std::uint64_t m, double limit_c,
                  const CoarseLp& lp) {
  const std::uint64_t blocks = lp.blocks();
  const auto lambda = [&](std::uint64_t k, std::size_t s) {
    return k % m == 0 && k > 0 && k / m < blocks ? lp.skin_multiplier(k / m, s) : 0.0;
  };
  double value = 0;
  forward(
      lin, in, m, [](std::size_t, std::uint64_t) { return 0.0; },
      [&](std::uint64_t k, const Eigen::VectorXd& t) {
        if (k % m != 0 || k == 0) return;
        for (const auto s : lin.skin)
          value += lambda(k, s) * (limit_c - t(static_cast<Eigen::Index>(s)));
      });
  const std::size_t nd = lin.devices;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(lin.n));
  std::size_t seg = in.first.size() - 1;
  for (std::uint64_t k = in.steps; k-- > 0;) {
    while (in.first[seg] > k) --seg;
    const Dynamics& dyn = lin.dyn[in.dyn(k)];
    for (std::size_t d = 0; d < nd; ++d) {
      const double u = in.demand[seg * nd + d];
      if (u == 0.0) continue;
      const double pi = dyn.h.col(static_cast<Eigen::Index>(d)).dot(v);
      double best = -1e300;
      for (std::size_t l = 0; l < lin.power_w[d].size(); ++l) {
        if (lin.held_fan == d && l != in.held[k]) continue;  // the schedule's level only
        best = std::max(best, in.weight[d] * lin.performance[d][l] / in.total_weighted_demand -
                                  lin.power_w[d][l] * pi);
      }
      value += u * best;
    }
    if (k == 0) break;
    v = dyn.ad.transpose() * v;
    for (const auto s : lin.skin) v(static_cast<Eigen::Index>(s)) += lambda(k, s);
  }
  return value;
}

// The coarse LP's schedule per decision step (BoundOptions::schedule), its
// skin peaks from the same replay as BoundResult::schedule_peak_skin_c.
BoundSchedule schedule_of(const ModelSpec& spec, const Linear& lin, const Inputs& in,
                          std::uint64_t m, Millis model_step, const CoarseLp& lp) {
  BoundSchedule out;
  for (const auto& d : spec.devices) out.devices.push_back(d.name);
  out.skin_nodes = spec.skin_nodes;
  const std::size_t nd = lin.devices;
  out.steps.resize(lp.blocks());
  std::vector<double> weighted(lp.blocks(), 0.0), delivered(lp.blocks(), 0.0);
  std::size_t seg = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    while (seg + 1 < in.first.size() && in.first[seg + 1] <= k) ++seg;
    for (std::size_t d = 0; d < nd; ++d) {
      const double wu = in.weight[d] * in.demand[seg * nd + d];
      weighted[k / m] += wu;
      delivered[k / m] += wu * lp.scheduled_performance(d, k / m);
    }
  }
  for (std::uint64_t b = 0; b < lp.blocks(); ++b) {
    auto& step = out.steps[b];
    step.time_s = static_cast<double>(b * m) * static_cast<double>(model_step.count()) / 1000.0;
    for (std::size_t d = 0; d < nd; ++d) {
      step.power_w.push_back(lp.scheduled_power(d, b));
      step.performance.push_back(lp.scheduled_performance(d, b));
    }
    step.demand_share = weighted[b] / in.total_weighted_demand;
    step.step_performance = weighted[b] > 0 ? delivered[b] / weighted[b] : 1.0;
    step.peak_skin_c.assign(lin.skin.size(), -1e300);
  }
  forward(
      lin, in, m, [&](std::size_t d, std::uint64_t b) { return lp.scheduled_power(d, b); },
      [&](std::uint64_t k, const Eigen::VectorXd& t) {
        auto& peaks = out.steps[k / m].peak_skin_c;
        for (std::size_t s = 0; s < lin.skin.size(); ++s)
          peaks[s] = std::max(peaks[s], t(static_cast<Eigen::Index>(lin.skin[s])));
      });
  return out;
}

// The tight fan bound (bound_fan_tight.h) after the relaxation's LP `lp`
// was solved for performance: the per-level model, the relaxation's replay of
// the workload without its credit, the tightened nodes (the fan's cooled
// nodes: the level's cooling is charged at their lower bound).
std::variant<FanTightResult, std::string> tight_fan_bound(const ModelSpec& initial,
                                                          const Inputs& relaxed_in, CoarseLp& lp,
                                                          std::uint64_t m,
                                                          const BoundOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto h = detail::hold_fan(initial);
  if (auto* e = std::get_if<std::string>(&h)) return "--fan-bound tight: " + *e;
  const auto& held = std::get<detail::HeldFan>(h);
  Linear lin = detail::linearise(held.per_level);
  lin.held_fan = held.device;
  for (const auto& dyn : lin.dyn)
    if ((dyn.ad.array() < -1e-12).any() || (dyn.h.array() < -1e-12).any())
      return std::string("the model's step matrix has negative entries at a fan level");
  Inputs in = relaxed_in;  // the same replay, without the relaxation's credit
  in.fan_credit = {};
  const ThermalModel thermal(initial);
  std::vector<std::size_t> nodes;
  const auto add_node = [&](const std::string& name) {
    const std::size_t i = *thermal.node_index(name);
    if (std::find(nodes.begin(), nodes.end(), i) == nodes.end()) nodes.push_back(i);
  };
  for (const auto& e : initial.devices[held.device].cooling) add_node(e.node);
  std::vector<std::vector<double>> mu(lp.blocks(), std::vector<double>(lin.skin.size(), 0.0));
  for (std::uint64_t b = 1; b < lp.blocks(); ++b)
    for (std::size_t s = 0; s < lin.skin.size(); ++s) mu[b][s] = lp.skin_multiplier(b, lin.skin[s]);
  auto res = detail::tight_fan_bound(lin, in, lp, mu, m, options.limit_c, options.fan_tight->floor,
                                     nodes, options.fan_tight->rounds, options.progress);
  if (auto* e = std::get_if<std::string>(&res)) return *e;
  auto out = std::get<FanTightResult>(std::move(res));
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Inputs::held from BoundOptions::fan_schedule; empty on success, else why
// the schedule cannot be followed.
std::string hold_levels(const std::vector<BoundOptions::FanHold>& schedule, const Linear& lin,
                        Millis model_step, Millis decision_step, Inputs& in) {
  const std::size_t levels = lin.power_w[*lin.held_fan].size();
  const auto decision_ms = decision_step.count();
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto from = schedule[i].from.count();
    if (i == 0 && from != 0)
      return fmt::format("the fan schedule must start at 0 s, not {:g} s", from / 1000.0);
    if (i > 0 && from <= schedule[i - 1].from.count())
      return fmt::format("the fan schedule's times must increase ({:g} s after {:g} s)",
                         from / 1000.0, schedule[i - 1].from.count() / 1000.0);
    if (from % decision_ms != 0)
      return fmt::format(
          "the fan schedule's time {:g} s is no whole number of {:g} s decision steps",
          from / 1000.0, decision_ms / 1000.0);
    if (schedule[i].level >= levels)
      return fmt::format("the fan has levels 0..{}, not {}", levels - 1, schedule[i].level);
  }
  in.held.resize(in.steps);
  std::size_t i = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    const auto t_ms = static_cast<std::int64_t>(k) * model_step.count();
    while (i + 1 < schedule.size() && schedule[i + 1].from.count() <= t_ms) ++i;
    in.held[k] = schedule[i].level;
  }
  return {};
}

}  // namespace

std::variant<BoundOptions::FanHold, std::string> parse_fan_hold(std::string_view text) {
  const auto bad = [&] {
    return fmt::format("'{}': expected S:LEVEL, a time in seconds and a fan level (e.g. 300:2)",
                       text);
  };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) return bad();
  const auto at = parse_run_seconds(text.substr(0, colon));
  const std::string l(text.substr(colon + 1));
  if (!at) return bad();
  if (l.find_first_not_of("0123456789") != std::string::npos || l.size() > 3) return bad();
  return BoundOptions::FanHold{*at, static_cast<std::size_t>(std::stoul(l))};
}

std::string bound_schedule_csv(const BoundSchedule& schedule) {
  std::string csv = "time_s";
  for (const auto& d : schedule.devices) csv += fmt::format(",{0}_power_w,{0}_performance", d);
  csv += ",demand_share,performance";
  for (const auto& s : schedule.skin_nodes) csv += fmt::format(",{}_peak_c", s);
  csv += "\n";
  for (const auto& step : schedule.steps) {
    csv += fmt::format("{:g}", step.time_s);
    for (std::size_t d = 0; d < step.power_w.size(); ++d)
      csv += fmt::format(",{:.6g},{:.6g}", step.power_w[d], step.performance[d]);
    csv += fmt::format(",{:.6g},{:.6g}", step.demand_share, step.step_performance);
    for (const double c : step.peak_skin_c) csv += fmt::format(",{:.4f}", c);
    csv += "\n";
  }
  return csv;
}

std::variant<BoundResult, std::string> compute_bound(const ModelSpec& model,
                                                     const Workload& workload,
                                                     const BoundOptions& options) {
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  // From the workload's initial state; a model with fans is bounded through
  // its relaxation (bound_fan.cpp).
  const ModelSpec initial = workload.start(model);
  const bool held = !options.fan_schedule.empty();
  const bool fans = !held && std::any_of(initial.devices.begin(), initial.devices.end(),
                                         [](const auto& d) { return !d.cooling.empty(); });
  if (options.fan_tight && !fans)
    return std::string(held ? "--fan-bound tight and --fan-at: one or the other"
                            : "--fan-bound tight needs a model with a fan; this one has none");
  std::vector<ModelSpec> specs{fans ? detail::relax_fans(initial) : initial};
  std::optional<std::size_t> held_fan;
  if (held) {
    auto h = detail::hold_fan(initial);
    if (auto* e = std::get_if<std::string>(&h)) return *e;
    held_fan = std::get<detail::HeldFan>(h).device;
    specs = std::move(std::get<detail::HeldFan>(h).per_level);
  }
  Linear lin = detail::linearise(specs);
  lin.held_fan = held_fan;
  for (const auto& dyn : lin.dyn)
    if ((dyn.ad.array() < -1e-12).any() || (dyn.h.array() < -1e-12).any())
      return std::string(
          "the model's step matrix has negative entries; the bound needs a "
          "monotone RC model");
  Inputs in = detail::replay_inputs(model, workload);
  if (in.steps == 0) return std::string("the workload is 0 s long");
  BoundResult r;
  r.fan_held = held;
  if (fans) {
    auto credit = detail::fan_credit(initial, in.steps, in.first, in.demand, in.ambient_c);
    if (auto* e = std::get_if<std::string>(&credit)) return *e;
    in.fan_credit = std::move(std::get<detail::FanCredit>(credit));
    r.fan_relaxation = FanRelaxation{in.fan_credit.steps.size(), in.fan_credit.max_c};
  }
  r.limit_c = options.limit_c;
  r.steps = in.steps;

  const auto step_ms = model.time_step.count();
  std::uint64_t m =
      std::max<std::uint64_t>(1, (in.steps + kBoundMaxDecisionSteps - 1) / kBoundMaxDecisionSteps);
  if (options.decision_step) {
    const auto ms = options.decision_step->count();
    if (ms <= 0 || ms % step_ms != 0)
      return "the decision step must be a positive multiple of the model's " +
             std::to_string(step_ms) + " ms step, not " + std::to_string(ms) + " ms";
    m = static_cast<std::uint64_t>(ms / step_ms);
  }
  r.decision_step = Millis(static_cast<std::int64_t>(m) * step_ms);
  if (held) {
    if (auto e = hold_levels(options.fan_schedule, lin, model.time_step, r.decision_step, in);
        !e.empty())
      return e;
  }

  std::vector<double> lowest_power;
  for (const auto& p : lin.power_w) lowest_power.push_back(*std::min_element(p.begin(), p.end()));
  r.lowest_peak_skin_c = -1e300;
  forward(
      lin, in, 1,
      [&](std::size_t d, std::uint64_t k) {
        return lin.held_fan == d ? lin.power_w[d][in.held[k]] : lowest_power[d];
      },
      [&](std::uint64_t, const Eigen::VectorXd& t) {
        r.lowest_peak_skin_c = std::max(r.lowest_peak_skin_c, peak_skin(lin, t));
      });
  if (options.limit_c < r.lowest_peak_skin_c) return r;
  r.feasible = true;

  if (in.total_weighted_demand <= 0) {  // nothing demanded: the runner reports 1
    r.performance_bound = r.schedule_performance = 1.0;
    r.schedule_peak_skin_c = r.lowest_peak_skin_c;
    return r;
  }

  const auto start = std::chrono::steady_clock::now();
  CoarseLp lp(lin, in, m, options.limit_c);
  r.decision_steps = lp.blocks();
  r.variables = lp.columns();
  r.constraints = lp.rows();
  say("bound: " + std::to_string(in.steps) + " model steps in " + std::to_string(lp.blocks()) +
      " decision steps of " + std::to_string(r.decision_step.count()) + " ms; LP with " +
      std::to_string(r.variables) + " variables and " + std::to_string(r.constraints) +
      " constraints");
  if (auto e = lp.solve(options.progress); !e.empty()) return e;
  r.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.schedule_performance = lp.objective();
  r.performance_bound = dual_bound(lin, in, m, options.limit_c, lp);
  r.schedule_peak_skin_c = -1e300;
  forward(
      lin, in, m, [&](std::size_t d, std::uint64_t b) { return lp.scheduled_power(d, b); },
      [&](std::uint64_t, const Eigen::VectorXd& t) {
        r.schedule_peak_skin_c = std::max(r.schedule_peak_skin_c, peak_skin(lin, t));
      });
  if (options.schedule) r.schedule = schedule_of(initial, lin, in, m, model.time_step, lp);
  if (fans && options.fan_tight) {
    auto tight = tight_fan_bound(initial, in, lp, m, options);
    if (auto* e = std::get_if<std::string>(&tight)) return *e;
    r.fan_tight = std::get<FanTightResult>(tight);
    r.fan_tight->relaxed = r.performance_bound;
    // Both figures are upper bounds: the lower one is reported.
    r.performance_bound =
        std::min(r.performance_bound, std::max(r.fan_tight->floor, r.fan_tight->dual));
  }
  return r;
}

}  // namespace coolhand::sim
