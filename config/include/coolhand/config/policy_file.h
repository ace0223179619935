// The YAML policy language: text -> plain structs -> validated PolicyDocument.
// A PolicyDocument is the engine's PolicySpec plus the hardware bindings the
// daemon needs (where each physical sensor is read, how each device's levels
// map onto a sysfs knob). The simulator ignores the bindings and matches
// sensors and devices to its model by name.
//
// Every error names the file, line, column and key. yaml-cpp exceptions stop
// here: nothing in this API throws (except std::bad_alloc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/policy/spec.h"

namespace coolhand::config {

// Where a physical sensor is read. Values are converted to m°C by the daemon.
struct SensorSource {
  enum class Kind : std::uint8_t {
    none,          // no hardware binding (simulator / replay only)
    thermal_zone,  // /sys/class/thermal/thermal_zone*/ whose `type` == name (m°C)
    hwmon,  // /sys/class/hwmon/hwmon*/ whose `name` == chip; tempN_input by label or index (m°C)
    power_supply,  // /sys/class/power_supply/<name>/temp (tenths of °C)
    coolhand,      // a zone of the coolhand kernel module, by name (m°C)
  };
  Kind kind = Kind::none;
  std::string name;                    // thermal_zone type, hwmon chip, supply or module zone name
  std::string label;                   // hwmon: match tempN_label
  std::optional<std::uint32_t> index;  // hwmon: N of tempN_input when no label
  bool required = true;  // the daemon refuses to start when a required sensor is absent
};

// How a device's engine levels map onto a knob. Level 0 is always full
// performance. Unless `values` gives one value per level explicitly, the daemon
// interpolates linearly from the knob's unthrottled value (level 0) to
// `deepest` (level max), with the range discovered from sysfs where the knob
// has one (e.g. cpuinfo_max_freq) and overridable here.
struct DeviceKnob {
  enum class Kind : std::uint8_t {
    none,            // no hardware binding (simulator / replay only)
    cooling_device,  // /sys/class/thermal/cooling_device*/ by `type` == name; cur_state (state)
    cpufreq,       // /sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq (kHz); name: "all" or
                   // policy index
    intel_pstate,  // /sys/devices/system/cpu/intel_pstate/max_perf_pct (%)
    rapl,          // /sys/class/powercap/<name>/constraint_<constraint>_power_limit_uw (µW)
    amdgpu_power,  // hwmon named "amdgpu": power1_cap (µW)
    backlight,     // /sys/class/backlight/<name>/brightness (raw steps of max_brightness)
    charge_current,  // /sys/class/power_supply/<name>/constant_charge_current_max (µA)
    sysfs,           // any file at `path` (relative to the sysfs root), explicit `values` table
    coolhand,        // the coolhand module's device `name`: throttling (0..throttling_max)
  };
  Kind kind = Kind::none;
  std::string name;              // see each kind; empty when the kind needs none
  std::string path;              // sysfs kind only
  std::uint32_t constraint = 0;  // rapl
  std::vector<std::int64_t>
      values;  // explicit value per level (max_level+1 entries) in the knob's unit
  std::optional<std::int64_t>
      unthrottled;                      // value at level 0 (default: discovered / original value)
  std::optional<std::int64_t> deepest;  // value at max level (default: discovered minimum)
  bool required = true;
};

struct DaemonSettings {
  std::uint32_t lost_after_failures = 3;  // consecutive failed reads before a sensor is lost
};

struct PolicyDocument {
  policy::PolicySpec spec;
  std::map<std::string, SensorSource, std::less<>> sources;  // by physical sensor name
  std::map<std::string, DeviceKnob, std::less<>> knobs;      // by device name
  DaemonSettings daemon;
};

struct LoadResult {
  std::optional<PolicyDocument> document;  // set iff errors is empty
  std::vector<ConfigError> errors;
};

// Parse and validate policy text. `file` is only used in error messages.
[[nodiscard]] LoadResult parse_policy(std::string_view text, std::string_view file);
// Read `path` and parse it. A missing or unreadable file is an error value.
[[nodiscard]] LoadResult load_policy_file(const std::string& path);

}  // namespace coolhand::config
