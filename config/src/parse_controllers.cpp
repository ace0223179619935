// `controllers:` — what binds an input (sensor or zone) to devices, and how.
#include <string>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

using policy::ControllerSpec;
using Kind = ControllerSpec::Kind;

constexpr EnumName<Kind> kKinds[] = {
    {"step_wise", Kind::step_wise},       {"table", Kind::table},         {"pid", Kind::pid},
    {"power_budget", Kind::power_budget}, {"bang_bang", Kind::bang_bang},
};

// devices: [cpu, {device: gpu, weight: 2}]
std::optional<policy::DeviceBinding> parse_binding(Fields& parent, const YAML::Node& item,
                                                   const std::string& yaml_path,
                                                   const std::string& spec_path) {
  if (item.IsScalar()) {
    parent.ctx().record(join_path(spec_path, "device"), item.Mark(), yaml_path);
    return policy::DeviceBinding{item.Scalar(), 1.0};
  }
  if (!item.IsMap()) {
    parent.ctx().error(
        mark_of(item, parent.at()), yaml_path,
        "expected a device name or {device: NAME, weight: W}, got " + describe(item));
    return std::nullopt;
  }
  Fields f(parent.ctx(), item, item.Mark(), yaml_path, spec_path, "a device binding");
  f.allow({"device", "weight"});
  policy::DeviceBinding b;
  const auto device = f.string("device", "device", true);
  if (!device) return std::nullopt;
  b.device = *device;
  if (auto w = f.number("weight", "weight")) b.weight = *w;
  return b;
}

// table: [{up_c: 40, down_c: 38, level: 1}, ...]
std::optional<policy::TableRow> parse_row(Fields& parent, const YAML::Node& item,
                                          const std::string& yaml_path,
                                          const std::string& spec_path) {
  if (!item.IsMap()) {
    parent.ctx().error(mark_of(item, parent.at()), yaml_path,
                       "expected a row {up_c: T, down_c: T, level: N}, got " + describe(item));
    return std::nullopt;
  }
  Fields f(parent.ctx(), item, item.Mark(), yaml_path, spec_path, "a table row");
  f.allow({"up_c", "down_c", "level"});
  policy::TableRow row;
  const auto up = f.temperature("up_c", "up", true);
  const auto down = f.temperature("down_c", "down");
  const auto level = f.uint32("level", "level", true);
  if (!up || !level) return std::nullopt;
  row.up = *up;
  row.down = down.value_or(*up);
  row.level = *level;
  return row;
}

void parse_controller(Context& ctx, const Entry& entry, std::size_t index,
                      policy::PolicySpec& spec) {
  ControllerSpec c;
  c.name = entry.key;
  const std::string spec_path = index_path("controllers", index);
  Fields f(ctx, entry.value, entry.key_node.Mark(), "controllers." + c.name, spec_path,
           "controller '" + c.name + "'");
  if (f.is_map()) {
    const std::initializer_list<std::string_view> kAll = {
        "kind",         "input",       "devices",  "safe_level",     "threshold_c",
        "hysteresis_c", "period",      "on_level", "table",          "setpoint_c",
        "kp",           "ki",          "kd",       "engage_below_c", "sustainable_power_mw",
        "kp_over_mw",   "kp_under_mw", "ki_mw",    "kd_mw",          "switch_on_c"};
    const auto kind = choose<Kind>(f, "kind", "kind", true, kKinds, "controller kind");
    if (kind) c.kind = *kind;
    const std::string context = "a " + std::string(name_of(kKinds, c.kind)) + " controller";
    if (!kind) {
      f.allow(kAll);
    } else {
      switch (c.kind) {
        case Kind::step_wise:
          f.allow(
              {"kind", "input", "devices", "safe_level", "threshold_c", "hysteresis_c", "period"},
              kAll, context);
          break;
        case Kind::bang_bang:
          f.allow(
              {"kind", "input", "devices", "safe_level", "threshold_c", "hysteresis_c", "on_level"},
              kAll, context);
          break;
        case Kind::table:
          f.allow({"kind", "input", "devices", "safe_level", "table"}, kAll, context);
          break;
        case Kind::pid:
          f.allow({"kind", "input", "devices", "safe_level", "setpoint_c", "kp", "ki", "kd",
                   "engage_below_c", "period"},
                  kAll, context);
          break;
        case Kind::power_budget:
          f.allow({"kind", "input", "devices", "safe_level", "setpoint_c", "sustainable_power_mw",
                   "kp_over_mw", "kp_under_mw", "ki_mw", "kd_mw", "switch_on_c", "period"},
                  kAll, context);
          break;
      }
    }
    if (auto v = f.string("input", "input", true)) c.input = *v;
    std::size_t binding = 0;
    auto devices = f.list<policy::DeviceBinding>(
        "devices", "devices", true, [&](const YAML::Node& item, const std::string& yaml_path) {
          return parse_binding(f, item, yaml_path,
                               index_path(join_path(spec_path, "devices"), binding++));
        });
    if (devices) c.devices = std::move(*devices);
    c.safe_level = f.uint32("safe_level", "safe_level");
    if (kind) {
      const bool thresholded = c.kind == Kind::step_wise || c.kind == Kind::bang_bang;
      const bool pid_like = c.kind == Kind::pid || c.kind == Kind::power_budget;
      if (thresholded) {
        if (auto v = f.temperature("threshold_c", "threshold", true)) c.threshold = *v;
        if (auto v = f.celsius("hysteresis_c", "hysteresis")) c.hysteresis = *v;
      }
      if (c.kind == Kind::bang_bang) c.on_level = f.uint32("on_level", "on_level");
      if (c.kind == Kind::step_wise || pid_like) {
        if (auto v = f.duration("period", "period")) c.period = *v;
      }
      if (c.kind == Kind::table) {
        std::size_t row = 0;
        auto rows = f.list<policy::TableRow>(
            "table", "table", true, [&](const YAML::Node& item, const std::string& yaml_path) {
              return parse_row(f, item, yaml_path,
                               index_path(join_path(spec_path, "table"), row++));
            });
        if (rows) c.table = std::move(*rows);
      }
      if (pid_like) {
        if (auto v = f.temperature("setpoint_c", "setpoint", true)) c.setpoint = *v;
      }
      if (c.kind == Kind::pid) {
        if (auto v = f.number("kp", "kp")) c.kp = *v;
        if (auto v = f.number("ki", "ki")) c.ki = *v;
        if (auto v = f.number("kd", "kd")) c.kd = *v;
        if (auto v = f.celsius("engage_below_c", "engage_below")) c.engage_below = *v;
      }
      if (c.kind == Kind::power_budget) {
        if (auto v = f.uint32("sustainable_power_mw", "sustainable_power_mw", true)) {
          c.sustainable_power_mw = *v;
        }
        if (auto v = f.number("kp_over_mw", "kp_over_mw")) c.kp_over_mw = *v;
        if (auto v = f.number("kp_under_mw", "kp_under_mw")) c.kp_under_mw = *v;
        if (auto v = f.number("ki_mw", "ki_mw")) c.ki_mw = *v;
        if (auto v = f.number("kd_mw", "kd_mw")) c.kd_mw = *v;
        if (auto v = f.temperature("switch_on_c", "switch_on")) c.switch_on = *v;
      }
    }
  }
  spec.controllers.push_back(std::move(c));
}

}  // namespace

void parse_controllers(Context& ctx, const Entry& section, policy::PolicySpec& spec) {
  for_each_named(ctx, section, "controllers",
                 [&](const Entry& e, std::size_t i) { parse_controller(ctx, e, i, spec); });
}

}  // namespace coolhand::config::detail
