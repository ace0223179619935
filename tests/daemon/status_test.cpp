// Status snapshots (what D-Bus GetStatus and the change-tracking properties
// report) from a Runtime on a temp-dir sysfs with a virtual clock: zone
// severity, temperature and next limit; lost and virtual sensors; levels and
// whether they are applied; counters; profiles.
#include "status.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "coolhand/config/policy_file.h"
#include "fake_tree.h"
#include "runtime.h"
#include "runtime_support.h"
#include "thermal_netlink.h"

namespace coolhand::daemon::status_test {
namespace {

using policy::MilliC;
using policy::Time;
using testing::FakeTree;
using testing::FaultySysfs;

constexpr const char* kFan = "class/thermal/cooling_device0/cur_state";
constexpr const char* kTemp = "class/thermal/thermal_zone0/temp";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fan and its table (safe level 3) are tests/data/fan-control.yaml,
// shared with the D-Bus tests and the measuring scripts.
const std::string kPolicy = std::string(R"(
version: 1
sampling:
  min_interval: 500ms
  max_interval: 2s
daemon:
  lost_after_failures: 2
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
  skin_plus:
    kind: max
    inputs: [skin]
zones:
  skin_zone:
    sensor: skin
    trips:
      warm: {type: passive, threshold_c: 48, hysteresis_c: 1}
    severities:
      light: {threshold_c: 45, hysteresis_c: 1}
      moderate: {threshold_c: 50, hysteresis_c: 1}
)") + read_text(std::string(COOLHAND_SOURCE_DIR) + "/tests/data/fan-control.yaml") +
                            R"(profiles:
  quiet:
    limit_offset_c: -2
)";

struct StatusTest : ::testing::Test {
  StatusTest() : fs(tree.root()) {
    tree.thermal_zone(0, "skin-therm", 40000);
    tree.cooling_device(0, "Fan", 3, 0);
    log.capture();
  }

  std::unique_ptr<Runtime> make() {
    return testing::start_runtime(testing::parse_policy_text(kPolicy), fs, log, now);
  }

  void run_for(Runtime& rt, policy::Millis d) { testing::run_until(rt, now, now + d); }

  FakeTree tree;
  FaultySysfs fs;
  Logger log;
  Time now{1000};
};

TEST_F(StatusTest, CoolZoneShowsItsLowestLimitAndNothingThrottled) {
  auto rt = make();
  ASSERT_TRUE(rt);
  const StatusSnapshot s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.severity, policy::Severity::none);
  EXPECT_EQ(s.profile, "");
  ASSERT_EQ(s.zones.size(), 1U);
  EXPECT_EQ(s.zones[0].name, "skin_zone");
  EXPECT_EQ(s.zones[0].temperature, MilliC(40000));
  EXPECT_EQ(s.zones[0].next_limit, MilliC(45000));
  ASSERT_EQ(s.devices.size(), 1U);
  EXPECT_EQ(s.devices[0].level, 0U);
  EXPECT_EQ(s.devices[0].max_level, 3U);
  EXPECT_TRUE(s.devices[0].applied);
}

TEST_F(StatusTest, NextLimitIsTheLowestThresholdAboveTheTemperature) {
  auto rt = make();
  ASSERT_TRUE(rt);
  tree.write(kTemp, 46000);
  run_for(*rt, policy::Millis(3000));
  StatusSnapshot s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.zones[0].severity, policy::Severity::light);
  EXPECT_EQ(s.severity, policy::Severity::light);
  EXPECT_EQ(s.zones[0].next_limit, MilliC(48000));  // the trip, below severity "moderate"
  EXPECT_EQ(s.devices[0].level, 1U);

  tree.write(kTemp, 49000);
  run_for(*rt, policy::Millis(3000));
  s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.zones[0].next_limit, MilliC(50000));
  EXPECT_EQ(s.devices[0].level, 2U);

  tree.write(kTemp, 60000);
  run_for(*rt, policy::Millis(3000));
  s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.zones[0].severity, policy::Severity::moderate);
  EXPECT_FALSE(s.zones[0].next_limit) << "above every limit";
}

TEST_F(StatusTest, LostSensorHasNoValueAndItsZoneNoTemperature) {
  auto rt = make();
  ASSERT_TRUE(rt);
  tree.remove(kTemp);
  run_for(*rt, policy::Millis(3000));
  const StatusSnapshot s = snapshot(*rt, nullptr);
  ASSERT_EQ(s.sensors.size(), 2U);
  EXPECT_EQ(s.sensors[0].name, "skin");
  EXPECT_EQ(s.sensors[0].kind, "physical");
  EXPECT_TRUE(s.sensors[0].lost);
  EXPECT_FALSE(s.sensors[0].value);
  EXPECT_FALSE(s.zones[0].temperature);
  EXPECT_EQ(s.zones[0].next_limit, MilliC(45000)) << "unknown: the lowest limit";
  EXPECT_EQ(s.devices[0].level, 3U) << "safe level";
}

TEST_F(StatusTest, VirtualSensorIsNeverLostAndCarriesItsValue) {
  auto rt = make();
  ASSERT_TRUE(rt);
  const StatusSnapshot s = snapshot(*rt, nullptr);
  ASSERT_EQ(s.sensors.size(), 2U);
  EXPECT_EQ(s.sensors[1].name, "skin_plus");
  EXPECT_EQ(s.sensors[1].kind, "max");
  EXPECT_FALSE(s.sensors[1].lost);
  EXPECT_EQ(s.sensors[1].value, MilliC(40000));
}

TEST_F(StatusTest, LevelOnAReadOnlyKnobIsNotApplied) {
  fs.read_only.insert(kFan);
  auto rt = make();
  ASSERT_TRUE(rt);
  tree.write(kTemp, 46000);
  run_for(*rt, policy::Millis(3000));
  const StatusSnapshot s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.devices[0].level, 1U);
  EXPECT_FALSE(s.devices[0].applied);
}

TEST_F(StatusTest, CountersIncludeNetlinkOnlyWhenSubscribed) {
  auto rt = make();
  ASSERT_TRUE(rt);
  auto find = [](const StatusSnapshot& s, const std::string& name) -> std::optional<std::uint64_t> {
    for (const auto& [n, v] : s.counters) {
      if (n == name) return v;
    }
    return std::nullopt;
  };
  const StatusSnapshot plain = snapshot(*rt, nullptr);
  EXPECT_EQ(find(plain, "samples"), rt->counters().samples);
  EXPECT_GT(*find(plain, "samples"), 0U);
  EXPECT_FALSE(find(plain, "netlink_received"));

  NetlinkCounters nl;
  nl.received = 7;
  nl.spoofed = 2;
  const StatusSnapshot with = snapshot(*rt, &nl);
  EXPECT_EQ(find(with, "netlink_received"), 7U);
  EXPECT_EQ(find(with, "netlink_spoofed"), 2U);
}

TEST_F(StatusTest, ProfileSwitchShowsAndTakesEffectAtTheNextTick) {
  auto rt = make();
  ASSERT_TRUE(rt);
  tree.write(kTemp, 46000);
  run_for(*rt, policy::Millis(3000));
  EXPECT_FALSE(rt->set_profile("turbo"));
  EXPECT_EQ(snapshot(*rt, nullptr).profile, "");
  ASSERT_TRUE(rt->set_profile("quiet"));
  run_for(*rt, policy::Millis(1000));
  const StatusSnapshot s = snapshot(*rt, nullptr);
  EXPECT_EQ(s.profile, "quiet");
  EXPECT_EQ(s.devices[0].level, 2U) << "table 2 °C lower";
  EXPECT_EQ(tree.read_int(kFan), 2);
}

}  // namespace
}  // namespace coolhand::daemon::status_test
