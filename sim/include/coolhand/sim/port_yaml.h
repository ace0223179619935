// What the port chain (scripts/port-device.sh; docs/simulator.md, "The port
// chain") reads from and writes into a device's model and policy YAML,
// through the project's own parsers (parse_model, config::parse_policy) and
// in-place edits located by their marks (sim/src/yaml_edit.h): comments,
// key order and flow or block style of the user's files are kept. Texts in,
// texts out; `coolhand-sim port` (sim/src/cmd_port.cpp) reads and writes
// the files. Every error is one "file:line:column: message" string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace coolhand::config {
struct PolicyDocument;
}

namespace coolhand::sim {

struct ModelSpec;

// A YAML text and the name it goes by in messages.
struct NamedText {
  std::string_view text;
  std::string_view file;
};

// What the chain needs to know of a model and its policy.
struct PortFacts {
  std::vector<std::string> skin_nodes;  // the model's skin: nodes
  struct Fir {
    std::string name;
    std::vector<std::string> inputs;
  };
  std::vector<Fir> firs;  // the policy's fir sensors, in its order
  // The policy's brightness sensors ({kind: backlight, name: DEVICE}), as
  // (sensor, backlight device), in its order.
  std::vector<std::pair<std::string, std::string>> brightness;
  // The policy's ema sensors ({kind: ema, input: SENSOR, time_constant: T}),
  // in its order: an estimator may take one as an input (fit --ema).
  struct Ema {
    std::string name;
    std::string input;
    double tau_s = 0;
  };
  std::vector<Ema> emas;
  std::vector<std::string> controllers;  // the policy's controllers, in its order
  bool tune_block = false;               // whether it has a `tune:` block
};

[[nodiscard]] std::variant<PortFacts, std::string> port_facts(NamedText model, NamedText policy);

// The lab's thermocouple on each skin node: a model sensor <node>_tc (1 s,
// 0.1 °C, 0.05 °C noise) and a policy sensor of that name (thermal_zone
// <node with '-' for '_'>-tc) that the policy reads but never acts on; and
// the policy's event windows narrowed to 0.1 °C (sampling's fine and
// coarse granularity), so every sensor reports each 0.1 °C it moves.
//
// With `excitation_s` > 0, the lab policy also steps the devices' levels
// during the excitation, so that the fit sees every level's heat: without
// it a device the policy never throttles at the lab's 25 °C shows only its
// level 0, and the fit can scale its other levels' powers only by their
// performance (fit's "not identifiable ... levels the data never use"),
// which is how gaming-7's fit put the dimmed backlight's power at 1.39 W
// where the device's is 0.64 W and underrated dimming in hot-car. The
// steps are floors (a profile's min_level per device, excite-1, excite-2,
// ...) that `excitation` switches between, as a lab's script would with
// coolhandctl; the policy may still throttle deeper. See excitation_steps.
struct LabCopies {
  std::string model, policy;
  std::vector<std::pair<double, std::string>> excitation;  // (seconds, profile), by time
};
[[nodiscard]] std::variant<LabCopies, std::string> lab_copies(NamedText model, NamedText policy,
                                                              double excitation_s = 0);

// The excitation's level floors: each device of the policy that the model
// has, that throttles (max_level >= 1) and whose levels' powers the kernel
// does not publish (not energy_model: those the skeleton holds as known),
// steps through its levels from its min_level to its limit_level, every
// level once in a shuffled order and then again, holding each for 15-60 s
// (the excitation's own demand switches' spacing), independently of the
// other devices. One entry per change: its time and every stepped device's
// floor. Deterministic (std::mt19937, fixed seed).
struct ExcitationStep {
  double at_s = 0;
  std::vector<std::pair<std::string, std::uint32_t>> floors;  // (device, min_level)
};
[[nodiscard]] std::vector<ExcitationStep> excitation_steps(const ModelSpec& model,
                                                           const config::PolicyDocument& policy,
                                                           double duration_s);

// The policy with each (sensor, estimator) pair's sensor replaced by the
// estimator of that name in `estimators` (fit --skin-out's snippet), renamed
// to the sensor, with the snippet's comment. A sensor the policy lacks is
// left out and named in `notes`.
struct Pasted {
  std::string policy;
  std::vector<std::string> notes;
};
[[nodiscard]] std::variant<Pasted, std::string> paste_estimators(
    NamedText policy, NamedText estimators,
    const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace coolhand::sim
