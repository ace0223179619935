// `devices:` — throttle devices with their level constraints, and the knob
// each device's levels are written to.
#include <string>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

using policy::DeviceSpec;
using KnobKind = DeviceKnob::Kind;

constexpr EnumName<KnobKind> kKnobKinds[] = {
    {"none", KnobKind::none},           {"cooling_device", KnobKind::cooling_device},
    {"cpufreq", KnobKind::cpufreq},     {"intel_pstate", KnobKind::intel_pstate},
    {"rapl", KnobKind::rapl},           {"amdgpu_power", KnobKind::amdgpu_power},
    {"backlight", KnobKind::backlight}, {"charge_current", KnobKind::charge_current},
    {"sysfs", KnobKind::sysfs},         {"coolhand", KnobKind::coolhand},
};

// The unit family of a knob's values, or nullptr for raw integers.
const QuantityKind* knob_quantity(KnobKind k) {
  switch (k) {
    case KnobKind::cpufreq:
      return &kFrequency;
    case KnobKind::intel_pstate:
      return &kPercent;
    case KnobKind::rapl:
    case KnobKind::amdgpu_power:
      return &kPower;
    case KnobKind::charge_current:
      return &kCurrent;
    default:
      return nullptr;
  }
}

// One knob value: a quantity with its unit for unit-bearing knobs, a plain
// whole number for raw ones.
std::optional<std::int64_t> knob_value(Fields& f, const YAML::Node& node, const YAML::Mark& at,
                                       const std::string& yaml_path, KnobKind kind) {
  const QuantityKind* q = knob_quantity(kind);
  const auto text = f.scalar_text(
      node, at, yaml_path, q ? "a " + std::string(q->what) + " with a unit" : "a whole number",
      q != nullptr);
  if (!text) return std::nullopt;
  Parsed<std::int64_t> p = q ? parse_quantity(*text, *q) : parse_int64(*text);
  if (!p.value) f.ctx().error(mark_of(node, at), yaml_path, std::move(p.error));
  return p.value;
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

DeviceKnob parse_knob(Context& ctx, const Entry& e, const std::string& yaml_path,
                      const std::string& device, std::optional<std::uint32_t> max_level) {
  DeviceKnob knob;
  Fields f(ctx, e.value, e.key_node.Mark(), yaml_path, {}, "the knob of device '" + device + "'");
  if (!f.is_map()) return knob;
  const std::initializer_list<std::string_view> kAll = {
      "kind", "name", "path", "constraint", "values", "unthrottled", "deepest", "required"};
  const auto kind = choose<KnobKind>(f, "kind", {}, true, kKnobKinds, "knob kind");
  if (!kind) {
    f.allow(kAll);
    return knob;
  }
  knob.kind = *kind;
  const std::string context = "a " + std::string(name_of(kKnobKinds, knob.kind)) + " knob";
  bool name_required = true;
  switch (knob.kind) {
    case KnobKind::none:
      f.allow({"kind"}, kAll, context);
      return knob;
    case KnobKind::cooling_device:
    case KnobKind::backlight:
    case KnobKind::charge_current:
    case KnobKind::coolhand:
      f.allow({"kind", "name", "values", "unthrottled", "deepest", "required"}, kAll, context);
      break;
    case KnobKind::cpufreq:
      f.allow({"kind", "name", "values", "unthrottled", "deepest", "required"}, kAll, context);
      name_required = false;
      knob.name = "all";
      break;
    case KnobKind::intel_pstate:
      f.allow({"kind", "values", "unthrottled", "deepest", "required"}, kAll, context);
      name_required = false;
      break;
    case KnobKind::amdgpu_power:
      // name: the hwmon chip, for machines with more than one amdgpu.
      f.allow({"kind", "name", "values", "unthrottled", "deepest", "required"}, kAll, context);
      name_required = false;
      break;
    case KnobKind::rapl:
      f.allow({"kind", "name", "constraint", "values", "unthrottled", "deepest", "required"}, kAll,
              context);
      if (auto v = f.uint32("constraint", {})) knob.constraint = *v;
      break;
    case KnobKind::sysfs:
      f.allow({"kind", "path", "values", "required"}, kAll, context);
      name_required = false;
      if (auto p = f.string("path", {}, true)) {
        if (auto why = check_sysfs_path(*p)) {
          f.invalid(*f.find("path"), *why);
        } else {
          knob.path = *p;
        }
      }
      if (!f.has("values")) f.missing("values", "a sysfs knob needs one value per level");
      break;
  }
  if (name_required || f.has("name")) {
    if (auto name = f.string("name", {}, name_required)) knob.name = *name;
  }
  if (knob.kind == KnobKind::cpufreq && knob.name != "all" && !parse_uint32(knob.name).value) {
    f.invalid(*f.find("name"),
              "expected 'all' or a cpufreq policy number, got '" + knob.name + "'");
  }
  if (auto r = f.boolean("required", {})) knob.required = *r;

  if (const Entry* v = f.find("unthrottled")) {
    knob.unthrottled =
        knob_value(f, v->value, f.value_mark(*v), f.key_path("unthrottled"), knob.kind);
  }
  if (const Entry* v = f.find("deepest")) {
    knob.deepest = knob_value(f, v->value, f.value_mark(*v), f.key_path("deepest"), knob.kind);
  }
  if (const Entry* v = f.find("values")) {
    if (!v->value.IsSequence()) {
      f.invalid(*v, "expected a list with one value per level, got " + describe(v->value));
    } else {
      std::size_t i = 0;
      for (const YAML::Node& item : v->value) {
        if (auto x = knob_value(f, item, f.value_mark(*v), index_path(f.key_path("values"), i),
                                knob.kind)) {
          knob.values.push_back(*x);
        }
        ++i;
      }
      if (max_level && v->value.size() != static_cast<std::size_t>(*max_level) + 1) {
        f.invalid(*v, "has " + std::to_string(v->value.size()) +
                          " values but the device has levels 0.." + std::to_string(*max_level) +
                          " (" + std::to_string(static_cast<std::size_t>(*max_level) + 1) +
                          " values)");
      }
    }
    if (f.has("unthrottled") || f.has("deepest")) {
      f.invalid(*v, "give either values or unthrottled/deepest, not both");
    }
  } else if ((knob.kind == KnobKind::rapl || knob.kind == KnobKind::backlight) &&
             !f.has("deepest")) {
    // These knobs have no safe floor to discover: the minimum a RAPL limit
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
             "max_step_down", "min_dwell", "knob"});
    const auto max_level = f.uint32("max_level", "max_level", true);
    if (max_level) d.max_level = *max_level;
    if (auto v = f.uint32s("power_mw", "power_mw")) d.power_mw = *v;
    if (auto v = f.numbers("performance", "performance")) d.performance = *v;
    if (auto v = f.uint32("min_level", "min_level")) d.min_level = *v;
    d.limit_level = f.uint32("limit_level", "limit_level");
    if (auto v = f.uint32("max_step_up", "max_step_up")) d.max_step_up = *v;
    if (auto v = f.uint32("max_step_down", "max_step_down")) d.max_step_down = *v;
    if (auto v = f.duration("min_dwell", "min_dwell")) d.min_dwell = *v;
    DeviceKnob knob;
    if (const Entry* e = f.find("knob"))
      knob = parse_knob(ctx, *e, f.key_path("knob"), d.name, max_level);
    doc.knobs.insert_or_assign(d.name, std::move(knob));
  }
  doc.spec.devices.push_back(std::move(d));
}

}  // namespace

void parse_devices(Context& ctx, const Entry& section, PolicyDocument& doc) {
  for_each_named(ctx, section, "devices",
                 [&](const Entry& e, std::size_t i) { parse_device(ctx, e, i, doc); });
}

}  // namespace coolhand::config::detail
