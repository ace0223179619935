// Last resort (escalation.cpp): the order levels are taken in, the release
// in reverse, the hysteresis band, the saturation condition, and validation.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "rig.h"

namespace coolhand::policy::testing::escalation_test {
namespace {

using CK = ControllerSpec::Kind;

// Zone `z` on sensor `t` with a 45 °C limit, 1 °C hysteresis and a 10 s hold.
// A bang_bang drives `cpu` (max 2) to its deepest from `cpu_on_c`; the last
// resort may take `a` and `b`. Performance lost per mW saved, per level:
//   a: 0->1 0.1/1000 = 1e-4, 1->2 0.4/1000 = 4e-4
//   b: 0->1 0.2/1000 = 2e-4, 1->2 0.1/500  = 2e-4
// so the order is a1, b1, b2, a2 (b2 before a2; b1 before b2 by level).
PolicySpec escalation_spec(std::int32_t cpu_on_mc = 44000) {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  DeviceSpec cpu = device("cpu", 2);
  DeviceSpec a = device("a", 2);
  a.power_mw = {3000, 2000, 1000};
  a.performance = {1.0, 0.9, 0.5};
  DeviceSpec b = device("b", 2);
  b.power_mw = {2000, 1000, 500};
  b.performance = {1.0, 0.8, 0.7};
  spec.devices = {cpu, a, b};
  ControllerSpec guard = controller("guard", CK::bang_bang, "t", {"cpu"});
  guard.threshold = mc(cpu_on_mc);
  spec.controllers = {guard};
  ZoneSpec z;
  z.name = "z";
  z.sensor = "t";
  z.last_resort = LastResortSpec{
      .limit = mc(45000), .hysteresis = mc(1000), .hold = Millis(10000), .devices = {"b", "a"}};
  spec.zones = {z};
  return spec;
}

using Levels = std::pair<std::uint32_t, std::uint32_t>;  // (a, b)

// Feeds `t_mc` once a second from `from` for `seconds` and returns the
// levels of a and b each time they changed, with the time.
std::vector<std::pair<std::int64_t, Levels>> run(Rig& rig, std::int32_t t_mc, std::int64_t from,
                                                 std::int64_t seconds) {
  std::vector<std::pair<std::int64_t, Levels>> out;
  const DeviceId a = rig.dev("a");
  const DeviceId b = rig.dev("b");
  for (std::int64_t s = 0; s < seconds; ++s) {
    const std::int64_t t = from + s * 1000;
    const Decision& d = rig.feed("t", t_mc, ms(t));
    if (d.devices[a.index].changed || d.devices[b.index].changed) {
      out.emplace_back(t, Levels{d.devices[a.index].level, d.devices[b.index].level});
    }
  }
  return out;
}

TEST(LastResort, TakesLevelsInOrderOfPerformanceLostPerWattSaved) {
  Rig rig(escalation_spec());
  ASSERT_TRUE(rig.ok());
  // Step 0 drives the cpu deep; from step 1 (1 s) the zone is saturated and
  // above its limit, so a level is taken at 11 s, 21 s, 31 s and 41 s.
  const auto changes = run(rig, 46000, 0, 60);
  const std::vector<std::pair<std::int64_t, Levels>> expected = {
      {11000, {1, 0}}, {21000, {1, 1}}, {31000, {1, 2}}, {41000, {2, 2}}};
  EXPECT_EQ(changes, expected);
  const Decision& d = rig.feed("t", 46000, ms(60000));
  EXPECT_EQ(d.zones[0].last_resort_levels, 4U);
  EXPECT_TRUE(d.devices[rig.dev("a").index].escalated);
  EXPECT_EQ(d.devices[rig.dev("a").index].cause, std::nullopt);
  EXPECT_FALSE(d.devices[rig.dev("cpu").index].escalated);
}

TEST(LastResort, ReleasesInReverseOrderBelowTheHysteresis) {
  Rig rig(escalation_spec());
  ASSERT_TRUE(rig.ok());
  run(rig, 46000, 0, 60);
  // 43.5 °C < 45 - 1: one level back every 10 s, the last taken first.
  const auto changes = run(rig, 43500, 60000, 60);
  const std::vector<std::pair<std::int64_t, Levels>> expected = {
      {70000, {1, 2}}, {80000, {1, 1}}, {90000, {1, 0}}, {100000, {0, 0}}};
  EXPECT_EQ(changes, expected);
  EXPECT_EQ(rig.feed("t", 43500, ms(120000)).zones[0].last_resort_levels, 0U);
}

TEST(LastResort, KeepsItsLevelsInsideTheHysteresisBand) {
  Rig rig(escalation_spec());
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(run(rig, 46000, 0, 12).size(), 1U);  // a1 at 11 s
  // 44.5 °C: below the limit, above limit - hysteresis, cpu still deepest:
  // nothing is taken and nothing given back, however long it lasts.
  EXPECT_TRUE(run(rig, 44500, 12000, 120).empty());
  // Back above the limit, the clock starts again: the next level after 10 s.
  const auto changes = run(rig, 45000, 132000, 12);
  const std::vector<std::pair<std::int64_t, Levels>> expected = {{142000, {1, 1}}};
  EXPECT_EQ(changes, expected);
  // Just below the release point, levels go.
  EXPECT_EQ(run(rig, 43999, 144000, 12).front(), (std::pair<std::int64_t, Levels>{154000, {1, 0}}));
}

TEST(LastResort, GivesLevelsBackWhenTheControllersHaveHeadroom) {
  // The cpu is driven from 44.8 °C: at 44.5 °C it is released, so the
  // controllers have headroom and the last resort gives back its levels even
  // inside the hysteresis band.
  Rig rig(escalation_spec(44800));
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(run(rig, 46000, 0, 22).size(), 2U);
  const auto changes = run(rig, 44500, 22000, 30);
  const std::vector<std::pair<std::int64_t, Levels>> expected = {{33000, {1, 0}}, {43000, {0, 0}}};
  EXPECT_EQ(changes, expected);
}

TEST(LastResort, WaitsForTheControllersToRunOutOfThrottle) {
  // The cpu is driven only from 47 °C: at 46 °C the controllers still have
  // room, so the last resort takes nothing.
  Rig rig(escalation_spec(47000));
  ASSERT_TRUE(rig.ok());
  EXPECT_TRUE(run(rig, 46000, 0, 60).empty());
  // From 47 °C the cpu is deepest and the zone above its limit.
  EXPECT_EQ(run(rig, 47000, 60000, 12).size(), 1U);
}

TEST(LastResort, AsksForAStepWhenTheHoldEnds) {
  Rig rig(escalation_spec());
  ASSERT_TRUE(rig.ok());
  rig.feed("t", 46000, ms(0));
  const Decision& d = rig.step(ms(1000));
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(*d.next_step, ms(11000));
}

TEST(LastResort, Validation) {
  PolicySpec spec = escalation_spec();
  spec.zones[0].last_resort->devices = {"a", "cpu", "nope", "a"};
  spec.zones[0].last_resort->hysteresis = mc(-1);
  spec.zones[0].last_resort->hold = Millis(0);
  const CompileResult r = Engine::compile(spec);
  EXPECT_EQ(describe(r.errors),
            "zones[0].last_resort / hysteresis: must be >= 0\n"
            "zones[0].last_resort / hold: must be > 0\n"
            "zones[0].last_resort / devices: devices[1]: device \"cpu\" needs power_mw and "
            "performance tables (the last resort orders its levels by performance lost per watt "
            "saved)\n"
            "zones[0].last_resort / devices: devices[2]: unknown device \"nope\"\n"
            "zones[0].last_resort / devices: devices[3]: device \"a\" is listed twice\n");
  spec.zones[0].last_resort->devices.clear();
  EXPECT_NE(describe(Engine::compile(spec).errors)
                .find("devices: a last resort needs at least one device"),
            std::string::npos);
}

}  // namespace
}  // namespace coolhand::policy::testing::escalation_test
