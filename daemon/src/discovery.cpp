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

// THERMAL_TEMP_INVALID (include/linux/thermal.h, 6.1): what a trip reads
// when it is not set (x86_pkg_temp's sys_get_trip_temp for a zero threshold).
constexpr std::int64_t kThermalTempInvalid = -274000;

// Whether class/thermal/<zone_dir>/trip_point_<N>_temp reads a set trip for
// some N (thermal_sysfs.c create_trip_attrs: one per trip, N from 0).
bool has_set_trip(const Sysfs& fs, const std::string& zone_dir) {
  auto files = fs.list("class/thermal/" + zone_dir);
  if (!files) return false;
  for (const auto& f : *files) {
    if (!starts_with(f, "trip_point_") || f.size() < 5 || f.substr(f.size() - 5) != "_temp")
      continue;
    auto v = fs.read_integer(fmt::format("class/thermal/{}/{}", zone_dir, f));
    if (v && *v > kThermalTempInvalid) return true;
  }
  return false;
}

Result<SensorBinding> find_thermal_zone(const Sysfs& fs, const SensorSource& src) {
  auto dir = find_dir_by_attr(fs, "class/thermal", "thermal_zone", "type", src.name);
  if (!dir)
    return bind_error("thermal_zone " + src.name,
                      "no class/thermal/thermal_zone*/type reads '" + src.name + "'");
  SensorBinding b;
  b.path = "class/thermal/" + *dir + "/temp";
  b.thermal_zone_id = static_cast<std::uint32_t>(std::strtoul(dir->c_str() + 12, nullptr, 10));
  b.zone_has_trips = has_set_trip(fs, *dir);
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
      b.zone_has_trips = has_set_trip(fs, leaf);
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
  std::optional<Range> range;           // what the kernel advertises, when it does
  std::optional<std::int64_t> deepest;  // kind default for max_level (target unit)
  std::int64_t per_unit = 1;            // policy quantity units per target unit (W: 1e6 µW)
  std::int64_t granularity = 1;         // writes are whole multiples (amdgpu: whole W)
  bool higher_throttles = false;        // cooling states: a higher value throttles
};

Result<std::int64_t> read_int(const Sysfs& fs, const std::string& path) {
  return fs.read_integer(path);
}

std::optional<Range> read_range(const Sysfs& fs, const std::string& lo, const std::string& hi) {
  auto l = fs.read_integer(lo);
  auto h = fs.read_integer(hi);
  if (l && h && *l <= *h) return Range{*l, *h};
  return std::nullopt;
}

// The hwmon directory whose `name` reads `chip` (never addressed as hwmonN).
Result<std::string> hwmon_dir(const Sysfs& fs, const std::string& chip, std::string_view what) {
  auto dir = find_dir_by_attr(fs, "class/hwmon", "hwmon", "name", chip);
  if (!dir) {
    return bind_error(std::string(what) + " " + chip,
                      "no class/hwmon/hwmon*/name reads '" + chip + "'");
  }
  return "class/hwmon/" + *dir + "/";
}

Result<std::vector<Found>> find_cooling_device(const Sysfs& fs, const DeviceKnob& k) {
  auto dir = find_dir_by_attr(fs, "class/thermal", "cooling_device", "type", k.name);
  if (!dir)
    return bind_error("cooling_device " + k.name,
                      "no class/thermal/cooling_device*/type reads '" + k.name + "'");
  const std::string base = "class/thermal/" + *dir + "/";
  auto max = read_int(fs, base + "max_state");
  if (!max) return max.error();
  Found f{base + "cur_state", Range{0, *max}, *max};
  f.higher_throttles = true;
  return std::vector<Found>{f};
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
    out.push_back({base + "scaling_max_freq", Range{*lo, *hi}, *lo});
  }
  return out;
}

Result<std::vector<Found>> find_intel_pstate(const Sysfs& fs, const DeviceKnob&) {
  const std::string base = "devices/system/cpu/intel_pstate/";
  if (!fs.exists(base + "max_perf_pct"))
    return bind_error("intel_pstate", base + "max_perf_pct does not exist");
  auto min = fs.read_integer(base + "min_perf_pct");
  const std::int64_t floor_pct = min ? *min : 0;
  return std::vector<Found>{{base + "max_perf_pct", Range{0, 100}, floor_pct}};
}

// RAPL: constraint_<N>_max_power_uw is the advertised maximum. Firmware may
// have set the limit above it (e.g. 30 W against 17 W): that is the original,
// restored as found; coolhand's own writes stay within [0, max].
Result<std::vector<Found>> find_rapl(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = fmt::format("class/powercap/{}/constraint_{}_", k.name, k.constraint);
  if (!fs.exists(base + "power_limit_uw"))
    return bind_error("rapl " + k.name, base + "power_limit_uw does not exist");
  Found f{base + "power_limit_uw", std::nullopt, std::nullopt};
  auto max = fs.read_integer(base + "max_power_uw");
  if (max && *max > 0) f.range = Range{0, *max};
  return std::vector<Found>{f};
}

// amdgpu: power1_cap (and power2_cap, where the APU has both) in µW; the
// kernel keeps whole watts (amdgpu_pm.c divides by 1000000), so coolhand
// writes whole watts and a read-back never differs by the rounding.
Result<std::vector<Found>> find_amdgpu(const Sysfs& fs, const DeviceKnob& k) {
  auto base = hwmon_dir(fs, k.name.empty() ? "amdgpu" : k.name, "amdgpu_power");
  if (!base) return base.error();
  std::vector<Found> out;
  for (const char* cap : {"power1_cap", "power2_cap"}) {
    const std::string p = *base + cap;
    if (!fs.exists(p)) continue;
    // No default floor: power1_cap_min reads 0 W (amdgpu_pm.c, 6.1).
    Found f{p, read_range(fs, p + "_min", p + "_max"), std::nullopt};
    f.granularity = 1'000'000;
    out.push_back(f);
  }
  if (out.empty()) return bind_error("amdgpu_power", *base + "power1_cap does not exist");
  return out;
}

Result<std::vector<Found>> find_backlight(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = "class/backlight/" + k.name + "/";
  auto max = read_int(fs, base + "max_brightness");
  if (!max) return max.error();
  // No default floor: brightness 0 blanks the screen.
  return std::vector<Found>{{base + "brightness", Range{0, *max}, std::nullopt}};
}

Result<std::vector<Found>> find_charge_current(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base = "class/power_supply/" + k.name + "/";
  if (!fs.exists(base + "constant_charge_current_max"))
    return bind_error("charge_current " + k.name,
                      base + "constant_charge_current_max does not exist");
  Found f{base + "constant_charge_current_max", std::nullopt, 0};
  auto max = fs.read_integer(base + "constant_charge_current_max_max");
  if (max) f.range = Range{0, *max};
  return std::vector<Found>{f};
}

// power_supply charge_control_end_threshold: percent (ABI sysfs-class-power).
Result<std::vector<Found>> find_charge_threshold(const Sysfs& fs, const DeviceKnob& k) {
  const std::string p = "class/power_supply/" + k.name + "/charge_control_end_threshold";
  if (!fs.exists(p)) return bind_error("charge_threshold " + k.name, p + " does not exist");
  return std::vector<Found>{{p, Range{0, 100}, std::nullopt}};
}

// firmware-attributes class (ABI sysfs-class-firmware-attributes): each
// attribute has current_value with min_value/max_value.
Result<std::vector<Found>> find_firmware_attribute(const Sysfs& fs, const DeviceKnob& k) {
  const std::string base =
      fmt::format("class/firmware-attributes/{}/attributes/{}/", k.name, k.attribute);
  if (!fs.exists(base + "current_value"))
    return bind_error("firmware_attribute " + k.name, base + "current_value does not exist");
  Found f{base + "current_value", read_range(fs, base + "min_value", base + "max_value"),
          std::nullopt};
  f.per_unit = 1'000'000;  // policy powers are µW; ppt_* attributes are W
  return std::vector<Found>{f};
}

// Any hwmon attribute of a chip by name: <attr>, ranged by <attr>_min/_max.
Result<std::vector<Found>> find_hwmon_attribute(const Sysfs& fs, const DeviceKnob& k) {
  auto base = hwmon_dir(fs, k.name, "hwmon_attribute");
  if (!base) return base.error();
  const std::string p = *base + k.attribute;
  if (!fs.exists(p)) return bind_error("hwmon_attribute " + k.name, p + " does not exist");
  return std::vector<Found>{{p, read_range(fs, p + "_min", p + "_max"), std::nullopt}};
}

// GPU frequency caps of every DRM card whose driver is k.name, found by the
// driver the card's device reports (device/uevent DRIVER=), never by index.
//   i915: cardN/gt_max_freq_mhz in [gt_RPn_freq_mhz, gt_RP0_freq_mhz]
//   xe:   cardN/device/tile*/gt*/freq0/max_freq in [rpn_freq, rp0_freq]
//         (drivers/gpu/drm/xe/xe_gt_freq.c: device/tile#/gt#/freq0/<item>_freq)
Result<std::vector<Found>> find_gpu_freq(const Sysfs& fs, const DeviceKnob& k) {
  std::vector<Found> out;
  const auto add = [&](const std::string& dir, const char* cap, const char* lo, const char* hi) {
    if (!fs.exists(dir + cap)) return;
    Found f{dir + cap, read_range(fs, dir + lo, dir + hi), std::nullopt};
    if (f.range) f.deepest = f.range->lo;
    f.per_unit = 1000;  // kHz per MHz
    out.push_back(f);
  };
  auto cards = fs.list("class/drm");
  if (cards) {
    for (const auto& c : *cards) {
      if (!starts_with(c, "card") || c.size() == 4 ||
          c.find_first_not_of("0123456789", 4) != std::string::npos)
        continue;
      const std::string card = "class/drm/" + c + "/";
      auto uevent = fs.read(card + "device/uevent");
      if (!uevent || uevent->find("DRIVER=" + k.name + "\n") == std::string::npos) continue;
      if (k.name == "i915") add(card, "gt_max_freq_mhz", "gt_RPn_freq_mhz", "gt_RP0_freq_mhz");
      if (k.name != "xe") continue;
      auto tiles = fs.list(card + "device");
      for (const auto& t : tiles ? *tiles : std::vector<std::string>{}) {
        if (!starts_with(t, "tile")) continue;
        auto gts = fs.list(fmt::format("{}device/{}", card, t));
        for (const auto& g : gts ? *gts : std::vector<std::string>{}) {
          if (starts_with(g, "gt"))
            add(fmt::format("{}device/{}/{}/freq0/", card, t, g), "max_freq", "rpn_freq",
                "rp0_freq");
        }
      }
    }
  }
  if (out.empty())
    return bind_error("gpu_freq " + k.name, "no class/drm/card*/device/uevent reads DRIVER=" +
                                                k.name + " with a writable frequency cap");
  return out;
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
      Found f{base + "throttling", Range{0, *max}, *max};
      f.higher_throttles = true;
      return std::vector<Found>{f};
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
    case K::charge_threshold:
      return find_charge_threshold(fs, k);
    case K::firmware_attribute:
      return find_firmware_attribute(fs, k);
    case K::hwmon_attribute:
      return find_hwmon_attribute(fs, k);
    case K::gpu_freq:
      return find_gpu_freq(fs, k);
    case K::sysfs:
      return std::vector<Found>{{k.path, std::nullopt, std::nullopt}};
    case K::coolhand:
      return find_coolhand_device(fs, k);
    case K::none:
      break;
  }
  if (!k.role.empty())
    return bind_error("role " + k.role, "the device description does not map it");
  return bind_error(k.name, "device has no hardware binding");
}

// A policy value in the target's unit: a percentage of the advertised
// maximum, a quantity divided down to the target's unit (µW -> W, kHz ->
// MHz), or a raw number as written.
Result<std::int64_t> to_target(const config::KnobValue& v, const Found& f) {
  using U = config::KnobValue::Unit;
  if (const std::string why = check_knob_unit(DeviceKnob::Kind::none, v); !why.empty())
    return bind_error(f.path, why);
  switch (v.unit) {
    case U::percent:
      if (!f.range)
        return bind_error(f.path, fmt::format("{}%: the kernel advertises no maximum for it; "
                                              "give the value in the knob's unit",
                                              v.amount));
      return (f.range->hi * v.amount + 50) / 100;
    case U::raw:
      return v.amount;
    case U::power_uw:
    case U::frequency_khz:
    case U::current_ua:
      if (v.amount % f.per_unit != 0)
        return bind_error(f.path, fmt::format("{} is not a whole number of the knob's unit",
                                              config::to_string(v)));
      return v.amount / f.per_unit;
  }
  return v.amount;
}

// Rounds a value down to the knob's granularity (never above what was
// asked), and up again if that would leave the advertised range.
std::int64_t to_granularity(std::int64_t v, const Found& f) {
  if (f.granularity <= 1) return v;
  std::int64_t r = v - (((v % f.granularity) + f.granularity) % f.granularity);
  if (f.range && r < f.range->lo) r += f.granularity;
  return r;
}

// A backlight's actual brightness (Documentation/ABI/stable/
// sysfs-class-backlight, 6.1): class/backlight/<name>/actual_brightness
// ("the actual brightness by querying the hardware"), read as a fraction of
// max_brightness, which is read once here and must be a whole number > 0.
Result<SensorBinding> find_backlight(const Sysfs& fs, const SensorSource& src) {
  const std::string base = "class/backlight/" + src.name + "/";
  SensorBinding b;
  b.path = base + "actual_brightness";
  if (!fs.exists(b.path)) return bind_error("backlight " + src.name, b.path + " does not exist");
  auto text = fs.read(base + "max_brightness");
  if (!text) return bind_error("backlight " + src.name, text.error().to_string());
  auto max = parse_integer(*text, base + "max_brightness");
  if (!max) return bind_error("backlight " + src.name, max.error().to_string());
  if (*max <= 0 || *max > kMaxBrightness)
    return bind_error(
        "backlight " + src.name,
        fmt::format("{}max_brightness reads {}: expected 1 to {}", base, *max, kMaxBrightness));
  b.max_brightness = *max;
  b.description = fmt::format("{} (of max_brightness {})", b.path, *max);
  return b;
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
    case SensorSource::Kind::backlight:
      return find_backlight(fs, src);
    case SensorSource::Kind::none:
      break;
  }
  return bind_error(src.name, "sensor has no hardware source");
}

bool zone_sends_events(const SensorBinding& b) {
  return b.thermal_zone_id && b.zone_has_trips;
}

bool original_acceptable(const KnobTarget& target, std::int64_t value) {
  return (!target.min || value >= *target.min) && (!target.max || value <= *target.max);
}

Result<KnobBinding> find_knob(const Sysfs& fs, const DeviceKnob& knob, std::uint32_t max_level,
                              const OriginalLookup& originals) {
  if (!knob.values.empty() && knob.values.size() != max_level) {
    return bind_error(knob.name, fmt::format("values has {} entries, expected {} (levels 1..{})",
                                             knob.values.size(), max_level, max_level));
  }
  if (knob.kind == DeviceKnob::Kind::sysfs && knob.values.empty()) {
    return bind_error(knob.path, "a sysfs knob needs an explicit `values` table");
  }
  for (const auto& v : knob.values) {
    if (auto why = check_knob_unit(knob.kind, v); !why.empty())
      return bind_error(knob.name, fmt::format("{}: {}", config::to_string(v), why));
  }
  if (knob.deepest) {
    if (auto why = check_knob_unit(knob.kind, *knob.deepest); !why.empty())
      return bind_error(knob.name,
                        fmt::format("deepest {}: {}", config::to_string(*knob.deepest), why));
  }
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
    // Level 0 is the value found at start, whatever the kind, throttle
    // states included (a fan's cur_state, a module device's throttling): the
    // daemon changes nothing at start and never "releases" a device that was
    // already throttled when it started. The start value may lie outside the
    // advertised range (firmware sets RAPL PL1 above max_power_uw); it is
    // restored as found. `top` is that value held inside the range, so that
    // coolhand's own writes stay there.
    std::int64_t top = t.original;
    if (f.range) top = std::clamp(top, f.range->lo, f.range->hi);
    // Throttling never goes the other way from the start value: a cap is
    // never raised above it, a throttle state never lowered below it.
    const auto no_looser = [&](std::int64_t v) {
      return f.higher_throttles ? std::max(v, top) : std::min(v, top);
    };
    std::vector<std::int64_t> levels;
    if (!knob.values.empty()) {
      levels.push_back(t.original);
      for (const auto& v : knob.values) {
        auto x = to_target(v, f);
        if (!x) return x.error();
        const std::int64_t want = to_granularity(*x, f);
        if (f.range && (want < f.range->lo || want > f.range->hi)) {
          return bind_error(f.path, fmt::format("level {} value {} is outside [{}, {}]",
                                                levels.size(), want, f.range->lo, f.range->hi));
        }
        levels.push_back(to_granularity(no_looser(want), f));
      }
    } else {
      std::optional<std::int64_t> bottom = f.deepest;
      if (knob.deepest) {
        auto x = to_target(*knob.deepest, f);
        if (!x) return x.error();
        bottom = *x;
      }
      if (!bottom) {
        return bind_error(f.path,
                          "set `deepest` for this knob: sysfs gives no minimum to throttle to");
      }
      levels = interpolate_levels(top, no_looser(*bottom), max_level);
      for (auto& v : levels) v = to_granularity(v, f);
      levels[0] = t.original;
    }
    if (f.range) {
      for (std::size_t l = 1; l < levels.size(); ++l) {
        if (levels[l] < f.range->lo || levels[l] > f.range->hi) {
          return bind_error(f.path, fmt::format("level {} value {} is outside [{}, {}]", l,
                                                levels[l], f.range->lo, f.range->hi));
        }
      }
    }
    t.values = std::move(levels);
    b.targets.push_back(std::move(t));
  }
  std::string paths;
  for (const auto& t : b.targets) paths += (paths.empty() ? "" : ", ") + t.path;
  b.description = paths;
  return b;
}

}  // namespace coolhand::daemon
