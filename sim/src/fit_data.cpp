// Fit data from a CSV (fit.h): the columns matched to the skeleton by name,
// then resampled onto the fit's regular grid.
//
// Resampling rules. Every CSV row holds until the next (as the simulator's
// trace and a workload are written). The inputs of interval k, [t_k, t_k +
// step), are their time averages over it: the ambient, and per device and
// level demand x (1 while at that level), so a level change inside an
// interval contributes in proportion to the time spent; the model is linear
// in these, so the averages are exact for the mean power. A reading at t_k
// is the latest row at or before t_k.
#include <algorithm>
#include <cmath>
#include <limits>

#include "coolhand/sim/fit.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

namespace {

config::ConfigError err(const std::string& file, int line, std::string msg) {
  return config::ConfigError{file, line, 0, {}, std::move(msg)};
}

// Time average of a piecewise-constant series (value r from times[r] until
// times[r + 1]) over each interval of the grid.
std::vector<double> interval_means(const std::vector<double>& times,
                                   const std::vector<double>& values,
                                   const std::vector<double>& grid, double step) {
  std::vector<double> out(grid.size(), 0.0);
  std::size_t r = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double a = grid[k];
    const double b = a + step;
    while (r + 1 < times.size() && times[r + 1] <= a) ++r;
    double sum = 0;
    for (std::size_t j = r; j < times.size() && times[j] < b; ++j) {
      const double from = std::max(a, times[j]);
      const double to = j + 1 < times.size() ? std::min(b, times[j + 1]) : b;
      if (to > from) sum += values[j] * (to - from);
    }
    out[k] = sum / step;
  }
  return out;
}

// The row in force at each grid time (the latest at or before it).
std::vector<std::size_t> rows_at(const std::vector<double>& times,
                                 const std::vector<double>& grid) {
  std::vector<std::size_t> out(grid.size(), 0);
  std::size_t r = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    while (r + 1 < times.size() && times[r + 1] <= grid[k]) ++r;
    out[k] = r;
  }
  return out;
}

}  // namespace

std::variant<FitSegment, config::ConfigError> load_fit_csv(
    const std::string& path, const ModelSpec& skeleton, const FitDataOptions& options,
    std::vector<config::ConfigError>& warnings) {
  auto loaded = load_csv_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&loaded)) return *e;
  return bind_fit_csv(std::get<CsvTable>(loaded), skeleton, options, warnings);
}

std::variant<FitSegment, config::ConfigError> bind_fit_csv(
    const CsvTable& t, const ModelSpec& skeleton, const FitDataOptions& options,
    std::vector<config::ConfigError>& warnings) {
  const std::string& path = t.file;
  const int header = t.header_line;
  if (t.times_s.size() < 2) return err(path, header, "need at least two rows of data");
  if (!(options.step_s > 0)) return err(path, 0, "the fit step must be > 0");

  // Column index (into a row's values) of each name; -1 when absent.
  std::vector<bool> used(t.columns.size(), false);
  auto column = [&](const std::string& name) -> int {
    for (std::size_t c = 1; c < t.columns.size(); ++c)
      if (t.columns[c] == name) {
        used[c] = true;
        return static_cast<int>(c) - 1;
      }
    return -1;
  };

  FitSegment seg;
  seg.name = path;
  seg.step_s = options.step_s;
  const double t0 = t.times_s.front();
  const double span = t.times_s.back() - t0;
  constexpr double kMaxSteps = 1e7;  // 115 days at 1 s
  if (span / options.step_s > kMaxSteps)
    return err(path, header,
               "the data spans " + std::to_string(span) +
                   " s: more than 10^7 fit steps (give a "
                   "longer --step)");
  const auto count = static_cast<std::size_t>(std::floor(span / options.step_s + 1e-9)) + 1;
  if (count < 3)
    return err(path, header,
               "the data spans " + std::to_string(span) + " s: too short for a fit step of " +
                   std::to_string(options.step_s) + " s");
  for (std::size_t k = 0; k < count; ++k)
    seg.time_s.push_back(t0 + static_cast<double>(k) * options.step_s);
  const auto at = rows_at(t.times_s, seg.time_s);
  const std::size_t rows = t.rows.size();
  auto series = [&](int c) {
    std::vector<double> v(rows);
    for (std::size_t r = 0; r < rows; ++r) v[r] = t.rows[r][static_cast<std::size_t>(c)];
    return v;
  };
  auto sampled = [&](int c) {
    std::vector<double> v(count);
    for (std::size_t k = 0; k < count; ++k) v[k] = t.rows[at[k]][static_cast<std::size_t>(c)];
    return v;
  };

  if (const int c = column("ambient_c"); c >= 0) {
    seg.ambient_c = interval_means(t.times_s, series(c), seg.time_s, options.step_s);
  } else if (options.ambient_c) {
    seg.ambient_c.assign(count, *options.ambient_c);
  } else {
    return err(path, header, "no ambient_c column (give the ambient with --ambient C)");
  }

  for (const auto& s : skeleton.sensors) {
    int c = column(s.name);
    const int c2 = column(s.name + "_reading_c");
    if (c >= 0 && c2 >= 0)
      return err(
          path, header,
          "two columns for sensor '" + s.name + "': " + s.name + " and " + s.name + "_reading_c");
    if (c < 0) c = c2;
    if (c < 0)
      return err(path, header,
                 "no column for sensor '" + s.name + "' of the skeleton (name it " + s.name +
                     " or " + s.name + "_reading_c, in °C)");
    seg.reading_c.push_back(sampled(c));
  }

  std::vector<int> power_cols;
  for (const auto& d : skeleton.devices) {
    const int lc = column(d.name + "_level");
    if (lc < 0)
      return err(path, header,
                 "no column for device '" + d.name + "' of the skeleton (" + d.name +
                     "_level: its throttle level, 0 = unthrottled)");
    const int dc = column(d.name + "_demand");
    if (dc < 0)
      warnings.push_back(err(path, header,
                             "warning: no " + d.name +
                                 "_demand column: demand taken as 1, so "
                                 "power_w is the device's mean power at each level in this use"));
    std::vector<std::vector<double>> per_level(d.power_w.size(), std::vector<double>(rows, 0.0));
    for (std::size_t r = 0; r < rows; ++r) {
      const double lv = t.rows[r][static_cast<std::size_t>(lc)];
      if (lv < 0 || lv > d.max_level() || lv != std::floor(lv))
        return err(path, t.lines[r],
                   d.name + "_level: expected a level in 0.." + std::to_string(d.max_level()) +
                       ", got " + std::to_string(lv));
      const double demand = dc < 0 ? 1.0 : t.rows[r][static_cast<std::size_t>(dc)];
      if (!(demand >= 0 && demand <= 1))
        return err(path, t.lines[r], d.name + "_demand: expected a value in [0,1]");
      per_level[static_cast<std::size_t>(lv)][r] = demand;
    }
    std::vector<std::vector<double>> load;
    load.reserve(per_level.size());
    for (const auto& pl : per_level)
      load.push_back(interval_means(t.times_s, pl, seg.time_s, options.step_s));
    seg.load.push_back(std::move(load));
    power_cols.push_back(column(d.name + "_power_w"));
  }
  if (std::any_of(power_cols.begin(), power_cols.end(), [](int c) { return c >= 0; }))
    for (const int c : power_cols)
      seg.power_w.push_back(c < 0
                                ? std::vector<double>{}
                                : interval_means(t.times_s, series(c), seg.time_s, options.step_s));
  if (const int c = column("power_w"); c >= 0)
    seg.total_power_w = interval_means(t.times_s, series(c), seg.time_s, options.step_s);

  for (std::size_t c = 1; c < t.columns.size(); ++c)
    if (!used[c]) {
      seg.extra_names.push_back(t.columns[c]);
      seg.extra_c.push_back(sampled(static_cast<int>(c) - 1));
    }
  return seg;
}

}  // namespace coolhand::sim

namespace coolhand::sim {

std::optional<config::ConfigError> add_reference_channels(
    FitSkeleton& skeleton, std::vector<FitSegment>& data,
    const std::vector<ReferenceChannel>& channels) {
  for (const auto& ch : channels) {
    bool node = false;
    for (const auto& n : skeleton.spec.nodes) node = node || n.name == ch.node;
    if (!node)
      return config::ConfigError{
          skeleton.spec.source,
          0,
          0,
          {},
          "reference '" + ch.column + "': no node named '" + ch.node + "' (write COLUMN=NODE)"};
    for (const auto& s : skeleton.spec.sensors)
      if (s.name == ch.column)
        return config::ConfigError{
            skeleton.spec.source, 0, 0, {}, "reference '" + ch.column + "' has a sensor's name"};
    SensorModelSpec s;
    s.name = ch.column;
    s.node = ch.node;
    skeleton.spec.sensors.push_back(s);
    for (auto& seg : data) {
      std::size_t x = 0;
      while (x < seg.extra_names.size() && seg.extra_names[x] != ch.column) ++x;
      if (x == seg.extra_names.size())
        return config::ConfigError{
            seg.name, 0, 0, {}, "no column '" + ch.column + "' for the reference channel"};
      seg.reading_c.push_back(seg.extra_c[x]);
    }
  }
  return std::nullopt;
}

}  // namespace coolhand::sim
