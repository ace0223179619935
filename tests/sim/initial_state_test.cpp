// A workload's "# initial:" line: the state every node starts in (issue 12,
// hot start). Values against the closed form of a one-node model, the model
// built from Workload::start() starting there and staying there, and the
// exact errors.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim::initial_state_test {
namespace {

// One node, 0.5 W/K to ambient; the cpu dissipates 0.2 W idle plus 1 W at
// full demand at level 0.
ModelSpec one_node(bool to_ambient = true) {
  auto r = parse_model(std::string("name: m\nskin: {nodes: [a], limit_c: 45}\n") +
                           "nodes: [{name: a, capacity_j_per_k: 10, to_ambient_w_per_k: " +
                           (to_ambient ? "0.5" : "0") +
                           "}]\n"
                           "devices:\n"
                           "  - {name: cpu, idle_w: 0.2, power_w: [1, 0.5], performance: [1, "
                           "0.5], heat: [{node: a}]}\n",
                       "m.yaml");
  return std::get<ModelSpec>(r);
}

std::variant<Workload, config::ConfigError> bind(const std::string& text, const ModelSpec& model) {
  auto t = parse_csv(text, "w.csv");
  if (auto* e = std::get_if<config::ConfigError>(&t)) return *e;
  return Workload::bind(std::get<CsvTable>(std::move(t)), model);
}

config::ConfigError bind_err(const std::string& text, const ModelSpec& model) {
  auto r = bind(text, model);
  EXPECT_TRUE(std::holds_alternative<config::ConfigError>(r));
  if (auto* e = std::get_if<config::ConfigError>(&r)) return *e;
  return {};
}

TEST(WorkloadInitialTest, WithoutTheLineTheModelIsUnchanged) {
  const auto w =
      std::get<Workload>(bind("time_s,cpu,ambient_c\n0,0.6,30\n10,0.6,30\n", one_node()));
  const ModelSpec s = w.start(one_node());
  EXPECT_FALSE(s.nodes[0].initial_c.has_value());
  EXPECT_DOUBLE_EQ(ThermalModel(s).node_c(0), 25.0);  // the model's ambient_c
}

TEST(WorkloadInitialTest, ATemperatureSetsEveryNode) {
  const auto w = std::get<Workload>(
      bind("# initial: 41.5\ntime_s,cpu,ambient_c\n0,0.6,30\n10,0.6,30\n", one_node()));
  const ThermalModel m(w.start(one_node()));
  EXPECT_DOUBLE_EQ(m.node_c(0), 41.5);
}

TEST(WorkloadInitialTest, SteadyIsTheFirstRowsFixedPointAndStays) {
  // P = 0.2 + 0.6 * 1 = 0.8 W at level 0; T = 30 + 0.8 / 0.5 = 31.6 °C.
  auto w = std::get<Workload>(
      bind("# initial: steady\ntime_s,cpu,ambient_c\n0,0.6,30\n100,0,20\n", one_node()));
  ThermalModel m(w.start(one_node()));
  EXPECT_NEAR(m.node_c(0), 31.6, 1e-9);
  ASSERT_TRUE(w.seek(m.now()));
  m.set_ambient(*w.ambient_c());
  m.set_demand(0, w.demand()[0]);
  for (int k = 0; k < 500; ++k) m.step();  // 50 s at the first row's inputs
  EXPECT_NEAR(m.node_c(0), 31.6, 1e-9);
}

TEST(WorkloadInitialTest, SteadyWithoutAmbientColumnUsesTheModels) {
  const auto w =
      std::get<Workload>(bind("# initial: steady\ntime_s,cpu\n0,0.6\n100,0\n", one_node()));
  EXPECT_NEAR(ThermalModel(w.start(one_node())).node_c(0), 25.0 + 0.8 / 0.5, 1e-9);
}

TEST(WorkloadInitialTest, NeitherSteadyNorANumberIsNamed) {
  const auto e = bind_err("# initial: warm\ntime_s,cpu\n0,0\n1,0\n", one_node());
  EXPECT_EQ(e.file, "w.csv");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message, "initial: expected 'steady' or a temperature in °C, got 'warm'");
}

TEST(WorkloadInitialTest, OutOfRangeTemperatureIsAnError) {
  const auto e = bind_err("time_s,cpu\n# initial: 200\n0,0\n1,0\n", one_node());
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "initial: 200 °C is outside [-40, 125] °C");
}

TEST(WorkloadInitialTest, SecondLineIsAnError) {
  const auto e = bind_err("# initial: 30\n# initial: steady\ntime_s,cpu\n0,0\n1,0\n", one_node());
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.message, "a second '# initial:' line (the first is line 1)");
}

TEST(WorkloadInitialTest, SteadyNeedsAPathToAmbient) {
  const auto e =
      bind_err("# initial: steady\ntime_s,cpu\n0,0.5\n1,0\n", one_node(/*to_ambient=*/false));
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.message,
            "initial: steady: model 'm' has no steady state (a node without a path to ambient)");
}

}  // namespace
}  // namespace coolhand::sim::initial_state_test
