// The skin estimator's inputs (fit_skin_inputs.h). Why the heated node's
// sensor: a cover's temperature is the ambient plus the devices' heat
// through the device's conductances; a thermistor on the board, the cells
// or the charger reads the same two in other proportions, so from those
// alone the estimate cannot tell load from a warm ambient except through
// slow transients. The on-die sensor's rise over the board is the SoC's
// power, which separates them (docs/simulator.md, "Learning a device").
#include "fit_skin_inputs.h"

#include <algorithm>

namespace coolhand::sim {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::vector<std::string> default_skin_inputs(const ModelSpec& model) {
  std::vector<std::string> out;
  for (const auto& node : model.nodes) {
    const SensorModelSpec* best = nullptr;
    for (const auto& s : model.sensors)
      if (s.node == node.name && (!best || s.quantum_c < best->quantum_c)) best = &s;
    if (best) out.push_back(best->name);
  }
  return out;
}

std::vector<UnseenHeat> unseen_heat(const ModelSpec& model, const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& brightness_devices) {
  std::vector<std::string> seen_nodes;
  for (const auto& s : model.sensors)
    if (contains(inputs, s.name)) seen_nodes.push_back(s.node);
  std::vector<UnseenHeat> out;
  for (const auto& node : model.nodes) {
    if (contains(seen_nodes, node.name)) continue;
    UnseenHeat u;
    u.node = node.name;
    for (const auto& d : model.devices) {
      if (contains(brightness_devices, d.name)) continue;
      // A device any of whose heat reaches a node an input reads is seen.
      bool seen_elsewhere = false;
      bool heats = false;
      for (const auto& h : d.heat) {
        heats = heats || (h.node == node.name && h.share > 0);
        seen_elsewhere = seen_elsewhere || (h.share > 0 && contains(seen_nodes, h.node));
      }
      if (heats && !seen_elsewhere) u.devices.push_back(d.name);
    }
    if (u.devices.empty()) continue;
    for (const auto& s : model.sensors)
      if (s.node == node.name) u.sensors.push_back(s.name);
    out.push_back(std::move(u));
  }
  return out;
}

std::string unseen_heat_warning(const UnseenHeat& unseen) {
  const std::string reads =
      unseen.sensors.empty()
          ? "no sensor reads it, a brightness input would: --brightness"
          : joined(unseen.sensors) + " read" + (unseen.sensors.size() == 1 ? "s" : "") + " it";
  return "skin estimator inputs: none sees the heat of " + joined(unseen.devices) + " (node " +
         unseen.node + "; " + reads +
         "): the estimate cannot tell that heat from a warm ambient (docs/simulator.md, "
         "\"Learning a device\")";
}

}  // namespace coolhand::sim
