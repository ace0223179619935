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
    // /sys/class/backlight/<name>/actual_brightness over max_brightness: a
    // brightness in thousandths of full (SensorSpec::Quantity::brightness),
    // not a temperature; only a fir sensor may take it as an input.
    backlight,
  };
  Kind kind = Kind::none;
  // A role ("battery_temp") the device description maps to one of the kinds
  // above (config/devices/*.yaml); kind stays none until detection resolves it.
  std::string role;
  std::string name;   // thermal_zone type, hwmon chip, supply, module zone or backlight device name
  std::string label;  // hwmon: match tempN_label
  std::optional<std::uint32_t> index;  // hwmon: N of tempN_input when no label
  bool required = true;  // the daemon refuses to start when a required sensor is absent
};

// One per-level knob value as written in the policy: an amount in a unit
// family. Discovery converts it to the knob's own unit: a percentage is of the
// knob's discovered maximum (max_brightness, max_value, cpuinfo_max_freq, ...);
// powers, frequencies and currents are converted (W for firmware attributes,
// MHz for GPU caps); raw numbers are taken as they are and range-checked.
struct KnobValue {
  enum class Unit : std::uint8_t { raw, percent, power_uw, frequency_khz, current_ua };
  Unit unit = Unit::raw;
  std::int64_t amount = 0;
  friend bool operator==(const KnobValue&, const KnobValue&) = default;
};

// How a device's engine levels map onto a knob. Level 0 is always the value
// found at start (the daemon writes nothing at start). `values` gives levels
// 1..max_level explicitly; otherwise the daemon interpolates linearly from the
// start value (level 0) to `deepest` (level max) within the knob's discovered
// range. docs/policy-language.md, "Knob kinds" and "How levels map to values".
struct DeviceKnob {
  enum class Kind : std::uint8_t {
    none,            // no hardware binding (simulator / replay only)
    cooling_device,  // /sys/class/thermal/cooling_device*/ by `type` == name; cur_state (state)
    cpufreq,       // /sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq (kHz); name: "all" or
                   // policy index
    intel_pstate,  // /sys/devices/system/cpu/intel_pstate/max_perf_pct (%)
    rapl,          // /sys/class/powercap/<name>/constraint_<constraint>_power_limit_uw (µW)
    amdgpu_power,  // hwmon named "amdgpu": power1_cap and power2_cap where present (µW, whole W)
    backlight,     // /sys/class/backlight/<name>/brightness (raw steps of max_brightness)
    charge_current,      // /sys/class/power_supply/<name>/constant_charge_current_max (µA)
    sysfs,               // any file at `path` (relative to the sysfs root), explicit `values` table
    coolhand,            // the coolhand module's device `name`: throttling (0..throttling_max)
    firmware_attribute,  // /sys/class/firmware-attributes/<name>/attributes/<attribute>/
                         // current_value in [min_value, max_value] (ppt_*: W)
    hwmon_attribute,     // hwmon chip `name`'s file `attribute` (never hwmonN); range from
                         // <attribute>_min/_max
    charge_threshold,    // /sys/class/power_supply/<name>/charge_control_end_threshold (%)
    gpu_freq,            // DRM cards driven by `name` (i915 or xe): max GPU frequency (MHz)
  };
  Kind kind = Kind::none;
  std::string role;                  // set: the device description maps it to kind/name/...
  std::string name;                  // see each kind; empty when the kind needs none
  std::string attribute;             // firmware_attribute, hwmon_attribute
  std::string path;                  // sysfs kind only
  std::uint32_t constraint = 0;      // rapl
  std::vector<KnobValue> values;     // levels 1..max_level (max_level entries)
  std::optional<KnobValue> deepest;  // value at max level (default: the kind's safe minimum)
  bool required = true;
};

// Whether `v`'s unit is accepted by a knob of kind `k` ("" when it is; else
// why not). A knob whose kind is still a role accepts any unit until bound.
[[nodiscard]] std::string check_knob_unit(DeviceKnob::Kind k, const KnobValue& v);
// "40%", "8W", "1200MHz", "2A", "3350" (raw).
[[nodiscard]] std::string to_string(const KnobValue& v);

struct DaemonSettings {
  std::uint32_t lost_after_failures = 3;  // consecutive failed reads before a sensor is lost
  // -- daemon.recorder (issue 11): the flight recorder's ring, in 32-byte
  // records, allocated once at start. The default keeps more than 30
  // minutes of a busy gaming session (the arithmetic is in
  // docs/recording-format.md, "Ring size").
  static constexpr std::uint32_t kDefaultRecorderRecords = 262144;  // 8 MiB
  static constexpr std::uint32_t kMinRecorderRecords = 1024;
  static constexpr std::uint32_t kMaxRecorderRecords = 1U << 24;  // 512 MiB
  std::uint32_t recorder_records = kDefaultRecorderRecords;
};

struct PolicyDocument {
  policy::PolicySpec spec;
  // The named limits (`limits: {skin_c: 45}`) by name without "_c". Every
  // temperature written against them is already resolved in `spec`.
  std::map<std::string, policy::MilliC, std::less<>> limits;
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
