// The virtual skin estimator's inputs (`coolhand-sim fit --reference-skin`):
// which sensors it reads by default, and which devices' heat none of its
// inputs sees. Docs: docs/simulator.md, "Learning a device" (the estimator's
// inputs).
#pragma once

#include <string>
#include <vector>

#include "coolhand/sim/model.h"

namespace coolhand::sim {

// One sensor per node that has any: the finest quantum (the first listed on
// a tie), whatever its period. A sensor on the node a device heats measures
// that heat (its rise over the board's is the power), which is what lets
// the estimate tell a device's heat from a warm ambient; a second sensor of
// one node adds its noise and nothing else.
[[nodiscard]] std::vector<std::string> default_skin_inputs(const ModelSpec& model);

// Devices whose heat no estimator input sees: heat into nodes none of
// `inputs` reads, from a device that is not a brightness input
// (`brightness_devices`). Grouped by the node; `sensors` are the model's
// sensors on it (empty: none reads it).
struct UnseenHeat {
  std::string node;
  std::vector<std::string> devices;
  std::vector<std::string> sensors;
};
[[nodiscard]] std::vector<UnseenHeat> unseen_heat(
    const ModelSpec& model, const std::vector<std::string>& inputs,
    const std::vector<std::string>& brightness_devices);

// The warning for one unseen node, e.g. "skin estimator inputs: none sees
// the heat of cpu, gpu (node soc; cpu_therm, gpu_therm read it): ...".
[[nodiscard]] std::string unseen_heat_warning(const UnseenHeat& unseen);

}  // namespace coolhand::sim
