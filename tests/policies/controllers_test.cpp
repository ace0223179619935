// Controllers, one table per kind: each row is a reading at a time and the
// level the device must then have. Devices have no limits of their own here,
// so the applied level is the controller's request.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing::controllers_test {
namespace {

using CK = ControllerSpec::Kind;

struct Row {
  std::int64_t t_ms;
  std::int32_t temp_mc;
  std::uint32_t level;
  std::optional<std::int64_t> next_step_ms = std::nullopt;
};

void run_table(Rig& rig, const std::vector<Row>& rows, std::string_view device = "d") {
  for (const Row& r : rows) {
    const Decision& d = rig.feed("t", r.temp_mc, ms(r.t_ms));
    EXPECT_EQ(rig.level(d, device), r.level) << "at t=" << r.t_ms << " T=" << r.temp_mc;
    if (r.next_step_ms) {
      ASSERT_TRUE(d.next_step.has_value()) << "at t=" << r.t_ms;
      EXPECT_EQ(d.next_step->count(), *r.next_step_ms) << "at t=" << r.t_ms;
    }
  }
}

PolicySpec one_controller(ControllerSpec c, std::uint32_t max_level = 3) {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  spec.devices = {device("d", max_level)};
  spec.controllers = {std::move(c)};
  return spec;
}

TEST(StepWise, EveryHysteresisEdge) {
  ControllerSpec c = controller("sw", CK::step_wise, "t", {"d"});
  c.threshold = mc(50000);
  c.hysteresis = mc(2000);
  c.period = Millis(1000);
  Rig rig(one_controller(c));
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 49999, 0},           // threshold - 1: idle
                     {1000, 50000, 1, 2000},  // exactly at threshold: one level deeper
                     {1500, 50100, 1, 2000},  // rising, but the period has not passed
                     {2000, 50100, 2, 3000},  // not falling (trend 0): deeper
                     {3000, 50050, 2},        // above threshold but falling: hold
                     {4000, 48000, 2},        // threshold - hysteresis: still inside the band
                     {5000, 47999, 1, 6000},  // just below the band: one shallower
                     {5500, 47999, 1, 6000},  // period not passed
                     {6000, 47000, 0},        // back to 0
                     {7000, 60000, 1},        // again deeper one at a time
                     {8000, 61000, 2},
                     {9000, 62000, 3},
                     {10000, 63000, 3},  // capped at max_level
                 });
}

TEST(StepWise, HoldingRequestsNoStep) {
  ControllerSpec c = controller("sw", CK::step_wise, "t", {"d"});
  c.threshold = mc(50000);
  c.hysteresis = mc(2000);
  Rig rig(one_controller(c));
  ASSERT_TRUE(rig.ok());
  rig.feed("t", 50000, ms(0));
  const Decision& d = rig.feed("t", 49000, ms(100));  // in the band: nothing to do until a reading
  EXPECT_EQ(rig.level(d, "d"), 1U);
  EXPECT_FALSE(d.next_step.has_value());
}

// A profile switch while throttled lowers the device's limit below the level
// step_wise holds. The first release step must land at or below the new
// limit (held = min(held - 1, limit)), so the next one reaches 0; without the
// clamp the controller would still hold 2, invisible behind the limit, and
// take an extra period at level 1 before releasing.
TEST(StepWise, ReleaseClampsToALimitBelowTheHeldLevel) {
  ControllerSpec c = controller("sw", CK::step_wise, "t", {"d"});
  c.threshold = mc(50000);
  c.hysteresis = mc(2000);
  c.period = Millis(1000);
  PolicySpec spec = one_controller(c);
  ProfileSpec capped;
  capped.name = "capped";
  capped.devices = {{"d", std::nullopt, 1}};
  spec.profiles = {capped};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 60000, 1}, {1000, 60000, 2}, {2000, 60000, 3},  // held 3 = max_level
                 });
  ASSERT_TRUE(rig.engine->set_profile("capped"));
  run_table(rig, {
                     {2500, 60000, 1},  // the new limit applies at once
                     {3000, 40000, 1},  // first release step: held min(2, 1) = 1
                     {4000, 40000, 0},  // second: released
                     {5000, 40000, 0},
                 });
}

TEST(Table, SeparateUpAndDownThresholds) {
  ControllerSpec c = controller("tab", CK::table, "t", {"d"});
  c.table = {{mc(40000), mc(38000), 1}, {mc(45000), mc(43000), 2}, {mc(50000), mc(50000), 3}};
  Rig rig(one_controller(c));
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 39999, 0},  // up - 1
                     {1, 40000, 1},  // exactly up
                     {2, 38000, 1},  // exactly down: kept
                     {3, 37999, 0},  // below down
                     {4, 45000, 2},  // jumps straight to row 2
                     {5, 43000, 2},  // row 2's down: kept
                     {6, 42999, 1},  // below row 2's down: row 1 (still >= its down)
                     {7, 50000, 3},  // row 3, down == up
                     {8, 49999, 2},  // below row 3's down: row 2 holds
                     {9, 30000, 0},  // all the way down in one step
                     {10, 55000, 3},
                 });
}

TEST(BangBang, OnLevelAndDefaultDeepest) {
  for (const std::optional<std::uint32_t> on :
       {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{2}}) {
    ControllerSpec c = controller("bb", CK::bang_bang, "t", {"d"});
    c.threshold = mc(50000);
    c.hysteresis = mc(3000);
    c.on_level = on;
    Rig rig(one_controller(c, 4));
    ASSERT_TRUE(rig.ok());
    const std::uint32_t hi = on.value_or(4);
    run_table(rig, {
                       {0, 49999, 0},
                       {1, 50000, hi},  // on exactly at threshold
                       {2, 47000, hi},  // threshold - hysteresis: still on
                       {3, 46999, 0},   // off
                       {4, 48000, 0},   // inside the band: stays off
                       {5, 49999, 0},
                       {6, 50001, hi},
                   });
    EXPECT_FALSE(rig.step(ms(7)).next_step.has_value()) << "bang_bang is not time-driven";
  }
}

ControllerSpec pid(double kp, double ki, double kd) {
  ControllerSpec c = controller("pid", CK::pid, "t", {"d"});
  c.setpoint = mc(50000);
  c.engage_below = mc(5000);
  c.kp = kp;
  c.ki = ki;
  c.kd = kd;
  c.period = Millis(1000);
  return c;
}

TEST(Pid, ProportionalMapsOutputOntoLevels) {
  Rig rig(one_controller(pid(0.5, 0, 0), 4));
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 44999, 0},           // below setpoint - engage_below: released
                     {1000, 45000, 0, 2000},  // engaged at the edge, e = -5: u = 0
                     {2000, 51000, 2, 3000},  // e = 1: u = 0.5 -> round(0.5 * 4) = 2
                     {2500, 52000, 2, 3000},  // held until the period is over
                     {3000, 52000, 4, 4000},  // e = 2: u = 1
                     {4000, 50500, 1, 5000},  // u = 0.25 -> 1
                     {5000, 44000, 0},        // released
                 });
  EXPECT_FALSE(rig.step(ms(6000)).next_step.has_value());
}

TEST(Pid, AntiWindupStopsIntegratingWhenSaturated) {
  Rig rig(one_controller(pid(0.0, 0.1, 0), 4));
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 60000, 0},     // first update: dt = 0, I = 0
                     {1000, 60000, 4},  // I = 10 °C·s, u = 1
                     {2000, 60000, 4},  // I would be 20 (u = 2): not integrated
                     {3000, 60000, 4},
                     {4000, 49000, 4},  // e = -1: I = 9, u = 0.9 -> round(3.6) = 4
                     {5000, 49000, 3},  // I = 8, u = 0.8 -> round(3.2) = 3 (no wound-up excess)
                 });
}

TEST(Pid, DerivativeOnMeasurement) {
  // A rising temperature throttles harder, a falling one releases sooner.
  Rig rig(one_controller(pid(0.25, 0, 0.5), 4));
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 51000, 1},     // e = 1, no derivative yet: u = 0.25 -> 1
                     {1000, 52000, 4},  // e = 2: p = 0.5, rising 1 °C/s: d = 0.5 -> u = 1
                     {2000, 52000, 2},  // steady: u = 0.5
                     {3000, 51000, 0},  // p = 0.25, falling 1 °C/s: d = -0.5 -> u = 0
                 });
}

TEST(Pid, MapsOntoTheAllowedRange) {
  PolicySpec spec = one_controller(pid(0.5, 0, 0), 8);
  spec.devices[0].min_level = 2;
  spec.devices[0].limit_level = 6;
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  run_table(rig, {
                     {0, 51000, 4},     // u = 0.5 -> 2 + round(0.5 * 4)
                     {1000, 53000, 6},  // u = 1 -> limit
                     {2000, 49000, 2},  // u = 0 -> min_level
                 });
}

PolicySpec budget_spec(double w_cpu, double w_gpu) {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  DeviceSpec cpu = device("cpu", 3);
  cpu.power_mw = {2000, 1500, 1000, 500};
  DeviceSpec gpu = device("gpu", 2);
  gpu.power_mw = {3000, 2000, 1000};
  spec.devices = {cpu, gpu};
  ControllerSpec c = controller("pa", CK::power_budget, "t", {"cpu", "gpu"});
  c.devices[0].weight = w_cpu;
  c.devices[1].weight = w_gpu;
  c.setpoint = mc(50000);
  c.switch_on = mc(45000);
  c.sustainable_power_mw = 3000;
  c.kp_over_mw = 500;
  c.kp_under_mw = 100;
  c.period = Millis(1000);
  spec.controllers = {c};
  return spec;
}

TEST(PowerBudget, SplitsByWeightThroughPowerTables) {
  Rig rig(budget_spec(1, 1));
  ASSERT_TRUE(rig.ok());
  // Below switch_on: released and no step wanted.
  Decision d = rig.feed("t", 44999, ms(0));
  EXPECT_EQ(rig.level(d, "cpu"), 0U);
  EXPECT_EQ(rig.level(d, "gpu"), 0U);
  EXPECT_FALSE(d.next_step.has_value());
  // At the setpoint the budget is the sustainable 3000 mW: 1500 each.
  d = rig.feed("t", 50000, ms(1000));
  EXPECT_EQ(rig.level(d, "cpu"), 1U);  // 1500 fits exactly
  EXPECT_EQ(rig.level(d, "gpu"), 2U);  // 2000 does not, 1000 does
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 2000);
  // 2 °C over: 3000 - 2*500 = 2000 mW, 1000 each.
  d = rig.feed("t", 52000, ms(2000));
  EXPECT_EQ(rig.level(d, "cpu"), 2U);
  EXPECT_EQ(rig.level(d, "gpu"), 2U);
  // 5 °C under: 3000 + 5*100 = 3500, 1750 each.
  d = rig.feed("t", 45000, ms(3000));
  EXPECT_EQ(rig.level(d, "cpu"), 1U);
  EXPECT_EQ(rig.level(d, "gpu"), 2U);
}

TEST(PowerBudget, CappedSurplusIsReshared) {
  PolicySpec spec = budget_spec(3, 1);
  spec.controllers[0].sustainable_power_mw = 3500;
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  // 5 °C under: 4000 mW; cpu's share 3000 exceeds its 2000 maximum and the
  // surplus goes to gpu: 1000 + 1000 = 2000 -> gpu level 1. Without
  // re-sharing gpu would get 1000 mW (level 2).
  Decision d = rig.feed("t", 45000, ms(0));
  EXPECT_EQ(rig.level(d, "cpu"), 0U);
  EXPECT_EQ(rig.level(d, "gpu"), 1U);
  spec.controllers[0].sustainable_power_mw = 4500;  // 5000 mW: cpu 2000, gpu 3000
  Rig rig2(spec);
  d = rig2.feed("t", 45000, ms(0));
  EXPECT_EQ(rig2.level(d, "cpu"), 0U);
  EXPECT_EQ(rig2.level(d, "gpu"), 0U);
}

TEST(PowerBudget, IntegralAccumulatesAndIsBounded) {
  PolicySpec spec = budget_spec(1, 1);
  spec.controllers[0].kp_over_mw = 0;
  spec.controllers[0].ki_mw = 1000;  // mW per °C·s
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.feed("t", 51000, ms(0));                  // first update: no integral
  Decision d = rig.feed("t", 51000, ms(1000));  // I = -1000: 2000 mW, 1000 each
  EXPECT_EQ(rig.level(d, "cpu"), 2U);
  for (int i = 2; i <= 20; ++i) d = rig.feed("t", 51000, ms(1000 * i));
  EXPECT_EQ(rig.level(d, "cpu"), 3U);  // budget 0: deepest
  EXPECT_EQ(rig.level(d, "gpu"), 2U);
  // I is bounded by the total maximum (-5000 mW rather than -20000), so one
  // degree under the setpoint recovers full power within 6 periods.
  int t = 21;
  for (; t < 45; ++t) {
    d = rig.feed("t", 49000, ms(1000 * t));
    if (rig.level(d, "cpu") == 0U) break;
  }
  EXPECT_EQ(t, 26);
}

}  // namespace
}  // namespace coolhand::policy::testing::controllers_test
