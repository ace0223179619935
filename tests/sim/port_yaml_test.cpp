// The port chain's YAML front end (coolhand/sim/port_yaml.h): the facts it
// reads, the lab copies and the pasted estimators it writes, on block and
// flow layouts, with comments and keys in other orders, and bad input as
// one file:line:column error.
#include "coolhand/sim/port_yaml.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim::port_yaml_test {
namespace {

// A one-node model, block style, with comments.
constexpr const char* kModel =
    "name: m\n"
    "skin:\n"
    "  nodes: [a]\n"
    "  limit_c: 45\n"
    "nodes: [{name: a, capacity_j_per_k: 1}]\n"
    "devices:\n"
    "  - {name: cpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}\n"
    "sensors:\n"
    "  # the board's thermistor\n"
    "  - {name: t, node: a, quantum_c: 1, period_ms: 100}\n"
    "\n"
    "# the end\n";

// The same model, flow style and keys in another order.
constexpr const char* kFlowModel =
    "sensors: [{name: t, node: a, quantum_c: 1, period_ms: 100}]  # one\n"
    "nodes: [{name: a, capacity_j_per_k: 1}]\n"
    "skin: {limit_c: 45, nodes: [a]}\n"
    "devices: [{name: cpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}]\n"
    "name: m\n";

constexpr const char* kPolicy =
    "# a policy\n"
    "version: 1\n"
    "sampling:\n"
    "  fine_granularity_c: 0.5 # kept comment\n"
    "  coarse_granularity_c: 2\n"
    "sensors:\n"
    "  # the thermistor\n"
    "  t: {source: {kind: thermal_zone, name: t-therm}}\n"
    "  screen: {source: {kind: backlight, name: panel}}\n"
    "  # the estimate\n"
    "  a_fir:\n"
    "    kind: fir\n"
    "    inputs: [t, screen]\n"
    "    weights:\n"
    "      - [1, 0]  # t\n"
    "      - [0, 0]  # screen\n"
    "    tap_period: 8s\n"
    "  # what follows a_fir\n"
    "  b: {kind: ema, input: a_fir, time_constant: 10s}\n"
    "devices:\n"
    "  cpu: {max_level: 5}\n"
    "controllers:\n"
    "  guard: {kind: step_wise, input: b, devices: [cpu], threshold_c: 45, hysteresis_c: 2, "
    "period: 1s}\n";

// fit --skin-out's layout (fit_skin.cpp, skin_yaml).
constexpr const char* kEstimators =
    "  # Fitted by coolhand-sim fit against 'a_c': rms 0.100 °C on the fitted part, 0.200 °C "
    "held out.\n"
    "  a_fir:\n"
    "    kind: fir\n"
    "    inputs: [t, screen]\n"
    "    weights:\n"
    "      - [0.500000, 0.250000]  # t\n"
    "      - [1.000000, 0.000000]  # screen\n"
    "    tap_period: 8s\n"
    "    offset_c: 0.1000\n";

template <typename T>
T ok(std::variant<T, std::string> r) {
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::holds_alternative<T>(r) ? std::get<T>(std::move(r)) : T{};
}

template <typename T>
std::string error(const std::variant<T, std::string>& r) {
  EXPECT_TRUE(std::holds_alternative<std::string>(r));
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(PortYamlTest, FactsComeFromTheParsers) {
  const auto f = ok(port_facts({kModel, "m.yaml"}, {kPolicy, "p.yaml"}));
  EXPECT_EQ(f.skin_nodes, std::vector<std::string>{"a"});
  ASSERT_EQ(f.firs.size(), 1U);
  EXPECT_EQ(f.firs[0].name, "a_fir");
  EXPECT_EQ(f.firs[0].inputs, (std::vector<std::string>{"t", "screen"}));
  ASSERT_EQ(f.brightness.size(), 1U);
  EXPECT_EQ(f.brightness[0], (std::pair<std::string, std::string>{"screen", "panel"}));
  ASSERT_EQ(f.emas.size(), 1U);
  EXPECT_EQ(f.emas[0].name, "b");
  EXPECT_EQ(f.emas[0].input, "a_fir");
  EXPECT_DOUBLE_EQ(f.emas[0].tau_s, 10.0);
  EXPECT_EQ(f.controllers, std::vector<std::string>{"guard"});
  EXPECT_FALSE(f.tune_block);
  const std::string tuned = std::string(kPolicy) + "tune:\n  params: {}\n";
  EXPECT_TRUE(ok(port_facts({kFlowModel, "m.yaml"}, {tuned, "p.yaml"})).tune_block);
}

TEST(PortYamlTest, LabCopiesOfBlockLayoutKeepEveryOtherByte) {
  const auto c = ok(lab_copies({kModel, "m.yaml"}, {kPolicy, "p.yaml"}));
  std::string model = kModel;
  model.insert(model.find("  # the board"),
               "  - {name: a_tc, node: a, quantum_c: 0.1, noise_c: 0.05, period_ms: 1000}\n");
  EXPECT_EQ(c.model, model);
  std::string policy = kPolicy;
  policy.replace(policy.find("0.5 # kept"), 3, "0.1");
  policy.replace(policy.find("coarse_granularity_c: 2") + 22, 1, "0.1");
  policy.insert(policy.find("  # the thermistor"),
                "  a_tc: {source: {kind: thermal_zone, name: a-tc}}\n");
  EXPECT_EQ(c.policy, policy);
  // Both load as what they are (lab_copies checks too).
  EXPECT_TRUE(std::holds_alternative<ModelSpec>(parse_model(c.model, "lab.yaml")));
  EXPECT_TRUE(config::parse_policy(c.policy, "lab.yaml").errors.empty());
}

TEST(PortYamlTest, LabCopiesOfFlowLayoutAndMissingKeys) {
  // Flow sensors in both; sampling with only one key; keys in another order.
  const std::string policy =
      "sensors: {t: {source: {kind: thermal_zone, name: t-therm}}}\n"
      "controllers: {guard: {kind: step_wise, input: t, devices: [cpu], threshold_c: 45, "
      "hysteresis_c: 2, period: 1s}}\n"
      "devices: {cpu: {max_level: 5}}\n"
      "sampling: {coarse_granularity_c: 3}\n"
      "version: 1\n";
  const auto c = ok(lab_copies({kFlowModel, "m.yaml"}, {policy, "p.yaml"}));
  EXPECT_EQ(c.model,
            "sensors: [{name: a_tc, node: a, quantum_c: 0.1, noise_c: 0.05, period_ms: 1000}, "
            "{name: t, node: a, quantum_c: 1, period_ms: 100}]  # one\n" +
                std::string(kFlowModel).substr(std::string(kFlowModel).find('\n') + 1));
  EXPECT_EQ(c.policy,
            "sensors: {a_tc: {source: {kind: thermal_zone, name: a-tc}}, t: {source: {kind: "
            "thermal_zone, name: t-therm}}}\n"
            "controllers: {guard: {kind: step_wise, input: t, devices: [cpu], threshold_c: 45, "
            "hysteresis_c: 2, period: 1s}}\n"
            "devices: {cpu: {max_level: 5}}\n"
            "sampling: {fine_granularity_c: 0.1, coarse_granularity_c: 0.1}\n"
            "version: 1\n");
  // No sampling at all: added at the end.
  const std::string bare = policy.substr(0, policy.find("sampling")) + "version: 1";
  const std::string lab = ok(lab_copies({kFlowModel, "m.yaml"}, {bare, "p.yaml"})).policy;
  const std::string tail =
      "version: 1\nsampling: {fine_granularity_c: 0.1, coarse_granularity_c: 0.1}\n";
  EXPECT_TRUE(lab.ends_with(tail)) << lab;
}

TEST(PortYamlTest, PasteReplacesTheSensorAndKeepsTheComments) {
  const auto p = ok(paste_estimators({kPolicy, "p.yaml"}, {kEstimators, "e.yaml"},
                                     {{"a_fir", "a_fir"}, {"front_fir", "a_fir"}}));
  const std::string policy = kPolicy;
  const auto from = policy.find("  a_fir:");
  const auto to = policy.find("  # what follows");
  EXPECT_EQ(p.policy, policy.substr(0, from) + kEstimators + policy.substr(to));
  ASSERT_EQ(p.notes.size(), 1U);
  EXPECT_EQ(p.notes[0], "p.yaml has no sensor 'front_fir': estimator a_fir not pasted");
}

// The port chain pastes a refit onto the policy it pasted before: the new
// estimator's comment replaces the earlier paste's, the user's stays.
TEST(PortYamlTest, PastingAgainReplacesTheFittedCommentInsteadOfStacking) {
  std::string refit = kEstimators;
  refit.replace(refit.find("rms 0.100"), 9, "rms 0.050");
  refit.replace(refit.find("0.500000"), 8, "0.600000");
  const auto first =
      ok(paste_estimators({kPolicy, "p.yaml"}, {kEstimators, "e.yaml"}, {{"a_fir", "a_fir"}}));
  const auto again =
      ok(paste_estimators({first.policy, "p.yaml"}, {refit, "e.yaml"}, {{"a_fir", "a_fir"}}));
  const auto once =
      ok(paste_estimators({kPolicy, "p.yaml"}, {refit, "e.yaml"}, {{"a_fir", "a_fir"}}));
  EXPECT_EQ(again.policy, once.policy);
  const std::string policy = kPolicy;
  EXPECT_EQ(again.policy, policy.substr(0, policy.find("  a_fir:")) + refit +
                              policy.substr(policy.find("  # what follows")));
  // A comment of the user's between the two is kept, and stops the search.
  std::string between = first.policy;
  between.insert(between.find("  a_fir:"), "  # checked on the bench\n");
  const auto kept =
      ok(paste_estimators({between, "p.yaml"}, {refit, "e.yaml"}, {{"a_fir", "a_fir"}}));
  EXPECT_EQ(kept.policy.find("# Fitted by coolhand-sim fit against 'a_c': rms 0.100"),
            first.policy.find("# Fitted by"));
  EXPECT_NE(kept.policy.find("  # checked on the bench\n  # Fitted by coolhand-sim fit against "
                             "'a_c': rms 0.050"),
            std::string::npos);
}

TEST(PortYamlTest, PasteIntoAFlowMappingWritesFlowAndRenames) {
  const std::string policy =
      "version: 1\n"
      "sensors: {t: {source: {kind: thermal_zone, name: t-therm}}, screen: {source: {kind: "
      "backlight, name: panel}},\n"
      "  x_fir: {kind: fir, inputs: [t], weights: [[1]], tap_period: 8s}}  # flow\n"
      "devices: {cpu: {max_level: 5}}\n"
      "controllers: {guard: {kind: step_wise, input: x_fir, devices: [cpu], threshold_c: 45, "
      "hysteresis_c: 2, period: 1s}}\n";
  const auto p =
      ok(paste_estimators({policy, "p.yaml"}, {kEstimators, "e.yaml"}, {{"x_fir", "a_fir"}}));
  EXPECT_EQ(p.policy, policy.substr(0, policy.find("{kind: fir")) +
                          "{kind: fir, inputs: [t, screen], weights: [[0.500000, 0.250000], "
                          "[1.000000, 0.000000]], tap_period: 8s, offset_c: 0.1000}}  # flow\n" +
                          policy.substr(policy.find("devices:")));
}

TEST(PortYamlTest, BadInputIsOneLocatedError) {
  // A syntax error, an anchor and a model error, each at file:line:column.
  EXPECT_EQ(error(lab_copies({kModel, "m.yaml"}, {"version: 1\nsensors: [\n", "p.yaml"})),
            "p.yaml:3:1: end of sequence flow not found");
  const std::string anchored =
      std::string(kPolicy).replace(std::string(kPolicy).find("t: {source"), 2, "t: &x");
  EXPECT_EQ(error(port_facts({kModel, "m.yaml"}, {anchored, "p.yaml"})),
            "p.yaml:8:6: anchors (&name) are not supported; write the value out");
  EXPECT_EQ(error(lab_copies({"name: m\nskin: {nodes: [b], limit_c: 45}\n", "m.yaml"},
                             {kPolicy, "p.yaml"})),
            "m.yaml:1:1: missing 'nodes'");
  // The estimator file without the estimator named.
  EXPECT_EQ(
      error(paste_estimators({kPolicy, "p.yaml"}, {kEstimators, "e.yaml"}, {{"a_fir", "b_fir"}})),
      "e.yaml: no estimator 'b_fir' (for the policy's sensor 'a_fir')");
  // A lab copy that would not load: the policy already has a sensor a_tc.
  std::string taken = kPolicy;
  taken.insert(taken.find("  screen:"), "  a_tc: {source: {kind: thermal_zone, name: other}}\n");
  EXPECT_NE(error(lab_copies({kModel, "m.yaml"}, {taken, "p.yaml"})).find("p.yaml (lab copy):"),
            std::string::npos);
}

}  // namespace
}  // namespace coolhand::sim::port_yaml_test
