// A backlight brightness source ({kind: backlight}) end to end in the
// daemon: discovery of class/backlight/<name>/actual_brightness and
// max_brightness, the reading as thousandths of full, a fir estimate that
// takes it, and garbage in either file as an error value (a skipped reading,
// then a lost sensor), never a crash.
#include <gtest/gtest.h>

#include "coolhand/config/policy_file.h"
#include "discovery.h"
#include "fake_tree.h"
#include "parse.h"
#include "runtime.h"
#include "runtime_support.h"
#include "status.h"
#include "test_hooks.h"

namespace coolhand::daemon::backlight_sensor_test {
namespace {

using config::SensorSource;
using policy::MilliC;
using policy::Time;
using testing::FakeTree;

constexpr const char* kActual = "class/backlight/intel_backlight/actual_brightness";
constexpr const char* kMax = "class/backlight/intel_backlight/max_brightness";

SensorSource backlight(std::string name) {
  SensorSource s;
  s.kind = SensorSource::Kind::backlight;
  s.name = std::move(name);
  return s;
}

TEST(ParseBrightness, ThousandthsOfMaxRoundedToNearest) {
  EXPECT_EQ(parse_brightness("96000\n", 96000, "p")->mc(), 1000);
  EXPECT_EQ(parse_brightness("0", 96000, "p")->mc(), 0);
  EXPECT_EQ(parse_brightness("128", 255, "p")->mc(), 502);  // 501.96
  EXPECT_EQ(parse_brightness("1", 3, "p")->mc(), 333);
}

TEST(ParseBrightness, GarbageAndImpossibleValuesAreErrors) {
  EXPECT_FALSE(parse_brightness("", 255, "p"));
  EXPECT_FALSE(parse_brightness("bright", 255, "p"));
  EXPECT_FALSE(parse_brightness("-1", 255, "p"));
  EXPECT_FALSE(parse_brightness("256", 255, "p"));
  EXPECT_FALSE(parse_brightness("9223372036854775807", 255, "p"));
  EXPECT_FALSE(parse_brightness("1", 0, "p"));
  const auto e = parse_brightness("300", 255, "class/backlight/b/actual_brightness");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().to_string().find("brightness out of range: 300 of 255"), std::string::npos)
      << e.error().to_string();
}

TEST(FindBacklight, ReadsActualBrightnessOfMaxBrightness) {
  FakeTree t;
  t.write(kActual, 48000);
  t.write(kMax, 96000);
  RootedSysfs fs(t.root());
  auto b = find_sensor(fs, backlight("intel_backlight"));
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->path, kActual);
  EXPECT_EQ(b->max_brightness, 96000);
  EXPECT_FALSE(b->thermal_zone_id);
  EXPECT_FALSE(zone_sends_events(*b));  // polled
}

TEST(FindBacklight, MissingOrGarbageMaxBrightnessIsABindError) {
  FakeTree t;
  RootedSysfs fs(t.root());
  auto absent = find_sensor(fs, backlight("intel_backlight"));
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().to_string().find(kActual), std::string::npos);
  t.write(kActual, 10);
  EXPECT_FALSE(find_sensor(fs, backlight("intel_backlight")));  // no max_brightness
  for (const char* bad : {"0", "-5", "many", "", "2199023255553"}) {
    t.write(kMax, std::string(bad));
    auto b = find_sensor(fs, backlight("intel_backlight"));
    ASSERT_FALSE(b) << bad;
    EXPECT_NE(b.error().to_string().find("max_brightness"), std::string::npos)
        << b.error().to_string();
  }
}

// The front glass: the board thermistor plus 4 °C at full brightness; the
// CPU throttles at 45 °C of it.
constexpr const char* kPolicy = R"(
version: 1
sampling:
  min_interval: 500ms
  max_interval: 2s
daemon:
  lost_after_failures: 2
sensors:
  board:
    source: {kind: thermal_zone, name: skin-therm}
  screen:
    source: {kind: backlight, name: intel_backlight}
  front:
    kind: fir
    inputs: [board, screen]
    weights: [[1.0], [4.0]]
    tap_period: 1s
devices:
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: front
    devices: [cpu]
    safe_level: 2
    table:
      - {up_c: 45, down_c: 44, level: 1}
)";

struct BacklightRuntime : ::testing::Test {
  BacklightRuntime() : fs(tree.root()) {
    tree.thermal_zone(0, "skin-therm", 42000);
    tree.cpufreq_policy(0, 400000, 2000000);
    tree.write(kMax, 255);
    tree.write(kActual, 0);
    log.capture();
  }
  std::unique_ptr<Runtime> make() {
    return testing::start_runtime(testing::parse_policy_text(kPolicy), fs, log, now, {}, &hooks);
  }
  void run_for(Runtime& rt, policy::Millis d) { testing::run_until(rt, now, now + d); }
  std::optional<MilliC> value(const Runtime& rt, const char* name) {
    return rt.engine().sensor_value(*rt.engine().sensor_id(name));
  }

  FakeTree tree;
  RootedSysfs fs;
  Logger log;
  testing::TestHooks hooks;
  Time now{1000};
};

TEST_F(BacklightRuntime, TheEstimateSeesTheBacklight) {
  auto rt = make();
  ASSERT_TRUE(rt);
  run_for(*rt, policy::Millis{5000});
  EXPECT_EQ(value(*rt, "screen"), MilliC{0});
  EXPECT_EQ(value(*rt, "front"), MilliC{42000});
  EXPECT_EQ(rt->device_level("cpu"), 0u);
  tree.write(kActual, 255);  // full: 42 + 4 °C on the glass
  run_for(*rt, policy::Millis{5000});
  EXPECT_EQ(value(*rt, "screen"), MilliC{1000});
  EXPECT_EQ(value(*rt, "front"), MilliC{46000});
  EXPECT_EQ(rt->device_level("cpu"), 1u);
  tree.write(kActual, 64);  // a quarter: 43.0 °C, released
  run_for(*rt, policy::Millis{5000});
  EXPECT_EQ(value(*rt, "screen"), MilliC{251});
  EXPECT_EQ(value(*rt, "front"), MilliC{43004});
  EXPECT_EQ(rt->device_level("cpu"), 0u);
  // Status (D-Bus GetStatus, coolhandctl status) names it a brightness.
  const StatusSnapshot s = snapshot(*rt, nullptr);
  ASSERT_EQ(s.sensors.size(), 3u);
  EXPECT_EQ(s.sensors[0].kind, "physical");
  EXPECT_EQ(s.sensors[1].kind, "brightness");
  EXPECT_EQ(s.sensors[1].value, MilliC{251});
  EXPECT_EQ(s.sensors[2].kind, "fir");
}

TEST_F(BacklightRuntime, GarbageIsSkippedThenTheSensorIsLost) {
  auto rt = make();
  ASSERT_TRUE(rt);
  run_for(*rt, policy::Millis{5000});
  ASSERT_EQ(value(*rt, "front"), MilliC{42000});
  tree.write(kActual, std::string("\x01garbage"));
  run_for(*rt, policy::Millis{10000});
  EXPECT_TRUE(rt->sensor_lost("screen"));
  EXPECT_FALSE(value(*rt, "front"));       // the estimate is unknown without it
  EXPECT_EQ(rt->device_level("cpu"), 2u);  // the guard's safe level
  EXPECT_GT(rt->counters().read_failures, 0u);
  tree.write(kActual, 300);  // above max_brightness: still garbage
  run_for(*rt, policy::Millis{5000});
  EXPECT_TRUE(rt->sensor_lost("screen"));
  tree.write(kActual, 51);  // sane again: found again
  run_for(*rt, policy::Millis{10000});
  EXPECT_FALSE(rt->sensor_lost("screen"));
  EXPECT_EQ(value(*rt, "screen"), MilliC{200});
  EXPECT_EQ(value(*rt, "front"), MilliC{42800});
  EXPECT_EQ(rt->device_level("cpu"), 0u);
}

}  // namespace
}  // namespace coolhand::daemon::backlight_sensor_test
