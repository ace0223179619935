// Sensor-trace replay through the policy engine; see replay.h.
#include "coolhand/sim/replay.h"

#include <fmt/format.h>

#include <cmath>

#include "coolhand/policy/engine.h"

namespace coolhand::sim {

namespace {

constexpr double kMaxAbsReadingC = 1000.0;

std::string subject(const policy::PolicySpec& spec, const policy::Event& e) {
  using K = policy::Event::Kind;
  if (e.kind == K::sensor_known || e.kind == K::sensor_unknown)
    return e.index < spec.sensors.size() ? spec.sensors[e.index].name : "?";
  if (e.kind == K::profile_change) return "profile";
  return e.index < spec.zones.size() ? spec.zones[e.index].name : "?";
}

std::string detail(const policy::PolicySpec& spec, const policy::Event& e) {
  using K = policy::Event::Kind;
  switch (e.kind) {
    case K::trip_up:
    case K::trip_down:
    case K::action_fired:
      if (e.index < spec.zones.size() && e.detail < spec.zones[e.index].trips.size())
        return spec.zones[e.index].trips[e.detail].name;
      return std::to_string(e.detail);
    case K::severity_change:
      return std::string(policy::to_string(static_cast<policy::Severity>(e.detail)));
    default:
      return std::to_string(e.detail);
  }
}

// The trace's columns bound to the policy's physical sensors.
struct TraceColumns {
  std::vector<std::pair<std::size_t, policy::SensorId>> feeds;  // value column -> sensor
  std::vector<std::string> ignored;                             // in file order
};

// Column rules: a column named after a physical sensor of the policy, or
// after one with the suffix "_reading_c" (the simulator's own trace.csv),
// feeds that sensor; two columns feeding one sensor is an error. Every other
// column (the simulator's temperatures of nodes, levels, demands, virtual
// sensors the policy computes itself) is ignored. Each physical sensor needs
// a column; when an ignored column is a likely typo of a sensor left without
// one, the error names the typo, otherwise the sensor.
std::variant<TraceColumns, config::ConfigError> bind_columns(const CsvTable& trace,
                                                             const policy::Engine& engine) {
  constexpr std::string_view kSuffix = "_reading_c";
  const auto& spec = engine.spec();
  auto physical = [&](std::string_view name) -> std::optional<policy::SensorId> {
    const auto id = engine.sensor_id(name);
    if (id && spec.sensors[id->index].kind == policy::SensorSpec::Kind::physical) return id;
    return std::nullopt;
  };
  auto located = [&](std::string msg) {
    return config::ConfigError{trace.file, trace.header_line, 0, {}, std::move(msg)};
  };
  TraceColumns out;
  std::vector<std::optional<std::size_t>> column_of(spec.sensors.size());
  for (std::size_t c = 1; c < trace.columns.size(); ++c) {
    const std::string_view col = trace.columns[c];
    auto id = physical(col);
    if (!id && col.size() > kSuffix.size() && col.ends_with(kSuffix))
      id = physical(col.substr(0, col.size() - kSuffix.size()));
    if (!id) {
      out.ignored.emplace_back(col);
      continue;
    }
    if (auto& prev = column_of[id->index]) {
      return located("columns '" + trace.columns[*prev] + "' and '" + std::string(col) +
                     "' both give sensor '" + spec.sensors[id->index].name + "'");
    }
    column_of[id->index] = c;
    out.feeds.emplace_back(c - 1, *id);
  }
  std::vector<std::string> unfed;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i)
    if (spec.sensors[i].kind == policy::SensorSpec::Kind::physical && !column_of[i])
      unfed.push_back(spec.sensors[i].name);
  if (unfed.empty()) return out;
  for (const auto& col : out.ignored)
    if (const auto hint = config::did_you_mean(col, unfed))
      return located("column '" + col + "' is not a sensor of the policy (did you mean '" + *hint +
                     "'?)");
  return located("no column for the policy's physical sensor '" + unfed.front() + "'");
}

}  // namespace

std::variant<ReplayOutput, config::ConfigError> replay(const CsvTable& trace,
                                                       const config::PolicyDocument& policy) {
  auto compiled = policy::Engine::compile(policy.spec);
  if (!compiled.errors.empty()) {
    const auto& e = compiled.errors.front();
    return config::ConfigError{
        trace.file,
        0,
        0,
        {},
        "policy does not compile: " + e.path + "." + e.key + ": " + e.message};
  }
  auto& engine = *compiled.engine;
  const auto& spec = engine.spec();
  auto bound = bind_columns(trace, engine);
  if (auto* e = std::get_if<config::ConfigError>(&bound)) return std::move(*e);
  const auto& [feeds, ignored] = std::get<TraceColumns>(bound);
  // A reading becomes whole millidegrees (int32): one beyond the policy
  // language's +-1000 °C is not a temperature, and would not fit.
  for (std::size_t r = 0; r < trace.rows.size(); ++r)
    for (const auto& [col, id] : feeds)
      if (std::abs(trace.rows[r][col]) > kMaxAbsReadingC)
        return config::ConfigError{
            trace.file,
            trace.lines[r],
            0,
            {},
            fmt::format("column '{}': {} °C is out of range (-1000 to 1000 °C)",
                        trace.columns[col + 1], trace.rows[r][col])};

  ReplayOutput out;
  if (!ignored.empty()) {
    std::string list;
    for (const auto& c : ignored) list += (list.empty() ? "" : ", ") + c;
    out.warnings.push_back(config::ConfigError{
        trace.file,
        trace.header_line,
        0,
        {},
        fmt::format("warning: ignoring {} that {} not {} of the policy: {}",
                    ignored.size() == 1 ? std::string("1 column")
                                        : fmt::format("{} columns", ignored.size()),
                    ignored.size() == 1 ? "is" : "are",
                    ignored.size() == 1 ? "a physical sensor" : "physical sensors", list)});
  }
  out.sensors.init(engine);
  std::string& dec = out.decisions_csv;
  dec = "time_s,severity";
  for (const auto& d : spec.devices) dec += "," + d.name + "_level," + d.name + "_cause";
  dec += "\n";
  out.events_csv = "time_s,kind,subject,detail,temperature_c\n";
  policy::Severity worst = policy::Severity::none;

  auto record = [&](const policy::Decision& d) {
    ++out.steps;
    out.sensors.append(engine, d.at);
    dec += fmt::format("{:.3f},{}", d.at.count() / 1000.0, policy::to_string(d.severity));
    for (const auto& dd : d.devices)
      dec += fmt::format(",{},{}", dd.level,
                         dd.forced  ? std::string("forced")
                         : dd.cause ? spec.controllers[dd.cause->index].name
                                    : std::string());
    dec += "\n";
    for (const auto& e : d.events) {
      ++out.events;
      out.events_csv += fmt::format(
          "{:.3f},{},{},{},{}\n", d.at.count() / 1000.0, policy::to_string(e.kind),
          subject(spec, e), detail(spec, e),
          e.temperature ? fmt::format("{:.3f}", e.temperature->celsius()) : std::string());
    }
    worst = std::max(worst, d.severity);
  };

  std::optional<policy::Time> next;
  std::optional<policy::Time> last;
  for (std::size_t r = 0; r < trace.rows.size(); ++r) {
    const policy::Time at(static_cast<std::int64_t>(std::llround(trace.times_s[r] * 1000.0)));
    while (next && *next < at && (!last || *next > *last)) {
      last = *next;
      const auto& d = engine.step(*next);
      record(d);
      next = d.next_step;
    }
    for (const auto& [col, id] : feeds)
      engine.set_sensor(id, policy::MilliC::from_celsius(trace.rows[r][col]), at);
    last = at;
    const auto& d = engine.step(at);
    record(d);
    next = d.next_step;
  }
  out.max_severity = std::string(policy::to_string(worst));
  return out;
}

}  // namespace coolhand::sim
