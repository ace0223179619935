// D-Bus service: sdbus-c++ object, authorisation and sd-event integration
// (rules in dbus_service.h). Every sdbus::Error is caught here and becomes a
// SysError or a warning; nothing leaves this file as an exception except the
// sdbus::Error replies that sdbus-c++ turns into D-Bus errors for a caller.
#include "dbus_service.h"

#include <sdbus-c++/sdbus-c++.h>
#include <systemd/sd-event.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "coolhand/dbus_api.h"
#include "coolhand/policy/engine.h"

namespace coolhand::daemon {

namespace api = coolhand::dbus_api;

namespace {

// The daemon's own calls to the bus daemon (Hello, RequestName, a caller's
// credentials) are synchronous; a bus that does not answer stalls control for
// at most this long per call instead of sd-bus's default 25 s.
constexpr std::chrono::seconds kBusCallTimeout{2};

using ZoneRow = sdbus::Struct<std::string, std::string, bool, std::int64_t, bool, std::int64_t>;
using SensorRow = sdbus::Struct<std::string, std::string, bool, bool, std::int64_t>;
using DeviceRow = sdbus::Struct<std::string, std::uint32_t, std::uint32_t, bool>;
using StatusReply =
    std::tuple<std::string, std::string, std::vector<ZoneRow>, std::vector<SensorRow>,
               std::vector<DeviceRow>, std::map<std::string, std::uint64_t>>;

std::string severity_name(policy::Severity s) {
  return std::string(policy::to_string(s));
}

std::int64_t mc_or_zero(const std::optional<policy::MilliC>& t) {
  return t ? t->mc() : 0;
}

StatusReply to_reply(const StatusSnapshot& s) {
  StatusReply r;
  auto& [severity, profile, zones, sensors, devices, counters] = r;
  severity = severity_name(s.severity);
  profile = s.profile;
  for (const auto& z : s.zones) {
    zones.emplace_back(z.name, severity_name(z.severity), z.temperature.has_value(),
                       mc_or_zero(z.temperature), z.next_limit.has_value(),
                       mc_or_zero(z.next_limit));
  }
  for (const auto& x : s.sensors) {
    sensors.emplace_back(x.name, x.kind, x.lost, x.value.has_value(), mc_or_zero(x.value));
  }
  for (const auto& d : s.devices) devices.emplace_back(d.name, d.level, d.max_level, d.applied);
  for (const auto& [name, n] : s.counters) counters[name] = n;
  return r;
}

// The change-tracking properties' values for a snapshot.
std::map<std::string, std::string> zone_severities(const StatusSnapshot& s) {
  std::map<std::string, std::string> m;
  for (const auto& z : s.zones) m[z.name] = severity_name(z.severity);
  return m;
}
std::map<std::string, std::uint32_t> levels(const StatusSnapshot& s) {
  std::map<std::string, std::uint32_t> m;
  for (const auto& d : s.devices) m[d.name] = d.level;
  return m;
}
std::vector<std::string> lost_sensors(const StatusSnapshot& s) {
  std::vector<std::string> v;
  for (const auto& x : s.sensors) {
    if (x.lost) v.push_back(x.name);
  }
  return v;
}

// ---- Explain (issue 11): why each device is at its level ----
using WhyRow = sdbus::Struct<std::string, std::uint32_t, std::uint32_t, std::string, std::string,
                             std::string, std::string, bool, std::int64_t, std::string, bool,
                             std::int64_t, bool, std::int64_t>;

std::vector<WhyRow> to_rows(const std::vector<DeviceWhy>& devices, const std::string& only) {
  std::vector<WhyRow> rows;
  std::string names;
  for (const auto& w : devices) {
    names += (names.empty() ? "" : ", ") + w.name;
    if (!only.empty() && w.name != only) continue;
    rows.emplace_back(w.name, w.level, w.max_level, w.reason, w.controller, w.controller_kind,
                      w.input, w.input_value.has_value(), mc_or_zero(w.input_value), w.limit_kind,
                      w.limit.has_value(), mc_or_zero(w.limit), w.since.has_value(),
                      w.since ? w.since->count() : 0);
  }
  if (!only.empty() && rows.empty()) {
    throw sdbus::Error(api::kErrorUnknownDevice,
                       "the running policy has no device '" + only + "' (devices: " + names + ")");
  }
  return rows;
}
// ---- end Explain ----

}  // namespace

struct DbusService::Impl {
  Impl(Logger& l, Hooks h, std::string v) : log(l), hooks(std::move(h)), version(std::move(v)) {}
  ~Impl() { detach(); }

  Logger& log;
  Hooks hooks;
  std::string version;
  std::unique_ptr<sdbus::IConnection> conn;
  std::unique_ptr<sdbus::IObject> object;
  sd_event_source* io = nullptr;     // the bus socket
  sd_event_source* timer = nullptr;  // sd-bus's own timeout (method-call timeouts, queued input)
  StatusSnapshot published;
  bool have_published = false;

  void register_members();
  void authorise(const char* method);
  Status attach(sd_event* loop);
  void detach();
  void refresh();
  void process();
  void broken(const std::string& what);
};

// Only root may change the daemon. The uid is the one the bus daemon
// recorded for the sender's connection (SO_PEERCRED when it connected),
// fetched by sd-bus with GetConnectionCredentials; it is not taken from
// anything the caller wrote into the message.
void DbusService::Impl::authorise(const char* method) {
  const sdbus::Message* m = object->getCurrentlyProcessedMessage();
  std::string sender = "(unknown sender)";
  std::optional<uid_t> uid;
  if (m) {
    try {
      sender = m->getSender();
      uid = m->getCredsUid();
    } catch (const sdbus::Error& e) {
      log.warning("D-Bus: {} from {}: cannot get the caller's uid ({})", method, sender,
                  e.getMessage());
    }
  }
  if (uid && *uid == 0) return;
  const std::string who = uid ? "uid " + std::to_string(*uid) : "unknown uid";
  log.warning("D-Bus: {} from {} ({}) refused: only root may change the daemon", method, sender,
              who);
  throw sdbus::Error(api::kErrorAccessDenied,
                     std::string(method) + " needs root (caller is " + who + ")");
}

void DbusService::Impl::register_members() {
  object->registerMethod(api::kGetStatus)
      .onInterface(api::kInterface)
      .withOutputParamNames("severity", "profile", "zones", "sensors", "devices", "counters")
      .implementedAs([this] { return to_reply(hooks.snapshot()); });
  // Explain (issue 11): open to every caller, like GetStatus.
  object->registerMethod(api::kExplain)
      .onInterface(api::kInterface)
      .withInputParamNames("device")
      .withOutputParamNames("now_ms", "devices")
      .implementedAs([this](const std::string& device) {
        const auto [now, devices] = hooks.explain();
        return std::make_tuple(static_cast<std::int64_t>(now.count()), to_rows(devices, device));
      });
  object->registerMethod(api::kReload).onInterface(api::kInterface).implementedAs([this] {
    authorise(api::kReload);
    log.info("D-Bus: Reload requested");
    const Status s = hooks.reload();
    if (!s) throw sdbus::Error(api::kErrorReloadFailed, s.error().to_string());
  });
  object->registerMethod(api::kSetProfile)
      .onInterface(api::kInterface)
      .withInputParamNames("name")
      .implementedAs([this](const std::string& name) {
        authorise(api::kSetProfile);
        if (!hooks.set_profile(name)) {
          throw sdbus::Error(api::kErrorUnknownProfile,
                             "the running policy has no profile '" + name + "'");
        }
      });

  // -- flight recorder (issue 11): open to every caller, like GetStatus.
  object->registerMethod(api::kRecord)
      .onInterface(api::kInterface)
      .withInputParamNames("fd")
      .withOutputParamNames("records", "lost")
      .implementedAs([this](const sdbus::UnixFd& fd) {
        const Status s = hooks.record(fd.get());
        if (!s) throw sdbus::Error(api::kErrorRecordFailed, s.error().to_string());
        const auto [held, lost] = hooks.record_counts();
        return std::make_tuple(held, lost);
      });
  object->registerMethod(api::kFollow)
      .onInterface(api::kInterface)
      .withOutputParamNames("fd")
      .implementedAs([this] {
        auto fd = hooks.follow();
        if (!fd) throw sdbus::Error(api::kErrorRecordFailed, fd.error().to_string());
        return sdbus::UnixFd(*fd, sdbus::adopt_fd);
      });
  // -- end flight recorder

  object->registerProperty(api::kPropVersion)
      .onInterface(api::kInterface)
      .withGetter([this] { return version; })
      .withUpdateBehavior(sdbus::Flags::CONST_PROPERTY_VALUE);
  object->registerProperty(api::kPropSeverity).onInterface(api::kInterface).withGetter([this] {
    return severity_name(published.severity);
  });
  object->registerProperty(api::kPropProfile).onInterface(api::kInterface).withGetter([this] {
    return published.profile;
  });
  object->registerProperty(api::kPropZoneSeverities)
      .onInterface(api::kInterface)
      .withGetter([this] { return zone_severities(published); });
  object->registerProperty(api::kPropLevels).onInterface(api::kInterface).withGetter([this] {
    return levels(published);
  });
  object->registerProperty(api::kPropLostSensors).onInterface(api::kInterface).withGetter([this] {
    return lost_sensors(published);
  });
  object->finishRegistration();
}

// sd-bus wants to be called when its socket is ready for what
// sd_bus_get_events() asks, or when sd_bus_get_timeout() expires (that is
// 0 while it holds already-read messages). Both change after every
// operation, so they are re-read just before each poll.
void DbusService::Impl::refresh() {
  if (!io) return;
  try {
    const sdbus::IConnection::PollData pd = conn->getEventLoopPollData();
    sd_event_source_set_io_events(io, static_cast<std::uint32_t>(pd.events));
    if (pd.timeout_usec == UINT64_MAX) {
      sd_event_source_set_enabled(timer, SD_EVENT_OFF);
    } else {
      sd_event_source_set_time(timer, pd.timeout_usec);
      sd_event_source_set_enabled(timer, SD_EVENT_ONESHOT);
    }
  } catch (const sdbus::Error& e) {
    broken(e.getMessage());
  }
}

void DbusService::Impl::process() {
  try {
    while (conn->processPendingRequest()) {
    }
  } catch (const sdbus::Error& e) {
    broken(e.getMessage());
  }
}

// The connection is gone (bus daemon restarted or stopped): stop polling it.
// The sdbus objects stay until the destructor, since this may run inside
// one of their callbacks.
void DbusService::Impl::broken(const std::string& what) {
  if (!io) return;
  log.warning("D-Bus: connection lost ({}); the service stops, control carries on", what);
  detach();
}

Status DbusService::Impl::attach(sd_event* loop) {
  sdbus::IConnection::PollData pd{};
  try {
    pd = conn->getEventLoopPollData();
  } catch (const sdbus::Error& e) {
    return SysError{"D-Bus", "poll data", 0, e.getMessage()};
  }
  auto on_io = [](sd_event_source*, int, std::uint32_t, void* u) {
    static_cast<Impl*>(u)->process();
    return 0;
  };
  auto on_time = [](sd_event_source*, std::uint64_t, void* u) {
    static_cast<Impl*>(u)->process();
    return 0;
  };
  auto on_prepare = [](sd_event_source*, void* u) {
    static_cast<Impl*>(u)->refresh();
    return 0;
  };
  int r = sd_event_add_io(loop, &io, pd.fd, static_cast<std::uint32_t>(pd.events), on_io, this);
  if (r < 0) return errno_error("sd_event_add_io", "D-Bus socket", -r);
  if (r = sd_event_source_set_prepare(io, on_prepare); r < 0) {
    return errno_error("sd_event_source_set_prepare", "D-Bus socket", -r);
  }
  r = sd_event_add_time(loop, &timer, CLOCK_MONOTONIC, 0, 1000, on_time, this);
  if (r < 0) return errno_error("sd_event_add_time", "D-Bus timeout", -r);
  sd_event_source_set_enabled(timer, SD_EVENT_OFF);
  return Ok{};
}

void DbusService::Impl::detach() {
  if (io) io = sd_event_source_disable_unref(io);
  if (timer) timer = sd_event_source_disable_unref(timer);
}

DbusService::DbusService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DbusService::~DbusService() = default;

Result<std::unique_ptr<DbusService>> DbusService::open(BusKind bus, sd_event* loop, Hooks hooks,
                                                       Logger& log, std::string version) {
  auto impl = std::make_unique<Impl>(log, std::move(hooks), std::move(version));
  const char* which = bus == BusKind::system ? "system bus" : "session bus";
  try {
    impl->conn = bus == BusKind::system ? sdbus::createSystemBusConnection()
                                        : sdbus::createSessionBusConnection();
    impl->conn->setMethodCallTimeout(kBusCallTimeout);
    impl->object = sdbus::createObject(*impl->conn, api::kObjectPath);
    impl->register_members();
    impl->conn->requestName(api::kBusName);
  } catch (const sdbus::Error& e) {
    return SysError{"D-Bus", which, 0, e.getMessage()};
  }
  if (auto s = impl->attach(loop); !s) return s.error();
  log.info("D-Bus: serving {} on the {}", api::kBusName, which);
  return std::unique_ptr<DbusService>(new DbusService(std::move(impl)));
}

void DbusService::publish() {
  Impl& m = *impl_;
  StatusSnapshot now = m.hooks.snapshot();
  std::vector<std::string> changed;
  if (m.have_published) {
    const StatusSnapshot& old = m.published;
    if (now.severity != old.severity) changed.emplace_back(api::kPropSeverity);
    if (now.profile != old.profile) changed.emplace_back(api::kPropProfile);
    if (zone_severities(now) != zone_severities(old)) {
      changed.emplace_back(api::kPropZoneSeverities);
    }
    if (levels(now) != levels(old)) changed.emplace_back(api::kPropLevels);
    if (lost_sensors(now) != lost_sensors(old)) changed.emplace_back(api::kPropLostSensors);
  }
  m.published = std::move(now);
  m.have_published = true;
  if (changed.empty() || !m.io) return;
  try {
    m.object->emitPropertiesChangedSignal(api::kInterface, changed);
  } catch (const sdbus::Error& e) {
    m.broken(e.getMessage());
  }
}

}  // namespace coolhand::daemon
