// compare's and bound's output; see report.h.
#include "coolhand/sim/report.h"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "coolhand/sim/output.h"

namespace coolhand::sim {

std::string write_compare_report(const CompareResult& r, bool with_bound,
                                 const std::string& model_name, const std::string& markdown,
                                 const std::string& out, std::ostream& os) {
  os << format_text(r);
  os << fmt::format("{} runs, {} steps in {:.2f} s wall ({:.0f} steps/s)\n",
                    r.scenarios.size() * r.controllers.size(), r.steps, r.wall_s,
                    r.wall_s > 0 ? static_cast<double>(r.steps) / r.wall_s : 0.0);
  if (with_bound)
    os << fmt::format("{} bounds in {:.2f} s wall\n", r.scenarios.size(), r.bounds_wall_s);
  // The directories before any file: `--markdown DIR/table.md -o DIR` in
  // an empty directory writes the table into the DIR it creates.
  const std::string md_dir = std::filesystem::path(markdown).parent_path().string();
  for (const std::string& dir : {out, md_dir}) {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
  }
  if (!markdown.empty())
    if (auto e = write_text(format_markdown(r), markdown); !e.empty()) return e;
  std::vector<OverlayPanel> panels;
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    OverlayPanel p{r.scenarios[s], {}};
    for (std::size_t c = 0; c < r.controllers.size(); ++c)
      p.series.push_back({r.controllers[c], &r.cells[s][c].trace});
    panels.push_back(std::move(p));
  }
  if (auto e = write_text(plot_overlay_svg(panels, r.skin_limit_c, model_name + ": compare"),
                          out + "/overlay.svg");
      !e.empty())
    return e;
  os << "wrote " << out << "/overlay.svg" << (markdown.empty() ? "" : " and " + markdown) << "\n";
  return {};
}

std::string format_bound_report(const BoundResult& r, const std::string& workload,
                                const std::string& model_name, Millis model_step) {
  return fmt::format(
             "{} on {} ({} steps of {} ms):\n"
             "  lowest peak skin any schedule reaches: {:.2f} °C (every device at its lowest "
             "power)\n"
             "  performance bound with skin <= {:.2f} °C: {:.4f} ({})\n"
             "  the LP's schedule (decision step {:g} s): performance {:.4f}, peak skin {:.2f} °C\n"
             "  LP: {} variables, {} constraints, solved in {:.2f} s\n",
             workload, model_name, r.steps, model_step.count(), r.lowest_peak_skin_c, r.limit_c,
             r.performance_bound,
             // A held fan schedule bounds only the controllers that follow it.
             r.fan_held ? "no controller whose fan follows the --fan-at schedule can deliver more"
                        : "no controller can deliver more",
             r.decision_step.count() / 1000.0, r.schedule_performance, r.schedule_peak_skin_c,
             r.variables, r.constraints, r.solve_s) +
         (r.fan_relaxation ? "  " + fan_relaxation_note(r) + "\n" : std::string()) +
         (r.fan_held ? "  fan held to the --fan-at schedule, its noise charged: an upper bound "
                       "only for controllers whose fan follows that schedule\n"
                     : std::string());
}

std::string bound_infeasible_message(const BoundResult& r, const std::string& workload) {
  return fmt::format(
      "bound: {}: no schedule keeps the skin at or below {:.2f} °C: the lowest peak skin any "
      "schedule reaches is {:.2f} °C (every device at its lowest-power level throughout){}",
      workload, r.limit_c, r.lowest_peak_skin_c,
      r.fan_relaxation ? "; " + fan_relaxation_note(r) : std::string());
}

}  // namespace coolhand::sim
