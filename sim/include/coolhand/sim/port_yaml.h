// What the port chain (scripts/port-device.sh; docs/simulator.md, "The port
// chain") reads from and writes into a device's model and policy YAML,
// through the project's own parsers (parse_model, config::parse_policy) and
// in-place edits located by their marks (sim/src/yaml_edit.h): comments,
// key order and flow or block style of the user's files are kept. Texts in,
// texts out; `coolhand-sim port` (sim/src/cmd_port.cpp) reads and writes
// the files. Every error is one "file:line:column: message" string.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace coolhand::sim {

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
struct LabCopies {
  std::string model, policy;
};
[[nodiscard]] std::variant<LabCopies, std::string> lab_copies(NamedText model, NamedText policy);

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
