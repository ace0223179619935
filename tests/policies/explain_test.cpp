// Engine::explain: the cause of each device's level, its input's value, the
// limit that decides it under the active profile, and since when.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing::explain_test {
namespace {

using CK = ControllerSpec::Kind;

PolicySpec spec() {
  PolicySpec s;
  s.sensors = {physical("t")};
  s.devices = {device("bb_dev", 3), device("tab_dev", 3), device("pid_dev", 4)};
  ControllerSpec bb = controller("bb", CK::bang_bang, "t", {"bb_dev"});
  bb.threshold = mc(50000);
  bb.hysteresis = mc(1000);
  ControllerSpec tab = controller("tab", CK::table, "t", {"tab_dev"});
  tab.table = {{mc(45000), mc(44000), 1}, {mc(50000), mc(49000), 2}};
  ControllerSpec pid = controller("pid", CK::pid, "t", {"pid_dev"});
  pid.setpoint = mc(50000);
  pid.kp = 0.25;
  pid.engage_below = mc(1000);
  pid.safe_level = 1;
  s.controllers = {bb, tab, pid};
  ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = mc(-2000);
  s.profiles = {quiet};
  return s;
}

TEST(Explain, CauseInputLimitAndSinceOfEachKind) {
  Rig rig(spec());
  rig.feed("t", 40000, ms(0));
  rig.feed("t", 51000, ms(1000));
  const DeviceExplanation bb = rig.engine->explain(rig.dev("bb_dev"));
  EXPECT_EQ(bb.level, 3U);
  ASSERT_TRUE(bb.cause);
  EXPECT_EQ(bb.cause->index, 0U);
  EXPECT_FALSE(bb.forced);
  EXPECT_FALSE(bb.safe);
  ASSERT_TRUE(bb.input);
  EXPECT_EQ(bb.input->index, rig.sensor("t").index);
  EXPECT_EQ(bb.input_value, mc(51000));
  EXPECT_EQ(bb.limit_kind, "threshold");
  EXPECT_EQ(bb.limit, mc(50000));
  EXPECT_EQ(bb.since, ms(1000));

  const DeviceExplanation tab = rig.engine->explain(rig.dev("tab_dev"));
  EXPECT_EQ(tab.level, 2U);
  EXPECT_EQ(tab.limit_kind, "table row");
  EXPECT_EQ(tab.limit, mc(50000));  // the row it is on, not the first

  const DeviceExplanation pid = rig.engine->explain(rig.dev("pid_dev"));
  ASSERT_TRUE(pid.cause);
  EXPECT_EQ(pid.limit_kind, "setpoint");
  EXPECT_EQ(pid.limit, mc(50000));

  // A later step at the same level keeps `since`.
  rig.feed("t", 51500, ms(2000));
  EXPECT_EQ(rig.engine->explain(rig.dev("bb_dev")).since, ms(1000));
}

TEST(Explain, ProfileShiftsTheLimit) {
  Rig rig(spec());
  ASSERT_TRUE(rig.engine->set_profile("quiet"));
  rig.feed("t", 49000, ms(0));
  const DeviceExplanation bb = rig.engine->explain(rig.dev("bb_dev"));
  ASSERT_TRUE(bb.cause);
  EXPECT_EQ(bb.limit, mc(48000));
}

TEST(Explain, ReleasedHasNoCauseAndUnknownInputIsSafe) {
  Rig rig(spec());
  rig.feed("t", 30000, ms(0));
  const DeviceExplanation released = rig.engine->explain(rig.dev("bb_dev"));
  EXPECT_EQ(released.level, 0U);
  EXPECT_FALSE(released.cause);
  EXPECT_FALSE(released.input);
  EXPECT_FALSE(released.limit);
  EXPECT_TRUE(released.limit_kind.empty());

  rig.engine->set_sensor_unknown(rig.sensor("t"), ms(100));
  rig.step(ms(100));
  const DeviceExplanation pid = rig.engine->explain(rig.dev("pid_dev"));
  ASSERT_TRUE(pid.cause);
  EXPECT_TRUE(pid.safe);
  EXPECT_FALSE(pid.input_value);
  EXPECT_EQ(pid.level, 1U);
}

TEST(Explain, UnknownDeviceGivesADefaultExplanation) {
  Rig rig(spec());
  rig.feed("t", 51000, ms(0));
  const DeviceExplanation x = rig.engine->explain(DeviceId{99});
  EXPECT_EQ(x.level, 0U);
  EXPECT_FALSE(x.cause);
}

}  // namespace
}  // namespace coolhand::policy::testing::explain_test
