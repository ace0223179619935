// What a tuned policy must achieve per workload for `compare` to pass it:
// the TuneTarget of each workload (tune.h), from the kernel baselines run
// once before the search and the performance bound's lowest peak skin.
//
// The rules, those of compare's check_targets (compare.h) restated:
//  - max skin at most max(limit, lowest peak skin any schedule reaches) +
//    tolerance: the bound's floor lifts the limit only where no schedule can
//    hold it (a start soaked above the limit, a hot car). Tune judges each
//    skin node's peak against the floor + that node's own tolerance; compare
//    judges the hottest node against the floor + 0.5, so the floor is the
//    same for every node (it is the bound's lowest peak of the hottest);
//  - °C·s over the limit at most every kernel baseline's (so where one
//    baseline never exceeds the limit, neither may the policy, tolerance or
//    not);
//  - performance at least that of the best kernel baseline whose max skin
//    never exceeds the limit (judged on the candidate's performance plus the
//    workload's performance bias, tune.h).
// With them each target keeps the workload's performance bound, for the
// objective's bound share (tune.h), not a target compare checks.
// Compare's fourth check, fewer level changes per minute than step_wise, is
// left out: issue 13's targets do not include it, and where step_wise never
// acts (0 changes/min) it would forbid any throttling at all.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "coolhand/sim/runner.h"
#include "coolhand/sim/tune.h"
#include "parallel.h"

namespace coolhand::sim {

namespace tune_targets_detail {

// The whole of `text` as a finite number (std::from_chars: no leading '+',
// no spaces), or nothing.
std::optional<double> finite_number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// "a, b, c": the names an unknown one is checked against, for its error.
std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace tune_targets_detail

std::vector<TuneTarget> tune_targets(const ModelSpec& model, const std::vector<Workload>& workloads,
                                     const std::vector<Governor>& governors, KernelVersion kernel,
                                     const std::vector<std::optional<BoundResult>>& bounds,
                                     double limit_c, std::uint64_t seed, unsigned threads) {
  const std::size_t nw = workloads.size(), ng = governors.size();
  std::vector<Metrics> runs(nw * ng);
  parallel_for(runs.size(), threads, [&](std::size_t task) {
    const std::size_t w = task / ng, g = task % ng;
    auto ctl = make_governor_controller(model, governors[g], kernel);
    RunOptions options;
    options.record_trace = false;
    runs[task] = run_from_start(model, workloads[w], *ctl, seed, options).metrics;
  });

  std::vector<TuneTarget> out(nw);
  for (std::size_t w = 0; w < nw; ++w) {
    TuneTarget& t = out[w];
    for (std::size_t g = 0; g < ng; ++g) {
      if (governors[g] == Governor::none) continue;  // not a kernel baseline (compare.h)
      const Metrics& b = runs[w * ng + g];
      t.allowed_degree_seconds =
          std::min(t.allowed_degree_seconds.value_or(b.degree_seconds_over_limit),
                   b.degree_seconds_over_limit);
      if (b.max_skin_c <= limit_c &&
          (!t.baseline_performance || b.performance > *t.baseline_performance)) {
        t.baseline_performance = b.performance;
        t.baseline = std::string(to_string(governors[g]));
      }
    }
  }
  apply_bounds(out, bounds, limit_c);
  return out;
}

void apply_bounds(std::vector<TuneTarget>& targets,
                  const std::vector<std::optional<BoundResult>>& bounds, double limit_c) {
  for (std::size_t w = 0; w < targets.size(); ++w) {
    TuneTarget& t = targets[w];
    const BoundResult* b = w < bounds.size() && bounds[w] ? &*bounds[w] : nullptr;
    t.skin_floor_c = b && !b->feasible ? std::max(limit_c, b->lowest_peak_skin_c) : limit_c;
    t.performance_bound =
        b && b->feasible ? std::optional<double>(b->performance_bound) : std::nullopt;
  }
}

double skin_allowed_c(const TuneSettings& settings, std::size_t w, std::size_t n) {
  const double floor_c =
      w < settings.targets.size() ? settings.targets[w].skin_floor_c : settings.limit_c;
  if (w < settings.workload_tolerance_c.size() && n < settings.workload_tolerance_c[w].size() &&
      settings.workload_tolerance_c[w][n])
    return floor_c + *settings.workload_tolerance_c[w][n];
  const auto& tol = settings.tolerance_c;
  return floor_c + (tol.empty() ? 0.0 : tol[std::min(n, tol.size() - 1)]);
}

std::variant<TuneTolerances, std::string> parse_tolerances(
    const std::vector<std::string>& args, const std::vector<std::string>& skin_nodes,
    const std::vector<std::string>& workload_names, double fallback_c) {
  std::optional<double> all;
  std::vector<std::optional<double>> own(skin_nodes.size());
  std::vector<std::vector<std::optional<double>>> by_workload;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    const auto parsed =
        tune_targets_detail::finite_number(eq == std::string::npos ? arg : arg.substr(eq + 1));
    if (!parsed)
      return fmt::format("--tolerance '{}': expected °C (a number), NODE=°C or WORKLOAD:NODE=°C",
                         arg);
    const double t = *parsed;
    if (eq == std::string::npos) {
      if (all) return fmt::format("--tolerance '{}': every node's tolerance given twice", arg);
      all = t;
      continue;
    }
    const std::string key = arg.substr(0, eq);
    const auto colon = key.find(':');
    const std::string node = colon == std::string::npos ? key : key.substr(colon + 1);
    const auto it = std::find(skin_nodes.begin(), skin_nodes.end(), node);
    if (it == skin_nodes.end())
      return fmt::format("--tolerance '{}': no skin node '{}' in the model (its skin nodes: {})",
                         arg, node, tune_targets_detail::listed(skin_nodes));
    const auto n = static_cast<std::size_t>(it - skin_nodes.begin());
    if (colon == std::string::npos) {
      if (own[n]) return fmt::format("--tolerance '{}': {}'s tolerance given twice", arg, node);
      own[n] = t;
      continue;
    }
    const std::string workload = key.substr(0, colon);
    const auto wt = std::find(workload_names.begin(), workload_names.end(), workload);
    if (wt == workload_names.end())
      return fmt::format("--tolerance '{}': no workload '{}' in the suite (its workloads: {})", arg,
                         workload, tune_targets_detail::listed(workload_names));
    if (by_workload.empty())
      by_workload.assign(workload_names.size(),
                         std::vector<std::optional<double>>(skin_nodes.size()));
    auto& slot = by_workload[static_cast<std::size_t>(wt - workload_names.begin())][n];
    if (slot)
      return fmt::format("--tolerance '{}': {}'s tolerance on {} given twice", arg, node, workload);
    slot = t;
  }
  TuneTolerances out;
  out.node_c.reserve(own.size());
  for (const auto& t : own) out.node_c.push_back(t.value_or(all.value_or(fallback_c)));
  out.workload_node_c = std::move(by_workload);
  return out;
}

std::variant<std::vector<double>, std::string> parse_performance_biases(
    const std::vector<std::string>& args, const std::vector<std::string>& workload_names) {
  std::vector<std::optional<double>> own(workload_names.size());
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
      return fmt::format("--performance-bias '{}': expected WORKLOAD=D (e.g. gaming-hot=-0.0012)",
                         arg);
    const std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
    const auto it = std::find(workload_names.begin(), workload_names.end(), name);
    if (it == workload_names.end())
      return fmt::format(
          "--performance-bias '{}': no workload '{}' in the suite (its workloads: {})", arg, name,
          tune_targets_detail::listed(workload_names));
    const auto parsed = tune_targets_detail::finite_number(value);
    if (!parsed)
      return fmt::format("--performance-bias '{}': expected WORKLOAD=D, D a number", arg);
    const double d = *parsed;
    auto& slot = own[static_cast<std::size_t>(it - workload_names.begin())];
    if (slot) return fmt::format("--performance-bias '{}': {}'s bias given twice", arg, name);
    slot = d;
  }
  std::vector<double> out;
  out.reserve(own.size());
  for (const auto& d : own) out.push_back(d.value_or(0.0));
  return out;
}

}  // namespace coolhand::sim
