// Model physics against closed-form solutions, sensor behaviour, and model
// YAML errors naming file and line.
#include "coolhand/sim/model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <variant>

namespace coolhand::sim::model_test {
namespace {

ModelSpec parse_ok(const std::string& yaml) {
  auto r = parse_model(yaml, "test.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<ModelSpec>(r);
}

config::ConfigError parse_err(const std::string& yaml) {
  auto r = parse_model(yaml, "bad.yaml");
  EXPECT_TRUE(std::holds_alternative<config::ConfigError>(r)) << "expected a parse error";
  if (auto* e = std::get_if<config::ConfigError>(&r)) return *e;
  return {};
}

// Node "die" (C1 J/K) heated by P, linked by G W/K to "case" (C2), which
// loses heat to ambient through g W/K.
constexpr double kC1 = 4.0, kC2 = 30.0, kG = 0.8, kGa = 0.25, kP = 3.0, kTa = 25.0;

std::string two_node_yaml(int step_ms) {
  return "name: two\n"
         "time_step_ms: " +
         std::to_string(step_ms) +
         "\n"
         "ambient_c: 25\n"
         "skin: {nodes: [case], limit_c: 45}\n"
         "nodes:\n"
         "  - {name: die, capacity_j_per_k: 4.0}\n"
         "  - {name: case, capacity_j_per_k: 30.0, to_ambient_w_per_k: 0.25}\n"
         "links:\n"
         "  - {a: die, b: case, w_per_k: 0.8}\n"
         "devices:\n"
         "  - name: heater\n"
         "    power_w: [3.0, 0.0]\n"
         "    performance: [1.0, 0.0]\n"
         "    heat: [{node: die}]\n"
         "sensors:\n"
         "  - {name: die_t, node: die, period_ms: 100}\n";
}

// Closed form of the 2-node step response from ambient: x(t) = x_ss +
// sum_k c_k v_k exp(l_k t), with the eigenpairs of the 2x2 system matrix
// from the quadratic formula.
std::pair<double, double> analytic(double t) {
  const double a11 = -kG / kC1, a12 = kG / kC1, a21 = kG / kC2, a22 = -(kG + kGa) / kC2;
  const double tr = a11 + a22, det = a11 * a22 - a12 * a21;
  const double disc = std::sqrt(tr * tr / 4 - det);
  const double l1 = tr / 2 + disc, l2 = tr / 2 - disc;
  // Eigenvectors (a12, l - a11).
  const double v1a = a12, v1b = l1 - a11, v2a = a12, v2b = l2 - a11;
  const double ss2 = kTa + kP / kGa, ss1 = ss2 + kP / kG;
  // x(0) = ambient: c1 v1 + c2 v2 = x0 - x_ss.
  const double r1 = kTa - ss1, r2 = kTa - ss2;
  const double dt = v1a * v2b - v2a * v1b;
  const double c1 = (r1 * v2b - v2a * r2) / dt, c2 = (v1a * r2 - r1 * v1b) / dt;
  return {ss1 + c1 * v1a * std::exp(l1 * t) + c2 * v2a * std::exp(l2 * t),
          ss2 + c1 * v1b * std::exp(l1 * t) + c2 * v2b * std::exp(l2 * t)};
}

TEST(ModelTest, TwoNodeStepResponseMatchesAnalyticSolution) {
  ThermalModel m(parse_ok(two_node_yaml(100)));
  m.set_demand(0, 1.0);
  for (int k = 1; k <= 20000; ++k) {
    m.step();
    if (k % 1000 == 0) {
      const auto [die, cas] = analytic(k * 0.1);
      ASSERT_NEAR(m.node_c(0), die, 1e-9) << "t=" << k * 0.1;
      ASSERT_NEAR(m.node_c(1), cas, 1e-9) << "t=" << k * 0.1;
    }
  }
}

TEST(ModelTest, TwoNodeSteadyState) {
  ThermalModel m(parse_ok(two_node_yaml(1000)));
  m.set_demand(0, 1.0);
  for (int k = 0; k < 20000; ++k) m.step();
  EXPECT_NEAR(m.node_c(1), kTa + kP / kGa, 1e-6);
  EXPECT_NEAR(m.node_c(0), kTa + kP / kGa + kP / kG, 1e-6);
}

TEST(ModelTest, SingleNodeTimeConstant) {
  auto spec = parse_ok(
      "name: one\nskin: {nodes: [n], limit_c: 45}\nambient_c: 20\n"
      "nodes: [{name: n, capacity_j_per_k: 50, to_ambient_w_per_k: 0.5}]\n"
      "devices: [{name: h, power_w: [2.0, 0.0], performance: [1, 0], heat: [{node: n}]}]\n");
  ThermalModel m(spec);
  m.set_demand(0, 1.0);
  const int tau_steps = static_cast<int>(50 / 0.5 / 0.1);  // C/g = 100 s at 100 ms
  for (int k = 0; k < tau_steps; ++k) m.step();
  // After one time constant the rise is 1 - 1/e of the final 4 K.
  EXPECT_NEAR(m.node_c(0) - 20.0, 4.0 * (1.0 - std::exp(-1.0)), 1e-9);
}

TEST(ModelTest, VariableStepAgreesWithBaseStep) {
  ThermalModel a(parse_ok(two_node_yaml(100)));
  ThermalModel b(parse_ok(two_node_yaml(100)));
  a.set_demand(0, 1.0);
  b.set_demand(0, 1.0);
  for (int k = 0; k < 70; ++k) a.step();
  b.step(Millis(7000));
  EXPECT_NEAR(a.node_c(0), b.node_c(0), 1e-9);
  EXPECT_NEAR(a.node_c(1), b.node_c(1), 1e-9);
  EXPECT_EQ(a.now(), b.now());
}

TEST(ModelTest, EnergyIsConserved) {
  ThermalModel m(parse_ok(two_node_yaml(100)));
  m.enable_energy_accounting(true);
  const double stored0 = m.stored_energy_j();
  for (int k = 0; k < 30000; ++k) {
    m.set_demand(0, (k / 500) % 2 == 0 ? 1.0 : 0.3);
    m.set_ambient(25.0 + 5.0 * std::sin(k / 3000.0));
    m.step();
  }
  const double in = m.energy_in_j();
  const double stored = m.stored_energy_j() - stored0;
  const double out = m.energy_to_ambient_j();
  EXPECT_GT(in, 1000.0);
  EXPECT_GT(out, 100.0);
  EXPECT_NEAR(in, stored + out, 1e-6 * in);
}

// A chain of n nodes, heater (P W) at the first, ambient (Ta, g W/K) at the
// last, G W/K between neighbours. Steady state: the last node at Ta + P/g,
// each node before it P/G warmer. The step's product is laid out by node
// count (pairs of rows, an odd count padded, a general product past 16
// nodes), so odd, even and large counts are each checked; the unheated
// nodes exercise the skipping of zero inputs.
TEST(ModelTest, ChainSteadyStateForEveryNodeCountLayout) {
  constexpr double kChainP = 2.0, kChainG = 4.0, kChainGa = 0.5;
  for (int n : {1, 2, 3, 7, 10, 16, 17, 21}) {
    std::string yaml = "name: chain\nambient_c: 25\nskin: {nodes: [n0], limit_c: 45}\nnodes:\n";
    for (int i = 0; i < n; ++i) {
      yaml += "  - {name: n" + std::to_string(i) + ", capacity_j_per_k: 0.5" +
              (i == n - 1 ? ", to_ambient_w_per_k: 0.5" : "") + "}\n";
    }
    if (n > 1) yaml += "links:\n";
    for (int i = 0; i + 1 < n; ++i) {
      yaml +=
          "  - {a: n" + std::to_string(i) + ", b: n" + std::to_string(i + 1) + ", w_per_k: 4.0}\n";
    }
    yaml +=
        "devices:\n  - {name: h, power_w: [2.0, 0.0], performance: [1, 0], heat: [{node: n0}]}\n";
    ThermalModel m(parse_ok(yaml));
    m.set_demand(0, 1.0);
    for (int k = 0; k < 40000; ++k) m.step();
    for (int i = 0; i < n; ++i) {
      const double want = kTa + kChainP / kChainGa + kChainP / kChainG * (n - 1 - i);
      EXPECT_NEAR(m.node_c(static_cast<std::size_t>(i)), want, 1e-6) << n << " nodes, node " << i;
    }
  }
}

TEST(ModelTest, SensorQuantisesOffsetsAndHoldsBetweenSamples) {
  auto spec = parse_ok(two_node_yaml(100));
  spec.sensors[0].quantum_c = 1.0;
  spec.sensors[0].offset_c = 0.4;
  spec.sensors[0].period = Millis(1000);
  ThermalModel m(spec);
  EXPECT_EQ(m.sensor(0).mc(), 25000);  // 25.4 rounds to 25
  m.set_demand(0, 1.0);
  int samples = 0;
  for (int k = 0; k < 100; ++k) {
    m.step();
    if (m.sensor_sampled(0)) {
      ++samples;
      EXPECT_EQ(m.sensor(0).mc() % 1000, 0);
      EXPECT_NEAR(m.sensor(0).celsius(), m.node_c(0) + 0.4, 0.5 + 1e-9);
    }
  }
  EXPECT_EQ(samples, 10);
}

TEST(ModelTest, SensorLagFollowsFirstOrderResponse) {
  auto spec = parse_ok(two_node_yaml(100));
  spec.nodes[0].initial_c = 35.0;  // die starts hot; the sensor starts reading it
  spec.sensors[0].lag_s = 5.0;
  spec.nodes[0].capacity_j_per_k = 1e9;  // die temperature effectively constant
  ThermalModel m(spec);
  // Sensor lag state starts at the node: no transient without a change.
  for (int k = 0; k < 50; ++k) m.step();
  EXPECT_NEAR(m.sensor(0).celsius(), 35.0, 0.01);
}

// A runaway model (a heater of 1e12 W) must not make its readings
// undefined: past the policy language's +-1000 °C they saturate (the
// conversion to int32 m°C gave INT32_MIN before).
TEST(ModelTest, ReadingsOfARunawayModelSaturateAtTheRange) {
  auto spec = parse_ok(two_node_yaml(100));
  spec.devices[0].power_w = {1e12, 0.0};
  ThermalModel m(spec);
  m.set_demand(0, 1.0);
  for (int k = 0; k < 10; ++k) m.step();
  ASSERT_GT(m.node_c(0), 1000.0);
  EXPECT_EQ(m.sensor(0).mc(), 1000000);
  spec.devices[0].power_w = {-1e12, 0.0};  // not a model parse_model gives: cooling past -1000
  ThermalModel cold(spec);
  cold.set_demand(0, 1.0);
  for (int k = 0; k < 10; ++k) cold.step();
  ASSERT_LT(cold.node_c(0), -1000.0);
  EXPECT_EQ(cold.sensor(0).mc(), -1000000);
}

TEST(ModelTest, NoiseIsSeededAndReproducible) {
  auto spec = parse_ok(two_node_yaml(100));
  spec.sensors[0].noise_c = 0.5;
  ThermalModel a(spec, 7), b(spec, 7), c(spec, 8);
  bool differs = false;
  double sum = 0, sumsq = 0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    a.step();
    b.step();
    c.step();
    ASSERT_EQ(a.sensor(0), b.sensor(0));
    differs = differs || a.sensor(0) != c.sensor(0);
    const double e = a.sensor(0).celsius() - a.node_c(0);
    sum += e;
    sumsq += e * e;
  }
  EXPECT_TRUE(differs);
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(sumsq / n), 0.5, 0.02);
}

TEST(ModelTest, LevelsReducePower) {
  ThermalModel m(parse_ok(two_node_yaml(100)));
  m.set_demand(0, 0.5);
  EXPECT_DOUBLE_EQ(m.device_power_w(0), 1.5);
  m.set_level(0, 1);
  EXPECT_DOUBLE_EQ(m.device_power_w(0), 0.0);
  m.set_level(0, 9);  // clamped to the deepest level
  EXPECT_EQ(m.level(0), 1u);
}

// set_inputs skips recomputing powers when no input changed; driven with
// repeats, demand-only and level-only changes and out-of-range values, it
// must track a model fed one input at a time (which always recomputes), to
// the bit. The span views must agree with the per-index accessors.
TEST(ModelTest, SetInputsMatchesSettingEachInput) {
  auto spec = parse_ok(two_node_yaml(100));
  spec.devices.push_back(spec.devices[0]);
  spec.devices[1].name = "heater2";
  spec.devices[1].power_w = {2.0, 1.0, 0.5};
  spec.devices[1].performance = {1.0, 0.5, 0.2};
  spec.sensors[0].noise_c = 0.2;
  ThermalModel bulk(spec, 3), each(spec, 3);
  struct Inputs {
    std::uint32_t level0, level1;
    double demand0, demand1;
  };
  const Inputs script[] = {{0, 0, 0.0, 0.0}, {0, 0, 0.0, 0.0},  {0, 0, 0.7, 0.0}, {0, 0, 0.7, 0.0},
                           {0, 2, 0.7, 0.0}, {0, 2, 0.7, 0.4},  {1, 2, 0.7, 0.4}, {1, 7, 1.5, 0.4},
                           {1, 7, 1.5, 0.4}, {0, 0, -1.0, 1.0}, {0, 1, 0.3, 1.0}};
  for (const Inputs& in : script) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t levels[] = {in.level0, in.level1};
      const double demand[] = {in.demand0, in.demand1};
      bulk.set_inputs(levels, demand);
      each.set_level(0, in.level0);
      each.set_level(1, in.level1);
      each.set_demand(0, in.demand0);
      each.set_demand(1, in.demand1);
      for (std::size_t d = 0; d < 2; ++d) {
        ASSERT_EQ(bulk.device_power_w(d), each.device_power_w(d));
        ASSERT_EQ(bulk.device_powers_w()[d], bulk.device_power_w(d));
        ASSERT_EQ(bulk.level(d), each.level(d));
      }
      bulk.step();
      each.step();
      ASSERT_EQ(bulk.node_c(0), each.node_c(0));
      ASSERT_EQ(bulk.node_c(1), each.node_c(1));
      ASSERT_EQ(bulk.sensor_outputs().size(), 1u);
      ASSERT_EQ(bulk.sensor_outputs()[0].reading, bulk.sensor(0));
      ASSERT_EQ(bulk.sensor_outputs()[0].sampled, bulk.sensor_sampled(0));
      ASSERT_EQ(bulk.sensor(0), each.sensor(0));
    }
  }
  EXPECT_GT(bulk.node_c(0), 25.0);
}

TEST(ModelErrorTest, SyntaxErrorNamesFileAndLine) {
  const auto e = parse_err("name: x\nnodes: [\n  {name: a, capacity_j_per_k: 1}\n");
  EXPECT_EQ(e.file, "bad.yaml");
  EXPECT_GT(e.line, 0);
  EXPECT_NE(e.to_string().find("bad.yaml:"), std::string::npos);
}

TEST(ModelErrorTest, UnknownKeyNamesLine) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - name: a\n    capacity_j_per_k: 1\n"
      "    colour: red\n");
  EXPECT_EQ(e.line, 6);
  EXPECT_NE(e.message.find("colour"), std::string::npos);
}

TEST(ModelErrorTest, BadNumberNamesLine) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: -3}\n");
  EXPECT_EQ(e.line, 4);
  EXPECT_NE(e.message.find("capacity_j_per_k"), std::string::npos);
}

TEST(ModelErrorTest, UnknownNodeReferenceNamesLine) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"
      "sensors:\n  - {name: s, node: nowhere}\n");
  EXPECT_EQ(e.line, 6);
  EXPECT_NE(e.message.find("nowhere"), std::string::npos);
}

TEST(ModelErrorTest, HeatSharesMustSumToOne) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"
      "devices:\n  - name: d\n    power_w: [1, 0]\n    performance: [1, 0]\n"
      "    heat: [{node: a, share: 0.5}]\n");
  EXPECT_EQ(e.line, 9);
}

TEST(ModelErrorTest, PerformanceLengthMustMatchLevels) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"
      "devices:\n  - name: d\n    power_w: [1, 0.5, 0]\n    performance: [1, 0]\n"
      "    heat: [{node: a}]\n");
  EXPECT_EQ(e.line, 8);
}

TEST(ModelErrorTest, MissingFileIsAnError) {
  auto r = load_model_file("/nonexistent/model.yaml");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).file, "/nonexistent/model.yaml");
}

TEST(ModelErrorTest, KernelTripsMustAscend) {
  const auto e = parse_err(
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"
      "sensors: [{name: s, node: a}]\n"
      "kernel_zones:\n  - name: z\n    sensor: s\n    trips:\n"
      "      - {name: hi, type: passive, temp_c: 50}\n"
      "      - {name: lo, type: passive, temp_c: 40}\n");
  EXPECT_EQ(e.line, 11);
}

}  // namespace
}  // namespace coolhand::sim::model_test
