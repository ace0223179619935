// Sensor-trace replay through the policy engine; see replay.h.
#include "coolhand/sim/replay.h"

#include <fmt/format.h>

#include <cmath>

#include "coolhand/policy/engine.h"

namespace coolhand::sim {

namespace {

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
  // A column the policy does not know is most likely a typo of one it does,
  // so it is reported before the sensor it leaves without a column.
  for (std::size_t c = 1; c < trace.columns.size(); ++c)
    if (!engine.sensor_id(trace.columns[c])) {
      std::vector<std::string> names;
      for (const auto& sensor : spec.sensors) names.push_back(sensor.name);
      const auto hint = config::did_you_mean(trace.columns[c], names);
      return config::ConfigError{trace.file,
                                 trace.header_line,
                                 0,
                                 {},
                                 "column '" + trace.columns[c] + "' is not a sensor of the policy" +
                                     (hint ? " (did you mean '" + *hint + "'?)" : "")};
    }
  // column (1-based in the table) -> sensor id
  std::vector<std::pair<std::size_t, policy::SensorId>> feeds;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    if (spec.sensors[i].kind != policy::SensorSpec::Kind::physical) continue;
    std::optional<std::size_t> col;
    for (std::size_t c = 1; c < trace.columns.size(); ++c)
      if (trace.columns[c] == spec.sensors[i].name) col = c;
    if (!col)
      return config::ConfigError{
          trace.file,
          trace.header_line,
          0,
          {},
          "no column for the policy's physical sensor '" + spec.sensors[i].name + "'"};
    feeds.emplace_back(*col - 1, policy::SensorId{static_cast<std::uint16_t>(i)});
  }

  ReplayOutput out;
  std::string& dec = out.decisions_csv;
  dec = "time_s,severity";
  for (const auto& d : spec.devices) dec += "," + d.name + "_level," + d.name + "_cause";
  dec += "\n";
  out.events_csv = "time_s,kind,subject,detail,temperature_c\n";
  policy::Severity worst = policy::Severity::none;

  auto record = [&](const policy::Decision& d) {
    ++out.steps;
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
