// The skin estimator's inputs (fit_skin_inputs.h). Why the heated node's
// sensor: a cover's temperature is the ambient plus the devices' heat
// through the device's conductances; a thermistor on the board, the cells
// or the charger reads the same two in other proportions, so from those
// alone the estimate cannot tell load from a warm ambient except through
// slow transients. The on-die sensor's rise over the board is the SoC's
// power, which separates them (docs/simulator.md, "Learning a device").
#include "fit_skin_inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

std::vector<std::string> newest_tap_only_inputs(const ModelSpec& model,
                                                const std::vector<std::string>& inputs,
                                                double tap_period_s) {
  constexpr double kEngineChangesPerTap = 8;  // policies/src/engine.cpp, kFirChangesPerTap
  std::vector<std::string> out;
  for (const auto& s : model.sensors) {
    const double period_s = static_cast<double>(s.period.count()) / 1000.0;
    if (contains(inputs, s.name) && period_s * kEngineChangesPerTap < tap_period_s)
      out.push_back(s.name);
  }
  return out;
}

std::optional<EmaInput> parse_ema_input(const std::string& text, std::string& error) {
  const auto eq = text.find('=');
  const auto colon = text.rfind(':');
  error = "--ema " + text + ": expected NAME=INPUT:TAU (TAU in s, > 0)";
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq + 2 ||
      colon + 1 == text.size())
    return std::nullopt;
  EmaInput e{text.substr(0, eq), text.substr(eq + 1, colon - eq - 1), 0};
  try {
    std::size_t used = 0;
    e.tau_s = std::stod(text.substr(colon + 1), &used);
    if (used != text.size() - colon - 1 || !std::isfinite(e.tau_s) || e.tau_s <= 0)
      return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  error.clear();
  return e;
}

std::optional<config::ConfigError> add_ema_inputs(std::vector<FitSegment>& data,
                                                  const std::vector<std::string>& sensor_names,
                                                  const std::vector<EmaInput>& emas) {
  for (const auto& e : emas) {
    const auto it = std::find(sensor_names.begin(), sensor_names.end(), e.input);
    if (it == sensor_names.end())
      return config::ConfigError{
          "--ema " + e.name, 0, 0, {}, "'" + e.input + "' is not a sensor of the model"};
    const auto s = static_cast<std::size_t>(it - sensor_names.begin());
    for (auto& seg : data) {
      if (s >= seg.reading_c.size())
        return config::ConfigError{seg.name, 0, 0, {}, "no readings of " + e.input};
      const double keep = std::exp(-seg.step_s / e.tau_s);
      std::vector<double> y(seg.time_s.size(), std::numeric_limits<double>::quiet_NaN());
      double held = std::numeric_limits<double>::quiet_NaN();
      double avg = held;
      for (std::size_t k = 0; k < y.size(); ++k) {
        if (!std::isnan(seg.reading_c[s][k])) held = seg.reading_c[s][k];
        if (std::isnan(held)) continue;
        avg = std::isnan(avg) ? held : held + (avg - held) * keep;
        y[k] = avg;
      }
      seg.extra_names.push_back(e.name);
      seg.extra_c.push_back(std::move(y));
    }
  }
  return std::nullopt;
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
