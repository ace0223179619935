// coolhandd in the lockstep guest (issue 14, the user_space row): how a
// policy written for the simulator's model runs on coolhand_emul.ko's
// emulated platform. Shared by the guest program (which loads the module
// and drives the daemon) and its host-side checks.
//
// The layout: emulated zone i is the i-th model sensor (model order) that
// the policy reads from hardware (a policy sensor of the same name with a
// `source`); emulated device d is model device d. The remapped policy is
// the policy with ONLY those sources changed: each such sensor's source
// becomes {kind: coolhand, name: emul_zone<i>} and each device of the
// model gets knob {kind: coolhand, name: throttle<d>}. Everything else
// (virtual sensors, zones, controllers, limits) is the policy's own text.
// Why: the guest has no thermal zones named like the handheld's, no
// power_supply battery and no cpufreq/devfreq knobs; the emulated EC in
// window mode reports every sample outside the window the daemon set, which
// is the simulator's default delivery (sim/policy_loop.h,
// Delivery::pushed) for every sensor, including the battery that a real
// device polls from the power_supply class.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/sim/model.h"

namespace coolhand::lockstep {

struct LayoutError {
  std::string what;
};

struct DaemonLayout {
  std::vector<std::size_t> zone_sensor;  // model sensor index of emulated zone i
};

// The layout for `policy_text` (YAML) on `model`; an error names a policy
// device the model lacks or a policy that reads more than 16 sensors.
[[nodiscard]] std::variant<DaemonLayout, LayoutError> daemon_layout(const sim::ModelSpec& model,
                                                                    const std::string& policy_text);

// The coolhand_emul.ko parameters for the daemon run: the layout's zones
// without trips (the daemon decides, not the kernel: emul_passive_mc=0,
// emul_crit_mc=0), the model's devices with their max levels and power
// tables, every device bound to zone 0 (a coolhand binding gives the
// daemon's knob its class/coolhand/zone*/throttle<d> path; a zone without a
// passive trip makes no thermal-core binding, so no kernel governor moves a
// level) and the user_space governor;
// temperature writes interrupt when outside the window (emul_lockstep off:
// the EC's window mode, which the daemon programs with WINDOW_SET).
[[nodiscard]] std::string daemon_emul_params(const sim::ModelSpec& model, const DaemonLayout& l);

// The policy with only its hardware sources and knobs remapped (above), as
// YAML; an error when the text does not parse.
[[nodiscard]] std::variant<std::string, LayoutError> remap_policy(const sim::ModelSpec& model,
                                                                  const DaemonLayout& l,
                                                                  const std::string& policy_text);

}  // namespace coolhand::lockstep
