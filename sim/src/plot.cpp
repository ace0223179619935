// Plain SVG line charts, written by hand: stacked panels sharing a time
// axis, each with its own y range, grid, legend and optional limit line.
// Long traces are thinned to at most kPlotMaxPoints per series, keeping each
// bucket's extreme so short peaks stay visible.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "coolhand/sim/output.h"
#include "coolhand/sim/recording_replay.h"
#include "coolhand/sim/sensor_series.h"

namespace coolhand::sim {

namespace {

constexpr double kWidth = 1000;
constexpr double kLeft = 70, kRight = 190, kTop = 40, kPanelH = 210, kGap = 45;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Series {
  std::string label;
  const std::vector<double>* values;
  std::string colour;
  bool dashed = false;
};

struct Panel {
  std::string title;
  std::string unit;
  std::vector<Series> series;
  std::optional<double> limit;
  std::optional<std::pair<double, double>> range;
};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}

double nice_step(double span) {
  const double raw = span / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

// The x axis is time (minutes, or seconds under two minutes) when `x_unit`
// is empty, else a count labelled with it ("eval").
void draw_panel(std::string& out, const Panel& p, const std::vector<double>& time, double y0,
                const std::string& x_unit) {
  const double x0 = kLeft, w = kWidth - kLeft - kRight;
  const double t_end = time.empty() ? 1.0 : std::max(time.back(), 1e-9);
  double lo = 1e300, hi = -1e300;
  if (p.range) {
    lo = p.range->first;
    hi = p.range->second;
  } else {
    for (const auto& s : p.series)
      for (double v : *s.values) {
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    if (p.limit) {
      lo = std::min(lo, *p.limit);
      hi = std::max(hi, *p.limit);
    }
    if (lo > hi) lo = 0, hi = 1;
    const double pad = std::max((hi - lo) * 0.05, 0.5);
    lo -= pad;
    hi += pad;
  }
  auto X = [&](double t) { return x0 + w * t / t_end; };
  auto Y = [&](double v) { return y0 + kPanelH * (1.0 - (v - lo) / (hi - lo)); };

  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"title\">{}</text>\n", x0, y0 - 8,
                     esc(p.title));
  out += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" class=\"frame\"/>\n", x0,
      y0, w, kPanelH);
  const double ys = nice_step(hi - lo);
  for (auto k = static_cast<long>(std::ceil(lo / ys)); static_cast<double>(k) * ys <= hi + 1e-9;
       ++k) {
    const double v = static_cast<double>(k) * ys;
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{:g}{}</text>\n",
        x0, Y(v), x0 + w, Y(v), x0 - 6, Y(v) + 4, std::round(v * 1000) / 1000, p.unit);
  }
  // Minutes, or seconds for a run under two minutes (a short recording),
  // or a count.
  const bool count = !x_unit.empty();
  const bool seconds = !count && t_end < 120.0;
  const double xs = count ? std::max(1.0, nice_step(t_end))
                          : (seconds ? nice_step(t_end) : nice_step(t_end / 60.0) * 60.0);
  for (long k = 0; static_cast<double>(k) * xs <= t_end + 1e-9; ++k) {
    const double t = static_cast<double>(k) * xs;
    const double label =
        count ? t : (seconds ? std::round(t * 10.0) / 10.0 : std::round(t / 6.0) / 10.0);
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"grid\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{:g} {}</text>\n",
        X(t), y0, X(t), y0 + kPanelH, X(t), y0 + kPanelH + 15, label,
        count ? x_unit : (seconds ? "s" : "min"));
  }
  if (p.limit)
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"limit\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" fill=\"#c00\">limit {:g}{}</text>\n",
        x0, Y(*p.limit), x0 + w, Y(*p.limit), x0 + w + 6, Y(*p.limit) + 4, *p.limit, p.unit);

  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const auto& s = p.series[i];
    const auto& v = *s.values;
    const std::size_t n = std::min(v.size(), time.size());
    if (n == 0) continue;
    const std::size_t stride = std::max<std::size_t>(1, (n + kPlotMaxPoints - 1) / kPlotMaxPoints);
    // A value that is not finite (a sensor unknown for a while) breaks the
    // line: one polyline per stretch of known values.
    const std::string open =
        fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.4\"{} points=\"",
                    s.colour, s.dashed ? " stroke-dasharray=\"5,3\"" : "");
    bool in_line = false;
    for (std::size_t k = 0; k < n; k += stride) {
      const std::size_t end = std::min(n, k + stride);
      std::optional<std::size_t> pick;
      for (std::size_t j = k; j < end; ++j)
        if (std::isfinite(v[j]) && (!pick || std::abs(v[j] - lo) > std::abs(v[*pick] - lo)))
          pick = j;
      if (!pick) {
        if (in_line) out += "\"/>\n";
        in_line = false;
        continue;
      }
      if (!in_line) out += open;
      in_line = true;
      const double val = std::clamp(v[*pick], lo, hi);
      out += fmt::format("{:.1f},{:.1f} ", X(time[k]), Y(val));
    }
    if (in_line) out += "\"/>\n";
    const double ly = y0 + 12 + 16.0 * static_cast<double>(i);
    out += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"2\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\">{}</text>\n",
        x0 + w + 8, ly, x0 + w + 26, ly, s.colour, x0 + w + 30, ly + 4, esc(s.label));
  }
}

std::string render(const std::string& title, const std::vector<Panel>& panels,
                   const std::vector<const std::vector<double>*>& times,
                   const std::string& x_unit = {}) {
  const double height = kTop + static_cast<double>(panels.size()) * (kPanelH + kGap) + 10;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\">\n"
      "<style>.title{{font-size:14px;font-weight:bold}} .tick{{font-size:11px;fill:#333}} "
      ".legend{{font-size:11px}} .frame{{fill:none;stroke:#333}} .grid{{stroke:#ddd}} "
      ".limit{{stroke:#c00;stroke-dasharray:6,4;stroke-width:1.5}}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{:.0f}\" y=\"22\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
      kWidth, height, kWidth, height, kLeft, esc(title));
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(out, panels[i], *times[i], kTop + 20 + static_cast<double>(i) * (kPanelH + kGap),
               x_unit);
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string plot_run_svg(const Trace& t, const ModelSpec& model, const std::string& title) {
  std::vector<Panel> panels;
  std::vector<const std::vector<double>*> times;
  const auto* time = &t.time_s;
  std::vector<std::vector<double>> fractions(t.devices.size());

  Panel temps{"Temperatures (skin nodes solid, sensors dashed)", " °C", {}, model.skin_limit_c, {}};
  std::size_t c = 0;
  for (const auto& skin : model.skin_nodes)
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
      if (t.nodes[i] == skin)
        temps.series.push_back({skin, &t.node_c[i], kColours[c++ % 10], false});
  for (std::size_t s = 0; s < t.sensors.size(); ++s)
    temps.series.push_back({t.sensors[s], &t.sensor_c[s], kColours[c++ % 10], true});
  panels.push_back(std::move(temps));
  times.push_back(time);

  // Levels as a fraction of each device's deepest level.
  Panel levels{
      "Throttle level (fraction of deepest)", "", {}, std::nullopt, std::make_pair(-0.05, 1.05)};
  for (std::size_t d = 0; d < t.devices.size(); ++d) {
    const double max_level = model.devices[d].max_level();
    for (auto l : t.level[d]) fractions[d].push_back(l / max_level);
    levels.series.push_back({t.devices[d], &fractions[d], kColours[d % 10], false});
  }
  panels.push_back(std::move(levels));
  times.push_back(time);

  Panel perf{"Performance delivered (weighted, per step)",
             "",
             {},
             std::nullopt,
             std::make_pair(-0.05, 1.05)};
  perf.series.push_back({"performance", &t.performance, kColours[0], false});
  panels.push_back(std::move(perf));
  times.push_back(time);
  return render(title, panels, times);
}

std::string plot_overlay_svg(const std::vector<OverlayPanel>& in, double skin_limit_c,
                             const std::string& title) {
  std::vector<Panel> panels;
  std::vector<const std::vector<double>*> times;
  for (const auto& op : in) {
    if (op.series.empty() || !op.series.front().trace) continue;
    Panel p{op.scenario + ": max skin temperature", " °C", {}, skin_limit_c, {}};
    for (std::size_t i = 0; i < op.series.size(); ++i)
      p.series.push_back(
          {op.series[i].controller, &op.series[i].trace->max_skin_c, kColours[i % 10], false});
    panels.push_back(std::move(p));
    times.push_back(&op.series.front().trace->time_s);
    Panel q{
        op.scenario + ": performance delivered", "", {}, std::nullopt, std::make_pair(-0.05, 1.05)};
    for (std::size_t i = 0; i < op.series.size(); ++i)
      q.series.push_back(
          {op.series[i].controller, &op.series[i].trace->performance, kColours[i % 10], false});
    panels.push_back(std::move(q));
    times.push_back(&op.series.front().trace->time_s);
  }
  return render(title, panels, times);
}

std::string plot_count_svg(const std::vector<double>& x, const std::string& x_unit,
                           const std::vector<CountPanel>& in, const std::string& title) {
  std::vector<Panel> panels;
  std::vector<const std::vector<double>*> times;
  for (const auto& cp : in) {
    Panel p{cp.title, cp.unit, {}, cp.limit, {}};
    for (std::size_t i = 0; i < cp.series.size(); ++i)
      p.series.push_back(
          {cp.series[i].label, &cp.series[i].values, kColours[i % 10], cp.series[i].dashed});
    panels.push_back(std::move(p));
    times.push_back(&x);
  }
  return render(title, panels, times, x_unit);
}

namespace {

// plot_sensors_svg's panels.
std::vector<Panel> sensor_panels(const SensorSeries& series, const policy::PolicySpec& spec) {
  std::vector<Panel> panels;
  auto index_of = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < series.names.size(); ++i)
      if (series.names[i] == name) return i;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < spec.sensors.size() && i < series.value_c.size(); ++i) {
    const auto& s = spec.sensors[i];
    if (s.kind == policy::SensorSpec::Kind::physical) continue;
    // A sensor keeps its colour in every panel; the virtual sensor is drawn
    // last, on top of an input it may equal (a max of two).
    Panel p{
        fmt::format("{} ({}, solid) and its inputs (dashed)", s.name, policy::to_string(s.kind)),
        " °C",
        {},
        std::nullopt,
        {}};
    for (const auto& input : s.inputs)
      if (const auto in = index_of(input))
        p.series.push_back({input, &series.value_c[*in], kColours[*in % 10], true});
    p.series.push_back({s.name, &series.value_c[i], kColours[i % 10], false});
    panels.push_back(std::move(p));
  }
  if (panels.empty()) {
    Panel p{"Physical sensors", " °C", {}, std::nullopt, {}};
    for (std::size_t i = 0; i < series.value_c.size(); ++i)
      p.series.push_back({series.names[i], &series.value_c[i], kColours[i % 10], false});
    panels.push_back(std::move(p));
  }
  return panels;
}

// Times from the first step on (a recording's times are the daemon's monotonic clock).
std::vector<double> relative(const std::vector<double>& t) {
  std::vector<double> rel = t;
  for (double& x : rel) x -= t.empty() ? 0.0 : t.front();
  return rel;
}

}  // namespace

std::string plot_sensors_svg(const SensorSeries& series, const policy::PolicySpec& spec,
                             const std::string& title) {
  const std::vector<Panel> panels = sensor_panels(series, spec);
  const std::vector<double> rel = relative(series.time_s);
  const std::vector<const std::vector<double>*> times(panels.size(), &rel);
  return render(title, panels, times);
}

std::string plot_recording_svg(const RecordingReplay& r, const policy::PolicySpec& spec,
                               const std::string& title) {
  std::vector<Panel> panels = sensor_panels(r.sensors, spec);
  const std::vector<double> rel = relative(r.sensors.time_s);
  const LevelTracks& l = r.levels;
  for (std::size_t d = 0; d < l.devices.size(); ++d) {
    const double max_level = d < spec.devices.size() ? spec.devices[d].max_level : 1.0;
    Panel p{fmt::format("{} level: the daemon's (solid) and the replay's (dashed)", l.devices[d]),
            "",
            {{"daemon", &l.daemon[d], kColours[0], false},
             {r.what_if ? "candidate" : "replay", &l.replay[d], kColours[1], true}},
            std::nullopt,
            std::make_pair(-0.2, max_level + 0.2)};
    panels.push_back(std::move(p));
  }
  // Sensor values and levels are both taken once per replayed step.
  const std::vector<const std::vector<double>*> times(panels.size(), &rel);
  return render(title, panels, times);
}

}  // namespace coolhand::sim
