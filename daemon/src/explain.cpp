// Device explanations from the engine (explain.h).
#include "explain.h"

namespace coolhand::daemon {

std::vector<DeviceWhy> explain(const policy::Engine& engine) {
  const policy::PolicySpec& spec = engine.spec();
  std::vector<DeviceWhy> out;
  out.reserve(spec.devices.size());
  for (std::size_t i = 0; i < spec.devices.size(); ++i) {
    const policy::DeviceExplanation x =
        engine.explain(policy::DeviceId{static_cast<std::uint16_t>(i)});
    DeviceWhy w;
    w.name = spec.devices[i].name;
    w.level = x.level;
    w.max_level = spec.devices[i].max_level;
    w.since = x.since;
    if (x.forced) {
      w.reason = "forced";
    } else if (!x.cause) {
      w.reason = "released";
    } else {
      const policy::ControllerSpec& c = spec.controllers.at(x.cause->index);
      w.reason = x.safe ? "safe" : "controller";
      w.controller = c.name;
      w.controller_kind = std::string(policy::to_string(c.kind));
      if (x.input) w.input = spec.sensors.at(x.input->index).name;
      w.input_value = x.input_value;
      w.limit_kind = std::string(x.limit_kind);
      w.limit = x.limit;
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace coolhand::daemon
