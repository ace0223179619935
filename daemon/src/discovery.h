// Discovery: find the sysfs attributes a policy's hardware bindings name.
// A config::SensorSource becomes the path of one temperature attribute and
// its scale; a config::DeviceKnob becomes one or more writable attributes
// (cpufreq "all" is one per policy) with the knob value for every engine
// level. Discovery reads sysfs but writes nothing; absent hardware is an
// error value naming what was searched.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "result.h"
#include "sysfs.h"

namespace coolhand::daemon {

struct SensorBinding {
  std::string path;              // e.g. "class/thermal/thermal_zone3/temp"
  std::int32_t scale_to_mc = 1;  // 1: m°C attribute; 100: tenths of °C (power_supply)
  std::optional<std::uint32_t> thermal_zone_id;  // N of thermal_zoneN: receives netlink events
  // coolhand module zones: N of class/coolhand/zoneN, the zone id of the
  // module's own netlink family (COOLHAND_A_ZONE_ID).
  std::optional<std::uint32_t> coolhand_zone_id;
  // coolhand module zones: "class/coolhand/zoneN/event_window", where the
  // engine's window is written so the module reports only changes that
  // matter (kmod/README 3.3, window mode).
  std::optional<std::string> event_window_path;
  std::string description;  // "thermal_zone3 (x86_pkg_temp)", for log lines
};

[[nodiscard]] Result<SensorBinding> find_sensor(const Sysfs& fs, const config::SensorSource& src);

// One writable attribute and the value it gets at each engine level.
struct KnobTarget {
  std::string path;                  // e.g. "devices/system/cpu/cpufreq/policy0/scaling_max_freq"
  std::int64_t original = 0;         // value found before the daemon touched it
  std::vector<std::int64_t> values;  // index: engine level 0..max_level
  // The knob's discovered range (cpuinfo_min/max_freq, max_state,
  // max_brightness, ...), in the knob's unit; unset when sysfs gives none.
  std::optional<std::int64_t> min = std::nullopt;
  std::optional<std::int64_t> max = std::nullopt;
};

// Whether `value` may be taken as `target`'s original (read back from a
// state file or saved by an earlier binding) and written back on restore:
// inside the discovered range, or any value when the knob has none.
[[nodiscard]] bool original_acceptable(const KnobTarget& target, std::int64_t value);

struct KnobBinding {
  std::vector<KnobTarget> targets;
  std::string description;  // "cpufreq policy0,policy4 scaling_max_freq (kHz)"
};

// Original value of `target` (its path and discovered range are set)
// saved by an earlier binding (across reloads the daemon keeps the value from
// before it first touched the knob) or by an earlier instance (originals.h);
// nullopt when the knob is new, or the saved value is not acceptable (see
// original_acceptable), and its current value is the original.
using OriginalLookup = std::function<std::optional<std::int64_t>(const KnobTarget& target)>;

// Level mapping, as docs/policy-language.md ("How levels map to values")
// states it: with an explicit `values` table, level L gets values[L].
// Otherwise level L gets
//   v(L) = unthrottled + (deepest - unthrottled) * L / max_level
// rounded to the nearest integer, halves away from zero. Defaults per kind,
// each overridable in the policy:
//   cooling_device  0 .. max_state
//   cpufreq         cpuinfo_max_freq .. cpuinfo_min_freq (kHz)
//   intel_pstate    100 .. min_perf_pct (or 0 when absent) (%)
//   rapl            the limit found at start .. `deepest` (required: powercap has no safe minimum)
//   (µW) amdgpu_power    the power1_cap found at start .. power1_cap_min (µW) backlight
//   max_brightness .. `deepest` (required: 0 blanks the screen) charge_current  the value found at
//   start .. 0 (µA) coolhand        0 .. throttling_max
// "Found at start" is the original saved before the daemon first wrote the
// knob, so a reload never mistakes a throttled value for level 0. A default
// floor above the level-0 value is lowered to it (throttling never raises a
// cap). Values are checked against the knob's discovered range (cpuinfo_*,
// *_max_power_uw, power1_cap_min/max, max_brightness, max_state,
// constant_charge_current_max_max): out-of-range values are an error.
[[nodiscard]] std::vector<std::int64_t> interpolate_levels(std::int64_t unthrottled,
                                                           std::int64_t deepest,
                                                           std::uint32_t max_level);

[[nodiscard]] Result<KnobBinding> find_knob(const Sysfs& fs, const config::DeviceKnob& knob,
                                            std::uint32_t max_level,
                                            const OriginalLookup& originals);

}  // namespace coolhand::daemon
