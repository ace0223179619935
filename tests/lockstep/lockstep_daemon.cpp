// The daemon run's layout, module parameters and remapped policy
// (lockstep_daemon.h).
#include "lockstep_daemon.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <sstream>

namespace coolhand::lockstep {

namespace {

constexpr std::size_t kMaxEmulated = 16;  // COOLHAND_EMUL_MAX (kmod/coolhand_emul.h)

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(1, sep)) + p;
  return out;
}

// The policy text as a YAML tree, or an error naming the parse failure.
std::variant<YAML::Node, LayoutError> parse(const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return LayoutError{"the policy is not a YAML mapping"};
    return root;
  } catch (const YAML::Exception& e) {
    return LayoutError{std::string("policy: ") + e.what()};
  }
}

std::size_t device_index(const sim::ModelSpec& model, const std::string& name) {
  std::size_t d = 0;
  while (d < model.devices.size() && model.devices[d].name != name) ++d;
  return d;
}

}  // namespace

std::variant<DaemonLayout, LayoutError> daemon_layout(const sim::ModelSpec& model,
                                                      const std::string& policy_text) {
  auto parsed = parse(policy_text);
  if (auto* e = std::get_if<LayoutError>(&parsed)) return *e;
  const YAML::Node& root = std::get<YAML::Node>(parsed);
  DaemonLayout l;
  const YAML::Node sensors = root["sensors"];
  for (std::size_t s = 0; s < model.sensors.size(); ++s) {
    const YAML::Node entry = sensors ? sensors[model.sensors[s].name] : YAML::Node();
    if (entry && entry.IsMap() && entry["source"]) l.zone_sensor.push_back(s);
  }
  if (l.zone_sensor.size() > kMaxEmulated)
    return LayoutError{"the policy reads " + std::to_string(l.zone_sensor.size()) +
                       " model sensors; coolhand_emul has at most 16 zones"};
  if (model.devices.size() > kMaxEmulated) return LayoutError{"the model has more than 16 devices"};
  if (const YAML::Node devices = root["devices"]; devices && devices.IsMap()) {
    for (const auto& d : devices) {
      const auto name = d.first.as<std::string>();
      if (device_index(model, name) == model.devices.size())
        return LayoutError{"policy device " + name + " is not a device of the model"};
    }
  }
  return l;
}

std::string daemon_emul_params(const sim::ModelSpec& model, const DaemonLayout& l) {
  std::vector<std::string> max_level, power, binding;
  for (const auto& d : model.devices) {
    binding.push_back("0:" + std::to_string(max_level.size()));
    max_level.push_back(std::to_string(d.max_level()));
    std::vector<std::string> mw;
    for (double w : d.power_w) mw.push_back(std::to_string(std::lround(w * 1000.0)));
    power.push_back(join(mw, ':'));
  }
  std::ostringstream out;
  out << "emul_zones=" << l.zone_sensor.size() << " emul_devices=" << model.devices.size()
      << " emul_max_level=" << join(max_level, ',') << " emul_power_mw=" << join(power, ',')
      << " emul_passive_mc=0 emul_passive_hyst_mc=0 emul_crit_mc=0 emul_governor=user_space"
      << " emul_binding=" << join(binding, ',');
  return out.str();
}

std::variant<std::string, LayoutError> remap_policy(const sim::ModelSpec& model,
                                                    const DaemonLayout& l,
                                                    const std::string& policy_text) {
  auto parsed = parse(policy_text);
  if (auto* e = std::get_if<LayoutError>(&parsed)) return *e;
  YAML::Node root = std::get<YAML::Node>(parsed);
  try {
    for (std::size_t z = 0; z < l.zone_sensor.size(); ++z) {
      YAML::Node source(YAML::NodeType::Map);
      source["kind"] = "coolhand";
      source["name"] = "emul_zone" + std::to_string(z);
      root["sensors"][model.sensors[l.zone_sensor[z]].name]["source"] = source;
    }
    if (YAML::Node devices = root["devices"]; devices && devices.IsMap()) {
      for (auto d : devices) {
        YAML::Node knob(YAML::NodeType::Map);
        knob["kind"] = "coolhand";
        knob["name"] = "throttle" + std::to_string(device_index(model, d.first.as<std::string>()));
        d.second["knob"] = knob;
      }
    }
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return LayoutError{std::string("policy: ") + e.what()};
  }
}

}  // namespace coolhand::lockstep
