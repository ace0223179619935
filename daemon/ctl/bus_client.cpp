// coolhandctl bus commands: synchronous calls on a private connection (no
// event loop, no thread), errors mapped to messages and exit codes.
#include "bus_client.h"

#include <sdbus-c++/sdbus-c++.h>

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "coolhand/dbus_api.h"

namespace coolhand::ctl {

namespace api = coolhand::dbus_api;

namespace {

using ZoneRow = sdbus::Struct<std::string, std::string, bool, std::int64_t, bool, std::int64_t>;
using SensorRow = sdbus::Struct<std::string, std::string, bool, bool, std::int64_t>;
using DeviceRow = sdbus::Struct<std::string, std::uint32_t, std::uint32_t, bool>;

// GetStatus's reply as plain values; unknown temperatures are nullopt.
struct Zone {
  std::string name, severity;
  std::optional<std::int64_t> temperature_mc, next_limit_mc;
};
struct Sensor {
  std::string name, kind;
  bool lost = false;
  std::optional<std::int64_t> value_mc;
};
struct Device {
  std::string name;
  std::uint32_t level = 0, max_level = 0;
  bool applied = false;
};
struct Status {
  std::string severity;
  std::string profile;
  std::vector<Zone> zones;
  std::vector<Sensor> sensors;
  std::vector<Device> devices;
  std::map<std::string, std::uint64_t> counters;
};

const char* bus_name(const BusTarget& bus) {
  return bus.session ? "session bus" : "system bus";
}

}  // namespace

std::optional<Client> connect(const BusTarget& bus) {
  try {
    Client c;
    c.conn = bus.session ? sdbus::createSessionBusConnection() : sdbus::createSystemBusConnection();
    c.proxy = sdbus::createProxy(*c.conn, api::kBusName, api::kObjectPath);
    return c;
  } catch (const sdbus::Error& e) {
    std::cerr << "coolhandctl: cannot reach the " << bus_name(bus) << ": " << e.getMessage() << " ("
              << e.getName() << ")\n";
    return std::nullopt;
  }
}

// Error name -> message on stderr and exit code.
int fail(const BusTarget& bus, const char* what, const sdbus::Error& e) {
  const std::string& name = e.getName();
  const std::string& msg = e.getMessage();
  if (name == api::kErrorAccessDenied) {
    std::cerr << "coolhandctl: " << what << ": access denied: " << msg << '\n';
    return kExitDenied;
  }
  if (name == api::kErrorReloadFailed) {
    std::cerr << "coolhandctl: reload refused; coolhandd keeps running its current policy:\n  "
              << msg << '\n';
    return kExitRejected;
  }
  if (name == api::kErrorUnknownProfile || name == api::kErrorUnknownDevice ||
      name == api::kErrorRecordFailed) {
    std::cerr << "coolhandctl: " << what << ": " << msg << '\n';
    return kExitRejected;
  }
  if (name == "org.freedesktop.DBus.Error.ServiceUnknown" ||
      name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
    std::cerr << "coolhandctl: coolhandd is not running (nothing owns " << api::kBusName
              << " on the " << bus_name(bus) << ")\n";
    return kExitUnreachable;
  }
  if (name == "org.freedesktop.DBus.Error.NoReply" ||
      name == "org.freedesktop.DBus.Error.Timeout" ||
      name == "org.freedesktop.DBus.Error.Disconnected") {
    std::cerr << "coolhandctl: " << what << ": coolhandd did not answer (" << msg << ")\n";
    return kExitUnreachable;
  }
  std::cerr << "coolhandctl: " << what << ": " << name << ": " << msg << '\n';
  return kExitUsage;
}

namespace {

std::optional<std::int64_t> known(bool is_known, std::int64_t v) {
  if (!is_known) return std::nullopt;
  return v;
}

Status from_reply(std::string severity, std::string profile, const std::vector<ZoneRow>& zones,
                  const std::vector<SensorRow>& sensors, const std::vector<DeviceRow>& devices,
                  std::map<std::string, std::uint64_t> counters) {
  Status s{std::move(severity), std::move(profile), {}, {}, {}, std::move(counters)};
  for (const auto& z : zones) {
    s.zones.push_back({std::get<0>(z), std::get<1>(z), known(std::get<2>(z), std::get<3>(z)),
                       known(std::get<4>(z), std::get<5>(z))});
  }
  for (const auto& x : sensors) {
    s.sensors.push_back(
        {std::get<0>(x), std::get<1>(x), std::get<2>(x), known(std::get<3>(x), std::get<4>(x))});
  }
  for (const auto& d : devices) {
    s.devices.push_back({std::get<0>(d), std::get<1>(d), std::get<2>(d), std::get<3>(d)});
  }
  return s;
}

nlohmann::json mc_json(std::optional<std::int64_t> v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A brightness sensor's value: thousandths of full, shown in percent.
std::string percent(std::optional<std::int64_t> thousandths) {
  if (!thousandths) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(*thousandths) / 10.0 << " %";
  return s.str();
}

std::string celsius(std::optional<std::int64_t> mc) {
  if (!mc) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(*mc) / 1000.0 << " °C";
  return s.str();
}

nlohmann::ordered_json to_json(const Status& s) {
  nlohmann::ordered_json j;
  j["severity"] = s.severity;
  j["profile"] = s.profile;
  j["zones"] = nlohmann::json::array();
  for (const auto& z : s.zones) {
    nlohmann::ordered_json o;
    o["name"] = z.name;
    o["severity"] = z.severity;
    o["temperature_mc"] = mc_json(z.temperature_mc);
    o["next_limit_mc"] = mc_json(z.next_limit_mc);
    j["zones"].push_back(std::move(o));
  }
  j["sensors"] = nlohmann::json::array();
  for (const auto& x : s.sensors) {
    nlohmann::ordered_json o;
    o["name"] = x.name;
    o["kind"] = x.kind;
    o["lost"] = x.lost;
    o["value_mc"] = mc_json(x.value_mc);
    j["sensors"].push_back(std::move(o));
  }
  j["devices"] = nlohmann::json::array();
  for (const auto& d : s.devices) {
    nlohmann::ordered_json o;
    o["name"] = d.name;
    o["level"] = d.level;
    o["max_level"] = d.max_level;
    o["applied"] = d.applied;
    j["devices"].push_back(std::move(o));
  }
  j["counters"] = s.counters;
  return j;
}

void print_text(const Status& s) {
  std::cout << "severity: " << s.severity << '\n'
            << "profile:  " << (s.profile.empty() ? "(policy as written)" : s.profile) << '\n';
  std::cout << "zones:\n";
  for (const auto& z : s.zones) {
    std::cout << "  " << std::left << std::setw(16) << z.name << std::setw(10) << z.severity
              << std::setw(12) << celsius(z.temperature_mc) << "next limit "
              << celsius(z.next_limit_mc) << '\n';
  }
  std::cout << "sensors:\n";
  for (const auto& x : s.sensors) {
    std::cout << "  " << std::left << std::setw(16) << x.name << std::setw(14) << x.kind
              << (x.lost                   ? std::string("LOST")
                  : x.kind == "brightness" ? percent(x.value_mc)
                                           : celsius(x.value_mc))
              << '\n';
  }
  std::cout << "devices:\n";
  for (const auto& d : s.devices) {
    std::cout << "  " << std::left << std::setw(16) << d.name << "level " << d.level << " of "
              << d.max_level << (d.applied ? "" : "  (not applied: no knob, or its write failed)")
              << '\n';
  }
  std::cout << "counters:";
  for (const auto& [name, n] : s.counters) std::cout << ' ' << name << '=' << n;
  std::cout << '\n';
}

}  // namespace

int status(const BusTarget& bus, bool json) {
  Status s;
  try {
    auto c = connect(bus);
    if (!c) return kExitUnreachable;
    std::string severity, profile;
    std::vector<ZoneRow> zones;
    std::vector<SensorRow> sensors;
    std::vector<DeviceRow> devices;
    std::map<std::string, std::uint64_t> counters;
    c->proxy->callMethod(api::kGetStatus)
        .onInterface(api::kInterface)
        .storeResultsTo(severity, profile, zones, sensors, devices, counters);
    s = from_reply(std::move(severity), std::move(profile), zones, sensors, devices,
                   std::move(counters));
  } catch (const sdbus::Error& e) {
    return fail(bus, "status", e);
  }
  if (json) {
    std::cout << to_json(s).dump(2) << '\n';
  } else {
    print_text(s);
  }
  return kExitOk;
}

int reload(const BusTarget& bus) {
  try {
    auto c = connect(bus);
    if (!c) return kExitUnreachable;
    c->proxy->callMethod(api::kReload).onInterface(api::kInterface).storeResultsTo();
  } catch (const sdbus::Error& e) {
    return fail(bus, "reload", e);
  }
  std::cout << "coolhandd reloaded its policy\n";
  return kExitOk;
}

int set_profile(const BusTarget& bus, const std::string& name) {
  try {
    auto c = connect(bus);
    if (!c) return kExitUnreachable;
    c->proxy->callMethod(api::kSetProfile)
        .onInterface(api::kInterface)
        .withArguments(name)
        .storeResultsTo();
  } catch (const sdbus::Error& e) {
    return fail(bus, "set-profile", e);
  }
  std::cout << "profile: " << (name.empty() ? "(policy as written)" : name) << '\n';
  return kExitOk;
}

// ---- explain (issue 11) ----

namespace {

using WhyRow = sdbus::Struct<std::string, std::uint32_t, std::uint32_t, std::string, std::string,
                             std::string, std::string, bool, std::int64_t, std::string, bool,
                             std::int64_t, bool, std::int64_t>;

std::string seconds(std::int64_t ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(ms) / 1000.0 << " s";
  return s.str();
}

// Explain's reply row as plain values; unknown values are nullopt.
struct Why {
  std::string name;
  std::uint32_t level = 0, max_level = 0;
  std::string reason, controller, kind, input;
  std::optional<std::int64_t> input_mc;
  std::string limit_kind;
  std::optional<std::int64_t> limit_mc, since_ms;
};

Why to_why(const WhyRow& r) {
  return {std::get<0>(r),
          std::get<1>(r),
          std::get<2>(r),
          std::get<3>(r),
          std::get<4>(r),
          std::get<5>(r),
          std::get<6>(r),
          known(std::get<7>(r), std::get<8>(r)),
          std::get<9>(r),
          known(std::get<10>(r), std::get<11>(r)),
          known(std::get<12>(r), std::get<13>(r))};
}

// One device: "gpu: level 3 of 5 since 12.3 s monotonic (for 4.5 s)" and the reason.
void print_why(const Why& w, std::int64_t now_ms) {
  std::cout << w.name << ": level " << w.level << " of " << w.max_level;
  if (w.since_ms) {
    std::cout << " since " << seconds(*w.since_ms) << " monotonic (for "
              << seconds(now_ms - *w.since_ms) << ")";
  } else {
    std::cout << " (not changed since the policy started)";
  }
  std::cout << "\n  ";
  if (w.reason == "forced") {
    std::cout << "forced: a trip's force_deepest action holds it";
  } else if (w.reason == "released") {
    std::cout << "released: no controller asks for throttling";
  } else {
    std::cout << "by " << w.kind << " controller " << w.controller << ": input " << w.input << " = "
              << celsius(w.input_mc) << ", " << w.limit_kind << " " << celsius(w.limit_mc);
    if (w.reason == "safe") std::cout << " (input unknown: the controller asks for its safe level)";
  }
  std::cout << '\n';
}

nlohmann::json name_or_null(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

nlohmann::ordered_json why_json(const Why& w) {
  nlohmann::ordered_json o;
  o["name"] = w.name;
  o["level"] = w.level;
  o["max_level"] = w.max_level;
  o["reason"] = w.reason;
  o["controller"] = name_or_null(w.controller);
  o["controller_kind"] = name_or_null(w.kind);
  o["input"] = name_or_null(w.input);
  o["input_mc"] = mc_json(w.input_mc);
  o["limit_kind"] = name_or_null(w.limit_kind);
  o["limit_mc"] = mc_json(w.limit_mc);
  o["since_ms"] = mc_json(w.since_ms);
  return o;
}

}  // namespace

int explain(const BusTarget& bus, const std::string& device, bool json) {
  std::int64_t now_ms = 0;
  std::vector<WhyRow> rows;
  try {
    auto c = connect(bus);
    if (!c) return kExitUnreachable;
    c->proxy->callMethod(api::kExplain)
        .onInterface(api::kInterface)
        .withArguments(device)
        .storeResultsTo(now_ms, rows);
  } catch (const sdbus::Error& e) {
    return fail(bus, "explain", e);
  }
  if (json) {
    nlohmann::ordered_json j;
    j["now_ms"] = now_ms;
    j["devices"] = nlohmann::json::array();
    for (const auto& w : rows) j["devices"].push_back(why_json(to_why(w)));
    std::cout << j.dump(2) << '\n';
  } else {
    for (const auto& w : rows) print_why(to_why(w), now_ms);
  }
  return kExitOk;
}

// ---- end explain ----

}  // namespace coolhand::ctl
