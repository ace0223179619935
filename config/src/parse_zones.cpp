// `zones:` — a sensor watched by trips (with critical actions) and a
// severity ladder.
#include <algorithm>
#include <string>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

using policy::Severity;
using policy::TripAction;
using policy::TripSpec;

constexpr EnumName<TripSpec::Type> kTripTypes[] = {
    {"passive", TripSpec::Type::passive},
    {"hot", TripSpec::Type::hot},
    {"critical", TripSpec::Type::critical},
};

constexpr EnumName<TripAction> kActions[] = {
    {"none", TripAction::none},
    {"shutdown", TripAction::shutdown},
    {"suspend", TripAction::suspend},
    {"force_deepest", TripAction::force_deepest},
};

// "none" is where every zone starts, not a step one can write.
constexpr EnumName<Severity> kSeverities[] = {
    {"light", Severity::light},         {"moderate", Severity::moderate},
    {"severe", Severity::severe},       {"critical", Severity::critical},
    {"emergency", Severity::emergency}, {"shutdown", Severity::shutdown},
};

TripSpec parse_trip(Context& ctx, const Entry& entry, const std::string& yaml_path,
                    const std::string& spec_path) {
  TripSpec t;
  t.name = entry.key;
  Fields f(ctx, entry.value, entry.key_node.Mark(), yaml_path, spec_path, "trip '" + t.name + "'");
  if (!f.is_map()) return t;
  f.allow({"type", "threshold_c", "hysteresis_c", "action", "devices", "debounce_samples"});
  if (auto v = choose<TripSpec::Type>(f, "type", "type", true, kTripTypes, "trip type"))
    t.type = *v;
  if (auto v = f.temperature("threshold_c", "threshold", true)) t.threshold = *v;
  if (auto v = f.celsius("hysteresis_c", "hysteresis")) t.hysteresis = *v;
  if (auto v = choose<TripAction>(f, "action", "action", false, kActions, "trip action"))
    t.action = *v;
  if (auto v = f.strings("devices", "devices")) t.devices = *v;
  if (auto v = f.uint32("debounce_samples", "debounce_samples")) t.debounce_samples = *v;
  return t;
}

// severities: {light: {threshold_c: 40, hysteresis_c: 1}, ...}
void parse_severities(Context& ctx, const Entry& section, const std::string& yaml_path,
                      const std::string& spec_path, policy::ZoneSpec& z) {
  for_each_named(ctx, section, yaml_path, [&](const Entry& e, std::size_t i) {
    policy::SeverityStepSpec step;
    const std::string step_yaml = join_path(yaml_path, e.key);
    const std::string step_spec = index_path(spec_path, i);
    Fields f(ctx, e.value, e.key_node.Mark(), step_yaml, step_spec,
             "severity step '" + e.key + "'");
    ctx.record(join_path(step_spec, "level"), e.key_node.Mark(), step_yaml);
    const auto level = std::find_if(std::begin(kSeverities), std::end(kSeverities),
                                    [&](const auto& n) { return n.name == e.key; });
    if (level == std::end(kSeverities)) {
      std::string message = "unknown severity (one of:";
      for (const auto& n : kSeverities) message += " " + std::string(n.name);
      ctx.error(e.key_node.Mark(), step_yaml, message + ")");
    } else {
      step.level = level->value;
    }
    if (f.is_map()) {
      f.allow({"threshold_c", "hysteresis_c"});
      if (auto v = f.temperature("threshold_c", "threshold", true)) step.threshold = *v;
      if (auto v = f.celsius("hysteresis_c", "hysteresis")) step.hysteresis = *v;
    }
    z.severities.push_back(step);
  });
}

// last_resort: {limit_c: skin, hysteresis_c: 0.5, hold: 10s, devices: [...]}
policy::LastResortSpec parse_last_resort(Context& ctx, const Entry& entry,
                                         const std::string& yaml_path,
                                         const std::string& spec_path) {
  policy::LastResortSpec r;
  Fields f(ctx, entry.value, entry.key_node.Mark(), yaml_path, spec_path, "the last resort");
  if (!f.is_map()) return r;
  f.allow({"limit_c", "hysteresis_c", "hold", "devices"});
  if (auto v = f.temperature("limit_c", "limit", true)) r.limit = *v;
  if (auto v = f.celsius("hysteresis_c", "hysteresis")) r.hysteresis = *v;
  if (auto v = f.duration("hold", "hold")) r.hold = *v;
  if (auto v = f.strings("devices", "devices", true)) r.devices = *v;
  return r;
}

void parse_zone(Context& ctx, const Entry& entry, std::size_t index, policy::PolicySpec& spec) {
  policy::ZoneSpec z;
  z.name = entry.key;
  const std::string yaml_path = "zones." + z.name;
  const std::string spec_path = index_path("zones", index);
  Fields f(ctx, entry.value, entry.key_node.Mark(), yaml_path, spec_path, "zone '" + z.name + "'");
  if (f.is_map()) {
    f.allow({"sensor", "trips", "severities", "last_resort"});
    if (auto v = f.string("sensor", "sensor", true)) z.sensor = *v;
    if (const Entry* trips = f.find("trips")) {
      ctx.record(join_path(spec_path, "trips"), f.value_mark(*trips), f.key_path("trips"));
      for_each_named(ctx, *trips, f.key_path("trips"), [&](const Entry& e, std::size_t i) {
        z.trips.push_back(parse_trip(ctx, e, join_path(f.key_path("trips"), e.key),
                                     index_path(join_path(spec_path, "trips"), i)));
      });
    }
    if (const Entry* severities = f.find("severities")) {
      ctx.record(join_path(spec_path, "severities"), f.value_mark(*severities),
                 f.key_path("severities"));
      parse_severities(ctx, *severities, f.key_path("severities"),
                       join_path(spec_path, "severities"), z);
    }
    if (const Entry* e = f.find("last_resort")) {
      z.last_resort = parse_last_resort(ctx, *e, f.key_path("last_resort"),
                                        join_path(spec_path, "last_resort"));
    }
  }
  spec.zones.push_back(std::move(z));
}

}  // namespace

void parse_zones(Context& ctx, const Entry& section, policy::PolicySpec& spec) {
  for_each_named(ctx, section, "zones",
                 [&](const Entry& e, std::size_t i) { parse_zone(ctx, e, i, spec); });
}

}  // namespace coolhand::config::detail
