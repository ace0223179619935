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
// docs/daemon.md (taken from the mainline header).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "coolhand/policy/engine.h"
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

struct NetlinkCounters {
  std::uint64_t received = 0;
  std::uint64_t accepted = 0;
  std::uint64_t spoofed = 0;    // sender port id != 0
  std::uint64_t malformed = 0;  // failed validation
  std::uint64_t foreign = 0;    // not the thermal family
  std::uint64_t overruns = 0;   // ENOBUFS
  std::uint64_t gaps = 0;       // sequence number gaps
};

using ThermalEventSink = std::function<void(const ThermalEvent&)>;

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

// The subscribed socket plus a second one for threshold commands.
class ThermalNetlink {
 public:
  // Resolve the family and join its "event" and "sampling" groups. An error
  // when the kernel has no thermal netlink (CONFIG_THERMAL_NETLINK=n).
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
  // then an UP threshold at `high` and a DOWN threshold at `low`. Falls back
  // (returns an error, and stops trying) on kernels without thresholds.
  Status set_window(std::uint32_t tz_id, const policy::Window& w);
  [[nodiscard]] bool thresholds_supported() const { return thresholds_; }
  [[nodiscard]] const NetlinkCounters& counters() const { return handler_.counters(); }

 private:
  ThermalNetlink(int family, ThermalEventSink sink, Logger& log);
  Status command(std::uint8_t cmd, std::uint32_t tz_id, std::optional<std::int32_t> temp,
                 std::optional<std::uint32_t> direction);

  struct SockDeleter {
    void operator()(nl_sock* s) const;
  };
  struct CbDeleter {
    void operator()(nl_cb* c) const;
  };
  std::unique_ptr<nl_sock, SockDeleter> events_;
  std::unique_ptr<nl_sock, SockDeleter> commands_;
  std::unique_ptr<nl_cb, CbDeleter> cb_;
  int family_;
  std::uint32_t version_ = 0;
  bool thresholds_ = false;
  Logger& log_;
  ThermalMessageHandler handler_;
};

}  // namespace coolhand::daemon
