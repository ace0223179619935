// The top level of a policy file, plus the small sections (sampling, daemon,
// profiles) and the walk over name-keyed sections shared by the others.
#include <string>

#include "parsers.h"

namespace coolhand::config::detail {

void for_each_named(Context& ctx, const Entry& section, std::string_view yaml_path,
                    const std::function<void(const Entry&, std::size_t)>& one) {
  Fields f(ctx, section.value, section.key_node.Mark(), std::string(yaml_path), {},
           "'" + std::string(yaml_path) + "' (name: {...} pairs)");
  std::size_t i = 0;
  for (const Entry& e : f.entries()) one(e, i++);
}

namespace {

void parse_sampling(Context& ctx, const Entry& section, policy::SamplingSpec& s) {
  Fields f(ctx, section.value, section.key_node.Mark(), "sampling", "sampling", "sampling");
  if (!f.is_map()) return;
  f.allow({"fine_granularity_c", "coarse_granularity_c", "near_distance_c", "min_interval",
           "max_interval"});
  if (auto v = f.celsius("fine_granularity_c", "fine_granularity")) s.fine_granularity = *v;
  if (auto v = f.celsius("coarse_granularity_c", "coarse_granularity")) s.coarse_granularity = *v;
  if (auto v = f.celsius("near_distance_c", "near_distance")) s.near_distance = *v;
  if (auto v = f.duration("min_interval", "min_interval")) s.min_interval = *v;
  if (auto v = f.duration("max_interval", "max_interval")) s.max_interval = *v;
}

void parse_daemon(Context& ctx, const Entry& section, DaemonSettings& d) {
  Fields f(ctx, section.value, section.key_node.Mark(), "daemon", {}, "daemon settings");
  if (!f.is_map()) return;
  f.allow({"lost_after_failures", "recorder"});
  if (auto v = f.uint32("lost_after_failures", {})) {
    if (*v == 0) {
      f.invalid(*f.find("lost_after_failures"), "must be >= 1");
    } else {
      d.lost_after_failures = *v;
    }
  }
  // -- daemon.recorder (the flight recorder, issue 11)
  if (const Entry* e = f.find("recorder")) {
    Fields r(ctx, e->value, e->key_node.Mark(), "daemon.recorder", {}, "recorder settings");
    if (!r.is_map()) return;
    r.allow({"records"});
    if (auto v = r.uint32("records", {})) {
      if (*v < DaemonSettings::kMinRecorderRecords || *v > DaemonSettings::kMaxRecorderRecords) {
        r.invalid(*r.find("records"),
                  "must be in [" + std::to_string(DaemonSettings::kMinRecorderRecords) + ", " +
                      std::to_string(DaemonSettings::kMaxRecorderRecords) + "] (32-byte records)");
      } else {
        d.recorder_records = *v;
      }
    }
  }
}

void parse_profile(Context& ctx, const Entry& entry, std::size_t index, policy::PolicySpec& spec) {
  policy::ProfileSpec p;
  p.name = entry.key;
  const std::string yaml_path = "profiles." + p.name;
  const std::string spec_path = index_path("profiles", index);
  Fields f(ctx, entry.value, entry.key_node.Mark(), yaml_path, spec_path,
           "profile '" + p.name + "'");
  if (f.is_map()) {
    f.allow({"limit_offset_c", "controllers", "devices"});
    if (auto v = f.celsius("limit_offset_c", "limit_offset")) p.limit_offset = *v;
    if (const Entry* section = f.find("controllers")) {
      const std::string list_yaml = f.key_path("controllers");
      ctx.record(join_path(spec_path, "controllers"), f.value_mark(*section), list_yaml);
      for_each_named(ctx, *section, list_yaml, [&](const Entry& e, std::size_t i) {
        policy::ControllerOverride o;
        o.controller = e.key;
        const std::string item_spec = index_path(join_path(spec_path, "controllers"), i);
        Fields of(ctx, e.value, e.key_node.Mark(), join_path(list_yaml, e.key), item_spec,
                  "the override of controller '" + e.key + "'");
        ctx.record(join_path(item_spec, "controller"), e.key_node.Mark(),
                   join_path(list_yaml, e.key));
        if (of.is_map()) {
          of.allow({"threshold_c", "setpoint_c", "enabled"});
          o.threshold = of.temperature("threshold_c", "threshold");
          o.setpoint = of.temperature("setpoint_c", "setpoint");
          o.enabled = of.boolean("enabled", "enabled");
        }
        p.controllers.push_back(std::move(o));
      });
    }
    if (const Entry* section = f.find("devices")) {
      const std::string list_yaml = f.key_path("devices");
      ctx.record(join_path(spec_path, "devices"), f.value_mark(*section), list_yaml);
      for_each_named(ctx, *section, list_yaml, [&](const Entry& e, std::size_t i) {
        policy::DeviceOverride o;
        o.device = e.key;
        const std::string item_spec = index_path(join_path(spec_path, "devices"), i);
        Fields of(ctx, e.value, e.key_node.Mark(), join_path(list_yaml, e.key), item_spec,
                  "the override of device '" + e.key + "'");
        ctx.record(join_path(item_spec, "device"), e.key_node.Mark(), join_path(list_yaml, e.key));
        if (of.is_map()) {
          of.allow({"min_level", "limit_level"});
          o.min_level = of.uint32("min_level", "min_level");
          o.limit_level = of.uint32("limit_level", "limit_level");
        }
        p.devices.push_back(std::move(o));
      });
    }
  }
  spec.profiles.push_back(std::move(p));
}

}  // namespace

void parse_profiles(Context& ctx, const Entry& section, policy::PolicySpec& spec) {
  for_each_named(ctx, section, "profiles",
                 [&](const Entry& e, std::size_t i) { parse_profile(ctx, e, i, spec); });
}

PolicyDocument parse_document(Context& ctx, const YAML::Node& root) {
  PolicyDocument doc;
  Fields f(ctx, root, root.Mark(), {}, {}, "the policy");
  if (!f.is_map()) return doc;
  f.allow({"version", "limits", "sampling", "daemon", "sensors", "zones", "devices", "controllers",
           "profiles", "default_profile", "tune"});
  // `tune:` holds `coolhand-sim tune`'s parameter ranges (docs/simulator.md,
  // "Tuning a policy"); the daemon does not read it, the tuner validates it.
  if (auto v = f.uint32("version", {}, true); v && *v != kSchemaVersion) {
    f.invalid(*f.find("version"), "unsupported version " + std::to_string(*v) +
                                      " (this coolhand reads version " +
                                      std::to_string(kSchemaVersion) + ")");
  }
  for (const Entry& e : f.entries()) ctx.record(e.key, e.key_node.Mark(), e.key);
  // Sections are read in a fixed order so spec vectors and errors do not
  // depend on the order sections appear in the file.
  // Limits first: every other section may write temperatures against them.
  if (const Entry* e = f.find("limits")) parse_limits(ctx, *e, doc);
  if (const Entry* e = f.find("sampling")) parse_sampling(ctx, *e, doc.spec.sampling);
  if (const Entry* e = f.find("daemon")) parse_daemon(ctx, *e, doc.daemon);
  if (const Entry* e = f.find("sensors")) parse_sensors(ctx, *e, doc);
  if (const Entry* e = f.find("zones")) parse_zones(ctx, *e, doc.spec);
  if (const Entry* e = f.find("devices")) parse_devices(ctx, *e, doc);
  if (const Entry* e = f.find("controllers")) parse_controllers(ctx, *e, doc.spec);
  if (const Entry* e = f.find("profiles")) parse_profiles(ctx, *e, doc.spec);
  if (auto v = f.string("default_profile", "default_profile")) doc.spec.default_profile = *v;
  return doc;
}

}  // namespace coolhand::config::detail
