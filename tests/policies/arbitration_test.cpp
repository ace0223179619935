// Arbitration and device constraints: the deepest request wins and names its
// controller; min/limit clamps; step limits and dwell relative to the last
// applied level; forced devices; set_device_level.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing::arbitration_test {
namespace {

using CK = ControllerSpec::Kind;

// Two bang_bang controllers on the same device: "warm" asks for 1 at 40 °C,
// "hot" for 3 at 50 °C, from two different sensors.
PolicySpec two_controllers() {
  PolicySpec spec;
  spec.sensors = {physical("a"), physical("b")};
  spec.devices = {device("d", 4)};
  ControllerSpec warm = controller("warm", CK::bang_bang, "a", {"d"});
  warm.threshold = mc(40000);
  warm.on_level = 1;
  ControllerSpec hot = controller("hot", CK::bang_bang, "b", {"d"});
  hot.threshold = mc(50000);
  hot.on_level = 3;
  spec.controllers = {warm, hot};
  return spec;
}

TEST(Arbitration, DeepestRequestWinsAndIsTheCause) {
  Rig rig(two_controllers());
  ASSERT_TRUE(rig.ok());
  const ControllerId warm = *rig.engine->controller_id("warm");
  const ControllerId hot = *rig.engine->controller_id("hot");
  struct Case {
    std::int32_t a, b;
    std::uint32_t level;
    std::optional<ControllerId> cause;
  };
  const std::vector<Case> cases = {
      {30000, 30000, 0, std::nullopt},                          // nobody asks: released, no cause
      {40000, 30000, 1, warm},         {40000, 50000, 3, hot},  // both ask, 3 > 1
      {30000, 50000, 3, hot},          {30000, 30000, 0, std::nullopt},
  };
  std::int64_t t = 0;
  for (const Case& c : cases) {
    rig.set("a", c.a, ms(t));
    rig.set("b", c.b, ms(t));
    const Decision& d = rig.step(ms(t));
    EXPECT_EQ(d.devices[0].level, c.level) << "a=" << c.a << " b=" << c.b;
    EXPECT_EQ(d.devices[0].requested, c.level);
    EXPECT_EQ(d.devices[0].cause, c.cause) << "a=" << c.a << " b=" << c.b;
    t += 1000;
  }
}

TEST(Arbitration, TieGoesToTheFirstControllerInSpecOrder) {
  PolicySpec spec = two_controllers();
  spec.controllers[1].on_level = 1;
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.set("a", 60000, ms(0));
  rig.set("b", 60000, ms(0));
  const Decision& d = rig.step(ms(0));
  EXPECT_EQ(d.devices[0].cause, rig.engine->controller_id("warm"));
}

TEST(Arbitration, ChangedFlagsOnlyRealChanges) {
  Rig rig(two_controllers());
  ASSERT_TRUE(rig.ok());
  rig.set("b", 30000, ms(0));
  EXPECT_FALSE(rig.feed("a", 30000, ms(0)).devices[0].changed);
  EXPECT_TRUE(rig.feed("a", 40000, ms(1)).devices[0].changed);
  EXPECT_FALSE(rig.feed("a", 41000, ms(2)).devices[0].changed);
  EXPECT_TRUE(rig.feed("a", 30000, ms(3)).devices[0].changed);
}

TEST(DeviceConstraints, MinAndLimitClampRequests) {
  PolicySpec spec = two_controllers();
  spec.devices[0].min_level = 1;
  spec.devices[0].limit_level = 2;
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.set("b", 30000, ms(0));
  Decision d = rig.feed("a", 30000, ms(0));
  EXPECT_EQ(d.devices[0].level, 1U);  // min_level even when released
  EXPECT_FALSE(d.devices[0].cause.has_value());
  rig.set("b", 50000, ms(1));
  d = rig.step(ms(1));
  EXPECT_EQ(d.devices[0].level, 2U);  // 3 requested, limit 2
  EXPECT_EQ(d.devices[0].requested, 2U);
  EXPECT_EQ(d.devices[0].cause, rig.engine->controller_id("hot"));
}

PolicySpec table_device(std::uint32_t up, std::uint32_t down, Millis dwell) {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  DeviceSpec d = device("d", 6);
  d.max_step_up = up;
  d.max_step_down = down;
  d.min_dwell = dwell;
  spec.devices = {d};
  ControllerSpec c = controller("tab", CK::table, "t", {"d"});
  c.table = {{mc(40000), mc(40000), 2}, {mc(50000), mc(50000), 6}};
  spec.controllers = {c};
  spec.sampling.min_interval = Millis(250);
  return spec;
}

TEST(DeviceConstraints, StepLimitsPerDecision) {
  Rig rig(table_device(2, 1, Millis(0)));
  ASSERT_TRUE(rig.ok());
  struct Case {
    std::int64_t t;
    std::int32_t temp;
    std::uint32_t level, requested;
    std::optional<std::int64_t> next;
  };
  const std::vector<Case> cases = {
      {0, 50000, 2, 6, 250},  // 0 -> 6 requested, at most 2 deeper per decision
      {250, 50000, 4, 6, 500},
      {500, 50000, 6, 6, std::nullopt},
      {750, 30000, 5, 0, 1000},  // at most 1 shallower
      {1000, 30000, 4, 0, 1250},
      {1250, 40000, 3, 2, 1500},
      {1500, 40000, 2, 2, std::nullopt},
  };
  for (const Case& c : cases) {
    const Decision& d = rig.feed("t", c.temp, ms(c.t));
    EXPECT_EQ(d.devices[0].level, c.level) << "t=" << c.t;
    EXPECT_EQ(d.devices[0].requested, c.requested) << "t=" << c.t;
    EXPECT_EQ(d.next_step.has_value(), c.next.has_value()) << "t=" << c.t;
    if (d.next_step && c.next) {
      EXPECT_EQ(d.next_step->count(), *c.next) << "t=" << c.t;
    }
  }
}

TEST(DeviceConstraints, MinDwellHoldsALevel) {
  Rig rig(table_device(0, 0, Millis(1000)));
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("t", 40000, ms(0));
  EXPECT_EQ(d.devices[0].level, 2U);  // no previous change: no dwell to respect
  d = rig.feed("t", 50000, ms(500));
  EXPECT_EQ(d.devices[0].level, 2U);  // dwelling
  EXPECT_EQ(d.devices[0].requested, 6U);
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 1000);  // when the dwell ends
  d = rig.step(ms(999));
  EXPECT_EQ(d.devices[0].level, 2U);
  d = rig.step(ms(1000));
  EXPECT_EQ(d.devices[0].level, 6U);
  EXPECT_TRUE(d.devices[0].changed);
  d = rig.feed("t", 30000, ms(1500));
  EXPECT_EQ(d.devices[0].level, 6U);  // dwell applies downwards too
  d = rig.step(ms(2000));
  EXPECT_EQ(d.devices[0].level, 0U);
}

// release_dwell: a move shallower waits release_dwell after the last change,
// a move deeper only min_dwell.
TEST(DeviceConstraints, ReleaseDwellHoldsOnlyMovesShallower) {
  PolicySpec spec = table_device(0, 0, Millis(1000));
  spec.devices[0].release_dwell = Millis(5000);
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("t", 40000, ms(0));
  EXPECT_EQ(d.devices[0].level, 2U);
  d = rig.feed("t", 50000, ms(1000));
  EXPECT_EQ(d.devices[0].level, 6U);  // deeper: min_dwell (1 s) is enough
  d = rig.feed("t", 30000, ms(2000));
  EXPECT_EQ(d.devices[0].level, 6U);  // shallower: held for release_dwell
  EXPECT_EQ(d.devices[0].requested, 0U);
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 6000);  // 5 s after the change at 1 s
  d = rig.step(ms(5999));
  EXPECT_EQ(d.devices[0].level, 6U);
  d = rig.step(ms(6000));
  EXPECT_EQ(d.devices[0].level, 0U);
  EXPECT_TRUE(d.devices[0].changed);
  d = rig.feed("t", 40000, ms(7000));
  EXPECT_EQ(d.devices[0].level, 2U);  // deeper again after min_dwell, not release_dwell
}

// A release_dwell shorter than min_dwell changes nothing: min_dwell holds
// every move.
TEST(DeviceConstraints, ReleaseDwellNeverShortensMinDwell) {
  PolicySpec spec = table_device(0, 0, Millis(3000));
  spec.devices[0].release_dwell = Millis(1000);
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("t", 50000, ms(0));
  EXPECT_EQ(d.devices[0].level, 6U);
  d = rig.feed("t", 30000, ms(2000));
  EXPECT_EQ(d.devices[0].level, 6U);
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 3000);
  d = rig.step(ms(3000));
  EXPECT_EQ(d.devices[0].level, 0U);
}

TEST(DeviceConstraints, SetDeviceLevelIsTheStartingPoint) {
  Rig rig(table_device(1, 1, Millis(0)));
  ASSERT_TRUE(rig.ok());
  rig.engine->set_device_level(rig.dev("d"), 5, ms(0));
  const Decision& d = rig.feed("t", 30000, ms(10));
  EXPECT_EQ(d.devices[0].level, 4U);  // one step down from the real level 5
  EXPECT_TRUE(d.devices[0].changed);
}

TEST(DeviceConstraints, ForcedDeviceBypassesRateLimits) {
  PolicySpec spec = table_device(1, 1, Millis(10000));
  spec.devices[0].limit_level = 5;
  ZoneSpec z;
  z.name = "skin";
  z.sensor = "t";
  TripSpec crit;
  crit.name = "crit";
  crit.type = TripSpec::Type::critical;
  crit.threshold = mc(60000);
  crit.hysteresis = mc(2000);
  crit.action = TripAction::force_deepest;
  crit.devices = {"d"};
  z.trips = {crit};
  spec.zones = {z};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("t", 60000, ms(0));
  EXPECT_EQ(d.devices[0].level, 5U);  // limit_level, straight away
  EXPECT_TRUE(d.devices[0].forced);
  d = rig.feed("t", 58000, ms(100));  // still reached (hysteresis)
  EXPECT_TRUE(d.devices[0].forced);
  d = rig.feed("t", 57999, ms(200));  // left: back to normal arbitration and limits
  EXPECT_FALSE(d.devices[0].forced);
  EXPECT_EQ(d.devices[0].level, 5U);  // dwell of 10 s since the forced change
}

}  // namespace
}  // namespace coolhand::policy::testing::arbitration_test
