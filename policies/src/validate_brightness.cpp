// Validation of brightness sensors (SensorSpec::Quantity::brightness): a
// display backlight's actual brightness, in thousandths of its maximum, is
// not a temperature. Its one use is as an input of a fir sensor, whose
// weight turns it into degrees (°C per full brightness): the heat a screen
// puts into the front glass that no temperature sensor sees. So:
//  - only a physical sensor measures a brightness, with no offset and no
//    quantum (both are temperatures);
//  - a virtual sensor other than fir may not take it as an input (a max of
//    a brightness and a temperature means nothing);
//  - no zone watches it and no controller takes it as its input.
#include <string>
#include <string_view>
#include <vector>

#include "engine_impl.h"

namespace coolhand::policy::detail {
namespace {

std::string at(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

std::string not_a_temperature(const std::string& name) {
  return "\"" + name +
         "\" is a brightness, not a temperature: only a fir sensor may take it as an input";
}

}  // namespace

void validate_brightness(const PolicySpec& spec, std::vector<SpecError>& errors) {
  std::vector<std::string> names;  // the brightness sensors
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    const SensorSpec& s = spec.sensors[i];
    if (s.quantity != SensorSpec::Quantity::brightness) continue;
    names.push_back(s.name);
    const std::string path = at("sensors", i);
    if (s.kind != SensorSpec::Kind::physical)
      errors.push_back({path, "quantity", "only a physical sensor measures a brightness"});
    if (s.offset != MilliC{0})
      errors.push_back(
          {path, "offset", "a brightness sensor has no offset (it is no temperature)"});
    if (s.quantum != MilliC{0})
      errors.push_back(
          {path, "quantum", "a brightness sensor has no quantum (it is no temperature)"});
  }
  if (names.empty()) return;
  const auto is_brightness = [&](const std::string& name) {
    for (const auto& n : names)
      if (n == name) return true;
    return false;
  };
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    const SensorSpec& s = spec.sensors[i];
    if (s.kind == SensorSpec::Kind::fir) continue;
    for (std::size_t j = 0; j < s.inputs.size(); ++j)
      if (is_brightness(s.inputs[j]))
        errors.push_back({at("sensors", i), "inputs",
                          at("inputs", j) + ": " + not_a_temperature(s.inputs[j]) +
                              ", not a sensor of kind " + std::string(to_string(s.kind))});
  }
  for (std::size_t i = 0; i < spec.zones.size(); ++i)
    if (is_brightness(spec.zones[i].sensor))
      errors.push_back({at("zones", i), "sensor",
                        not_a_temperature(spec.zones[i].sensor) + ", no zone watches it"});
  for (std::size_t i = 0; i < spec.controllers.size(); ++i)
    if (is_brightness(spec.controllers[i].input))
      errors.push_back(
          {at("controllers", i), "input",
           not_a_temperature(spec.controllers[i].input) + ", no controller takes it as its input"});
}

}  // namespace coolhand::policy::detail
