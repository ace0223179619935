// Runs the comparison matrix and formats it; see compare.h.
#include "coolhand/sim/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "coolhand/sim/output.h"

namespace coolhand::sim {

namespace {

// °C over the skin limit the coolhand policy may reach. Granted to the policy
// only: a kernel baseline holds the limit when its skin never exceeds it.
constexpr double kOvershootAllowed = kOvershootAllowedC;

// Said instead of the baseline targets when no kernel governor ran.
constexpr const char* kNoBaseline =
    "no kernel baseline to compare against (add e.g. -g step_wise -g power_allocator)";

// A baseline holds the limit when its hottest skin never exceeds it (0 s and
// 0 °C·s over). The policy's 0.5 °C tolerance does not extend to baselines:
// with it, a baseline could set a performance bar that only a controller
// spending time over the limit can reach, while the policy must also match
// the degree-seconds of baselines that spend none (on the reference gaming
// run bang_bang's 0.9634 at 45.49 °C is above 0.9607, the bound for any
// controller at or below 45.0 °C; docs/simulator.md, "Performance bound").
bool holds_limit(const Metrics& m, double limit_c) {
  return m.max_skin_c <= limit_c;
}

// What the overlay plot needs of a run: time, hottest skin and delivered
// performance. The runner records them already thinned to kPlotMaxPoints
// rows (RunOptions::trace_max_rows: each row the highest skin and lowest
// performance of its stretch of steps, so short peaks and dips stay
// visible), so neither the run in progress nor the kept cells grow with
// run length; the other series are dropped.
Trace overlay_trace(Trace&& thinned) {
  Trace out;
  out.time_s = std::move(thinned.time_s);
  out.max_skin_c = std::move(thinned.max_skin_c);
  out.performance = std::move(thinned.performance);
  return out;
}

// Where the bound says no schedule holds the limit (a start soaked above
// it, a hot car), the lowest peak skin any schedule reaches; the policy is
// held to it + the overshoot instead of to the limit, which it cannot meet.
// Unset where the limit is feasible or no bound was computed.
std::optional<double> infeasible_floor(const CompareResult& r, std::size_t scenario) {
  if (scenario >= r.bounds.size() || !r.bounds[scenario] || r.bounds[scenario]->feasible)
    return std::nullopt;
  return std::max(r.skin_limit_c, r.bounds[scenario]->lowest_peak_skin_c);
}

bool any_bound(const CompareResult& r) {
  return std::any_of(r.bounds.begin(), r.bounds.end(),
                     [](const std::optional<BoundResult>& b) { return b.has_value(); });
}

constexpr const char* kOfBoundMeaning =
    "of bound = perf / the most performance any controller could deliver on the scenario with "
    "max skin <= limit (`coolhand-sim bound`); above 1 only for a controller over the limit.\n\n";

// A controller's performance as a fraction of its scenario's bound.
std::string of_bound(const CompareResult& r, std::size_t scenario, const Metrics& m) {
  const auto& b = r.bounds[scenario];
  if (!b || !b->feasible) return "-";
  return fmt::format("{:.4f}", m.performance / b->performance_bound);
}

// Which fan bound scenario `s` used, and its figures. No wall times: a
// merged run prints what one machine does.
std::string fan_bound_note(const CompareResult& r, std::size_t s) {
  const BoundResult& b = *r.bounds[s];
  if (!b.fan_tight) {
    const char* why = r.fan_bound == FanBoundChoice::relaxed ? "--fan-bound relaxed"
                      : b.performance_bound >= 1.0 ? "nothing demanded, nothing to tighten"
                                                   : "the tight bound needs a model with one fan";
    return fmt::format("fan bound: the relaxation ({}); {}", why, fan_relaxation_note(b));
  }
  const FanTightResult& t = *b.fan_tight;
  const TightFloor f = tight_floor(r, s);
  const std::string floor =
      f.controller ? fmt::format("{}'s performance, the best of the runs that hold the limit",
                                 r.controllers[*f.controller])
                   : std::string("0: no compared run holds the limit");
  const std::string boxes =
      t.lps + t.failed == 0
          ? std::string(
                "no box tightened: every skin multiplier of the relaxation's LP is 0 (its "
                "limit never binds), and then the dual does not depend on the boxes")
          : fmt::format(
                "{} tightening LPs, {} without an optimum, lower bounds raised "
                "{:.3f} °C on average",
                t.lps, t.failed, t.mean_gain_c);
  return fmt::format(
      "fan bound: tight (--fan-bound tight, bound_fan_tight.cpp): min(relaxation {:.4f}, max(V "
      "{:.4f}, dual {:.4f})), V = {}; {}; an upper bound for every controller and fan schedule",
      t.relaxed, t.floor, t.dual, floor, boxes);
}

// One line per scenario: its bound, or why there is none.
std::string bound_lines(const CompareResult& r, const char* bullet) {
  std::string out;
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    const auto& b = r.bounds[s];
    if (!b) continue;
    if (b->feasible)
      out += fmt::format(
          "{}bound {}: {:.4f} with max skin <= {:.1f} °C; lowest peak skin any schedule reaches "
          "{:.2f} °C\n",
          bullet, r.scenarios[s], b->performance_bound, b->limit_c, b->lowest_peak_skin_c);
    else
      out += fmt::format(
          "{}bound {}: no schedule keeps max skin <= {:.1f} °C; the lowest peak skin any schedule "
          "reaches is {:.2f} °C\n",
          bullet, r.scenarios[s], b->limit_c, b->lowest_peak_skin_c);
    if (b->fan_relaxation && b->feasible)
      out += fmt::format("{}  {}\n", bullet, fan_bound_note(r, s));
    else if (b->fan_relaxation)
      out += fmt::format("{}  {}\n", bullet, fan_relaxation_note(*b));
  }
  return out;
}

}  // namespace

std::string_view to_string(FanBoundChoice c) {
  return c == FanBoundChoice::tight ? "tight" : "relaxed";
}

bool tight_fan_bound_applies(const ModelSpec& model) {
  return std::count_if(model.devices.begin(), model.devices.end(),
                       [](const auto& d) { return !d.cooling.empty(); }) == 1;
}

TightFloor tight_floor(const CompareResult& r, std::size_t s) {
  TightFloor f;
  for (std::size_t c = 0; c < r.controllers.size(); ++c) {
    const Metrics& m = r.cells[s][c].metrics;
    if (holds_limit(m, r.skin_limit_c) && (!f.controller || m.performance > f.performance)) {
      f.performance = m.performance;
      f.controller = c;
    }
  }
  return f;
}

std::variant<CompareResult, std::string> run_compare(
    const ModelSpec& model, const std::vector<Workload>& workloads,
    const std::vector<ControllerChoice>& controllers, std::uint64_t seed,
    std::optional<FanBoundChoice> bound, const std::function<void(std::string_view)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  CompareResult r;
  r.skin_limit_c = model.skin_limit_c;
  r.fan_bound = bound.value_or(FanBoundChoice::tight);
  const bool tight = bound == FanBoundChoice::tight && tight_fan_bound_applies(model);
  for (const auto& c : controllers) r.controllers.push_back(c.label);
  for (const auto& w : workloads) {
    r.scenarios.push_back(w.name());
    std::vector<CompareCell> row;
    for (const auto& c : controllers) {
      std::unique_ptr<Controller> ctl;
      if (c.governor) {
        ctl = make_governor_controller(model, *c.governor, c.kernel);
      } else {
        auto made = make_policy_controller(model, *c.policy, c.label);
        if (auto* e = std::get_if<std::string>(&made)) return c.label + ": " + *e;
        ctl = std::move(std::get<std::unique_ptr<Controller>>(made));
      }
      RunOptions options;
      options.trace_max_rows = kPlotMaxPoints;
      auto res = run_from_start(model, w, *ctl, seed, options);
      r.steps += res.metrics.steps;
      Trace kept = overlay_trace(std::move(res.trace));
      row.push_back(CompareCell{std::move(res.metrics), std::move(kept)});
    }
    r.cells.push_back(std::move(row));
    if (!bound) {
      r.bounds.emplace_back(std::nullopt);
      continue;
    }
    // After the runs: the tight bound's floor is the best of them that
    // holds the limit (any floor is valid; this one is the closest to the
    // optimum the runs show, and keeps the figure >= every such run).
    const auto bound_start = std::chrono::steady_clock::now();
    BoundOptions options;
    options.limit_c = model.skin_limit_c;
    options.progress = progress;
    if (tight)
      options.fan_tight =
          BoundOptions::FanTight{tight_floor(r, r.scenarios.size() - 1).performance};
    auto b = compute_bound(model, w, options);
    if (auto* e = std::get_if<std::string>(&b)) return "bound: " + w.name() + ": " + *e;
    auto& kept = r.bounds.emplace_back(std::get<BoundResult>(std::move(b)));
    if (kept->fan_tight) std::vector<double>().swap(kept->fan_tight->lower_c);  // figures only
    r.bounds_wall_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - bound_start).count();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() -
             r.bounds_wall_s;
  return r;
}

bool has_kernel_baseline(const CompareResult& r) {
  return std::any_of(r.controllers.begin(), r.controllers.end(), [](const std::string& c) {
    const auto g = governor_from_string(c);
    return g && *g != Governor::none;
  });
}

std::vector<std::string> check_targets(const CompareResult& r) {
  std::vector<std::string> failures;
  std::vector<bool> kernel(r.controllers.size(), false);
  std::vector<bool> coolhand(r.controllers.size(), false);
  std::optional<std::size_t> step_wise;
  for (std::size_t c = 0; c < r.controllers.size(); ++c) {
    const auto g = governor_from_string(r.controllers[c]);
    kernel[c] = g && *g != Governor::none;
    coolhand[c] = !g;
    if (g == Governor::step_wise) step_wise = c;
  }
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    const auto& row = r.cells[s];
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (!coolhand[c]) continue;
      const Metrics& m = row[c].metrics;
      const std::string who = r.scenarios[s] + " / " + r.controllers[c] + ": ";
      const std::optional<double> floor_c = infeasible_floor(r, s);
      if (m.max_skin_c > floor_c.value_or(r.skin_limit_c) + kOvershootAllowed)
        failures.push_back(
            who + (floor_c ? fmt::format("max skin {:.2f} °C exceeds the lowest peak any schedule "
                                         "reaches, {:.2f} °C, + {:.1f}",
                                         m.max_skin_c, *floor_c, kOvershootAllowed)
                           : fmt::format("max skin {:.2f} °C exceeds limit + {:.1f}", m.max_skin_c,
                                         kOvershootAllowed)));
      std::optional<std::size_t> best_holding;  // index of the best baseline holding the limit
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (!kernel[k]) continue;
        const Metrics& b = row[k].metrics;
        if (m.degree_seconds_over_limit > b.degree_seconds_over_limit + kCompareSlack)
          failures.push_back(who + fmt::format("{:.2f} °C·s over the limit > {}'s {:.2f}",
                                               m.degree_seconds_over_limit, r.controllers[k],
                                               b.degree_seconds_over_limit));
        if (holds_limit(b, r.skin_limit_c) &&
            (!best_holding || b.performance > row[*best_holding].metrics.performance))
          best_holding = k;
      }
      if (best_holding && m.performance + kCompareSlack < row[*best_holding].metrics.performance)
        failures.push_back(
            who +
            fmt::format("performance {:.4f} < {:.4f} of {}, the best baseline holding the limit",
                        m.performance, row[*best_holding].metrics.performance,
                        r.controllers[*best_holding]));
      if (step_wise && m.level_changes_per_min >= row[*step_wise].metrics.level_changes_per_min &&
          m.level_changes > 0)
        failures.push_back(
            who + fmt::format("{:.2f} level changes/min, not fewer than step_wise's {:.2f}",
                              m.level_changes_per_min,
                              row[*step_wise].metrics.level_changes_per_min));
    }
  }
  return failures;
}

std::string format_text(const CompareResult& r) {
  std::string out = fmt::format("skin limit {:.1f} °C\n", r.skin_limit_c);
  const bool bounds = any_bound(r);
  out += fmt::format("{:<22} {:<18} {:>9} {:>9} {:>10} {:>8} {:>10}{}\n", "scenario", "controller",
                     "max_skin", "over_s", "deg_s", "perf", "chg/min",
                     bounds ? fmt::format(" {:>9}", "of_bound") : "");
  for (std::size_t s = 0; s < r.scenarios.size(); ++s)
    for (std::size_t c = 0; c < r.controllers.size(); ++c) {
      const auto& m = r.cells[s][c].metrics;
      out += fmt::format("{:<22} {:<18} {:>9.2f} {:>9.1f} {:>10.1f} {:>8.4f} {:>10.2f}{}\n",
                         r.scenarios[s], r.controllers[c], m.max_skin_c, m.seconds_over_limit,
                         m.degree_seconds_over_limit, m.performance, m.level_changes_per_min,
                         bounds ? fmt::format(" {:>9}", of_bound(r, s, m)) : "");
    }
  if (bounds) out += bound_lines(r, "");
  const auto failures = check_targets(r);
  if (!has_kernel_baseline(r))
    out += std::string("targets: ") + kNoBaseline + "; max skin <= limit + 0.5 °C " +
           (failures.empty() ? "holds\n" : "FAILED\n");
  else
    out += failures.empty() ? "targets: all hold\n" : "targets: FAILED\n";
  for (const auto& f : failures) out += "  " + f + "\n";
  return out;
}

std::string format_markdown(const CompareResult& r) {
  std::string out = fmt::format(
      "Skin limit {:.1f} °C. max skin = hottest skin node over the run; over = seconds above the "
      "limit; °C·s = degree-seconds above the limit; perf = delivered / demanded work, weighted "
      "per device by the workload; chg/min = device level changes per minute.\n\n",
      r.skin_limit_c);
  const bool bounds = any_bound(r);
  if (bounds) out += kOfBoundMeaning;
  out += "| scenario | controller | max skin °C | over s | °C·s | perf | chg/min |";
  out += bounds ? " of bound |\n" : "\n";
  out +=
      bounds ? "|---|---|---:|---:|---:|---:|---:|---:|\n" : "|---|---|---:|---:|---:|---:|---:|\n";
  for (std::size_t s = 0; s < r.scenarios.size(); ++s)
    for (std::size_t c = 0; c < r.controllers.size(); ++c) {
      const auto& m = r.cells[s][c].metrics;
      const bool ours = !governor_from_string(r.controllers[c]);
      const auto b = ours ? "**" : "";
      out += fmt::format("| {} | {}{}{} | {:.2f} | {:.1f} | {:.1f} | {:.4f} | {:.2f} |{}\n",
                         r.scenarios[s], b, r.controllers[c], b, m.max_skin_c, m.seconds_over_limit,
                         m.degree_seconds_over_limit, m.performance, m.level_changes_per_min,
                         bounds ? " " + of_bound(r, s, m) + " |" : "");
    }
  if (bounds) out += "\n" + bound_lines(r, "- ");
  const auto failures = check_targets(r);
  out += "\n";
  if (!has_kernel_baseline(r)) {
    out += std::string("Targets: ") + kNoBaseline + "; only max skin <= limit + 0.5 °C checked.\n";
    for (const auto& f : failures) out += "- " + f + "\n";
    return out;
  }
  if (failures.empty()) {
    out +=
        "Targets: all hold on every scenario (max skin <= limit + 0.5 °C, or the lowest peak any "
        "schedule reaches + 0.5 °C where the bound says no schedule holds the limit; °C·s <= every "
        "kernel "
        "baseline; perf >= the best kernel baseline holding the limit, i.e. with max skin <= "
        "limit; fewer level changes per minute than step_wise).\n";
  } else {
    out += "Targets that do not hold:\n\n";
    for (const auto& f : failures) out += "- " + f + "\n";
  }
  return out;
}

}  // namespace coolhand::sim
