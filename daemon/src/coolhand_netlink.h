// The coolhand kernel module's own generic netlink family ("coolhand",
// kmod/README section 4): its "events" group drives the module's zones as
// event-driven sensors, and COOLHAND_CMD_WINDOW_SET programs each zone's
// event window from the engine's window.
//
// Message rules (CoolhandMessageHandler), the same as for the mainline
// thermal family (thermal_netlink.h):
// - A message whose sender port id is not 0 did not come from the kernel:
//   dropped and counted as spoofed.
// - A message of another family is dropped and counted as foreign.
// - Attributes are parsed by libnl (genlmsg_parse) against a policy table
//   that fixes each attribute's type and exact size; a message that fails
//   it, is not one of the three events, lacks an attribute its event
//   carries (kmod/README 4.3), names an unknown trip type or direction, or
//   carries a temperature outside COOLHAND_TEMP_MIN_MC..COOLHAND_TEMP_MAX_MC
//   is dropped and counted as malformed.
// - Every event carries COOLHAND_A_SEQ from one per-family counter
//   (kmod/README 4.4). A value that does not follow the previous one (mod
//   2^32) is a gap: events were lost and the caller must resynchronise from
//   sysfs, as on ENOBUFS. The event itself is still delivered.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "coolhand/policy/engine.h"
#include "genl.h"
#include "log.h"
#include "result.h"
#include "thermal_netlink.h"

struct nl_msg;
struct nl_sock;
struct nl_cb;

namespace coolhand::daemon {

struct CoolhandEvent {
  enum class Kind : std::uint8_t {
    temp,      // EVENT_TEMP: zone_id, temperature, prev_temperature
    trip,      // EVENT_TRIP: zone_id, temperature, trip_*
    throttle,  // EVENT_THROTTLE: dev_id, level
  };
  enum class TripType : std::uint8_t { passive, critical };
  enum class Direction : std::uint8_t { up, down };

  Kind kind = Kind::temp;
  std::uint32_t seq = 0;
  std::uint64_t timestamp_ns = 0;        // CLOCK_MONOTONIC of the sample or level change
  std::optional<std::uint32_t> zone_id;  // N of /sys/class/coolhand/zoneN
  std::optional<policy::MilliC> temperature;
  std::optional<policy::MilliC> prev_temperature;
  std::optional<TripType> trip_type;
  std::optional<Direction> trip_direction;
  std::optional<policy::MilliC> trip_temperature;
  std::optional<std::uint32_t> dev_id;
  std::optional<std::uint32_t> level;
};

using CoolhandEventSink = std::function<void(const CoolhandEvent&)>;

// Validates and decodes event messages; owns no socket, so tests and
// benchmarks feed it messages built with libnl.
class CoolhandMessageHandler {
 public:
  CoolhandMessageHandler(int family_id, CoolhandEventSink sink, Logger& log);
  // Returns true when the caller must resynchronise (sequence gap).
  bool handle(nl_msg* msg);
  // Decode without side effects: the event, or why it was dropped.
  [[nodiscard]] Result<CoolhandEvent> decode(nl_msg* msg) const;
  [[nodiscard]] const NetlinkCounters& counters() const { return counters_; }
  NetlinkCounters& mutable_counters() { return counters_; }

 private:
  int family_id_;
  CoolhandEventSink sink_;
  Logger& log_;
  NetlinkCounters counters_;
  std::optional<std::uint32_t> last_seq_;
};

// The module's event window for an engine window: window mode needs
// COOLHAND_TEMP_MIN_MC <= low < high <= COOLHAND_TEMP_MAX_MC (kmod/README
// 3.1), so an unbounded side is clamped to the limit.
struct ModuleWindow {
  std::int32_t low_mc = 0;
  std::int32_t high_mc = 0;
};
[[nodiscard]] ModuleWindow module_window(const policy::Window& w);

// The subscribed socket plus a second one for WINDOW_SET requests.
class CoolhandNetlink {
 public:
  // Resolve the family and join its "events" group. An error with errno
  // ENOENT when the family does not exist (module not loaded).
  [[nodiscard]] static Result<std::unique_ptr<CoolhandNetlink>> open(CoolhandEventSink sink,
                                                                     Logger& log);
  ~CoolhandNetlink();
  CoolhandNetlink(const CoolhandNetlink&) = delete;
  CoolhandNetlink& operator=(const CoolhandNetlink&) = delete;

  [[nodiscard]] int fd() const;
  [[nodiscard]] std::uint32_t family_version() const { return version_; }
  // Drain the socket. Returns true when events were lost (ENOBUFS or a
  // sequence gap) and the caller must resynchronise from sysfs.
  [[nodiscard]] bool receive();
  // COOLHAND_CMD_WINDOW_SET in window mode for module zone `zone_id`. The
  // first EPERM (no CAP_SYS_ADMIN / CAP_NET_ADMIN) is logged once and turns
  // the command off: every later call returns an error at once, and the
  // caller writes the zone's event_window file instead.
  Status set_window(std::uint32_t zone_id, const policy::Window& w);
  [[nodiscard]] bool window_set_available() const { return window_set_; }
  [[nodiscard]] const NetlinkCounters& counters() const { return handler_.counters(); }

 private:
  CoolhandNetlink(int family, CoolhandEventSink sink, Logger& log);

  struct SockDeleter {
    void operator()(nl_sock* s) const;
  };
  std::unique_ptr<nl_sock, SockDeleter> events_;
  std::unique_ptr<nl_sock, SockDeleter> commands_;
  int family_;
  std::uint32_t version_ = 0;
  bool window_set_ = true;
  Logger& log_;
  CoolhandMessageHandler handler_;
  GenlReceiver receiver_;
};

}  // namespace coolhand::daemon
