// The daemon's D-Bus service (sdbus-c++): org.coolhand.Thermal1 at
// /org/coolhand/Thermal1 (names and signatures in coolhand/dbus_api.h,
// described in docs/daemon.md). It runs on the daemon's one sd-event loop:
// the bus socket is an I/O source and sd-bus's own timeout a timer, both
// refreshed from IConnection::getEventLoopPollData() in the I/O source's
// prepare callback (sdbus-c++ 1.2 has no sd-event attachment of its own), so
// there is no extra thread and no wakeup while the bus is quiet.
//
// Rules:
// - Reading (GetStatus, Explain, properties) is open to every caller, and so is the
//   flight recorder (Record, Follow): it holds what GetStatus shows, over time.
// - Changing (Reload, SetProfile) needs the caller's uid, as the bus daemon
//   reports it for the sending connection, to be 0. Anyone else gets
//   org.freedesktop.DBus.Error.AccessDenied and one warning line. No polkit:
//   on a handheld that would pull a second daemon and its JavaScript rules
//   engine into the thermal path for two root-only operations.
// - The announced state is the set of change-tracking properties (Severity,
//   Profile, ZoneSeverities, Levels, LostSensors). publish() compares them
//   with what was last announced and emits at most one PropertiesChanged
//   carrying the changed ones; a new sample that changes no state emits
//   nothing.
// - Bus trouble is never fatal: opening fails with an error value the caller
//   logs as a warning, and a connection that breaks later stops the service
//   (one warning) while the daemon carries on.
// - The daemon's own calls to the bus daemon (RequestName, a caller's
//   credentials) are synchronous, with a 2 s timeout.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "explain.h"
#include "log.h"
#include "result.h"
#include "status.h"

struct sd_event;

namespace coolhand::daemon {

enum class BusKind { system, session };

class DbusService {
 public:
  struct Hooks {
    std::function<StatusSnapshot()> snapshot;
    // The SIGHUP path: validate the new policy, keep the old one on error.
    std::function<Status()> reload;
    // False when the policy has no such profile.
    std::function<bool(const std::string& name)> set_profile;
    // Explain: every device's explanation, and the monotonic now (ms) they are relative to.
    std::function<std::pair<policy::Time, std::vector<DeviceWhy>>()> explain;
    // Flight recorder: dump into the caller's fd (not closed here); a new
    // follower's socket (the service sends it and closes its copy).
    std::function<Status(int fd)> record;
    std::function<Result<int>()> follow;
    // Records held and lost so far, for Record's reply.
    std::function<std::pair<std::uint64_t, std::uint64_t>()> record_counts;
  };

  // Connect, export the object, own the bus name and attach to `loop`.
  [[nodiscard]] static Result<std::unique_ptr<DbusService>> open(BusKind bus, sd_event* loop,
                                                                 Hooks hooks, Logger& log,
                                                                 std::string version);
  ~DbusService();
  DbusService(const DbusService&) = delete;
  DbusService& operator=(const DbusService&) = delete;

  // Take a new snapshot; announce the state if it changed (see the rules).
  // Call after every event-loop wake-up that may have changed something.
  void publish();

  struct Impl;

 private:
  explicit DbusService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace coolhand::daemon
