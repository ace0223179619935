// The mainline "thermal" generic netlink family: event subscription,
// message validation and (on kernels that have them, about 6.13+) user
// thresholds programmed from the engine's windows.
//
// Message rules (ThermalMessageHandler):
// - A message whose sender port id is not 0 did not come from the kernel:
//   dropped and counted as spoofed.
// - Attributes are parsed by libnl (genlmsg_parse) against a policy table
//   that fixes each attribute's type and exact size; a message that fails
//   it, lacks an attribute its command needs, or carries an impossible
//   temperature is dropped and counted as malformed.
// - A nonzero sequence number that does not follow the previous one is a
//   gap: the caller must resynchronise from sysfs (as on ENOBUFS).
// Attribute and command numbers: /usr/include/linux/thermal.h (6.1) and, for
// the 6.13+ threshold additions absent from Debian 12's header,
// docs/daemon.md (taken from the mainline header; verified against Debian's
// 6.16.12 kernel by tests/thresholds).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "coolhand/policy/engine.h"
#include "genl.h"
#include "log.h"
#include "result.h"

struct nl_msg;
struct nl_sock;
struct nl_cb;

namespace coolhand::daemon {

struct ThermalEvent {
  enum class Kind : std::uint8_t {
    sample,          // SAMPLING_TEMP: tz_id, temperature
    tz_create,       // tz_id, name
    tz_delete,       // tz_id
    tz_enable,       // tz_id
    tz_disable,      // tz_id
    trip_up,         // tz_id, trip_id, temperature
    trip_down,       // tz_id, trip_id, temperature
    trip_change,     // tz_id, trip_id
    cdev_add,        // cdev_id, name
    cdev_delete,     // cdev_id
    cdev_update,     // cdev_id, cdev_state
    gov_change,      // tz_id, name
    threshold_up,    // tz_id, temperature (6.13+)
    threshold_down,  // tz_id, temperature (6.13+)
    other,           // threshold add/delete/flush, CPU capability: nothing to do
  };
  Kind kind = Kind::other;
  std::optional<std::uint32_t> tz_id;
  std::optional<policy::MilliC> temperature;
  std::optional<std::uint32_t> trip_id;
  std::optional<std::uint32_t> cdev_id;
  std::optional<std::uint32_t> cdev_state;
  std::string name;
};

[[nodiscard]] const char* to_string(ThermalEvent::Kind k);

using ThermalEventSink = std::function<void(const ThermalEvent&)>;

// User-threshold requests (include/uapi/linux/thermal.h, 6.13+; verified
// against Debian's 6.16.12 kernel, see docs/daemon.md). Both ask for an ACK;
// the commands need CAP_SYS_ADMIN, and kernels before 6.13 do not know them
// (the 6.1 guest answers THRESHOLD_GET with an error).
enum class ThresholdWay : std::uint32_t { up = 1, down = 2 };  // THERMAL_THRESHOLD_WAY_*
using NlMsgPtr = std::unique_ptr<nl_msg, void (*)(nl_msg*)>;
// THRESHOLD_FLUSH {TZ_ID}: drop every user threshold of zone `tz_id`.
[[nodiscard]] Result<NlMsgPtr> encode_threshold_flush(int family_id, std::uint32_t tz_id);
// THRESHOLD_ADD {TZ_ID, THRESHOLD_TEMP (m°C, two's complement), THRESHOLD_DIRECTION}.
[[nodiscard]] Result<NlMsgPtr> encode_threshold_add(int family_id, std::uint32_t tz_id,
                                                    policy::MilliC temp, ThresholdWay way);

// Validates and decodes messages; owns no socket, so tests and benchmarks
// feed it messages built with libnl.
class ThermalMessageHandler {
 public:
  ThermalMessageHandler(int family_id, ThermalEventSink sink, Logger& log);
  // Returns true when the caller must resynchronise (sequence gap).
  bool handle(nl_msg* msg);
  // Decode without side effects: the event, or why it was dropped.
  [[nodiscard]] Result<ThermalEvent> decode(nl_msg* msg) const;
  [[nodiscard]] const NetlinkCounters& counters() const { return counters_; }
  NetlinkCounters& mutable_counters() { return counters_; }

 private:
  int family_id_;
  ThermalEventSink sink_;
  Logger& log_;
  NetlinkCounters counters_;
  std::optional<std::uint32_t> last_seq_;
};

// Drains a nonblocking netlink socket into a ThermalMessageHandler
// (GenlReceiver's rules, genl.h).
class ThermalReceiver {
 public:
  ThermalReceiver(int family_id, ThermalEventSink sink, Logger& log);
  ~ThermalReceiver();
  ThermalReceiver(const ThermalReceiver&) = delete;
  ThermalReceiver& operator=(const ThermalReceiver&) = delete;

  // Read until the socket would block. Returns true when messages were lost
  // (ENOBUFS or a sequence gap) and the caller must resynchronise.
  [[nodiscard]] bool drain(nl_sock* sock);
  [[nodiscard]] const NetlinkCounters& counters() const { return handler_.counters(); }

 private:
  ThermalMessageHandler handler_;
  GenlReceiver receiver_;
};

// The subscribed socket plus a second one for threshold commands.
class ThermalNetlink {
 public:
  // Resolve the family and join its "event" group, and its "sampling" group
  // only when the kernel has no user thresholds: with thresholds the kernel
  // reports exactly the crossings of the engine's windows, while "sampling"
  // would wake the daemon on every poll of every zone (once a second for an
  // ACPI zone with _TZP = 10). An error when the kernel has no thermal
  // netlink (CONFIG_THERMAL_NETLINK=n).
  [[nodiscard]] static Result<std::unique_ptr<ThermalNetlink>> open(ThermalEventSink sink,
                                                                    Logger& log);
  ~ThermalNetlink();
  ThermalNetlink(const ThermalNetlink&) = delete;
  ThermalNetlink& operator=(const ThermalNetlink&) = delete;

  [[nodiscard]] int fd() const;
  [[nodiscard]] std::uint32_t family_version() const { return version_; }
  // Drain the socket. Returns true when messages were lost (ENOBUFS or a
  // sequence gap) and the caller must resynchronise from sysfs.
  [[nodiscard]] bool receive();
  // Program kernel thresholds for one zone from an engine window: flush,
  // then an UP threshold at `high` and a DOWN threshold at `low` (an infinite
  // end gets none). On the first failure (no thresholds, no CAP_SYS_ADMIN)
  // it returns the error, joins the "sampling" group and stops trying.
  Status set_window(std::uint32_t tz_id, const policy::Window& w);
  [[nodiscard]] bool thresholds_supported() const { return thresholds_; }
  // Drop the thresholds this daemon programmed (exit): they outlive the
  // socket in the kernel and would keep firing for nobody.
  void flush_thresholds();
  [[nodiscard]] const NetlinkCounters& counters() const { return receiver_.counters(); }

 private:
  ThermalNetlink(int family, ThermalEventSink sink, Logger& log);
  Status join_sampling();
  Status request(Result<NlMsgPtr> msg);

  struct SockDeleter {
    void operator()(nl_sock* s) const;
  };
  std::unique_ptr<nl_sock, SockDeleter> events_;
  std::unique_ptr<nl_sock, SockDeleter> commands_;
  int family_;
  int sampling_group_ = -1;
  bool sampling_joined_ = false;
  std::uint32_t version_ = 0;
  bool thresholds_ = false;
  std::set<std::uint32_t> programmed_;  // zone ids holding our thresholds
  Logger& log_;
  ThermalReceiver receiver_;
};

}  // namespace coolhand::daemon
