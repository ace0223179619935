// Status snapshots from a Runtime (see status.h).
#include "status.h"

#include <algorithm>

#include "coolhand/policy/engine.h"
#include "runtime.h"
#include "thermal_netlink.h"

namespace coolhand::daemon {

namespace {

// The lowest trip or severity threshold above `t`; with `t` unknown, the
// lowest of all.
std::optional<policy::MilliC> next_limit(const policy::ZoneSpec& z,
                                         std::optional<policy::MilliC> t) {
  std::optional<policy::MilliC> best;
  auto consider = [&](policy::MilliC threshold) {
    if (t && threshold <= *t) return;
    if (!best || threshold < *best) best = threshold;
  };
  for (const auto& trip : z.trips) consider(trip.threshold);
  for (const auto& step : z.severities) consider(step.threshold);
  return best;
}

}  // namespace

StatusSnapshot snapshot(const Runtime& rt, const NetlinkCounters* netlink) {
  StatusSnapshot s;
  const policy::Engine& engine = rt.engine();
  const policy::PolicySpec& spec = engine.spec();
  const policy::Decision* d = rt.last_decision();
  s.profile = std::string(engine.profile());
  if (d) s.severity = d->severity;

  for (std::size_t i = 0; i < spec.zones.size(); ++i) {
    ZoneStatus z;
    z.name = spec.zones[i].name;
    if (d && i < d->zones.size()) {
      z.severity = d->zones[i].severity;
      z.temperature = d->zones[i].temperature;
    }
    z.next_limit = next_limit(spec.zones[i], z.temperature);
    s.zones.push_back(std::move(z));
  }
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    SensorStatus x;
    x.name = spec.sensors[i].name;
    // A brightness is no temperature: its kind says so, and its value is
    // thousandths of full brightness (docs/daemon.md, "D-Bus").
    x.kind = spec.sensors[i].quantity == policy::SensorSpec::Quantity::brightness
                 ? "brightness"
                 : std::string(policy::to_string(spec.sensors[i].kind));
    x.lost = spec.sensors[i].kind == policy::SensorSpec::Kind::physical && rt.sensor_lost(x.name);
    x.value = engine.sensor_value(policy::SensorId{static_cast<std::uint16_t>(i)});
    s.sensors.push_back(std::move(x));
  }
  for (std::size_t i = 0; i < spec.devices.size(); ++i) {
    DeviceStatus x;
    x.name = spec.devices[i].name;
    x.max_level = spec.devices[i].max_level;
    if (d && i < d->devices.size()) x.level = d->devices[i].level;
    x.applied = rt.device_level(x.name) == x.level;
    s.devices.push_back(std::move(x));
  }

  const RuntimeCounters& c = rt.counters();
  s.counters = {{"samples", c.samples},           {"read_failures", c.read_failures},
                {"sensors_lost", c.sensors_lost}, {"steps", c.steps},
                {"resyncs", c.resyncs},           {"resumes", c.resumes},
                {"reloads", c.reloads},           {"reload_failures", c.reload_failures}};
  if (netlink) {
    const std::pair<const char*, std::uint64_t> nl[] = {
        {"netlink_received", netlink->received}, {"netlink_accepted", netlink->accepted},
        {"netlink_spoofed", netlink->spoofed},   {"netlink_malformed", netlink->malformed},
        {"netlink_foreign", netlink->foreign},   {"netlink_overruns", netlink->overruns},
        {"netlink_gaps", netlink->gaps},         {"netlink_lost", netlink->lost}};
    for (const auto& [name, n] : nl) s.counters.emplace_back(name, n);
  }
  return s;
}

}  // namespace coolhand::daemon
