// Profiles: limit_offset shifts every controller limit, overrides replace
// thresholds/setpoints, enable or disable controllers and change device
// ranges; a switch takes effect at the next step and is announced once.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing::profiles_test {
namespace {

using CK = ControllerSpec::Kind;

// One controller of each threshold-bearing kind, each on its own device.
PolicySpec spec_with_profiles() {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  DeviceSpec pa_dev = device("pa_dev", 2);
  pa_dev.power_mw = {1000, 500, 100};
  spec.devices = {device("bb_dev", 3), device("tab_dev", 3), device("pid_dev", 4),
                  device("sw_dev", 3), pa_dev};
  ControllerSpec bb = controller("bb", CK::bang_bang, "t", {"bb_dev"});
  bb.threshold = mc(50000);
  ControllerSpec tab = controller("tab", CK::table, "t", {"tab_dev"});
  tab.table = {{mc(50000), mc(50000), 2}};
  ControllerSpec pid = controller("pid", CK::pid, "t", {"pid_dev"});
  pid.setpoint = mc(50000);
  pid.kp = 0.25;
  pid.engage_below = mc(1000);
  ControllerSpec sw = controller("sw", CK::step_wise, "t", {"sw_dev"});
  sw.threshold = mc(50000);
  ControllerSpec pa = controller("pa", CK::power_budget, "t", {"pa_dev"});
  pa.setpoint = mc(60000);
  pa.switch_on = mc(50000);
  pa.sustainable_power_mw = 100;
  spec.controllers = {bb, tab, pid, sw, pa};

  ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = mc(-2000);
  ProfileSpec perf;
  perf.name = "performance";
  perf.controllers = {{"bb", mc(55000), std::nullopt, std::nullopt},
                      {"tab", std::nullopt, std::nullopt, false},
                      {"pid", std::nullopt, mc(52000), std::nullopt}};
  perf.devices = {{"sw_dev", std::nullopt, 1}, {"bb_dev", 1, std::nullopt}};
  spec.profiles = {quiet, perf};
  return spec;
}

struct Levels {
  std::uint32_t bb, tab, pid, sw, pa;
};

Levels levels(Rig& rig, const Decision& d) {
  return {rig.level(d, "bb_dev"), rig.level(d, "tab_dev"), rig.level(d, "pid_dev"),
          rig.level(d, "sw_dev"), rig.level(d, "pa_dev")};
}

TEST(Profiles, LimitOffsetShiftsEveryControllerLimit) {
  Rig rig(spec_with_profiles());
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(rig.engine->profile(), "");
  Decision d = rig.feed("t", 48000, ms(0));
  Levels l = levels(rig, d);
  EXPECT_EQ(l.bb, 0U);
  EXPECT_EQ(l.tab, 0U);
  EXPECT_EQ(l.pid, 0U);  // 48 < 50 - 1: not engaged
  EXPECT_EQ(l.sw, 0U);
  EXPECT_EQ(l.pa, 0U);
  EXPECT_TRUE(events_of(d, Event::Kind::profile_change).empty());

  ASSERT_TRUE(rig.engine->set_profile("quiet"));
  EXPECT_EQ(rig.engine->profile(), "quiet");
  d = rig.feed("t", 48000, ms(1000));  // 48 is now every controller's limit
  l = levels(rig, d);
  EXPECT_EQ(l.bb, 3U);
  EXPECT_EQ(l.tab, 2U);
  EXPECT_EQ(l.pid, 0U);  // at the shifted setpoint: e = 0
  EXPECT_EQ(l.sw, 1U);
  EXPECT_EQ(l.pa, 2U);  // engaged at the shifted switch_on: 100 mW fits level 2 only
  const auto ev = events_of(d, Event::Kind::profile_change);
  ASSERT_EQ(ev.size(), 1U);
  EXPECT_EQ(ev[0].index, 0);
  EXPECT_TRUE(events_of(rig.step(ms(1001)), Event::Kind::profile_change).empty());

  d = rig.feed("t", 50000, ms(2000));
  EXPECT_EQ(levels(rig, d).pid, 2U);  // e = 2 °C above the shifted setpoint: u = 0.5
}

TEST(Profiles, TakesEffectAtTheNextStepOnly) {
  Rig rig(spec_with_profiles());
  ASSERT_TRUE(rig.ok());
  const Decision& d = rig.feed("t", 48000, ms(0));
  ASSERT_TRUE(rig.engine->set_profile("quiet"));
  EXPECT_EQ(rig.level(d, "bb_dev"), 0U);  // the decision is not recomputed by set_profile
  rig.step(ms(10));
  EXPECT_EQ(rig.level(d, "bb_dev"), 3U);
}

TEST(Profiles, UnknownNameIsRefusedAndChangesNothing) {
  Rig rig(spec_with_profiles());
  ASSERT_TRUE(rig.ok());
  ASSERT_TRUE(rig.engine->set_profile("quiet"));
  EXPECT_FALSE(rig.engine->set_profile("turbo"));
  EXPECT_EQ(rig.engine->profile(), "quiet");
  const Decision& d = rig.feed("t", 48000, ms(0));
  EXPECT_EQ(rig.level(d, "bb_dev"), 3U);
}

TEST(Profiles, OverridesReplaceDisableAndRestrict) {
  Rig rig(spec_with_profiles());
  ASSERT_TRUE(rig.ok());
  ASSERT_TRUE(rig.engine->set_profile("performance"));
  Decision d = rig.feed("t", 52000, ms(0));
  Levels l = levels(rig, d);
  EXPECT_EQ(l.bb, 1U);   // threshold 55 now, but min_level 1 for its device
  EXPECT_EQ(l.tab, 0U);  // disabled
  EXPECT_EQ(l.pid, 0U);  // setpoint 52: e = 0
  EXPECT_EQ(l.sw, 1U);
  d = rig.feed("t", 55000, ms(1000));
  l = levels(rig, d);
  EXPECT_EQ(l.bb, 3U);
  EXPECT_EQ(l.tab, 0U);
  EXPECT_EQ(l.pid, 3U);  // e = 3: u = 0.75
  EXPECT_EQ(l.sw, 1U);   // limit_level 1 in this profile
  EXPECT_EQ(d.devices[rig.dev("sw_dev").index].cause, rig.engine->controller_id("sw"));

  // Back to the policy as written.
  ASSERT_TRUE(rig.engine->set_profile(""));
  d = rig.feed("t", 55000, ms(2000));
  l = levels(rig, d);
  EXPECT_EQ(l.tab, 2U);
  EXPECT_EQ(l.sw, 2U);
  const auto ev = events_of(d, Event::Kind::profile_change);
  ASSERT_EQ(ev.size(), 1U);
  EXPECT_EQ(ev[0].index, 2);  // one past the last profile: none
}

TEST(Profiles, DefaultProfileIsActiveFromTheStart) {
  PolicySpec spec = spec_with_profiles();
  spec.default_profile = "quiet";
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(rig.engine->profile(), "quiet");
  const Decision& d = rig.feed("t", 48000, ms(0));
  EXPECT_EQ(rig.level(d, "bb_dev"), 3U);
  EXPECT_TRUE(events_of(d, Event::Kind::profile_change).empty());
}

}  // namespace
}  // namespace coolhand::policy::testing::profiles_test
