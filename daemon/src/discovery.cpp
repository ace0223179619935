// Discovery of sensor and knob attributes below the sysfs root.
#include "discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "parse.h"

namespace coolhand::daemon {

namespace {

using config::DeviceKnob;
using config::SensorSource;

SysError bind_error(std::string object, std::string detail) {
  return SysError{"bind", std::move(object), 0, std::move(detail)};
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// The directory under `cls` (e.g. "class/thermal") whose entries start with
// `prefix` and whose `attr` file reads `want`.
std::optional<std::string> find_dir_by_attr(const Sysfs& fs, const std::string& cls,
                                            std::string_view prefix, std::string_view attr,
                                            std::string_view want) {
  auto entries = fs.list(cls);
  if (!entries) return std::nullopt;
  for (const auto& e : *entries) {
    if (!starts_with(e, prefix)) continue;
    auto v = fs.read(fmt::format("{}/{}/{}", cls, e, attr));
    if (v && trim_line(*v) == want) return e;
  }
  return std::nullopt;
}

Result<SensorBinding> find_thermal_zone(const Sysfs& fs, const SensorSource& src) {
  auto dir = find_dir_by_attr(fs, "class/thermal", "thermal_zone", "type", src.name);
  if (!dir)
    return bind_error("thermal_zone " + src.name,
                      "no class/thermal/thermal_zone*/type reads '" + src.name + "'");
  SensorBinding b;
  b.path = "class/thermal/" + *dir + "/temp";
  b.thermal_zone_id = static_cast<std::uint32_t>(std::strtoul(dir->c_str() + 12, nullptr, 10));
  b.description = fmt::format("{} ({})", *dir, src.name);
  return b;
}

Result<SensorBinding> find_hwmon(const Sysfs& fs, const SensorSource& src) {
  auto dir = find_dir_by_attr(fs, "class/hwmon", "hwmon", "name", src.name);
  if (!dir)
    return bind_error("hwmon " + src.name, "no class/hwmon/hwmon*/name reads '" + src.name + "'");
  const std::string base = "class/hwmon/" + *dir + "/";
  SensorBinding b;
  if (!src.label.empty()) {
    auto files = fs.list("class/hwmon/" + *dir);
    if (files) {
      for (const auto& f : *files) {
        if (!starts_with(f, "temp") || f.size() < 11 || f.substr(f.size() - 6) != "_label")
          continue;
        auto label = fs.read(base + f);
        if (label && trim_line(*label) == src.label) {
          b.path = base + f.substr(0, f.size() - 6) + "_input";
          break;
        }
      }
    }
    if (b.path.empty()) {
      return bind_error("hwmon " + src.name,
                        "no " + base + "temp*_label reads '" + src.label + "'");
    }
  } else {
    b.path = base + fmt::format("temp{}_input", src.index.value_or(1));
  }
  if (!fs.exists(b.path)) return bind_error("hwmon " + src.name, b.path + " does not exist");
  b.description = fmt::format("{} ({} {})", b.path, src.name, src.label);
  return b;
}

// The coolhand module (kmod/README section 3): zones are
// /sys/class/coolhand/zone<ID>/ with `name` and `temp1_input` (m°C). <ID> is
// the zone id of the module's netlink events; the `thermal_zone` link names
// the mirrored thermal zone, whose mainline events drive the sensor when the
// module's family is not subscribed.
Result<SensorBinding> find_coolhand_zone(const Sysfs& fs, const SensorSource& src) {
  auto dir = find_dir_by_attr(fs, "class/coolhand", "zone", "name", src.name);
  if (!dir)
    return bind_error("coolhand " + src.name,
                      "no class/coolhand/zone*/name reads '" + src.name + "'");
  const std::string base = "class/coolhand/" + *dir + "/";
  SensorBinding b;
  b.path = base + "temp1_input";
  if (dir->size() > 4 && dir->find_first_not_of("0123456789", 4) == std::string::npos)
    b.coolhand_zone_id = static_cast<std::uint32_t>(std::strtoul(dir->c_str() + 4, nullptr, 10));
  if (!fs.exists(b.path)) return bind_error("coolhand " + src.name, b.path + " does not exist");
  if (auto link = fs.read_link(base + "thermal_zone")) {
    const auto slash = link->rfind('/');
    const std::string leaf = link->substr(slash == std::string::npos ? 0 : slash + 1);
    if (starts_with(leaf, "thermal_zone")) {
      b.thermal_zone_id = static_cast<std::uint32_t>(std::strtoul(leaf.c_str() + 12, nullptr, 10));
    }
  }
  if (fs.exists(base + "event_window")) b.event_window_path = base + "event_window";
  b.description = fmt::format("{} ({})", base + "temp1_input", src.name);
  return b;
}

Result<SensorBinding> find_power_supply(const Sysfs& fs, const SensorSource& src) {
  SensorBinding b;
  b.path = "class/power_supply/" + src.name + "/temp";
  if (!fs.exists(b.path)) return bind_error("power_supply " + src.name, b.path + " does not exist");
  b.scale_to_mc = 100;
  b.description = b.path + " (tenths of °C)";
  return b;
}

// ------------------------------------------------------------------ knobs --

struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

// Per-target facts discovery gathers before the level mapping is applied.
struct Found {
  std::string path;
  std::optional<Range> range;               // allowed values, when sysfs says
  std::optional<std::int64_t> unthrottled;  // kind default for level 0 (else: original)
  std::optional<std::int64_t> deepest;      // kind default for max_level
};

Result<std::int64_t> read_int(const Sysfs& fs, const std::string& path) {
  return fs.read_integer(path);
}

Result<std::vector<Found>> find_cooling_device(const Sysfs& fs, const DeviceKnob& k) {
  auto dir = find_dir_by_attr(fs, "class/thermal", "cooling_device", "type", k.name);
  if (!dir)
    return bind_error("cooling_device " + k.name,
                      "no class/thermal/cooling_device*/type reads '" + k.name + "'");
  const std::string base = "class/thermal/" + *dir + "/";
  auto max = read_int(fs, base + "max_state");
  if (!max) return max.error();
  return std::vector<Found>{{base + "cur_state", Range{0, *max}, 0, *max}};
}

Result<std::vector<Found>> find_cpufreq(const Sysfs& fs, const DeviceKnob& k) {
  const std::string cls = "devices/system/cpu/cpufreq";
  std::vector<std::string> policies;
  if (k.name.empty() || k.name == "all") {
    auto entries = fs.list(cls);
    if (!entries) return entries.error();
    for (const auto& e : *entries) {
      if (starts_with(e, "policy")) policies.push_back(e);
    }
  } else {
    policies.push_back("policy" + k.name);
  }
  if (policies.empty()) return bind_error(cls, "no cpufreq policy*");
  std::vector<Found> out;
  for (const auto& p : policies) {
    const std::string base = fmt::format("{}/{}/", cls, p);
    auto lo = read_int(fs, base + "cpuinfo_min_freq");
    if (!lo) return lo.error();
    auto hi = read_int(fs, base + "cpuinfo_max_freq");
    if (!hi) return hi.error();
    out.push_back({base + "scaling_max_freq", Range{*lo, *hi}, *hi, *lo});
  }
  return out;
}

Result<std::vector<Found>> find_intel_pstate(const Sysfs& fs, const DeviceKnob&) {
  const std::string base = "devices/system/cpu/intel_pstate/";
  auto min = fs.read_integer(base + "min_perf_pct");
  const std::int64_t floor_pct = min ? *min : 0;
  return std::vector<Found>{{base + "max_perf_pct", Range{0, 100}, 100, floor_pct}};
}

Result<std::vector<Found>> find_rapl(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = fmt::format("class/powercap/{}/constraint_{}_", k.name, k.constraint);
  Found f{base + "power_limit_uw", std::nullopt, std::nullopt, std::nullopt};
  auto max = fs.read_integer(base + "max_power_uw");
  if (max && *max > 0) f.range = Range{0, *max};
  return std::vector<Found>{f};
}

Result<std::vector<Found>> find_amdgpu(const Sysfs& fs, const DeviceKnob& k) {
  const std::string chip = k.name.empty() ? "amdgpu" : k.name;
  auto dir = find_dir_by_attr(fs, "class/hwmon", "hwmon", "name", chip);
  if (!dir)
    return bind_error("amdgpu_power " + chip, "no class/hwmon/hwmon*/name reads '" + chip + "'");
  const std::string base = "class/hwmon/" + *dir + "/";
  Found f{base + "power1_cap", std::nullopt, std::nullopt, std::nullopt};
  auto lo = fs.read_integer(base + "power1_cap_min");
  auto hi = fs.read_integer(base + "power1_cap_max");
  if (lo && hi) f.range = Range{*lo, *hi};
  if (lo) f.deepest = *lo;
  return std::vector<Found>{f};
}

Result<std::vector<Found>> find_backlight(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = "class/backlight/" + k.name + "/";
  auto max = read_int(fs, base + "max_brightness");
  if (!max) return max.error();
  // Level 0 is the brightness found at start (the user's choice), never
  // max_brightness: starting the daemon must not light the screen up. No
  // default floor: brightness 0 blanks the screen.
  return std::vector<Found>{{base + "brightness", Range{0, *max}, std::nullopt, std::nullopt}};
}

Result<std::vector<Found>> find_charge_current(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = "class/power_supply/" + k.name + "/";
  Found f{base + "constant_charge_current_max", std::nullopt, std::nullopt, 0};
  auto max = fs.read_integer(base + "constant_charge_current_max_max");
  if (max) f.range = Range{0, *max};
  return std::vector<Found>{f};
}

// A coolhand throttle device is reached through the link each bound zone
// holds to it: class/coolhand/zone*/<name>/throttling (kmod/README 3.1-3.2).
Result<std::vector<Found>> find_coolhand_device(const Sysfs& fs, const DeviceKnob& k) {
  auto zones = fs.list("class/coolhand");
  if (zones) {
    for (const auto& z : *zones) {
      const std::string base = "class/coolhand/" + z + "/" + k.name + "/";
      if (!starts_with(z, "zone") || !fs.exists(base + "throttling")) continue;
      auto max = read_int(fs, base + "throttling_max");
      if (!max) return max.error();
      return std::vector<Found>{{base + "throttling", Range{0, *max}, 0, *max}};
    }
  }
  return bind_error("coolhand " + k.name, "no class/coolhand/zone*/" + k.name + "/throttling");
}

Result<std::vector<Found>> find_targets(const Sysfs& fs, const DeviceKnob& k) {
  using K = DeviceKnob::Kind;
  switch (k.kind) {
    case K::cooling_device:
      return find_cooling_device(fs, k);
    case K::cpufreq:
      return find_cpufreq(fs, k);
    case K::intel_pstate:
      return find_intel_pstate(fs, k);
    case K::rapl:
      return find_rapl(fs, k);
    case K::amdgpu_power:
      return find_amdgpu(fs, k);
    case K::backlight:
      return find_backlight(fs, k);
    case K::charge_current:
      return find_charge_current(fs, k);
    case K::sysfs:
      return std::vector<Found>{{k.path, std::nullopt, std::nullopt, std::nullopt}};
    case K::coolhand:
      return find_coolhand_device(fs, k);
    case K::none:
      break;
  }
  return bind_error(k.name, "device has no hardware binding");
}

}  // namespace

std::vector<std::int64_t> interpolate_levels(std::int64_t unthrottled, std::int64_t deepest,
                                             std::uint32_t max_level) {
  std::vector<std::int64_t> v(max_level + 1);
  const std::int64_t n = std::max<std::int64_t>(max_level, 1);
  for (std::uint32_t l = 0; l <= max_level; ++l) {
    // v = (unthrottled * n + (deepest - unthrottled) * l) / n, rounded to
    // nearest with halves away from zero.
    const std::int64_t num = unthrottled * n + (deepest - unthrottled) * l;
    const std::int64_t half = (num >= 0 ? n : -n) / 2;
    v[l] = (num + half) / n;
  }
  return v;
}

Result<SensorBinding> find_sensor(const Sysfs& fs, const SensorSource& src) {
  switch (src.kind) {
    case SensorSource::Kind::thermal_zone:
      return find_thermal_zone(fs, src);
    case SensorSource::Kind::hwmon:
      return find_hwmon(fs, src);
    case SensorSource::Kind::power_supply:
      return find_power_supply(fs, src);
    case SensorSource::Kind::coolhand:
      return find_coolhand_zone(fs, src);
    case SensorSource::Kind::none:
      break;
  }
  return bind_error(src.name, "sensor has no hardware source");
}

bool original_acceptable(const KnobTarget& target, std::int64_t value) {
  return (!target.min || value >= *target.min) && (!target.max || value <= *target.max);
}

Result<KnobBinding> find_knob(const Sysfs& fs, const DeviceKnob& knob, std::uint32_t max_level,
                              const OriginalLookup& originals) {
  auto found = find_targets(fs, knob);
  if (!found) return found.error();
  KnobBinding b;
  for (const Found& f : *found) {
    KnobTarget t;
    t.path = f.path;
    if (f.range) {
      t.min = f.range->lo;
      t.max = f.range->hi;
    }
    if (auto saved = originals ? originals(t) : std::nullopt) {
      t.original = *saved;
    } else {
      auto cur = fs.read_integer(f.path);
      if (!cur) return cur.error();
      t.original = *cur;
    }
    if (!knob.values.empty()) {
      if (knob.values.size() != max_level + 1) {
        return bind_error(f.path, fmt::format("values has {} entries, expected {} (max_level + 1)",
                                              knob.values.size(), max_level + 1));
      }
      t.values = knob.values;
    } else {
      if (knob.kind == DeviceKnob::Kind::sysfs) {
        return bind_error(f.path, "a sysfs knob needs an explicit `values` table");
      }
      const std::int64_t top = knob.unthrottled.value_or(f.unthrottled.value_or(t.original));
      std::optional<std::int64_t> bottom = knob.deepest ? knob.deepest : f.deepest;
      if (!bottom) {
        return bind_error(f.path,
                          "set `deepest` for this knob: sysfs gives no minimum to throttle to");
      }
      // A knob where smaller is throttled (every kind but cooling_device)
      // must never be raised by throttling: clamp the default to level 0.
      if (!knob.deepest && knob.kind != DeviceKnob::Kind::cooling_device &&
          knob.kind != DeviceKnob::Kind::coolhand) {
        bottom = std::min(*bottom, top);
      }
      t.values = interpolate_levels(top, *bottom, max_level);
    }
    if (f.range) {
      for (std::size_t l = 0; l < t.values.size(); ++l) {
        if (t.values[l] < f.range->lo || t.values[l] > f.range->hi) {
          return bind_error(f.path, fmt::format("level {} value {} is outside [{}, {}]", l,
                                                t.values[l], f.range->lo, f.range->hi));
        }
      }
    }
    b.targets.push_back(std::move(t));
  }
  std::string paths;
  for (const auto& t : b.targets) paths += (paths.empty() ? "" : ", ") + t.path;
  b.description = paths;
  return b;
}

}  // namespace coolhand::daemon
