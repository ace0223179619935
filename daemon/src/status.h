// A snapshot of what the daemon is doing, for D-Bus (GetStatus and the
// change-tracking properties): severity per zone with its temperature and
// next limit, each sensor's value and whether it is lost, each device's
// level, and the runtime's (and thermal netlink's) counters. Plain values,
// built from a Runtime by const reference; no D-Bus types here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coolhand/policy/spec.h"
#include "coolhand/policy/units.h"

namespace coolhand::daemon {

class Runtime;
struct NetlinkCounters;

struct ZoneStatus {
  std::string name;
  policy::Severity severity = policy::Severity::none;
  std::optional<policy::MilliC> temperature;  // none while its sensor is unknown
  // The lowest trip or severity threshold above `temperature` (the lowest of
  // all when the temperature is unknown); none above the last one.
  std::optional<policy::MilliC> next_limit;
};

struct SensorStatus {
  std::string name;
  std::string kind;   // the policy kind: "physical", "weighted_sum", "max", ...; "brightness"
                      // for a backlight source (its value in thousandths of full, not m°C)
  bool lost = false;  // physical only: unreadable or absent
  std::optional<policy::MilliC> value;
};

struct DeviceStatus {
  std::string name;
  std::uint32_t level = 0;  // the engine's decision (what is applied when bound)
  std::uint32_t max_level = 0;
  // The level is in effect on hardware: a knob is bound and its last write
  // succeeded. False for a device without a binding, absent or read-only.
  bool applied = false;
};

struct StatusSnapshot {
  policy::Severity severity = policy::Severity::none;
  std::string profile;  // empty: the policy as written
  std::vector<ZoneStatus> zones;
  std::vector<SensorStatus> sensors;
  std::vector<DeviceStatus> devices;
  std::vector<std::pair<std::string, std::uint64_t>> counters;  // name, count
};

// `netlink` adds the thermal netlink counters (prefixed "netlink_") when set.
[[nodiscard]] StatusSnapshot snapshot(const Runtime& rt, const NetlinkCounters* netlink);

}  // namespace coolhand::daemon
