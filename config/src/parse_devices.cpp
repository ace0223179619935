// `devices:` — throttle devices with their level constraints, and the knob
// each device's levels are written to.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

using policy::DeviceSpec;
using KnobKind = DeviceKnob::Kind;

constexpr EnumName<KnobKind> kKnobKinds[] = {
    {"none", KnobKind::none},
    {"cooling_device", KnobKind::cooling_device},
    {"cpufreq", KnobKind::cpufreq},
    {"intel_pstate", KnobKind::intel_pstate},
    {"rapl", KnobKind::rapl},
    {"amdgpu_power", KnobKind::amdgpu_power},
    {"backlight", KnobKind::backlight},
    {"charge_current", KnobKind::charge_current},
    {"sysfs", KnobKind::sysfs},
    {"coolhand", KnobKind::coolhand},
    {"firmware_attribute", KnobKind::firmware_attribute},
    {"hwmon_attribute", KnobKind::hwmon_attribute},
    {"charge_threshold", KnobKind::charge_threshold},
    {"gpu_freq", KnobKind::gpu_freq},
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// One knob value: "40%" (of the knob's maximum), a quantity with its unit
// ("8W", "1.2GHz", "2A") or a raw whole number; the kind decides which of
// these it accepts (check_knob_unit).
std::optional<KnobValue> knob_value(Fields& f, const YAML::Node& node, const YAML::Mark& at,
                                    const std::string& yaml_path, const DeviceKnob& knob) {
  const auto text =
      f.scalar_text(node, at, yaml_path, "a percentage, a quantity with a unit or a number", true);
  if (!text) return std::nullopt;
  using U = KnobValue::Unit;
  KnobValue v;
  Parsed<std::int64_t> p;
  if (ends_with(*text, "%")) {
    v.unit = U::percent;
    p = parse_quantity(*text, kPercent);
    if (p.value && *p.value > 100) p = Parsed<std::int64_t>::fail("a percentage above 100%");
  } else if (ends_with(*text, "Hz")) {
    v.unit = U::frequency_khz;
    p = parse_quantity(*text, kFrequency);
  } else if (ends_with(*text, "W")) {
    v.unit = U::power_uw;
    p = parse_quantity(*text, kPower);
  } else if (ends_with(*text, "A")) {
    v.unit = U::current_ua;
    p = parse_quantity(*text, kCurrent);
  } else {
    p = parse_int64(*text);
  }
  if (!p.value) {
    f.ctx().error(mark_of(node, at), yaml_path, std::move(p.error));
    return std::nullopt;
  }
  v.amount = *p.value;
  if (const std::string why = check_knob_unit(knob.kind, v); !why.empty()) {
    f.ctx().error(mark_of(node, at), yaml_path, "'" + *text + "': " + why);
    return std::nullopt;
  }
  return v;
}

// A sysfs path relative to the sysfs root that cannot climb out of it.
std::optional<std::string> check_sysfs_path(std::string_view path) {
  if (path.empty()) return "path is empty";
  if (path.front() == '/') return "path must be relative to the sysfs root (drop '/sys/')";
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..") return "path must not contain '..'";
    start = end + 1;
  }
  return std::nullopt;
}

// The keys each knob kind accepts besides kind/values/deepest/required, and
// whether `name` must be given.
struct KindKeys {
  std::span<const std::string_view> keys;
  bool name_required;
};

constexpr std::string_view kNameKey[] = {"name"};
constexpr std::string_view kRaplKeys[] = {"name", "constraint"};
constexpr std::string_view kAttributeKeys[] = {"name", "attribute"};
constexpr std::string_view kPathKey[] = {"path"};

KindKeys keys_of(KnobKind k) {
  switch (k) {
    case KnobKind::cooling_device:
    case KnobKind::backlight:
    case KnobKind::charge_current:
    case KnobKind::charge_threshold:
    case KnobKind::coolhand:
    case KnobKind::gpu_freq:  // name: the DRM driver, i915 or xe
      return {kNameKey, true};
    case KnobKind::cpufreq:
    case KnobKind::amdgpu_power:  // name: the hwmon chip, for machines with two amdgpus
      return {kNameKey, false};
    case KnobKind::rapl:
      return {kRaplKeys, true};
    case KnobKind::firmware_attribute:
    case KnobKind::hwmon_attribute:
      return {kAttributeKeys, true};
    case KnobKind::sysfs:
      return {kPathKey, false};
    case KnobKind::intel_pstate:
    case KnobKind::none:
      break;
  }
  return {{}, false};
}

// The hardware part of a knob (kind and where it is). Shared with device
// descriptions, whose role candidates are knobs without levels.
void parse_hardware(Fields& f, DeviceKnob& knob, KnobKind kind) {
  knob.kind = kind;
  const KindKeys kk = keys_of(kind);
  if (kind == KnobKind::cpufreq) knob.name = "all";
  if (kk.name_required || f.has("name")) {
    if (auto name = f.string("name", {}, kk.name_required)) knob.name = *name;
  }
  if (kind == KnobKind::cpufreq && knob.name != "all" && !parse_uint32(knob.name).value) {
    f.invalid(*f.find("name"),
              "expected 'all' or a cpufreq policy number, got '" + knob.name + "'");
  }
  if (kind == KnobKind::gpu_freq && knob.name != "i915" && knob.name != "xe" && f.has("name")) {
    f.invalid(*f.find("name"), "expected the DRM driver i915 or xe, got '" + knob.name + "'");
  }
  if (kind == KnobKind::rapl) {
    if (auto v = f.uint32("constraint", {})) knob.constraint = *v;
  }
  if (kind == KnobKind::firmware_attribute || kind == KnobKind::hwmon_attribute) {
    if (auto a = f.string("attribute", {}, true)) knob.attribute = *a;
  }
  if (kind == KnobKind::sysfs) {
    if (auto p = f.string("path", {}, true)) {
      if (auto why = check_sysfs_path(*p)) {
        f.invalid(*f.find("path"), *why);
      } else {
        knob.path = *p;
      }
    }
  }
}

DeviceKnob parse_knob(Context& ctx, const Entry& e, const std::string& yaml_path,
                      const std::string& device, std::optional<std::uint32_t> max_level) {
  DeviceKnob knob;
  Fields f(ctx, e.value, e.key_node.Mark(), yaml_path, {}, "the knob of device '" + device + "'");
  if (!f.is_map()) return knob;
  const std::initializer_list<std::string_view> kAll = {
      "kind", "role", "name", "attribute", "path", "constraint", "values", "deepest", "required"};
  if (f.has("role")) {
    // The device description supplies kind and location; the policy keeps
    // the levels.
    f.allow({"role", "values", "deepest", "required"}, kAll, "a knob given by role");
    if (auto r = f.string("role", {}, true)) knob.role = *r;
  } else {
    const auto kind = choose<KnobKind>(f, "kind", {}, true, kKnobKinds, "knob kind");
    if (!kind) {
      f.allow(kAll);
      return knob;
    }
    const std::string context = "a " + std::string(name_of(kKnobKinds, *kind)) + " knob";
    if (*kind == KnobKind::none) {
      f.allow({"kind"}, kAll, context);
      return knob;
    }
    std::vector<std::string_view> allowed = {"kind", "values", "deepest", "required"};
    for (auto k : keys_of(*kind).keys) allowed.push_back(k);
    f.allow(allowed, kAll, context);
    parse_hardware(f, knob, *kind);
    if (knob.kind == KnobKind::sysfs && !f.has("values"))
      f.missing("values", "a sysfs knob needs one value per level");
  }
  if (auto r = f.boolean("required", {})) knob.required = *r;

  if (const Entry* v = f.find("deepest")) {
    knob.deepest = knob_value(f, v->value, f.value_mark(*v), f.key_path("deepest"), knob);
  }
  if (const Entry* v = f.find("values")) {
    if (!v->value.IsSequence()) {
      f.invalid(*v,
                "expected a list with one value per level 1..max_level, got " + describe(v->value));
    } else {
      std::size_t i = 0;
      for (const YAML::Node& item : v->value) {
        if (auto x =
                knob_value(f, item, f.value_mark(*v), index_path(f.key_path("values"), i), knob)) {
          knob.values.push_back(*x);
        }
        ++i;
      }
      if (max_level && v->value.size() != static_cast<std::size_t>(*max_level)) {
        f.invalid(*v, "has " + std::to_string(v->value.size()) +
                          " values but the device has levels 1.." + std::to_string(*max_level) +
                          " (level 0 is always the value found at start)");
      }
    }
    if (f.has("deepest")) f.invalid(*v, "give either values or deepest, not both");
  } else if ((knob.kind == KnobKind::rapl || knob.kind == KnobKind::amdgpu_power ||
              knob.kind == KnobKind::backlight || knob.kind == KnobKind::charge_threshold ||
              knob.kind == KnobKind::firmware_attribute ||
              knob.kind == KnobKind::hwmon_attribute) &&
             !f.has("deepest")) {
    // These knobs have no safe floor to discover: the minimum a power limit
    // accepts can starve the package, and brightness 0 blanks the screen.
    f.missing("deepest",
              "a " + std::string(name_of(kKnobKinds, knob.kind)) +
                  " knob needs deepest or values: its floor cannot be discovered safely");
  }
  return knob;
}

void parse_device(Context& ctx, const Entry& entry, std::size_t index, PolicyDocument& doc) {
  DeviceSpec d;
  d.name = entry.key;
  Fields f(ctx, entry.value, entry.key_node.Mark(), "devices." + d.name,
           index_path("devices", index), "device '" + d.name + "'");
  if (f.is_map()) {
    f.allow({"max_level", "power_mw", "performance", "min_level", "limit_level", "max_step_up",
             "max_step_down", "min_dwell", "release_dwell", "knob"});
    const auto max_level = f.uint32("max_level", "max_level", true);
    if (max_level) d.max_level = *max_level;
    if (auto v = f.uint32s("power_mw", "power_mw")) d.power_mw = *v;
    if (auto v = f.numbers("performance", "performance")) d.performance = *v;
    if (auto v = f.uint32("min_level", "min_level")) d.min_level = *v;
    d.limit_level = f.uint32("limit_level", "limit_level");
    if (auto v = f.uint32("max_step_up", "max_step_up")) d.max_step_up = *v;
    if (auto v = f.uint32("max_step_down", "max_step_down")) d.max_step_down = *v;
    if (auto v = f.duration("min_dwell", "min_dwell")) d.min_dwell = *v;
    if (auto v = f.duration("release_dwell", "release_dwell")) d.release_dwell = *v;
    DeviceKnob knob;
    if (const Entry* e = f.find("knob"))
      knob = parse_knob(ctx, *e, f.key_path("knob"), d.name, max_level);
    doc.knobs.insert_or_assign(d.name, std::move(knob));
  }
  doc.spec.devices.push_back(std::move(d));
}

}  // namespace

DeviceKnob parse_knob_hardware(Context& ctx, const YAML::Node& node, const YAML::Mark& at,
                               const std::string& yaml_path) {
  DeviceKnob knob;
  Fields f(ctx, node, at, yaml_path, {}, "a knob candidate");
  if (!f.is_map()) return knob;
  const std::initializer_list<std::string_view> kAll = {"kind", "name", "attribute", "path",
                                                        "constraint"};
  const auto kind = choose<KnobKind>(f, "kind", {}, true, kKnobKinds, "knob kind");
  if (!kind) {
    f.allow(kAll);
    return knob;
  }
  std::vector<std::string_view> allowed = {"kind"};
  for (auto k : keys_of(*kind).keys) allowed.push_back(k);
  f.allow(allowed, kAll, "a " + std::string(name_of(kKnobKinds, *kind)) + " knob");
  parse_hardware(f, knob, *kind);
  return knob;
}

void parse_devices(Context& ctx, const Entry& section, PolicyDocument& doc) {
  for_each_named(ctx, section, "devices",
                 [&](const Entry& e, std::size_t i) { parse_device(ctx, e, i, doc); });
}

}  // namespace coolhand::config::detail
