// Cooling devices (fans, issue 13): a device level that sets a node's
// conductance to ambient. The model's step at each fan level against the
// closed form of one node; energy conservation while the fan switches;
// positioned errors for bad `cooling` entries; a fan with default_demand
// needs no workload column; the bound's fan relaxation is at least every
// fixed schedule's performance and at most its peak skin, also where the
// node starts below a hot ambient (the credit); and every shipped model
// loads and runs its ported policy on a bundled workload.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/bound.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;

// One node of 10 J/K with 0.2 W/K of its own to ambient, heated by `cpu`
// (4 W or 1 W) and cooled by `fan`, which adds 0, 0.3 or 0.8 W/K.
std::string one_node_yaml(const std::string& initial = "25") {
  return "name: fan1\nambient_c: 25\nskin: {nodes: [n], limit_c: 35}\n"
         "nodes: [{name: n, capacity_j_per_k: 10, to_ambient_w_per_k: 0.2, initial_c: " +
         initial +
         "}]\n"
         "devices:\n"
         "  - {name: cpu, power_w: [4, 1], performance: [1, 0.4], heat: [{node: n}]}\n"
         "  - name: fan\n"
         "    power_w: [0, 0.2, 0.6]\n"
         "    performance: [1, 0.9, 0.7]\n"
         "    cooling: [{node: n, to_ambient_w_per_k: [0, 0.3, 0.8]}]\n"
         "    default_demand: 1\n"
         "    weight: 0.5\n";
}

ModelSpec parse_ok(const std::string& yaml) {
  auto r = parse_model(yaml, "fan.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<ModelSpec>(r);
}

std::string error_of(const std::string& yaml) {
  auto r = parse_model(yaml, "bad.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) return e->to_string();
  ADD_FAILURE() << "expected an error for:\n" << yaml;
  return {};
}

// T(t) = T_inf + (T0 - T_inf) exp(-g t / C), T_inf = amb + P / g, for each
// fan level; the level is changed mid-run and the response restarts from
// where it was.
TEST(FanModelTest, EachLevelIsTheExactStepOfItsConductance) {
  ThermalModel m(parse_ok(one_node_yaml()));
  const std::size_t cpu = *m.device_index("cpu");
  const std::size_t fan = *m.device_index("fan");
  m.set_demand(cpu, 1.0);
  m.set_demand(fan, 1.0);
  double t0 = 25.0;
  for (const std::uint32_t level : {0U, 2U, 1U}) {
    m.set_level(fan, level);
    const double g = 0.2 + std::array{0.0, 0.3, 0.8}[level];
    for (int k = 0; k < 300; ++k) m.step();
    const double t_inf = 25.0 + 4.0 / g;
    const double expected = t_inf + (t0 - t_inf) * std::exp(-g * 30.0 / 10.0);
    EXPECT_NEAR(m.node_c(0), expected, 1e-9) << "fan level " << level;
    t0 = m.node_c(0);
  }
  // The fan's power heats nothing (no `heat`): it is still reported.
  EXPECT_DOUBLE_EQ(m.device_power_w(fan), 0.2);
}

TEST(FanModelTest, StepMatricesFollowTheFanLevel) {
  ThermalModel m(parse_ok(one_node_yaml()));
  const auto off = m.step_matrices();
  m.set_level(*m.device_index("fan"), 2);
  const auto full = m.step_matrices();
  EXPECT_NEAR(off.ad[0], std::exp(-0.2 * 0.1 / 10.0), 1e-12);
  EXPECT_NEAR(full.ad[0], std::exp(-1.0 * 0.1 / 10.0), 1e-12);
}

TEST(FanModelTest, EnergyIsConservedWhileTheFanSwitches) {
  ThermalModel m(parse_ok(one_node_yaml()));
  m.enable_energy_accounting(true);
  const double stored0 = m.stored_energy_j();
  m.set_demand(*m.device_index("cpu"), 1.0);
  for (int k = 0; k < 3000; ++k) {
    if (k % 400 == 0) m.set_level(*m.device_index("fan"), static_cast<std::uint32_t>(k / 400 % 3));
    if (k == 1700) m.set_ambient(31.0);
    m.step(k % 7 == 0 ? Millis(250) : Millis(100));
  }
  EXPECT_NEAR(m.energy_in_j(), m.stored_energy_j() - stored0 + m.energy_to_ambient_j(), 1e-6);
}

TEST(FanModelTest, BadCoolingIsRejectedWithItsPosition) {
  const std::string head =
      "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"
      "devices:\n  - name: fan\n    power_w: [0, 1]\n    performance: [1, 0.8]\n";
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient_w_per_k: [0, 0.5, 1]}]\n"),
            "bad.yaml:9:45: to_ambient_w_per_k: need one conductance per level: 3 given, "
            "power_w has 2");
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient_w_per_k: [0, -0.5]}]\n"),
            "bad.yaml:9:49: to_ambient_w_per_k: conductances must be >= 0");
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient_w_per_k: [1, 0.5]}]\n"),
            "bad.yaml:9:49: to_ambient_w_per_k: conductances must not decrease with the level "
            "(deeper levels cool more; level 0 is the quietest)");
  EXPECT_EQ(error_of(head + "    cooling: [{node: b, to_ambient_w_per_k: [0, 1]}]\n"),
            "bad.yaml:9:22: no node named 'b'");
  EXPECT_EQ(error_of(head + "    cooling: []\n"),
            "bad.yaml:9:14: cooling: expected a non-empty list");
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient: [0, 1]}]\n"),
            "bad.yaml:9:25: cooling: unknown key 'to_ambient' (did you mean "
            "'to_ambient_w_per_k'?)");
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient_w_per_k: [0, 1]}, "
                            "{node: a, to_ambient_w_per_k: [0, 2]}]\n"),
            "bad.yaml:9:61: cooling: node 'a' listed twice");
  EXPECT_EQ(error_of(head + "    cooling: [{node: a, to_ambient_w_per_k: [0, 1]}]\n"
                            "    default_demand: 2\n"),
            "bad.yaml:10:21: default_demand: must be in [0,1]");
  // Without `cooling` a device still needs `heat`.
  EXPECT_EQ(error_of(head), "bad.yaml:6:5: device: missing 'heat'");
}

TEST(FanModelTest, FanWithDefaultDemandNeedsNoWorkloadColumn) {
  const ModelSpec spec = parse_ok(one_node_yaml());
  auto t = parse_csv("time_s,cpu\n0,1\n10,1\n", "w.csv");
  auto w = Workload::bind(std::get<CsvTable>(t), spec);
  ASSERT_TRUE(std::holds_alternative<Workload>(w));
  EXPECT_EQ(std::get<Workload>(w).demand()[1], 1.0);
}

// Every fixed schedule (cpu level, fan level) of a 5-minute run: the
// runner's metric and peak, by stepping the model itself. The bound must be
// at least the performance of every schedule that holds the limit, and its
// lowest peak at most every schedule's peak: at 25 °C (the node never below
// ambient), in a 40 °C room with the node starting at 25 °C (where more
// airflow warms it and the credit is needed), and in a 60 s hot room then a
// 20 °C one, where the peak comes while the node is still below the hot air
// (without the credit the relaxed peak is above the real lowest peak).
struct AmbientStep {
  int at_s;
  double ambient_c;
};

void check_relaxation(const std::string& initial_c, const std::vector<AmbientStep>& ambient,
                      double limit_c, bool credit_expected) {
  const ModelSpec spec = parse_ok(one_node_yaml(initial_c));
  std::string csv = "time_s,cpu,ambient_c\n";
  for (const auto& a : ambient) csv += fmt::format("{},0.2,{}\n", a.at_s, a.ambient_c);
  csv += fmt::format("300,0.2,{}\n", ambient.back().ambient_c);
  auto t = parse_csv(csv, "w.csv");
  auto bound_w = Workload::bind(std::get<CsvTable>(t), spec);
  const Workload w = std::get<Workload>(bound_w);
  BoundOptions o;
  o.limit_c = limit_c;
  auto r = compute_bound(spec, w, o);
  ASSERT_TRUE(std::holds_alternative<BoundResult>(r)) << std::get<std::string>(r);
  const auto& b = std::get<BoundResult>(r);
  ASSERT_TRUE(b.fan_relaxation.has_value());
  EXPECT_EQ(b.fan_relaxation->credited_steps > 0, credit_expected);
  int holding = 0;
  for (std::uint32_t cpu = 0; cpu < 2; ++cpu)
    for (std::uint32_t fan = 0; fan < 3; ++fan) {
      ThermalModel m(spec);
      m.set_inputs(std::array{cpu, fan}, std::array{0.2, 1.0});
      double peak = -1e9;
      std::size_t next = 0;
      for (int k = 0; k < 3000; ++k) {
        while (next < ambient.size() && ambient[next].at_s * 10 <= k)
          m.set_ambient(ambient[next++].ambient_c);
        peak = std::max(peak, m.max_skin_c());
        m.step();
      }
      const double perf =
          (0.2 * spec.devices[0].performance[cpu] + 0.5 * spec.devices[1].performance[fan]) /
          (0.2 + 0.5);
      EXPECT_LE(b.lowest_peak_skin_c, peak + 1e-9) << "cpu " << cpu << " fan " << fan;
      if (peak <= o.limit_c) {
        ++holding;
        EXPECT_LE(perf, b.performance_bound + 1e-9) << "cpu " << cpu << " fan " << fan;
      }
    }
  EXPECT_GT(holding, 0);
}

TEST(FanBoundTest, RelaxationBoundsEveryFixedScheduleAboveAmbient) {
  check_relaxation("25", {{0, 25.0}}, 28.0, false);
}

TEST(FanBoundTest, RelaxationBoundsEveryFixedScheduleBelowAHotAmbient) {
  check_relaxation("25", {{0, 40.0}}, 42.0, true);
}

TEST(FanBoundTest, RelaxationBoundsTheLowestPeakOfAHotRoomLeftEarly) {
  check_relaxation("25", {{0, 40.0}, {60, 20.0}}, 39.0, true);
}

// The shipped models load, and their ported policies run on the bundled
// gaming workload; the fan of gaming-7 is used.
TEST(ShippedModelsTest, EachLoadsAndRunsItsPortedPolicy) {
  for (const char* name : {"tablet-10", "gaming-7", "umpc-8-intel"}) {
    SCOPED_TRACE(name);
    auto spec = load_model_file(kData + "/models/" + name + ".yaml");
    ASSERT_TRUE(std::holds_alternative<ModelSpec>(spec))
        << std::get<config::ConfigError>(spec).to_string();
    const auto& m = std::get<ModelSpec>(spec);
    auto table = load_csv_file(kData + "/workloads/gaming.csv");
    auto w = Workload::bind(std::get<CsvTable>(table), m);
    ASSERT_TRUE(std::holds_alternative<Workload>(w))
        << std::get<config::ConfigError>(w).to_string();
    auto policy = config::load_policy_file(kData + "/policies/" + name + ".yaml");
    ASSERT_TRUE(policy.errors.empty()) << policy.errors.front().to_string();
    auto ctl = make_policy_controller(m, *policy.document, name);
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<Controller>>(ctl))
        << std::get<std::string>(ctl);
    ThermalModel model(m);
    const auto r = run(model, std::get<Workload>(w), *std::get<std::unique_ptr<Controller>>(ctl),
                       RunOptions{false});
    EXPECT_EQ(r.metrics.steps, 18000U);
    EXPECT_LE(r.metrics.max_skin_c, m.skin_limit_c + 0.5);
    if (std::string(name) == "gaming-7") {
      EXPECT_LT(r.metrics.performance_by_device.at("fan"), 1.0);  // the fan ran
    }
  }
}

}  // namespace
}  // namespace coolhand::sim
