// Runtime against a temp-dir sysfs with a virtual clock: throttling and
// release, lost sensors and their safe level, every kind of garbage, missing
// hardware, read-only knobs, reload, dry-run, events, resume and restore.
#include "runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "coolhand/config/policy_file.h"
#include "dispatch.h"
#include "fake_tree.h"
#include "runtime_support.h"
#include "test_hooks.h"

namespace coolhand::daemon::runtime_test {
namespace {

using policy::MilliC;
using policy::Time;
using testing::FakeTree;
using testing::FaultySysfs;

constexpr const char* kFan = "class/thermal/cooling_device0/cur_state";
constexpr const char* kCpu = "devices/system/cpu/cpufreq/policy0/scaling_max_freq";
constexpr const char* kTemp = "class/thermal/thermal_zone0/temp";

constexpr const char* kPolicy = R"(
version: 1
sampling:
  min_interval: 500ms
  max_interval: 10s
daemon:
  lost_after_failures: 2
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [fan, cpu]
    safe_level: 2
    table:
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 50, down_c: 48, level: 2}
)";

// The same policy without the fan.
constexpr const char* kPolicyNoFan = R"(
version: 1
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [cpu]
    table:
      - {up_c: 45, down_c: 43, level: 1}
)";

struct RuntimeTest : ::testing::Test {
  RuntimeTest() : fs(tree.root()) {
    tree.thermal_zone(0, "skin-therm", 40000);
    // A set trip: the kernel updates the zone by itself (zone_sends_events).
    tree.write("class/thermal/thermal_zone0/trip_point_0_temp", 95000);
    tree.cooling_device(0, "Fan", 3, 1);  // firmware left it at 1: that is the original
    tree.cpufreq_policy(0, 400000, 2000000);
    log.capture();
  }

  std::unique_ptr<Runtime> make(const char* policy = kPolicy, RuntimeOptions opts = {}) {
    return testing::start_runtime(testing::parse_policy_text(policy), fs, log, now, opts, &hooks);
  }

  // Advance the virtual clock through every wake-up the runtime asks for
  // until `until`.
  void run_until(Runtime& rt, Time until) { testing::run_until(rt, now, until); }

  void set_temp(std::int64_t mc) { tree.write(kTemp, mc); }

  FakeTree tree;
  FaultySysfs fs;
  Logger log;
  testing::TestHooks hooks;
  Time now{1000};
};

TEST_F(RuntimeTest, ThrottlesWhenHotAndReleasesWhenCool) {
  auto rt = make();
  ASSERT_TRUE(rt);
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kFan), 2);
  EXPECT_EQ(tree.read_int(kCpu), 400000);
  set_temp(40000);
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
}

TEST_F(RuntimeTest, PollingStaysWithinTheSamplingBounds) {
  auto rt = make();
  ASSERT_TRUE(rt);
  auto wake = rt->tick(now);
  ASSERT_TRUE(wake);
  EXPECT_GE(*wake - now, policy::Millis(500));  // the policy's min_interval
  EXPECT_LE(*wake - now, policy::Millis(10000));
}

TEST_F(RuntimeTest, RestoreAllWritesOriginals) {
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  ASSERT_EQ(tree.read_int(kFan), 2);
  rt->restore_all();
  EXPECT_EQ(tree.read_int(kFan), 1);
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
}

// Each kind of garbage a sensor file can hold makes the sensor lost after
// `lost_after_failures` reads; its controller goes to the safe level; a good
// value brings control back.
class GarbageTest : public RuntimeTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(GarbageTest, SensorIsLostThenRecovers) {
  auto rt = make();
  ASSERT_TRUE(rt);
  const std::string kind = GetParam();
  if (kind == "non-numeric") tree.write(kTemp, "hot");
  if (kind == "empty") tree.write(kTemp, "");
  if (kind == "huge") tree.write(kTemp, "99999999999999999999");
  if (kind == "EIO") fs.eio.insert(kTemp);
  if (kind == "directory") {
    tree.remove(kTemp);
    tree.mkdir(kTemp);
  }
  if (kind == "fifo") {
    tree.remove(kTemp);
    tree.mkfifo(kTemp);
  }
  if (kind == "ENODEV-deleted") tree.remove(kTemp);
  run_until(*rt, now + Time(12000));
  EXPECT_TRUE(rt->sensor_lost("skin"));
  EXPECT_EQ(tree.read_int(kFan), 2);  // safe_level
  EXPECT_GE(rt->counters().read_failures, 2u);
  EXPECT_EQ(rt->counters().sensors_lost, 1u);
  std::size_t lost_lines = 0;
  for (const auto& l : log.lines()) lost_lines += l.find("lost after") != std::string::npos ? 1 : 0;
  EXPECT_EQ(lost_lines, 1u);  // logged once, not per failed read

  fs.eio.clear();
  tree.remove(kTemp);
  set_temp(40000);
  run_until(*rt, now + Time(12000));
  EXPECT_FALSE(rt->sensor_lost("skin"));
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
}

INSTANTIATE_TEST_SUITE_P(Kinds, GarbageTest,
                         ::testing::Values("non-numeric", "empty", "huge", "EIO", "directory",
                                           "fifo", "ENODEV-deleted"));

TEST_F(RuntimeTest, MissingRequiredSensorFailsWithAClearMessage) {
  tree.remove("class/thermal/thermal_zone0");
  auto r = Runtime::create(testing::parse_policy_text(kPolicy), fs, log, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, CreateError::Reason::missing_hardware);
  EXPECT_NE(r.error().detail.find("sensor skin"), std::string::npos);
  EXPECT_NE(r.error().detail.find("skin-therm"), std::string::npos);
  EXPECT_TRUE(fs.writes.empty());
}

TEST_F(RuntimeTest, MissingRequiredDeviceFails) {
  tree.remove("class/thermal/cooling_device0");
  auto r = Runtime::create(testing::parse_policy_text(kPolicy), fs, log, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().detail.find("device fan"), std::string::npos);
}

TEST_F(RuntimeTest, OptionalSensorAbsentAtStartIsBoundWhenItAppears) {
  tree.remove("class/thermal/thermal_zone0");
  std::string policy = kPolicy;
  policy.replace(policy.find("name: skin-therm}"), 17, "name: skin-therm, required: false}");
  // A controller on an optional sensor must stand aside while it is absent
  // (docs/policy-language.md, "Optional sensors"): safe_level 2 is refused.
  auto refused = config::parse_policy(policy, "test.yaml");
  EXPECT_FALSE(refused.document);
  policy.replace(policy.find("safe_level: 2"), 13, "safe_level: 0");
  auto rt = make(policy.c_str());
  ASSERT_TRUE(rt);
  EXPECT_TRUE(rt->sensor_lost("skin"));  // never read: lost, not "0 sensors lost"
  EXPECT_EQ(tree.read_int(kFan), 1);     // standing aside: the value found at start
  EXPECT_TRUE(fs.writes.empty());
  tree.thermal_zone(0, "skin-therm", 51000);
  run_until(*rt, now + Time(12000));
  EXPECT_FALSE(rt->sensor_lost("skin"));
  EXPECT_EQ(tree.read_int(kFan), 2);  // bound when it appeared, and controlling
}

TEST_F(RuntimeTest, ReadOnlyKnobKeepsTheDaemonRunning) {
  fs.read_only.insert(kFan);
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kFan), 1);  // untouched
  EXPECT_EQ(tree.read_int(kCpu), 400000);
  set_temp(40000);
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  rt->restore_all();
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_EQ(tree.read_int(kFan), 1);
}

TEST_F(RuntimeTest, ReloadDroppingADeviceRestoresIt) {
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  ASSERT_EQ(tree.read_int(kFan), 2);
  ASSERT_TRUE(rt->reload(testing::parse_policy_text(kPolicyNoFan), now));
  EXPECT_EQ(tree.read_int(kFan), 1);        // original
  EXPECT_EQ(tree.read_int(kCpu), 1200000);  // new policy: level 1 of 2
  EXPECT_EQ(rt->counters().reloads, 1u);
  set_temp(40000);
  run_until(*rt, now + Time(31000));
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
}

TEST_F(RuntimeTest, ReloadKeepsTheOriginalFromBeforeTheDaemon) {
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  ASSERT_EQ(tree.read_int(kCpu), 400000);
  ASSERT_TRUE(rt->reload(testing::parse_policy_text(kPolicy), now));
  rt->restore_all();
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_EQ(tree.read_int(kFan), 1);
}

TEST_F(RuntimeTest, BadReloadKeepsTheOldPolicy) {
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  std::string missing = kPolicy;
  missing.replace(missing.find("name: Fan"), 9, "name: Pump");
  auto s = rt->reload(testing::parse_policy_text(missing.c_str()), now);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().detail.find("Pump"), std::string::npos);
  EXPECT_EQ(rt->counters().reload_failures, 1u);
  EXPECT_EQ(tree.read_int(kFan), 2);  // untouched, still driven
  set_temp(40000);
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
}

TEST_F(RuntimeTest, DryRunWritesNothing) {
  auto rt = make(kPolicy, {.dry_run = true});
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  rt->restore_all();
  EXPECT_TRUE(fs.writes.empty());
  EXPECT_EQ(tree.read_int(kFan), 1);
  bool said = false;
  for (const auto& l : log.lines()) said |= l.find("would write 2 to") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(RuntimeTest, EventDrivenZoneIsNotPolled) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  std::vector<policy::Window> windows;
  hooks.thresholds = [&](std::uint32_t tz, const policy::Window& w) {
    EXPECT_EQ(tz, 0u);
    windows.push_back(w);
    return false;  // no kernel thresholds: sampling events carry every reading
  };
  EXPECT_EQ(rt->event_zones(), std::vector<std::uint32_t>{0});
  EXPECT_FALSE(rt->tick(now + Time(1)));  // nothing to poll, no time-driven controller
  set_temp(51000);                        // sysfs changes but no event yet: not read
  EXPECT_FALSE(rt->tick(now + Time(20000)));
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
  now += Time(20001);
  rt->on_zone_temperature(0, MilliC(51000), now);
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kFan), 2);
  ASSERT_FALSE(windows.empty());
  EXPECT_LE(windows.back().low, MilliC(51000));
  EXPECT_GE(windows.back().high, MilliC(51000));
  rt->on_zone_temperature(7, MilliC(20000), now);  // another zone: ignored
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kFan), 2);
}

// x86_pkg_temp registers with polling delay 0, and its unset trips read
// THERMAL_TEMP_INVALID: the kernel never updates it by itself, so it sends no
// thermal netlink event. It is polled at the adaptive interval even while
// the thermal family is subscribed (zone_sends_events, discovery.h).
TEST_F(RuntimeTest, ZoneWithoutTripsIsPolledWhileEventsAreSubscribed) {
  tree.write("class/thermal/thermal_zone0/trip_point_0_temp", -274000);
  tree.write("class/thermal/thermal_zone0/trip_point_1_temp", -274000);
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  EXPECT_TRUE(rt->event_zones().empty());
  set_temp(51000);  // no event ever comes: the daemon reads it itself
  run_until(*rt, now + Time(11000));
  EXPECT_EQ(tree.read_int(kFan), 2);
  EXPECT_EQ(rt->counters().pushed_samples, 0u);
  EXPECT_GT(rt->counters().samples, 1u);
  // A zone with no trip_point file at all is polled too.
  tree.remove("class/thermal/thermal_zone0/trip_point_0_temp");
  tree.remove("class/thermal/thermal_zone0/trip_point_1_temp");
  auto rt2 = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt2);
  EXPECT_TRUE(rt2->event_zones().empty());
}

// The kernel detects a threshold crossing only between two of its own
// readings: a temperature that moved past the new window before the
// thresholds were programmed is never reported. The runtime reads the zone
// once after each window the kernel accepts.
TEST_F(RuntimeTest, ValueThatLeftTheWindowBeforeThresholdsIsNotMissed) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  int programmed = 0;
  hooks.thresholds = [&](std::uint32_t, const policy::Window&) {
    if (++programmed == 1) set_temp(51000);  // moved while the thresholds went in
    return true;
  };
  rt->on_zone_temperature(0, MilliC(44000), now);  // a crossing: new window
  (void)rt->tick(now);
  EXPECT_GE(programmed, 2);  // the value read back moved the window again
  EXPECT_EQ(tree.read_int(kFan), 2);
  EXPECT_EQ(tree.read_int(kCpu), 400000);
}

TEST_F(RuntimeTest, NoRecheckWithoutKernelThresholds) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  hooks.thresholds = [&](std::uint32_t, const policy::Window&) {
    set_temp(51000);
    return false;  // sampling events will carry the next reading
  };
  rt->on_zone_temperature(0, MilliC(44000), now);
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
}

TEST_F(RuntimeTest, RecheckInsideTheWindowDoesNotStepAgain) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  std::vector<policy::Window> windows;
  hooks.thresholds = [&](std::uint32_t, const policy::Window& w) {
    windows.push_back(w);
    return true;
  };
  const auto steps = rt->counters().steps;
  set_temp(44000);  // sysfs agrees with the event
  rt->on_zone_temperature(0, MilliC(44000), now);
  EXPECT_FALSE(rt->tick(now));
  EXPECT_EQ(rt->counters().steps, steps + 1);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
}

TEST_F(RuntimeTest, DeletedZoneIsLostAndFoundAgainOnResync) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  rt->on_zone_deleted(0, now);
  (void)rt->tick(now);
  EXPECT_TRUE(rt->sensor_lost("skin"));
  EXPECT_EQ(tree.read_int(kFan), 2);
  now += Time(100);
  rt->resync(now);
  EXPECT_FALSE(rt->sensor_lost("skin"));
  EXPECT_EQ(tree.read_int(kFan), 1);  // level 0: the state found at start
}

TEST_F(RuntimeTest, ResumeRewritesLevelsFirmwareReset) {
  auto rt = make();
  ASSERT_TRUE(rt);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  tree.write(kCpu, 2000000);  // firmware reset the cap while suspended
  tree.write(kFan, 0);
  now += Time(10);
  rt->on_resume(now);
  EXPECT_EQ(tree.read_int(kCpu), 400000);
  EXPECT_EQ(tree.read_int(kFan), 2);
  EXPECT_EQ(rt->counters().resumes, 1u);
}

TEST_F(RuntimeTest, CoolhandZoneGetsTheEngineWindow) {
  tree.write("class/coolhand/zone0/name", "skin-module");
  tree.write("class/coolhand/zone0/temp1_input", 41000);
  tree.write("class/coolhand/zone0/event_window", "0 1");
  std::string policy = kPolicy;
  policy.replace(policy.find("{kind: thermal_zone, name: skin-therm}"), 38,
                 "{kind: coolhand, name: skin-module}");
  // Without a thermal mirror the zone is polled; with events the window is written.
  auto rt = make(policy.c_str(), {.events_available = true});
  ASSERT_TRUE(rt);
  EXPECT_EQ(tree.read("class/coolhand/zone0/event_window"), "0 1\n");  // polled: untouched
  std::filesystem::create_directory_symlink(tree.root() + "/class/thermal/thermal_zone0",
                                            tree.root() + "/class/coolhand/zone0/thermal_zone");
  auto rt2 = make(policy.c_str(), {.events_available = true});
  ASSERT_TRUE(rt2);
  std::int64_t low = 0;
  std::int64_t high = 0;
  ASSERT_EQ(
      std::sscanf(tree.read("class/coolhand/zone0/event_window").c_str(), "%ld %ld", &low, &high),
      2);
  EXPECT_LE(low, 41000);
  EXPECT_GE(high, 41000);
  EXPECT_LT(low, high);
  EXPECT_LE(high, 45000);  // the next limit (table row at 45 °C) bounds the window
}

TEST_F(RuntimeTest, ThermalEventsReachTheRuntime) {
  auto rt = make(kPolicy, {.events_available = true});
  ASSERT_TRUE(rt);
  ThermalEvent hot;
  hot.kind = ThermalEvent::Kind::trip_up;
  hot.tz_id = 0;
  hot.temperature = MilliC(51000);
  EXPECT_FALSE(dispatch_thermal_event(*rt, hot, now));
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kFan), 2);

  tree.write(kFan, 3);  // a kernel governor overwrote the cooling device
  ThermalEvent cdev;
  cdev.kind = ThermalEvent::Kind::cdev_update;
  cdev.cdev_id = 0;
  cdev.cdev_state = 3;
  EXPECT_FALSE(dispatch_thermal_event(*rt, cdev, now));
  EXPECT_EQ(tree.read_int(kFan), 2);

  ThermalEvent created;
  created.kind = ThermalEvent::Kind::tz_create;
  created.tz_id = 5;
  EXPECT_TRUE(dispatch_thermal_event(*rt, created, now));  // asks for a resync

  ThermalEvent deleted;
  deleted.kind = ThermalEvent::Kind::tz_delete;
  deleted.tz_id = 0;
  EXPECT_FALSE(dispatch_thermal_event(*rt, deleted, now));
  EXPECT_TRUE(rt->sensor_lost("skin"));
}

TEST_F(RuntimeTest, StatusLineSaysWhatIsThrottled) {
  auto rt = make();
  ASSERT_TRUE(rt);
  EXPECT_NE(rt->status_line().find("0 of 2 devices throttled"), std::string::npos);
  set_temp(51000);
  run_until(*rt, now + Time(11000));
  EXPECT_NE(rt->status_line().find("2 of 2 devices throttled"), std::string::npos);
}

}  // namespace
}  // namespace coolhand::daemon::runtime_test
