// PolicyDocument -> JSON for `coolhandctl dump-config`; see policy_json.h.
#include "policy_json.h"

#include "coolhand/policy/engine.h"

namespace coolhand::ctl {
namespace {

using nlohmann::ordered_json;
using policy::MilliC;

double c(MilliC t) {
  return t.celsius();
}

std::string_view name(policy::TripSpec::Type t) {
  switch (t) {
    case policy::TripSpec::Type::passive:
      return "passive";
    case policy::TripSpec::Type::hot:
      return "hot";
    case policy::TripSpec::Type::critical:
      return "critical";
  }
  return "?";
}

std::string_view name(config::SensorSource::Kind k) {
  using K = config::SensorSource::Kind;
  switch (k) {
    case K::none:
      return "none";
    case K::thermal_zone:
      return "thermal_zone";
    case K::hwmon:
      return "hwmon";
    case K::power_supply:
      return "power_supply";
    case K::coolhand:
      return "coolhand";
    case K::backlight:
      return "backlight";
  }
  return "?";
}

std::string_view name(config::DeviceKnob::Kind k) {
  using K = config::DeviceKnob::Kind;
  switch (k) {
    case K::none:
      return "none";
    case K::cooling_device:
      return "cooling_device";
    case K::cpufreq:
      return "cpufreq";
    case K::intel_pstate:
      return "intel_pstate";
    case K::rapl:
      return "rapl";
    case K::amdgpu_power:
      return "amdgpu_power";
    case K::backlight:
      return "backlight";
    case K::charge_current:
      return "charge_current";
    case K::sysfs:
      return "sysfs";
    case K::coolhand:
      return "coolhand";
    case K::firmware_attribute:
      return "firmware_attribute";
    case K::hwmon_attribute:
      return "hwmon_attribute";
    case K::charge_threshold:
      return "charge_threshold";
    case K::gpu_freq:
      return "gpu_freq";
  }
  return "?";
}

// The unit the knob's values are written in (docs/policy-language.md).
std::string_view unit(config::DeviceKnob::Kind k) {
  using K = config::DeviceKnob::Kind;
  switch (k) {
    case K::cpufreq:
      return "kHz";
    case K::intel_pstate:
      return "%";
    case K::rapl:
    case K::amdgpu_power:
      return "uW";
    case K::firmware_attribute:
      return "attribute unit (W for ppt_*)";
    case K::charge_threshold:
      return "%";
    case K::gpu_freq:
      return "MHz";
    case K::charge_current:
      return "uA";
    case K::cooling_device:
      return "state";
    case K::backlight:
    case K::sysfs:
    case K::coolhand:
    case K::hwmon_attribute:
    case K::none:
      return "raw";
  }
  return "?";
}

ordered_json sensor(const policy::SensorSpec& s, const config::PolicyDocument& doc) {
  ordered_json j;
  j["name"] = s.name;
  j["kind"] = policy::to_string(s.kind);
  if (!s.inputs.empty()) j["inputs"] = s.inputs;
  if (!s.weights.empty()) j["weights"] = s.weights;
  j["offset_c"] = c(s.offset);
  switch (s.kind) {
    case policy::SensorSpec::Kind::physical: {
      j["stale_after_ms"] = s.stale_after.count();
      if (auto it = doc.sources.find(s.name); it != doc.sources.end()) {
        const config::SensorSource& src = it->second;
        ordered_json js;
        js["kind"] = name(src.kind);
        if (!src.name.empty()) js["name"] = src.name;
        if (!src.label.empty()) js["label"] = src.label;
        if (src.index) js["index"] = *src.index;
        js["required"] = src.required;
        j["source"] = js;
      }
      break;
    }
    case policy::SensorSpec::Kind::ema:
      j["time_constant_ms"] = s.time_constant.count();
      break;
    case policy::SensorSpec::Kind::fir:
      j["taps"] = s.taps;
      j["tap_period_ms"] = s.tap_period.count();
      break;
    case policy::SensorSpec::Kind::predictor:
      j["horizon_ms"] = s.horizon.count();
      j["window_ms"] = s.window.count();
      break;
    default:
      break;
  }
  return j;
}

ordered_json zone(const policy::ZoneSpec& z) {
  ordered_json j;
  j["name"] = z.name;
  j["sensor"] = z.sensor;
  j["trips"] = ordered_json::array();
  for (const auto& t : z.trips) {
    ordered_json jt;
    jt["name"] = t.name;
    jt["type"] = name(t.type);
    jt["threshold_c"] = c(t.threshold);
    jt["hysteresis_c"] = c(t.hysteresis);
    jt["action"] = policy::to_string(t.action);
    if (!t.devices.empty()) jt["devices"] = t.devices;
    jt["debounce_samples"] = t.debounce_samples;
    j["trips"].push_back(jt);
  }
  j["severities"] = ordered_json::array();
  for (const auto& s : z.severities) {
    j["severities"].push_back(ordered_json{{"level", policy::to_string(s.level)},
                                           {"threshold_c", c(s.threshold)},
                                           {"hysteresis_c", c(s.hysteresis)}});
  }
  return j;
}

ordered_json device(const policy::DeviceSpec& d, const config::PolicyDocument& doc) {
  ordered_json j;
  j["name"] = d.name;
  j["max_level"] = d.max_level;
  if (!d.power_mw.empty()) j["power_mw"] = d.power_mw;
  if (!d.performance.empty()) j["performance"] = d.performance;
  j["min_level"] = d.min_level;
  j["limit_level"] = d.limit_level.value_or(d.max_level);
  j["max_step_up"] = d.max_step_up;
  j["max_step_down"] = d.max_step_down;
  j["min_dwell_ms"] = d.min_dwell.count();
  j["release_dwell_ms"] = d.release_dwell.count();
  if (auto it = doc.knobs.find(d.name); it != doc.knobs.end()) {
    const config::DeviceKnob& k = it->second;
    ordered_json jk;
    jk["kind"] = name(k.kind);
    if (!k.name.empty()) jk["name"] = k.name;
    if (!k.path.empty()) jk["path"] = k.path;
    if (k.kind == config::DeviceKnob::Kind::rapl) jk["constraint"] = k.constraint;
    jk["unit"] = unit(k.kind);
    if (!k.role.empty()) jk["role"] = k.role;
    if (!k.attribute.empty()) jk["attribute"] = k.attribute;
    if (!k.values.empty()) {
      jk["values"] = ordered_json::array();
      for (const auto& v : k.values) jk["values"].push_back(config::to_string(v));
    }
    if (k.deepest) jk["deepest"] = config::to_string(*k.deepest);
    jk["required"] = k.required;
    j["knob"] = jk;
  }
  return j;
}

ordered_json controller(const policy::ControllerSpec& ct) {
  using K = policy::ControllerSpec::Kind;
  ordered_json j;
  j["name"] = ct.name;
  j["kind"] = policy::to_string(ct.kind);
  j["input"] = ct.input;
  j["devices"] = ordered_json::array();
  for (const auto& b : ct.devices) {
    j["devices"].push_back(ordered_json{{"device", b.device}, {"weight", b.weight}});
  }
  if (ct.safe_level) j["safe_level"] = *ct.safe_level;
  switch (ct.kind) {
    case K::step_wise:
    case K::bang_bang:
      j["threshold_c"] = c(ct.threshold);
      j["hysteresis_c"] = c(ct.hysteresis);
      if (ct.kind == K::bang_bang && ct.on_level) j["on_level"] = *ct.on_level;
      if (ct.kind == K::step_wise) j["period_ms"] = ct.period.count();
      break;
    case K::table:
      j["table"] = ordered_json::array();
      for (const auto& r : ct.table) {
        j["table"].push_back(
            ordered_json{{"up_c", c(r.up)}, {"down_c", c(r.down)}, {"level", r.level}});
      }
      break;
    case K::pid:
      j["setpoint_c"] = c(ct.setpoint);
      j["kp"] = ct.kp;
      j["ki"] = ct.ki;
      j["kd"] = ct.kd;
      j["engage_below_c"] = c(ct.engage_below);
      j["period_ms"] = ct.period.count();
      break;
    case K::power_budget:
      j["setpoint_c"] = c(ct.setpoint);
      j["sustainable_power_mw"] = ct.sustainable_power_mw;
      j["kp_over_mw"] = ct.kp_over_mw;
      j["kp_under_mw"] = ct.kp_under_mw;
      j["ki_mw"] = ct.ki_mw;
      j["kd_mw"] = ct.kd_mw;
      j["switch_on_c"] = c(ct.switch_on);
      j["period_ms"] = ct.period.count();
      break;
  }
  return j;
}

ordered_json profile(const policy::ProfileSpec& p) {
  ordered_json j;
  j["name"] = p.name;
  j["limit_offset_c"] = c(p.limit_offset);
  j["controllers"] = ordered_json::array();
  for (const auto& o : p.controllers) {
    ordered_json jo{{"controller", o.controller}};
    if (o.threshold) jo["threshold_c"] = c(*o.threshold);
    if (o.setpoint) jo["setpoint_c"] = c(*o.setpoint);
    if (o.enabled) jo["enabled"] = *o.enabled;
    j["controllers"].push_back(jo);
  }
  j["devices"] = ordered_json::array();
  for (const auto& o : p.devices) {
    ordered_json jo{{"device", o.device}};
    if (o.min_level) jo["min_level"] = *o.min_level;
    if (o.limit_level) jo["limit_level"] = *o.limit_level;
    j["devices"].push_back(jo);
  }
  return j;
}

}  // namespace

ordered_json to_json(const config::PolicyDocument& doc) {
  const policy::PolicySpec& spec = doc.spec;
  ordered_json j;
  j["sampling"] = ordered_json{{"fine_granularity_c", c(spec.sampling.fine_granularity)},
                               {"coarse_granularity_c", c(spec.sampling.coarse_granularity)},
                               {"near_distance_c", c(spec.sampling.near_distance)},
                               {"min_interval_ms", spec.sampling.min_interval.count()},
                               {"max_interval_ms", spec.sampling.max_interval.count()}};
  j["daemon"] = ordered_json{{"lost_after_failures", doc.daemon.lost_after_failures}};
  j["sensors"] = ordered_json::array();
  for (const auto& s : spec.sensors) j["sensors"].push_back(sensor(s, doc));
  j["zones"] = ordered_json::array();
  for (const auto& z : spec.zones) j["zones"].push_back(zone(z));
  j["devices"] = ordered_json::array();
  for (const auto& d : spec.devices) j["devices"].push_back(device(d, doc));
  j["controllers"] = ordered_json::array();
  for (const auto& ct : spec.controllers) j["controllers"].push_back(controller(ct));
  j["profiles"] = ordered_json::array();
  for (const auto& p : spec.profiles) j["profiles"].push_back(profile(p));
  j["default_profile"] = spec.default_profile;
  return j;
}

}  // namespace coolhand::ctl
