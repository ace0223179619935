// Output files of coolhand-sim: the per-step trace CSV, metrics.json and SVG
// plots. Formatting is fixed (fmt, fixed decimals; JSON keys in a fixed
// order), so the same run writes the same bytes. The only fields that
// differ between identical runs are metrics.json's wall_s and steps_per_s.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "coolhand/sim/runner.h"

namespace coolhand::sim {

// Returns an error message, or an empty string on success.
[[nodiscard]] std::string write_trace_csv(const Trace& trace, const std::string& path);
[[nodiscard]] std::string metrics_json(const Metrics& m);
// A figure as metrics.json writes it (every one but `performance` and the
// wall-clock fields): rounded to 4 decimals, so files stay readable and
// stable. The port chain's device check judges the peaks as written here.
[[nodiscard]] double metrics_rounded(double v);
[[nodiscard]] std::string write_text(const std::string& text, const std::string& path);
// Reads the whole file `path` (bytes as they are) into `text`; the error
// names the file and why ("PATH: cannot open: No such file or directory").
[[nodiscard]] std::string read_text(const std::string& path, std::string& text);

// Most points a plot draws per series; longer series are thinned to this
// (each bucket's extreme kept), so callers need keep no more.
inline constexpr std::size_t kPlotMaxPoints = 1200;

// Temperatures (skin nodes, sensors) against the skin limit, device levels
// as a fraction of each device's range, and performance delivered.
[[nodiscard]] std::string plot_run_svg(const Trace& trace, const ModelSpec& model,
                                       const std::string& title);

// One panel per scenario: max skin temperature of each controller against
// the limit, plus a performance strip.
struct OverlaySeries {
  std::string controller;
  const Trace* trace = nullptr;
};
struct OverlayPanel {
  std::string scenario;
  std::vector<OverlaySeries> series;
};
[[nodiscard]] std::string plot_overlay_svg(const std::vector<OverlayPanel>& panels,
                                           double skin_limit_c, const std::string& title);

// Panels of series against a count (a search's evaluations), x[i] the
// count of values[i]; the x axis is labelled with `x_unit`.
struct CountSeries {
  std::string label;
  std::vector<double> values;
  bool dashed = false;
};
struct CountPanel {
  std::string title;
  std::string unit;  // of the values, e.g. " °C"
  std::vector<CountSeries> series;
  std::optional<double> limit;
};
[[nodiscard]] std::string plot_count_svg(const std::vector<double>& x, const std::string& x_unit,
                                         const std::vector<CountPanel>& panels,
                                         const std::string& title);

}  // namespace coolhand::sim
