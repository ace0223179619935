// `coolhand-sim port inspect|lab|paste`: the port chain's YAML front end
// (scripts/port-device.sh; docs/simulator.md, "The port chain"). It reads
// and edits a device's model and policy through the project's parsers
// (coolhand/sim/port_yaml.h), so the script parses no YAML itself:
//   inspect  prints what the chain needs, one fact a line:
//              skin_nodes NODE...
//              fir SENSOR INPUT,INPUT,...     (each fir sensor of the policy)
//              brightness SENSOR=DEVICE       (each {kind: backlight} sensor)
//              ema SENSOR=INPUT:SECONDS       (each {kind: ema} sensor)
//              controller NAME                (each controller)
//              tune_block yes|no
//   lab      writes DIR/model.yaml and DIR/policy.yaml, the lab's copies
//   paste    writes the policy with fitted estimators in place of sensors
#include "cmd_port.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "cmd_status.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/port_yaml.h"

namespace coolhand::sim {

namespace {

std::string read_file(const std::string& path) {
  std::string text;
  if (auto error = read_text(path, text); !error.empty()) throw std::runtime_error(error);
  return text;
}

template <typename T>
T value_or_throw(std::variant<T, std::string> r) {
  if (auto* e = std::get_if<std::string>(&r)) throw std::runtime_error(*e);
  return std::get<T>(std::move(r));
}

void write_or_throw(const std::string& text, const std::string& path) {
  const std::string error = write_text(text, path);
  if (!error.empty()) throw std::runtime_error(error);
}

int inspect(const std::string& model_path, const std::string& policy_path) {
  const std::string model = read_file(model_path);
  const std::string policy = read_file(policy_path);
  const PortFacts f = value_or_throw(port_facts({model, model_path}, {policy, policy_path}));
  std::string out = "skin_nodes";
  for (const auto& n : f.skin_nodes) out += " " + n;
  out += "\n";
  for (const auto& fir : f.firs) {
    std::string inputs;
    for (const auto& i : fir.inputs) inputs += (inputs.empty() ? "" : ",") + i;
    out += fmt::format("fir {} {}\n", fir.name, inputs);
  }
  for (const auto& [sensor, device] : f.brightness)
    out += fmt::format("brightness {}={}\n", sensor, device);
  for (const auto& e : f.emas) out += fmt::format("ema {}={}:{}\n", e.name, e.input, e.tau_s);
  for (const auto& c : f.controllers) out += fmt::format("controller {}\n", c);
  out += fmt::format("tune_block {}\n", f.tune_block ? "yes" : "no");
  std::cout << out;
  return 0;
}

int lab(const std::string& model_path, const std::string& policy_path, const std::string& dir) {
  const std::string model = read_file(model_path);
  const std::string policy = read_file(policy_path);
  const LabCopies c = value_or_throw(lab_copies({model, model_path}, {policy, policy_path}));
  write_or_throw(c.model, dir + "/model.yaml");
  write_or_throw(c.policy, dir + "/policy.yaml");
  std::cout << fmt::format("wrote {}/model.yaml and {}/policy.yaml\n", dir, dir);
  return 0;
}

int paste(const std::string& policy_path, const std::string& estimators_path,
          const std::vector<std::string>& sensors, const std::string& out_path) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& s : sensors) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw std::runtime_error("--sensor '" + s + "': expected SENSOR=ESTIMATOR");
    pairs.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  const std::string policy = read_file(policy_path);
  const std::string estimators = read_file(estimators_path);
  const Pasted p =
      value_or_throw(paste_estimators({policy, policy_path}, {estimators, estimators_path}, pairs));
  for (const auto& note : p.notes) std::cerr << "coolhand-sim: port paste: " << note << "\n";
  write_or_throw(p.policy, out_path);
  std::cout << fmt::format("wrote {}\n", out_path);
  return 0;
}

}  // namespace

void add_port_command(CLI::App& app) {
  struct Args {
    std::string model, policy, out, estimators;
    std::vector<std::string> sensors;
  };
  auto a = std::make_shared<Args>();
  auto* port = app.add_subcommand(
      "port",
      "the port chain's reading and editing of a model and a policy (scripts/port-device.sh): "
      "the user's YAML edited in place, comments and layout kept");
  port->require_subcommand(1);

  auto* insp = port->add_subcommand(
      "inspect",
      "print what the chain needs, a fact a line: skin_nodes NODE..., fir SENSOR INPUTS, "
      "brightness SENSOR=DEVICE, ema SENSOR=INPUT:SECONDS, controller NAME, tune_block yes|no");
  insp->add_option("--model,-m", a->model, "model YAML")->required();
  insp->add_option("--policy,-p", a->policy, "policy YAML")->required();
  run_in_callback(*insp, "port inspect: ", [a] { return inspect(a->model, a->policy); });

  auto* labc = port->add_subcommand(
      "lab",
      "write DIR/model.yaml with a thermocouple <node>_tc on each skin node (1 s, 0.1 °C, 0.05 "
      "°C noise) and DIR/policy.yaml declaring them as sensors, its event windows at 0.1 °C");
  labc->add_option("--model,-m", a->model, "model YAML")->required();
  labc->add_option("--policy,-p", a->policy, "policy YAML")->required();
  labc->add_option("--out,-o", a->out, "output directory (must exist)")->required();
  run_in_callback(*labc, "port lab: ", [a] { return lab(a->model, a->policy, a->out); });

  auto* pastec = port->add_subcommand(
      "paste",
      "write the policy with each --sensor's definition replaced by the fitted estimator of "
      "`fit --skin-out` (renamed, with its comment); a sensor the policy lacks is noted on stderr");
  pastec->add_option("--policy,-p", a->policy, "policy YAML")->required();
  pastec->add_option("--estimators,-e", a->estimators, "fit --skin-out's file")->required();
  pastec
      ->add_option("--sensor,-s", a->sensors,
                   "SENSOR=ESTIMATOR (repeatable): the policy's SENSOR becomes ESTIMATOR")
      ->required();
  pastec->add_option("--out,-o", a->out, "output policy YAML")->required();
  run_in_callback(
      *pastec, "port paste: ", [a] { return paste(a->policy, a->estimators, a->sensors, a->out); });
}

}  // namespace coolhand::sim
