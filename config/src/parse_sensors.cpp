// `sensors:` — physical sensors with their hardware source, and virtual
// sensors computed from other sensors.
#include <string>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

using policy::SensorSpec;
using Kind = SensorSpec::Kind;

constexpr EnumName<Kind> kKinds[] = {
    {"physical", Kind::physical},
    {"weighted_sum", Kind::weighted_sum},
    {"max", Kind::max},
    {"min", Kind::min},
    {"ema", Kind::ema},
    {"fir", Kind::fir},
    {"predictor", Kind::predictor},
    {"dequantise", Kind::dequantise},
};

constexpr EnumName<SensorSource::Kind> kSourceKinds[] = {
    {"none", SensorSource::Kind::none},         {"thermal_zone", SensorSource::Kind::thermal_zone},
    {"hwmon", SensorSource::Kind::hwmon},       {"power_supply", SensorSource::Kind::power_supply},
    {"coolhand", SensorSource::Kind::coolhand}, {"backlight", SensorSource::Kind::backlight},
};

// The kind and location of a sensor: {kind: hwmon, name: k10temp, label: Tctl}.
// `allow_required` is false for a device description's temperature
// candidates, which may not name a backlight.
void parse_hardware(Fields& f, SensorSource& src, bool allow_required) {
  const std::initializer_list<std::string_view> kAll = {"kind",  "name",     "label",
                                                        "index", "required", "role"};
  const auto kind = choose<SensorSource::Kind>(f, "kind", {}, true, kSourceKinds, "source kind");
  if (!kind) {
    f.allow(kAll);
    return;
  }
  src.kind = *kind;
  const std::string_view req = allow_required ? "required" : "kind";
  switch (src.kind) {
    case SensorSource::Kind::none:
      f.allow({"kind"}, kAll, "a source of kind none");
      return;
    case SensorSource::Kind::hwmon:
      f.allow({"kind", "name", "label", "index", req}, kAll, "a hwmon source");
      break;
    case SensorSource::Kind::thermal_zone:
      f.allow({"kind", "name", req}, kAll, "a thermal_zone source");
      break;
    case SensorSource::Kind::power_supply:
      f.allow({"kind", "name", req}, kAll, "a power_supply source");
      break;
    case SensorSource::Kind::coolhand:
      f.allow({"kind", "name", req}, kAll, "a coolhand source");
      break;
    case SensorSource::Kind::backlight:
      f.allow({"kind", "name", req}, kAll, "a backlight source");
      if (!allow_required)
        f.invalid(*f.find("kind"),
                  "a backlight reads a brightness, not a temperature: it cannot be a "
                  "temperature sensor's candidate");
      break;
  }
  if (auto name = f.string("name", {}, true)) src.name = *name;
  if (src.kind == SensorSource::Kind::hwmon) {
    if (auto label = f.string("label", {})) src.label = *label;
    src.index = f.uint32("index", {});
    if (f.has("label") && f.has("index")) {
      f.invalid(*f.find("index"), "give label or index, not both");
    } else if (!f.has("label") && !f.has("index")) {
      f.missing("label", "a hwmon source needs label (tempN_label) or index (N of tempN_input)");
    }
  }
}

// source: {kind: hwmon, name: k10temp, label: Tctl, required: true}, or
// source: {role: battery_temp, required: false} (the device description
// says where a role's sensor is).
SensorSource parse_source(Context& ctx, const Entry& e, const std::string& yaml_path,
                          const std::string& sensor) {
  SensorSource src;
  Fields f(ctx, e.value, e.key_node.Mark(), yaml_path, {}, "the source of sensor '" + sensor + "'");
  if (!f.is_map()) return src;
  if (f.has("role")) {
    f.allow({"role", "required"}, {"kind", "name", "label", "index"}, "a source given by role");
    if (auto r = f.string("role", {}, true)) src.role = *r;
  } else {
    parse_hardware(f, src, true);
  }
  if (auto required = f.boolean("required", {})) src.required = *required;
  return src;
}

// weights: [[0.5, 0.3], [0.2, 0.0]]: one row of tap coefficients per input.
// The tap count is the row length; rows are flattened input by input.
void parse_fir_weights(Fields& f, SensorSpec& s) {
  const Entry* e = f.find("weights");
  if (e == nullptr) {
    f.missing("weights", "a fir sensor needs one row of tap weights per input");
    return;
  }
  f.ctx().record(join_path(f.spec_path(), "weights"), f.value_mark(*e), f.key_path("weights"));
  f.ctx().record(join_path(f.spec_path(), "taps"), f.value_mark(*e), f.key_path("weights"));
  if (!e->value.IsSequence()) {
    f.invalid(*e,
              "expected a list with one list of tap weights per input, got " + describe(e->value));
    return;
  }
  std::optional<std::size_t> taps;
  std::size_t row_index = 0;
  for (const YAML::Node& row : e->value) {
    const std::string row_path = index_path(f.key_path("weights"), row_index++);
    const YAML::Mark row_mark = mark_of(row, f.value_mark(*e));
    if (!row.IsSequence()) {
      f.ctx().error(row_mark, row_path,
                    "expected a list of tap weights for one input, got " + describe(row));
      continue;
    }
    if (!taps) {
      taps = row.size();
    } else if (row.size() != *taps) {
      f.ctx().error(row_mark, row_path,
                    "has " + std::to_string(row.size()) + " taps but the first row has " +
                        std::to_string(*taps) + "; every input needs the same number");
    }
    std::size_t k = 0;
    for (const YAML::Node& w : row) {
      const std::string w_path = index_path(row_path, k++);
      const auto text = f.scalar_text(w, row_mark, w_path, "a number", false);
      if (!text) continue;
      Parsed<double> p = parse_number(*text);
      if (!p.value) {
        f.ctx().error(mark_of(w, row_mark), w_path, std::move(p.error));
        continue;
      }
      s.weights.push_back(*p.value);
    }
  }
  s.taps = static_cast<std::uint32_t>(taps.value_or(0));
}

// A physical sensor whose source is a backlight reads a brightness
// (SensorSpec::Quantity::brightness): its temperature keys make no sense.
// Where it may be used is the engine's rule (policies/src/validate_brightness.cpp).
void mark_brightness(Fields& f, SensorSpec& s) {
  s.quantity = SensorSpec::Quantity::brightness;
  for (const std::string_view key : {"offset_c", "quantum_c"})
    if (const Entry* e = f.find(key))
      f.invalid(*e,
                "a backlight source reads a brightness, not a temperature: no " + std::string(key));
}

// `input: name` of the one-input kinds becomes inputs[0].
void parse_single_input(Fields& f, SensorSpec& s) {
  if (auto input = f.string("input", "inputs", true)) {
    f.ctx().record(index_path(join_path(f.spec_path(), "inputs"), 0),
                   f.value_mark(*f.find("input")), f.key_path("input"));
    s.inputs.push_back(*input);
  }
}

void parse_sensor(Context& ctx, const Entry& entry, std::size_t index, PolicyDocument& doc) {
  SensorSpec s;
  s.name = entry.key;
  const std::string yaml_path = "sensors." + s.name;
  Fields f(ctx, entry.value, entry.key_node.Mark(), yaml_path, index_path("sensors", index),
           "sensor '" + s.name + "'");
  if (f.is_map()) {
    const auto kind = choose<Kind>(f, "kind", "kind", false, kKinds, "sensor kind");
    if (kind) s.kind = *kind;
    const std::string context = "a " + std::string(name_of(kKinds, s.kind)) + " sensor";
    const std::initializer_list<std::string_view> kAll = {
        "kind",  "offset_c",      "source",     "stale_after", "inputs", "weights",
        "input", "time_constant", "tap_period", "horizon",     "window", "quantum_c"};
    if (f.has("kind") && !kind) {
      f.allow(kAll);
    } else {
      switch (s.kind) {
        case Kind::physical:
          f.allow({"kind", "offset_c", "source", "stale_after", "quantum_c"}, kAll, context);
          if (auto v = f.duration("stale_after", "stale_after")) s.stale_after = *v;
          if (auto v = f.celsius("quantum_c", "quantum")) s.quantum = *v;
          break;
        case Kind::weighted_sum:
          f.allow({"kind", "offset_c", "inputs", "weights"}, kAll, context);
          if (auto v = f.strings("inputs", "inputs", true)) s.inputs = *v;
          if (auto v = f.numbers("weights", "weights", true)) s.weights = *v;
          break;
        case Kind::max:
        case Kind::min:
          f.allow({"kind", "offset_c", "inputs"}, kAll, context);
          if (auto v = f.strings("inputs", "inputs", true)) s.inputs = *v;
          break;
        case Kind::ema:
          f.allow({"kind", "offset_c", "input", "time_constant"}, kAll, context);
          parse_single_input(f, s);
          if (auto v = f.duration("time_constant", "time_constant", true)) s.time_constant = *v;
          break;
        case Kind::fir:
          f.allow({"kind", "offset_c", "inputs", "weights", "tap_period"}, kAll, context);
          if (auto v = f.strings("inputs", "inputs", true)) s.inputs = *v;
          parse_fir_weights(f, s);
          if (auto v = f.duration("tap_period", "tap_period", true)) s.tap_period = *v;
          break;
        case Kind::dequantise:
          f.allow({"kind", "offset_c", "input", "time_constant"}, kAll, context);
          parse_single_input(f, s);
          if (auto v = f.duration("time_constant", "time_constant", true)) s.time_constant = *v;
          break;
        case Kind::predictor:
          f.allow({"kind", "offset_c", "input", "horizon", "window"}, kAll, context);
          parse_single_input(f, s);
          if (auto v = f.duration("horizon", "horizon", true)) s.horizon = *v;
          if (auto v = f.duration("window", "window", true)) s.window = *v;
          break;
      }
    }
    if (auto v = f.celsius("offset_c", "offset")) s.offset = *v;
    if (s.kind == Kind::physical) {
      SensorSource src;
      if (const Entry* e = f.find("source"))
        src = parse_source(ctx, *e, f.key_path("source"), s.name);
      s.optional = !src.required;
      if (src.kind == SensorSource::Kind::backlight) mark_brightness(f, s);
      doc.sources.insert_or_assign(s.name, std::move(src));
    }
  }
  doc.spec.sensors.push_back(std::move(s));
}

}  // namespace

SensorSource parse_source_hardware(Context& ctx, const YAML::Node& node, const YAML::Mark& at,
                                   const std::string& yaml_path) {
  SensorSource src;
  Fields f(ctx, node, at, yaml_path, {}, "a sensor candidate");
  if (f.is_map()) parse_hardware(f, src, false);
  return src;
}

void parse_sensors(Context& ctx, const Entry& section, PolicyDocument& doc) {
  for_each_named(ctx, section, "sensors",
                 [&](const Entry& e, std::size_t i) { parse_sensor(ctx, e, i, doc); });
}

}  // namespace coolhand::config::detail
