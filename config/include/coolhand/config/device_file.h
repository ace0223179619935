// Device descriptions (config/devices/*.yaml): which machine a file is for
// (its DMI match), the policy for its class, and the hardware behind each
// role a policy names ("battery_temp", "apu_power", ...). A role lists its
// candidates in order with the public source of the fact; the daemon binds
// the first candidate the machine has (daemon/src/detect.h).
//
// Errors name the file, line, column and key, as for policies; nothing here
// throws (except std::bad_alloc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/config/policy_file.h"

namespace coolhand::config {

// The DMI keys a description may match on: files of /sys/class/dmi/id/.
inline constexpr std::string_view kDmiKeys[] = {"sys_vendor", "product_name", "board_name"};

template <typename T>
struct Role {
  std::string cite;           // the public source of the fact (kernel file, repository, issue)
  std::vector<T> candidates;  // in order of preference; the first present one binds
};

struct DeviceDescription {
  std::string id;      // "steam-deck-lcd"
  std::string name;    // "Valve Steam Deck LCD"
  std::string policy;  // the policy for its class: config/policies/<policy>.yaml
  // DMI key -> exact value (trimmed). Every key given must match; a
  // description with no keys matches any machine (the generic fallback).
  std::map<std::string, std::string, std::less<>> match;
  std::map<std::string, Role<SensorSource>, std::less<>> sensors;
  std::map<std::string, Role<DeviceKnob>, std::less<>> knobs;
};

struct DeviceLoadResult {
  std::optional<DeviceDescription> description;  // set iff errors is empty
  std::vector<ConfigError> errors;
};

[[nodiscard]] DeviceLoadResult parse_device_description(std::string_view text,
                                                        std::string_view file);
[[nodiscard]] DeviceLoadResult load_device_file(const std::string& path);

}  // namespace coolhand::config
