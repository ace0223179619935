// libFuzzer entry point for `coolhand-sim port`'s YAML reading and in-place
// editing (coolhand/sim/port_yaml.h): the input up to its first NUL byte is
// a policy text, the rest an estimator file (fit --skin-out's). Any bytes
// must give either one error or results that keep the editor's promises:
// the lab copy of the policy loads with the thermocouple a_tc among its
// sensors and both event windows at 0.1 °C, and a pasted policy loads with
// its sensor f now the estimator (a fir).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/port_yaml.h"

namespace {

using coolhand::sim::NamedText;

constexpr std::string_view kModel =
    "name: m\nskin: {nodes: [a], limit_c: 45}\nnodes: [{name: a, capacity_j_per_k: 1}]\n"
    "devices:\n  - {name: cpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}\n"
    "sensors:\n  - {name: t, node: a, quantum_c: 1, period_ms: 100}\n";

const coolhand::policy::SensorSpec* sensor(const coolhand::config::PolicyDocument& d,
                                           std::string_view name) {
  for (const auto& s : d.spec.sensors)
    if (s.name == name) return &s;
  return nullptr;
}

coolhand::config::PolicyDocument load(const std::string& text) {
  auto r = coolhand::config::parse_policy(text, "out.yaml");
  if (!r.document) __builtin_trap();
  return std::move(*r.document);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nul = all.find('\0');
  const std::string_view policy = all.substr(0, nul);
  const std::string_view estimators =
      nul == std::string_view::npos ? std::string_view{} : all.substr(nul + 1);
  const NamedText model{kModel, "m.yaml"};

  const auto facts = coolhand::sim::port_facts(model, {policy, "p.yaml"});
  if (const auto* e = std::get_if<std::string>(&facts); e && e->empty()) __builtin_trap();

  const auto lab = coolhand::sim::lab_copies(model, {policy, "p.yaml"});
  if (const auto* e = std::get_if<std::string>(&lab)) {
    if (e->empty()) __builtin_trap();
  } else {
    const auto doc = load(std::get<coolhand::sim::LabCopies>(lab).policy);
    if (!sensor(doc, "a_tc") || doc.spec.sampling.fine_granularity.mc() != 100 ||
        doc.spec.sampling.coarse_granularity.mc() != 100)
      __builtin_trap();
  }

  // With the excitation's level steps: the lab policy also loads with a
  // profile for each switch (the model's cpu has no Energy Model, so a
  // policy that throttles it gets steps).
  const auto excited = coolhand::sim::lab_copies(model, {policy, "p.yaml"}, 120);
  if (const auto* e = std::get_if<std::string>(&excited)) {
    if (e->empty()) __builtin_trap();
  } else {
    const auto& c = std::get<coolhand::sim::LabCopies>(excited);
    const auto doc = load(c.policy);
    for (const auto& [at, name] : c.excitation) {
      bool found = false;
      for (const auto& p : doc.spec.profiles) found = found || p.name == name;
      if (!found || at < 0 || at >= 120) __builtin_trap();
    }
  }

  const auto pasted =
      coolhand::sim::paste_estimators({policy, "p.yaml"}, {estimators, "e.yaml"}, {{"f", "a_fir"}});
  if (const auto* e = std::get_if<std::string>(&pasted)) {
    if (e->empty()) __builtin_trap();
  } else if (std::get<coolhand::sim::Pasted>(pasted).notes.empty()) {
    // The policy had a sensor f: it is now the estimator, a fir.
    const auto doc = load(std::get<coolhand::sim::Pasted>(pasted).policy);
    const auto* f = sensor(doc, "f");
    if (!f || f->kind != coolhand::policy::SensorSpec::Kind::fir) __builtin_trap();
  }
  return 0;
}
