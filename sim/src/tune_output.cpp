// What `coolhand-sim tune` writes: the tuned policy (the original text with
// the chosen values, under a header comment saying how it was tuned and
// what it achieves) and the convergence plot. Nothing here depends on wall
// time or the thread count, so equal runs write equal bytes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "coolhand/sim/output.h"
#include "coolhand/sim/tune.h"

namespace coolhand::sim {

namespace {

// Every header line starts with this; a re-tuned policy's old header (its
// first lines with this prefix) is replaced, not stacked.
constexpr std::string_view kHeaderPrefix = "# tune: ";

std::string strip_old_header(const std::string& text) {
  std::size_t pos = 0;
  while (text.compare(pos, kHeaderPrefix.size(), kHeaderPrefix) == 0) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos) return {};
    pos = nl + 1;
  }
  return text.substr(pos);
}

std::string value_text(const TuneParam& p, double v) {
  switch (p.kind) {
    case TuneParam::Kind::limit_offset:
      return fmt::format("{}{:+g}", p.limit, v);
    case TuneParam::Kind::duration_s:
      return fmt::format("{:g}s", v);
    case TuneParam::Kind::integer:
    case TuneParam::Kind::number:
      break;
  }
  return fmt::format("{:g}", v);
}

// "front_skin 0.090, back_skin 0.316", or one value when every node shares it.
std::string tolerances_text(const TuneSettings& settings, const TuneReportInputs& report) {
  const auto& tol = settings.tolerance_c;
  if (std::all_of(tol.begin(), tol.end(), [&](double t) { return t == tol.front(); }))
    return fmt::format("{:.3f}", tol.empty() ? 0.0 : tol.front());
  std::string out;
  for (std::size_t n = 0; n < report.skin_nodes.size(); ++n)
    out += fmt::format("{}{} {:.3f}", out.empty() ? "" : ", ", report.skin_nodes[n],
                       tol[std::min(n, tol.size() - 1)]);
  return out;
}

}  // namespace

std::string tuned_policy_text(const TuneJob& job, const TuneSettings& settings,
                              const TuneOutcome& outcome, const TuneReportInputs& report) {
  const auto& problem = *job.problem;
  const auto& best = outcome.best;
  const auto& start = *outcome.global.evals.front();
  std::vector<std::string> lines;
  lines.push_back(fmt::format("Tuned by `coolhand-sim tune` for model '{}'.", report.model_name));
  std::string suite;
  for (const auto& w : report.workload_names) suite += (suite.empty() ? "" : ", ") + w;
  lines.push_back(fmt::format("Suite ({} workloads): {}.", report.workload_names.size(), suite));
  const std::string tolerances = tolerances_text(settings, report);
  const bool share =
      std::any_of(settings.targets.begin(), settings.targets.end(),
                  [](const TuneTarget& t) { return t.performance_bound.has_value(); });
  const std::string objective =
      share ? fmt::format(
                  "mean performance over the suite - {:g} x the sum over workloads of "
                  "max(0, {:g} x the bound - performance - its performance bias)",
                  kBoundShortfallWeight, kBoundShare)
            : std::string("mean performance over the suite");
  if (settings.targets.empty())
    lines.push_back(fmt::format(
        "Objective: {}; constraint: each skin node's max skin <= limit {:.2f} + tolerance {} on "
        "every workload.",
        objective, settings.limit_c, tolerances));
  else
    lines.push_back(fmt::format(
        "Objective: {}; constraints per workload (compare's targets): each skin node's max skin "
        "<= max(limit {:.2f}, the bound's lowest peak skin where no schedule holds the limit) + "
        "tolerance {}; °C·s over the limit <= the fewest of the kernel baselines ({}); "
        "performance + its performance bias >= the best of them whose max skin <= the limit.",
        objective, settings.limit_c, tolerances,
        report.baselines.empty() ? std::string("none run") : report.baselines));
  if (settings.limit_margin_c != 0)
    lines.push_back(fmt::format(
        "°C·s counted from limit - {:.3f} °C on this model (--limit-margin: the device's measured "
        "excess near the limit plus a margin).",
        settings.limit_margin_c));
  std::string own;
  for (std::size_t w = 0; w < settings.workload_tolerance_c.size(); ++w)
    for (std::size_t n = 0; n < settings.workload_tolerance_c[w].size(); ++n)
      if (const auto& t = settings.workload_tolerance_c[w][n];
          t && w < report.workload_names.size() && n < report.skin_nodes.size())
        own += fmt::format("{}{} {} {:.3f}", own.empty() ? "" : ", ", report.workload_names[w],
                           report.skin_nodes[n], *t);
  if (!own.empty())
    lines.push_back(fmt::format(
        "Tolerance per workload (--tolerance WORKLOAD:NODE=T, winning over the above): {}.", own));
  std::string biases;
  for (std::size_t w = 0; w < settings.performance_bias.size(); ++w)
    if (settings.performance_bias[w] != 0 && w < report.workload_names.size())
      biases += fmt::format("{}{} {:+.6f}", biases.empty() ? "" : ", ", report.workload_names[w],
                            settings.performance_bias[w]);
  if (!biases.empty())
    lines.push_back(
        fmt::format("Performance bias (device - model, --performance-bias): {}.", biases));
  lines.push_back(fmt::format(
      "Search: seed {}{}; {} global candidates (Halton; best: candidate {}), {} local evaluations "
      "(NLopt COBYLA, first step {:g} of each range, ended by: {}){}.",
      settings.seed,
      settings.noise_seeds > 1
          ? fmt::format(" (each candidate's worst over noise seeds {}..{})", settings.seed,
                        settings.seed + settings.noise_seeds - 1)
          : std::string(),
      outcome.global.candidates, outcome.best_global_index, outcome.local.size(),
      settings.local_step, outcome.local_stop,
      outcome.global.stopped_by_budget || outcome.local_stopped_by_budget
          ? "; stopped by the time budget"
          : ""));
  lines.push_back(
      fmt::format("Result: suite performance {:.4f} (as written: {:.4f}), objective {:.4f}; {}.",
                  best.suite_performance, start.suite_performance, best.objective,
                  best.violation_c > 0
                      ? fmt::format("misses its targets by {:.2f} °C-equivalent in total (tune.h, "
                                    "TuneEval::violation_c): no candidate met them all",
                                    best.violation_c)
                      : std::string("every workload's target met")));
  // One column per skin node: its peak / its own allowance.
  std::string node_heads;
  std::vector<std::size_t> widths;
  for (const auto& n : report.skin_nodes) {
    widths.push_back(std::max<std::size_t>(11, n.size() + 8));
    node_heads += fmt::format(" {:>{}}", n + "/allowed", widths.back());
  }
  lines.push_back(fmt::format("{:<16}{} {:>8} {:>9} {:>7} {:>22} {:>7} {:>8}", "workload",
                              node_heads, "deg_s", "allowed", "perf", "best holding baseline",
                              "bound", "of_bound"));
  for (std::size_t w = 0; w < report.workload_names.size(); ++w) {
    const auto& b = w < report.bounds.size() ? report.bounds[w] : std::nullopt;
    std::string bound = "-", of = "-";
    if (b && b->feasible) {
      bound = fmt::format("{:.4f}", b->performance_bound);
      of = fmt::format("{:.4f}", best.performance[w] / b->performance_bound);
    } else if (b) {
      bound = "none";  // no schedule holds the limit
    }
    std::string nodes;
    for (std::size_t n = 0; n < report.skin_nodes.size(); ++n) {
      const double peak =
          n < best.node_max_skin_c[w].size() ? best.node_max_skin_c[w][n] : std::nan("");
      nodes += fmt::format(
          " {:>{}}", fmt::format("{:.2f}/{:.2f}", peak, skin_allowed_c(settings, w, n)), widths[n]);
    }
    std::string allowed_ds = "-", baseline = "-";
    if (w < settings.targets.size()) {
      const TuneTarget& t = settings.targets[w];
      if (t.allowed_degree_seconds) allowed_ds = fmt::format("{:.1f}", *t.allowed_degree_seconds);
      if (t.baseline_performance)
        baseline = fmt::format("{} {:.4f}", t.baseline, *t.baseline_performance);
    }
    lines.push_back(fmt::format("{:<16}{} {:>8.1f} {:>9} {:>7.4f} {:>22} {:>7} {:>8}",
                                report.workload_names[w], nodes,
                                w < best.degree_seconds.size() ? best.degree_seconds[w] : 0.0,
                                allowed_ds, best.performance[w], baseline, bound, of));
  }
  if (std::any_of(settings.tolerance_c.begin(), settings.tolerance_c.end(),
                  [](double t) { return t > 0; }))
    lines.emplace_back(
        "(bound: the most performance any controller could deliver with max skin <= the limit "
        "itself; of_bound is above 1 only for a run over the limit, within the tolerance.)");
  if (!report.bound_note.empty()) lines.push_back(report.bound_note);
  lines.emplace_back("Parameters (as written -> tuned, range):");
  for (std::size_t j = 0; j < problem.params.size(); ++j) {
    const auto& p = problem.params[j];
    lines.push_back(fmt::format("  {}: {} -> {} [{:g}, {:g}]", p.path, value_text(p, p.start),
                                value_text(p, best.x[j]), p.lo, p.hi));
  }
  std::string out;
  for (const auto& l : lines) out += std::string(kHeaderPrefix) + l + "\n";
  return out + strip_old_header(substitute(problem, best.x));
}

std::string convergence_svg(const TuneOutcome& outcome, const TuneSettings& settings,
                            const std::string& title) {
  std::vector<const TuneEval*> all;
  for (const auto& e : outcome.global.evals)
    if (e) all.push_back(&*e);
  for (const auto& e : outcome.local) all.push_back(&e);
  // Performance as the change against the policy as written, in %: the
  // differences a search finds are a few per cent or less.
  std::vector<double> x, perf, best_perf, skin_over, best_skin_over;
  const TuneEval* best = nullptr;
  const double base = all.empty() ? 0.0 : all.front()->suite_performance;
  const auto change = [&](double p) { return base > 0 ? 100.0 * (p / base - 1.0) : 0.0; };
  for (std::size_t i = 0; i < all.size(); ++i) {
    const TuneEval& e = *all[i];
    if (!best || better(e, *best)) best = &e;
    x.push_back(static_cast<double>(i + 1));
    // The skin's worst miss over the workloads (target_misses' first part).
    const auto over = [&](const TuneEval& t) {
      if (t.max_skin_c.empty() || !t.error.empty()) return std::nan("");
      double worst = -std::numeric_limits<double>::infinity();
      for (std::size_t w = 0; w < t.max_skin_c.size(); ++w)
        worst = std::max(worst, target_misses(settings, t, w)[0]);
      return worst;
    };
    perf.push_back(e.error.empty() ? change(e.suite_performance) : std::nan(""));
    best_perf.push_back(change(best->suite_performance));
    skin_over.push_back(over(e));
    best_skin_over.push_back(over(*best));
  }
  const double global_end = static_cast<double>(outcome.global.candidates);
  std::vector<CountPanel> panels;
  panels.push_back(CountPanel{
      fmt::format("Suite performance against the policy as written (global stage 1-{:g}, "
                  "then local)",
                  global_end),
      " %",
      {{"evaluation", perf, true}, {"best so far", best_perf, false}},
      std::nullopt});
  panels.push_back(CountPanel{
      "Skin over its allowance: worst workload and skin node (each node: floor + its own "
      "tolerance; <= 0 holds)",
      " °C",
      {{"evaluation", skin_over, true}, {"best so far", best_skin_over, false}},
      0.0});
  return plot_count_svg(x, "eval", panels, title);
}

}  // namespace coolhand::sim
