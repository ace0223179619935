// The port chain's reading and editing of a model and a policy
// (coolhand/sim/port_yaml.h): facts through the parsers, edits in place
// through YamlText (yaml_edit.h), and every edited text parsed again as
// what it is, so that a copy the chain writes always loads.
#include "coolhand/sim/port_yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "coolhand/config/policy_file.h"
#include "coolhand/config/yaml_input.h"
#include "coolhand/sim/model.h"
#include "yaml_edit.h"
#include "yaml_reader.h"

namespace coolhand::sim {

namespace {

using detail::YamlEntry;
using detail::YamlText;

constexpr config::detail::DocumentKind kModelKind{"model", "name: ..., nodes: ..., ..."};
constexpr config::detail::DocumentKind kPolicyKind{"policy", "version: 1, ..."};
constexpr config::detail::DocumentKind kSnippetKind{"estimator file", "front_skin_fir: ..., ..."};
// How the comment skin_yaml (fit_skin.cpp) writes above each estimator
// starts: paste replaces such a comment above the sensor (an earlier
// paste's) with the new one rather than stacking them.
constexpr std::string_view kFittedComment = "# Fitted by coolhand-sim fit";

std::string joined(const std::vector<config::ConfigError>& errors) {
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "\n") + e.to_string();
  return out;
}

// The text as a YamlText, or read_yaml's errors.
std::variant<YamlText, std::string> read(NamedText t, const config::detail::DocumentKind& kind) {
  auto in = config::detail::read_yaml(t.text, t.file, kind);
  if (!in.errors.empty()) return joined(in.errors);
  return YamlText(std::string(t.text), std::string(t.file), *in.root);
}

std::variant<ModelSpec, std::string> model_of(NamedText t) {
  auto r = parse_model(t.text, t.file);
  if (auto* e = std::get_if<config::ConfigError>(&r)) return e->to_string();
  return std::get<ModelSpec>(std::move(r));
}

std::variant<config::PolicyDocument, std::string> policy_of(NamedText t) {
  auto r = config::parse_policy(t.text, t.file);
  if (!r.errors.empty()) return joined(r.errors);
  return std::move(*r.document);
}

// A name the edits write as a plain YAML scalar.
bool plain_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// Runs `edit`; returns its YamlFail as file:line:column, or nullopt.
template <typename F>
std::optional<std::string> guarded(const std::string& file, F&& edit) {
  try {
    edit();
    return std::nullopt;
  } catch (const detail::YamlFail& f) {
    return detail::to_error(file, f.mark, f.message).to_string();
  }
}

// The error of `r`, a parse's result, or nullopt.
template <typename T>
std::optional<std::string> error_of(const std::variant<T, std::string>& r) {
  if (const auto* e = std::get_if<std::string>(&r)) return *e;
  return std::nullopt;
}

// Sets sampling's fine and coarse granularity to 0.1 °C: each replaced
// where written, added to `sampling:` where not, `sampling:` added when the
// policy has none.
void narrow_windows(YamlText& policy) {
  const auto sampling = YamlText::find(policy.root(), "sampling");
  if (!sampling) {
    policy.insert_in_root({"sampling: {fine_granularity_c: 0.1, coarse_granularity_c: 0.1}"});
    return;
  }
  std::vector<std::string> missing;
  for (const char* key : {"coarse_granularity_c", "fine_granularity_c"}) {
    if (const auto e = YamlText::find(sampling->value, key))
      policy.replace_scalar(e->value, "0.1");
    else
      missing.push_back(std::string(key) + ": 0.1");
  }
  if (!missing.empty()) policy.insert_first(*sampling, missing);
}

// Adds `entries` to the top-level collection `key`, or adds `key` with them.
void add_to(YamlText& doc, const char* key, const std::vector<std::string>& entries,
            bool sequence) {
  if (const auto e = YamlText::find(doc.root(), key)) {
    doc.insert_first(*e, entries);
    return;
  }
  std::string all;
  for (const auto& x : entries) all += (all.empty() ? "" : ", ") + x;
  doc.insert_in_root({std::string(key) + ": " + (sequence ? "[" + all + "]" : "{" + all + "}")});
}

// `value` in flow style throughout, for a flow mapping.
std::string flow_text(const YAML::Node& value) {
  YAML::Node copy = YAML::Clone(value);
  std::vector<YAML::Node> todo{copy};
  while (!todo.empty()) {
    YAML::Node n = todo.back();
    todo.pop_back();
    if (n.IsMap() || n.IsSequence()) n.SetStyle(YAML::EmitterStyle::Flow);
    if (n.IsMap())
      for (auto it = n.begin(); it != n.end(); ++it) todo.push_back(it->second);
    if (n.IsSequence())
      for (auto it = n.begin(); it != n.end(); ++it) todo.push_back(*it);
  }
  YAML::Emitter out;
  out << copy;
  return out.c_str();
}

}  // namespace

std::variant<PortFacts, std::string> port_facts(NamedText model, NamedText policy) {
  auto m = model_of(model);
  if (auto e = error_of(m)) return *e;
  auto p = policy_of(policy);
  if (auto e = error_of(p)) return *e;
  auto doc = read(policy, kPolicyKind);
  if (auto e = error_of(doc)) return *e;
  const auto& spec = std::get<config::PolicyDocument>(p);
  PortFacts f;
  f.skin_nodes = std::get<ModelSpec>(m).skin_nodes;
  for (const auto& s : spec.spec.sensors) {
    if (s.kind == policy::SensorSpec::Kind::fir) f.firs.push_back({s.name, s.inputs});
    if (s.kind == policy::SensorSpec::Kind::ema && !s.inputs.empty())
      f.emas.push_back(
          {s.name, s.inputs[0], static_cast<double>(s.time_constant.count()) / 1000.0});
    const auto src = spec.sources.find(s.name);
    if (src != spec.sources.end() && src->second.kind == config::SensorSource::Kind::backlight)
      f.brightness.emplace_back(s.name, src->second.name);
  }
  for (const auto& c : spec.spec.controllers) f.controllers.push_back(c.name);
  f.tune_block = YamlText::find(std::get<YamlText>(doc).root(), "tune").has_value();
  return f;
}

std::variant<LabCopies, std::string> lab_copies(NamedText model, NamedText policy,
                                                double excitation_s) {
  auto spec = model_of(model);
  if (auto e = error_of(spec)) return *e;
  auto doc = policy_of(policy);
  if (auto e = error_of(doc)) return *e;
  // The excitation's level floors, one profile per change (excite-1, ...).
  std::vector<std::string> profiles;
  LabCopies out;
  if (excitation_s > 0) {
    const auto steps = excitation_steps(std::get<ModelSpec>(spec),
                                        std::get<config::PolicyDocument>(doc), excitation_s);
    // Every step names the same stepped devices.
    if (!steps.empty() && std::any_of(steps.front().floors.begin(), steps.front().floors.end(),
                                      [](const auto& f) { return !plain_name(f.first); }))
      return fmt::format("{}: the excitation's profiles need plain device names", policy.file);
    for (const auto& step : steps) {
      std::string floors;
      for (const auto& [device, level] : step.floors)
        floors += fmt::format("{}{}: {{min_level: {}}}", floors.empty() ? "" : ", ", device, level);
      const std::string name = fmt::format("excite-{}", out.excitation.size() + 1);
      profiles.push_back(fmt::format("{}: {{devices: {{{}}}}}", name, floors));
      out.excitation.emplace_back(step.at_s, name);
    }
  }
  std::vector<std::string> model_sensors, policy_sensors;
  for (const auto& n : std::get<ModelSpec>(spec).skin_nodes) {
    if (!plain_name(n))
      return fmt::format("{}: skin node '{}': the lab's thermocouple needs a plain name",
                         model.file, n);
    std::string zone = n;
    std::replace(zone.begin(), zone.end(), '_', '-');
    model_sensors.push_back(fmt::format(
        "{{name: {}_tc, node: {}, quantum_c: 0.1, noise_c: 0.05, period_ms: 1000}}", n, n));
    policy_sensors.push_back(
        fmt::format("{}_tc: {{source: {{kind: thermal_zone, name: {}-tc}}}}", n, zone));
  }
  auto m = read(model, kModelKind);
  if (auto e = error_of(m)) return *e;
  auto p = read(policy, kPolicyKind);
  if (auto e = error_of(p)) return *e;
  auto& mt = std::get<YamlText>(m);
  auto& pt = std::get<YamlText>(p);
  if (auto e = guarded(mt.file(), [&] {
        add_to(mt, "sensors", model_sensors, true);
        out.model = mt.edited();
      }))
    return *e;
  if (auto e = guarded(pt.file(), [&] {
        add_to(pt, "sensors", policy_sensors, false);
        if (!profiles.empty()) add_to(pt, "profiles", profiles, false);
        narrow_windows(pt);
        out.policy = pt.edited();
      }))
    return *e;
  const std::string model_name = std::string(model.file) + " (lab copy)";
  const std::string policy_name = std::string(policy.file) + " (lab copy)";
  if (auto e = error_of(model_of({out.model, model_name}))) return *e;
  if (auto e = error_of(policy_of({out.policy, policy_name}))) return *e;
  return out;
}

std::variant<Pasted, std::string> paste_estimators(
    NamedText policy, NamedText estimators,
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (auto e = error_of(policy_of(policy))) return *e;
  auto p = read(policy, kPolicyKind);
  if (auto e = error_of(p)) return *e;
  auto s = read(estimators, kSnippetKind);
  if (auto e = error_of(s)) return *e;
  auto& pt = std::get<YamlText>(p);
  const auto& st = std::get<YamlText>(s);
  // Each estimator as the snippet writes it (its lines for a block
  // mapping, flow text for a flow one), renamed to the sensor it replaces.
  struct Paste {
    YamlEntry to;
    std::vector<std::string> lines;
    std::string flow;
  };
  std::vector<Paste> pastes;
  Pasted out;
  const auto sensors = YamlText::find(pt.root(), "sensors");
  for (const auto& pair : pairs) {
    const std::string& sensor = pair.first;
    const std::string& estimator = pair.second;
    const auto from = YamlText::find(st.root(), estimator);
    if (!from)
      return fmt::format("{}: no estimator '{}' (for the policy's sensor '{}')", st.file(),
                         estimator, sensor);
    const auto to = sensors ? YamlText::find(sensors->value, sensor) : std::nullopt;
    if (!to) {
      out.notes.push_back(fmt::format("{} has no sensor '{}': estimator {} not pasted", pt.file(),
                                      sensor, estimator));
      continue;
    }
    Paste paste{*to, {}, {}};
    if (auto e = guarded(st.file(), [&] {
          paste.lines = st.entry_lines(*from, sensor);
          paste.flow = flow_text(from->value);
        }))
      return *e;
    pastes.push_back(std::move(paste));
  }
  if (auto e = guarded(pt.file(), [&] {
        for (const auto& x : pastes)
          pt.replace_entry(sensors->value, x.to, x.lines, x.flow, kFittedComment);
        out.policy = pt.edited();
      }))
    return *e;
  const std::string name = std::string(policy.file) + " (estimators pasted)";
  if (auto e = error_of(policy_of({out.policy, name}))) return *e;
  return out;
}

}  // namespace coolhand::sim
