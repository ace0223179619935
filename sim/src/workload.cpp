// CSV reading for workloads and sensor traces, and binding a workload to a
// model. Errors carry the file and 1-based line.
#include "coolhand/sim/workload.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace coolhand::sim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto pos = line.find(sep, start);
    out.push_back(trim(line.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::optional<double> to_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

config::ConfigError err(std::string_view file, int line, std::string msg) {
  return config::ConfigError{std::string(file), line, 0, {}, std::move(msg)};
}

// Why a line has no comma-separated fields, when the likely cause is
// another separator (a spreadsheet exported with ';' or tabs). Empty when
// the line has a comma or no other separator is in sight.
std::string separator_hint(std::string_view line) {
  if (line.find(',') != std::string_view::npos) return {};
  if (line.find(';') != std::string_view::npos)
    return "fields are separated by ';'; coolhand CSV files use ','";
  if (line.find('\t') != std::string_view::npos)
    return "fields are separated by tabs; coolhand CSV files use ','";
  return {};
}

// The temperature of every node at the steady state of constant inputs:
// each device at level 0 with the given demand, the given ambient. Solved
// on the model's own exact step (T = Ad T + Bd u at the fixed point), so it
// is the state step() would settle in. Empty when I - Ad is singular (a
// node without a path to ambient has no steady state).
std::vector<double> steady_state(const ModelSpec& spec, const std::vector<double>& demand,
                                 double ambient_c) {
  const ThermalModel model(spec);
  const auto m = model.step_matrices();
  const auto n = static_cast<Eigen::Index>(m.nodes);
  Eigen::MatrixXd ad(n, n), bd(n, n + 1);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j <= n; ++j) {
      if (j < n) ad(i, j) = m.ad[static_cast<std::size_t>(i * n + j)];
      bd(i, j) = m.bd[static_cast<std::size_t>(i * (n + 1) + j)];
    }
  Eigen::VectorXd u = Eigen::VectorXd::Zero(n + 1);
  for (std::size_t d = 0; d < spec.devices.size(); ++d) {
    const auto& dev = spec.devices[d];
    const double watts = dev.idle_w + demand[d] * dev.power_w[0];
    for (const auto& h : dev.heat)
      for (std::size_t i = 0; i < spec.nodes.size(); ++i)
        if (spec.nodes[i].name == h.node) u(static_cast<Eigen::Index>(i)) += watts * h.share;
  }
  u(n) = ambient_c;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(Eigen::MatrixXd::Identity(n, n) - ad);
  if (!lu.isInvertible()) return {};
  const Eigen::VectorXd t = lu.solve(bd * u);
  return {t.data(), t.data() + t.size()};
}

}  // namespace

std::variant<CsvTable, config::ConfigError> parse_csv(std::string_view text,
                                                      std::string_view file) {
  // A UTF-8 byte order mark (as spreadsheets write) is not part of the header.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  CsvTable t;
  t.file = std::string(file);
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto end = text.find('\n', pos);
    const auto raw =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++line_no;
    const auto line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {
      auto body = trim(line.substr(1));
      constexpr std::string_view kWeights = "weights:";
      constexpr std::string_view kInitial = "initial:";
      if (body.substr(0, kInitial.size()) == kInitial) {
        if (t.initial_line != 0)
          return err(
              file, line_no,
              fmt::format("a second '# initial:' line (the first is line {})", t.initial_line));
        t.initial_line = line_no;
        t.initial = std::string(trim(body.substr(kInitial.size())));
        continue;
      }
      if (body.substr(0, kWeights.size()) == kWeights) {
        t.weights_line = line_no;
        for (auto item : split(trim(body.substr(kWeights.size())), ' ')) {
          if (item.empty()) continue;
          const auto eq = item.find('=');
          const auto w =
              eq == std::string_view::npos ? std::nullopt : to_double(item.substr(eq + 1));
          if (!w || *w < 0)
            return err(file, line_no,
                       "weights: expected name=weight (>= 0), got '" + std::string(item) + "'");
          t.weights.emplace_back(std::string(item.substr(0, eq)), *w);
        }
      }
      continue;
    }
    const auto cells = split(line, ',');
    if (t.columns.empty()) {
      if (auto hint = separator_hint(line); !hint.empty()) return err(file, line_no, hint);
      if (cells[0] != "time_s")
        return err(file, line_no,
                   "header must start with 'time_s', got '" + std::string(cells[0]) + "'");
      for (auto c : cells) {
        if (c.empty()) return err(file, line_no, "empty column name in header");
        for (const auto& prev : t.columns)
          if (prev == c) return err(file, line_no, "duplicate column '" + std::string(c) + "'");
        t.columns.emplace_back(c);
      }
      if (t.columns.size() < 2)
        return err(file, line_no, "header needs at least one column after time_s");
      t.header_line = line_no;
      continue;
    }
    if (cells.size() != t.columns.size()) {
      std::string msg = "expected " + std::to_string(t.columns.size()) + " fields, got " +
                        std::to_string(cells.size());
      if (auto hint = separator_hint(line); !hint.empty()) msg += " (" + hint + ")";
      return err(file, line_no, msg);
    }
    std::vector<double> values;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const auto v = to_double(cells[i]);
      if (!v)
        return err(file, line_no,
                   "column '" + t.columns[i] + "': not a number: '" + std::string(cells[i]) + "'");
      values.push_back(*v);
    }
    if (values[0] < 0) return err(file, line_no, "time_s must be >= 0");
    if (!t.times_s.empty() && values[0] <= t.times_s.back())
      return err(file, line_no, "time_s must increase strictly");
    t.times_s.push_back(values[0]);
    values.erase(values.begin());
    t.rows.push_back(std::move(values));
    t.lines.push_back(line_no);
  }
  if (t.columns.empty()) return err(file, line_no, "no header row");
  if (t.rows.empty()) return err(file, line_no, "no data rows");
  return t;
}

std::variant<CsvTable, config::ConfigError> load_csv_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return config::ConfigError{path, 0, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_csv(ss.str(), path);
}

std::variant<Workload, config::ConfigError> Workload::bind(CsvTable table, const ModelSpec& model) {
  Workload w;
  w.name_ = std::filesystem::path(table.file).stem().string();
  for (std::size_t c = 1; c < table.columns.size(); ++c) {
    const auto& col = table.columns[c];
    if (col == "ambient_c") {
      w.column_device_.push_back(-1);
      continue;
    }
    const std::optional<std::size_t> found = device_index(model, col);
    if (!found) {
      std::vector<std::string> names{"ambient_c"};
      for (const auto& d : model.devices) names.push_back(d.name);
      const auto hint = config::did_you_mean(col, names);
      return err(table.file, table.header_line,
                 "column '" + col + "' is neither a device of model '" + model.name +
                     "' nor ambient_c" + (hint ? " (did you mean '" + *hint + "'?)" : ""));
    }
    w.column_device_.push_back(static_cast<int>(*found));
  }
  // Every device needs a column: a device left out would silently sit at
  // zero demand and the run would look like a success.
  // (A device with a default_demand, a fan, may be left out: it keeps that.)
  for (std::size_t d = 0; d < model.devices.size(); ++d)
    if (!model.devices[d].default_demand &&
        std::find(w.column_device_.begin(), w.column_device_.end(), static_cast<int>(d)) ==
            w.column_device_.end())
      return err(table.file, table.header_line,
                 "no column for device '" + model.devices[d].name + "' of model '" + model.name +
                     "' (give its demand in [0,1]; a column of 0 keeps it idle)");
  // The run ends at the last row's time, so one row would be a run of
  // nothing (0 s when it is at time 0).
  if (table.rows.size() < 2)
    return err(table.file, table.lines.empty() ? table.header_line : table.lines.front(),
               "a workload needs at least two rows: the run ends at the last row's time_s");
  if (std::find(w.column_device_.begin(), w.column_device_.end(), -1) == w.column_device_.end())
    w.warnings_.push_back(config::ConfigError{
        table.file,
        table.header_line,
        0,
        {},
        fmt::format("warning: no ambient_c column; using the model's ambient_c, {:g} °C",
                    model.ambient_c)});
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    for (std::size_t c = 0; c < w.column_device_.size(); ++c) {
      const double v = table.rows[r][c];
      if (w.column_device_[c] >= 0 && (v < 0 || v > 1))
        return err(table.file, table.lines[r],
                   "column '" + table.columns[c + 1] + "': demand must be in [0,1]");
      if (w.column_device_[c] < 0 && !(std::abs(v) <= kMaxAbsC))
        return err(table.file, table.lines[r],
                   fmt::format("column 'ambient_c': {:g} °C is out of range ({:g} to {:g} °C)", v,
                               -kMaxAbsC, kMaxAbsC));
    }
  for (const auto& d : model.devices) w.weights_.push_back(d.weight);
  for (const auto& [name, weight] : table.weights) {
    const std::optional<std::size_t> d = device_index(model, name);
    if (!d) return err(table.file, table.weights_line, "weights: no device named '" + name + "'");
    w.weights_[*d] = weight;
  }
  w.demand_.assign(model.devices.size(), 0.0);
  for (std::size_t d = 0; d < model.devices.size(); ++d)
    w.demand_[d] = model.devices[d].default_demand.value_or(0.0);
  if (table.initial_line != 0) {
    constexpr double kLowest = -40, kHighest = 125;  // what a handheld may be stored at
    if (table.initial == "steady") {
      std::vector<double> demand = w.demand_;  // defaults, then the first row
      double ambient = model.ambient_c;
      for (std::size_t c = 0; c < w.column_device_.size(); ++c) {
        if (w.column_device_[c] < 0)
          ambient = table.rows[0][c];
        else
          demand[static_cast<std::size_t>(w.column_device_[c])] = table.rows[0][c];
      }
      w.initial_c_ = steady_state(model, demand, ambient);
      if (w.initial_c_.empty())
        return err(table.file, table.initial_line,
                   "initial: steady: model '" + model.name +
                       "' has no steady state (a node without a path to ambient)");
    } else {
      const auto c = to_double(table.initial);
      if (!c)
        return err(
            table.file, table.initial_line,
            "initial: expected 'steady' or a temperature in °C, got '" + table.initial + "'");
      if (*c < kLowest || *c > kHighest)
        return err(
            table.file, table.initial_line,
            fmt::format("initial: {:g} °C is outside [{:g}, {:g}] °C", *c, kLowest, kHighest));
      w.initial_c_.assign(model.nodes.size(), *c);
    }
  }
  w.duration_ =
      policy::Time(static_cast<std::int64_t>(std::llround(table.times_s.back() * 1000.0)));
  w.table_ = std::move(table);
  return w;
}

ModelSpec Workload::start(ModelSpec model) const {
  for (std::size_t i = 0; i < initial_c_.size() && i < model.nodes.size(); ++i)
    model.nodes[i].initial_c = initial_c_[i];
  return model;
}

void Workload::apply(std::size_t row) {
  const auto& values = table_.rows[row];
  for (std::size_t c = 0; c < column_device_.size(); ++c) {
    if (column_device_[c] < 0)
      ambient_ = values[c];
    else
      demand_[static_cast<std::size_t>(column_device_[c])] = values[c];
  }
}

bool Workload::seek(policy::Time now) {
  const double t = now.count() / 1000.0;
  bool applied = false;
  if (!started_) {
    if (t + 1e-9 < table_.times_s[0]) return false;
    started_ = true;
    cursor_ = 0;
    apply(0);
    applied = true;
  }
  while (cursor_ + 1 < table_.times_s.size() && table_.times_s[cursor_ + 1] <= t + 1e-9) {
    ++cursor_;
    apply(cursor_);
    applied = true;
  }
  return applied;
}

std::optional<Millis> parse_run_seconds(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double seconds = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(seconds >= 0) || seconds > 1e9)
    return std::nullopt;
  const double ms = seconds * 1000.0;
  if (std::abs(ms - std::round(ms)) > 1e-6) return std::nullopt;
  return Millis(static_cast<std::int64_t>(std::round(ms)));
}

}  // namespace coolhand::sim
