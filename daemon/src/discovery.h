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
  std::optional<std::uint32_t> thermal_zone_id;  // N of thermal_zoneN (its netlink zone id)
  // Whether that thermal zone has a trip point set (some trip_point_<N>_temp
  // reads above THERMAL_TEMP_INVALID), so the kernel updates it, and sends
  // its thermal netlink events, by itself. See zone_sends_events().
  bool zone_has_trips = false;
  // coolhand module zones: N of class/coolhand/zoneN, the zone id of the
  // module's own netlink family (COOLHAND_A_ZONE_ID).
  std::optional<std::uint32_t> coolhand_zone_id;
  // coolhand module zones: "class/coolhand/zoneN/event_window", where the
  // engine's window is written so the module reports only changes that
  // matter (kmod/README 3.3, window mode).
  std::optional<std::string> event_window_path;
  // A backlight source: `path` is its actual_brightness, read as a
  // brightness in thousandths of this max_brightness (parse_brightness), not
  // as a temperature.
  std::optional<std::int64_t> max_brightness;
  std::string description;  // "thermal_zone3 (x86_pkg_temp)", for log lines
};

// Whether the thermal netlink family reports the zone's temperature without
// coolhand polling it. In 6.1 a zone sends THERMAL_GENL_EVENT_TZ_TRIP_UP/DOWN
// and SAMPLING_TEMP only from thermal_zone_device_update()
// (drivers/thermal/thermal_core.c: update_temperature() calls
// thermal_genl_sampling_temp(), handle_thermal_trip() notifies trip
// crossings). That runs on the core's poll, which monitor_thermal_zone()
// arms only for a non-zero polling_delay (or passive_delay while a passive
// trip is active), or when the driver calls it from an interrupt on a trip
// it programmed (x86_pkg_temp_thermal.c: pkg_temp_thermal_threshold_work_fn,
// only for thresholds set in trip_point_<N>_temp; unset ones read
// THERMAL_TEMP_INVALID). x86_pkg_temp registers with polling and passive
// delay 0. 6.1's sysfs does not show polling_delay, so a zone without a set
// trip is polled by coolhand at the adaptive interval: where the kernel polls
// it too, that costs a few reads, never the sensor.
[[nodiscard]] bool zone_sends_events(const SensorBinding& b);

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
// states it. Level 0 is always the value found at start (the original, kept
// across reloads), for every kind, throttle states (cooling_device cur_state,
// coolhand throttling) included: the daemon writes nothing at start, never
// releases a device found already throttled, and an original outside the
// advertised range (firmware's RAPL PL1 above max_power_uw) is kept and
// restored as found. With an explicit `values` table, level L >= 1 gets
// values[L-1]; otherwise
//   v(L) = top + (deepest - top) * L / max_level
// rounded to the nearest integer, halves away from zero, where top is the
// start value held inside the advertised range. Policy values are converted
// to the knob's unit: percentages of the advertised maximum, powers to W for
// firmware attributes, frequencies to MHz for GPU caps. Kind defaults for
// `deepest`: cooling_device/coolhand max state, cpufreq cpuinfo_min_freq,
// intel_pstate min_perf_pct, gpu_freq RPn, charge_current 0;
// rapl, amdgpu_power (power1_cap_min reads 0 W), backlight, firmware and hwmon attributes and
// charge_threshold have no safe default. Levels 1..max must lie in the
// advertised range; then a level never throttles less than `top` (a cap is
// never raised above it, a throttle state never lowered below it). amdgpu
// caps are whole watts (the kernel keeps no more).
[[nodiscard]] std::vector<std::int64_t> interpolate_levels(std::int64_t top, std::int64_t deepest,
                                                           std::uint32_t max_level);

[[nodiscard]] Result<KnobBinding> find_knob(const Sysfs& fs, const config::DeviceKnob& knob,
                                            std::uint32_t max_level,
                                            const OriginalLookup& originals);

}  // namespace coolhand::daemon
