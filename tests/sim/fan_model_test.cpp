// Cooling devices (fans, issue 13): a device level that sets a node's
// conductance to ambient. The model's step at each fan level against the
// closed form of one node; energy conservation while the fan switches;
// positioned errors for bad `cooling` entries; a fan with default_demand
// needs no workload column; the bound's fan relaxation is at least every
// fixed schedule's performance and at most its peak skin, also where the
// node starts below a hot ambient (the credit); and every shipped model
// loads and runs its ported policy on a bundled workload. Randomly switching
// (cpu, fan) schedules are below the relaxation too; with the fan held to a
// schedule (`bound --fan-at`) the bound is at least every schedule that
// follows it and at most the relaxation.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/bound.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim::fan_model_test {
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

// A run of 300 s whose cpu level is drawn at random every 1-20 s unless
// `cpu_level` is given, and its fan level too unless `held` gives it for
// the step's second; while the node is at or above `guard_c` the cpu is at
// its low level and the fan (unless held) at full, so that many random runs
// hold a binding limit. Its peak skin
// at the start of each step and the runner's performance metric (cpu
// demanded 0.2 with weight 1, the fan 1 with weight 0.5).
struct RandomRun {
  double peak_c = -1e9;
  double performance = 0;
};
RandomRun random_run(const ModelSpec& spec, const std::vector<AmbientStep>& ambient,
                     std::mt19937& rng,
                     const std::function<std::optional<std::uint32_t>(int)>& held,
                     std::optional<std::uint32_t> cpu_level = std::nullopt, double guard_c = 1e9) {
  ThermalModel m(spec);
  RandomRun out;
  std::size_t next = 0;
  std::uint32_t cpu = 0;
  std::uint32_t fan = 0;
  int switch_at = 0;
  double delivered = 0;
  double demanded = 0;
  for (int k = 0; k < 3000; ++k) {
    while (next < ambient.size() && ambient[next].at_s * 10 <= k)
      m.set_ambient(ambient[next++].ambient_c);
    if (k == switch_at) {
      cpu = static_cast<std::uint32_t>(std::uniform_int_distribution<int>(0, 1)(rng));
      fan = static_cast<std::uint32_t>(std::uniform_int_distribution<int>(0, 2)(rng));
      switch_at += 10 * std::uniform_int_distribution<int>(1, 20)(rng);
    }
    const bool hot = m.node_c(0) >= guard_c;
    const std::uint32_t cpu_now = cpu_level ? *cpu_level : hot ? 1 : cpu;
    const std::uint32_t fan_now = held(k / 10).value_or(hot ? 2 : fan);
    m.set_inputs(std::array{cpu_now, fan_now}, std::array{0.2, 1.0});
    out.peak_c = std::max(out.peak_c, m.max_skin_c());
    delivered +=
        0.2 * spec.devices[0].performance[cpu_now] + 0.5 * spec.devices[1].performance[fan_now];
    demanded += 0.2 + 0.5;
    m.step();
  }
  out.performance = delivered / demanded;
  return out;
}

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
  // Schedules that switch both devices at random every 1-20 s, every other
  // one guarded (random_run) so that some hold a binding limit.
  std::mt19937 rng(7);
  int random_holding = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double guard = limit_c - std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    const auto run = random_run(
        spec, ambient, rng, [](int) { return std::optional<std::uint32_t>(); }, std::nullopt,
        trial % 2 == 0 ? guard : 1e9);
    EXPECT_LE(b.lowest_peak_skin_c, run.peak_c + 1e-9) << "trial " << trial;
    if (run.peak_c <= o.limit_c) {
      ++random_holding;
      EXPECT_LE(run.performance, b.performance_bound + 1e-9) << "trial " << trial;
    }
  }
  EXPECT_GT(random_holding, 0);
}

TEST(FanBoundTest, RelaxationBoundsEveryFixedScheduleAboveAmbient) {
  check_relaxation("25", {{0, 25.0}}, 28.0, false);
}

TEST(FanBoundTest, RelaxationBoundsEveryFixedScheduleBelowAHotAmbient) {
  check_relaxation("25", {{0, 40.0}}, 42.0, true);
}

// Where the limit binds even with the fan at full (1 W at most against the
// 25.8 °C the node reaches at full cpu, full fan), so the relaxation is
// below 1.
TEST(FanBoundTest, RelaxationBoundsEveryScheduleWhereTheLimitBinds) {
  check_relaxation("25", {{0, 25.0}}, 25.7, false);
}

TEST(FanBoundTest, RelaxationBoundsTheLowestPeakOfAHotRoomLeftEarly) {
  check_relaxation("25", {{0, 40.0}, {60, 20.0}}, 39.0, true);
}

Workload workload_of(const ModelSpec& spec, const std::vector<AmbientStep>& ambient) {
  std::string csv = "time_s,cpu,ambient_c\n";
  for (const auto& a : ambient) csv += fmt::format("{},0.2,{}\n", a.at_s, a.ambient_c);
  csv += fmt::format("300,0.2,{}\n", ambient.back().ambient_c);
  auto t = parse_csv(csv, "w.csv");
  return std::get<Workload>(Workload::bind(std::get<CsvTable>(t), spec));
}

// The fan held off for 60 s, at level 2 to 180 s, then at level 1: the bound
// (1 s decision steps) is at least every fixed and random cpu schedule that
// follows that fan schedule and holds the limit, at most the relaxation
// less the schedule's noise (what the relaxation does not charge; the node
// is never below ambient, so the fan at full cools at least as much), in a
// 25 °C room; in a 40 °C room from 25 °C, at most the relaxation.
void check_held(const std::vector<AmbientStep>& ambient, double limit_c, bool above_ambient) {
  const ModelSpec spec = parse_ok(one_node_yaml());
  const Workload w = workload_of(spec, ambient);
  BoundOptions o;
  o.limit_c = limit_c;
  o.decision_step = Millis(1000);
  auto relaxed = compute_bound(spec, w, o);
  ASSERT_TRUE(std::holds_alternative<BoundResult>(relaxed)) << std::get<std::string>(relaxed);
  o.fan_schedule = {{Millis(0), 0}, {Millis(60000), 2}, {Millis(180000), 1}};
  const auto level_at = [](int second) {
    return std::optional<std::uint32_t>(second < 60 ? 0 : second < 180 ? 2 : 1);
  };
  auto r = compute_bound(spec, w, o);
  ASSERT_TRUE(std::holds_alternative<BoundResult>(r)) << std::get<std::string>(r);
  const auto& b = std::get<BoundResult>(r);
  ASSERT_TRUE(b.feasible);
  EXPECT_TRUE(b.fan_held);
  EXPECT_FALSE(b.fan_relaxation.has_value());
  const double noise = 0.5 * (0.3 * 120 + 0.1 * 120) / 300 / 0.7;
  const double relaxation = std::get<BoundResult>(relaxed).performance_bound;
  EXPECT_LE(b.performance_bound, relaxation - (above_ambient ? noise : 0.0) + 1e-6);
  // The tight fan bound (no schedule held) bounds these runs too.
  BoundOptions tight_options = o;
  tight_options.fan_schedule.clear();
  tight_options.fan_tight = BoundOptions::FanTight{0.5, 1};
  tight_options.decision_step = Millis(5000);  // few tightening LPs: cheap under ASan
  auto tight_r = compute_bound(spec, w, tight_options);
  ASSERT_TRUE(std::holds_alternative<BoundResult>(tight_r)) << std::get<std::string>(tight_r);
  const double tight = std::get<BoundResult>(tight_r).performance_bound;
  std::mt19937 rng(11);
  int holding = 0;
  for (int trial = 0; trial < 302; ++trial) {
    // Trials 0 and 1: the cpu held at level 0 or 1 (a fixed schedule).
    const double guard = limit_c - std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    const auto run =
        random_run(spec, ambient, rng, level_at,
                   trial < 2 ? std::optional(static_cast<std::uint32_t>(trial)) : std::nullopt,
                   trial % 2 == 0 ? guard : 1e9);
    if (run.peak_c <= limit_c) {
      ++holding;
      EXPECT_LE(run.performance, b.performance_bound + 1e-9) << "trial " << trial;
      EXPECT_LE(run.performance, tight + 1e-9) << "trial " << trial;
    }
  }
  EXPECT_GT(holding, 0);
}

TEST(FanBoundTest, HeldFanScheduleBoundsEveryScheduleFollowingIt) {
  check_held({{0, 25.0}}, 26.5, true);
  check_held({{0, 40.0}}, 41.0, false);
}

// The tight fan bound (`--fan-bound tight`, bound_fan_tight.cpp) at the
// floors V given: at least every fixed and random (cpu, fan) schedule that
// holds the limit (100 random ones, every other guarded as above), at most
// the relaxation. Returns the figure at the last floor.
double check_tight(const std::vector<AmbientStep>& ambient, double limit_c,
                   const std::vector<double>& floors) {
  const ModelSpec spec = parse_ok(one_node_yaml());
  const Workload w = workload_of(spec, ambient);
  BoundOptions o;
  o.limit_c = limit_c;
  o.decision_step = Millis(5000);  // 59 tightening LPs: cheap under ASan
  auto relaxed = compute_bound(spec, w, o);
  EXPECT_TRUE(std::holds_alternative<BoundResult>(relaxed)) << std::get<std::string>(relaxed);
  const double relaxation = std::get<BoundResult>(relaxed).performance_bound;
  std::vector<RandomRun> runs;
  std::mt19937 rng(13);
  const auto free_fan = [](int) { return std::optional<std::uint32_t>(); };
  for (std::uint32_t cpu = 0; cpu < 2; ++cpu)
    for (std::uint32_t fan = 0; fan < 3; ++fan)
      runs.push_back(random_run(
          spec, ambient, rng, [fan](int) { return std::optional(fan); }, cpu));
  for (int trial = 0; trial < 100; ++trial) {
    const double guard = limit_c - std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    runs.push_back(
        random_run(spec, ambient, rng, free_fan, std::nullopt, trial % 2 == 0 ? guard : 1e9));
  }
  // Near the optimum: the cpu at full below a guard just under the limit,
  // low above it, the fan held at each level; those that hold the limit
  // with their node's trajectory, to check against the boxes.
  std::vector<std::pair<double, std::vector<double>>> near;
  for (std::uint32_t fan = 0; fan < 3; ++fan)
    for (const double margin : {0.005, 0.02, 0.1}) {
      ThermalModel m(spec);
      RandomRun run;
      std::vector<double> trajectory;
      double delivered = 0;
      std::size_t next = 0;
      for (int k = 0; k < 3000; ++k) {
        while (next < ambient.size() && ambient[next].at_s * 10 <= k)
          m.set_ambient(ambient[next++].ambient_c);
        const bool hot = m.node_c(0) >= limit_c - margin;
        const std::uint32_t cpu = hot ? 1 : 0;
        const std::uint32_t f = fan;
        trajectory.push_back(m.node_c(0));
        m.set_inputs(std::array{cpu, f}, std::array{0.2, 1.0});
        run.peak_c = std::max(run.peak_c, m.max_skin_c());
        delivered += 0.2 * spec.devices[0].performance[cpu] + 0.5 * spec.devices[1].performance[f];
        m.step();
      }
      run.performance = delivered / (3000 * 0.7);
      runs.push_back(run);
      if (run.peak_c <= limit_c) near.emplace_back(run.performance, std::move(trajectory));
    }
  double best = 0;
  int holding = 0;
  for (const auto& run : runs)
    if (run.peak_c <= limit_c) {
      ++holding;
      best = std::max(best, run.performance);
    }
  EXPECT_GT(holding, 10);
  double figure = relaxation;
  for (const double floor : floors) {
    o.fan_tight = BoundOptions::FanTight{floor, 2};
    auto r = compute_bound(spec, w, o);
    EXPECT_TRUE(std::holds_alternative<BoundResult>(r)) << std::get<std::string>(r);
    const auto& b = std::get<BoundResult>(r);
    EXPECT_TRUE(b.fan_tight.has_value());
    EXPECT_LE(b.performance_bound, relaxation + 1e-12);
    EXPECT_GE(b.performance_bound, best - 1e-9)
        << "floor " << floor << ": the best holding run delivers " << best;
    // The boxes hold every such run that reaches the floor (raising the
    // tightened lower bounds by 0.5 °C fails here and above: checked).
    for (const auto& [performance, trajectory] : near) {
      if (performance < floor) continue;
      for (std::size_t k = 1; k < trajectory.size(); ++k) {
        EXPECT_GE(trajectory[k], b.fan_tight->lower_c[k] - 1e-9)
            << "floor " << floor << " step " << k;
      }
    }
    figure = b.performance_bound;
  }
  return figure;
}

// Where the limit binds with the fan at full, so the fan's noise is paid
// wherever the cpu runs at full: the tight bound charges it; in a 40 °C
// room from 25 °C, where more airflow first warms the node.
TEST(FanBoundTest, TightBoundBoundsEveryScheduleAndIsBelowTheRelaxation) {
  const double binding = check_tight({{0, 25.0}}, 25.7, {0.0, 0.8});
  const double hot = check_tight({{0, 40.0}}, 41.0, {0.0});
  // Tighter than the relaxation (0.9776) where the limit binds.
  EXPECT_LT(binding, 0.95);
  EXPECT_LE(hot, 1.0);
}

TEST(FanBoundTest, HeldFanScheduleErrors) {
  const ModelSpec spec = parse_ok(one_node_yaml());
  const Workload w = workload_of(spec, {{0, 25.0}});
  const auto error = [&](std::vector<BoundOptions::FanHold> schedule, const ModelSpec& m) {
    BoundOptions o;
    o.limit_c = 40;
    o.decision_step = Millis(1000);
    o.fan_schedule = std::move(schedule);
    auto r = compute_bound(m, w, o);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "no error";
  };
  EXPECT_EQ(error({{Millis(1000), 1}}, spec), "the fan schedule must start at 0 s, not 1 s");
  EXPECT_EQ(error({{Millis(0), 1}, {Millis(0), 2}}, spec),
            "the fan schedule's times must increase (0 s after 0 s)");
  EXPECT_EQ(error({{Millis(0), 1}, {Millis(1500), 2}}, spec),
            "the fan schedule's time 1.5 s is no whole number of 1 s decision steps");
  EXPECT_EQ(error({{Millis(0), 3}}, spec), "the fan has levels 0..2, not 3");
  ModelSpec fanless = spec;
  fanless.devices[1].cooling.clear();
  fanless.devices[1].heat = {{"n", 1.0}};
  EXPECT_EQ(error({{Millis(0), 0}}, fanless),
            "holding the fan to a schedule needs a model with one fan; this one has 0");

  const auto hold = parse_fan_hold("300:2");
  ASSERT_TRUE(std::holds_alternative<BoundOptions::FanHold>(hold));
  EXPECT_EQ(std::get<BoundOptions::FanHold>(hold).from, Millis(300000));
  EXPECT_EQ(std::get<BoundOptions::FanHold>(hold).level, 2U);
  EXPECT_EQ(std::get<BoundOptions::FanHold>(parse_fan_hold("7.5:0")).from, Millis(7500));
  for (const char* bad : {"300", ":2", "300:", "3a:1", "-1:0", "1.0001:1", "nan:1", "1:x", "1:-1"})
    EXPECT_EQ(
        std::get<std::string>(parse_fan_hold(bad)),
        fmt::format("'{}': expected S:LEVEL, a time in seconds and a fan level (e.g. 300:2)", bad))
        << bad;
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
}  // namespace coolhand::sim::fan_model_test
