// Discovery of sensors and knobs in a fake tree, and the level mapping.
#include "discovery.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fake_tree.h"

namespace coolhand::daemon::discovery_test {
namespace {

using config::DeviceKnob;
using config::KnobValue;
using config::SensorSource;
using testing::FakeTree;

SensorSource source(SensorSource::Kind k, std::string name, std::string label = {},
                    std::optional<std::uint32_t> index = std::nullopt) {
  SensorSource s;
  s.kind = k;
  s.name = std::move(name);
  s.label = std::move(label);
  s.index = index;
  return s;
}

DeviceKnob knob(DeviceKnob::Kind k, std::string name = {}) {
  DeviceKnob d;
  d.kind = k;
  d.name = std::move(name);
  return d;
}

KnobValue W(std::int64_t watts) {
  return {KnobValue::Unit::power_uw, watts * 1000000};
}

const OriginalLookup kNone = [](const KnobTarget&) { return std::optional<std::int64_t>(); };

TEST(FindSensor, ThermalZoneByType) {
  FakeTree t;
  t.thermal_zone(0, "acpitz", 30000);
  t.thermal_zone(3, "x86_pkg_temp", 50000);
  RootedSysfs fs(t.root());
  auto b = find_sensor(fs, source(SensorSource::Kind::thermal_zone, "x86_pkg_temp"));
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->path, "class/thermal/thermal_zone3/temp");
  EXPECT_EQ(b->thermal_zone_id, 3u);
  EXPECT_EQ(b->scale_to_mc, 1);
}

TEST(FindSensor, HwmonByLabelAndByIndex) {
  FakeTree t;
  t.hwmon(0, "acpitz");
  t.hwmon(2, "k10temp");
  t.write("class/hwmon/hwmon2/temp1_label", "Tctl");
  t.write("class/hwmon/hwmon2/temp1_input", 61000);
  t.write("class/hwmon/hwmon2/temp3_label", "Tccd1");
  t.write("class/hwmon/hwmon2/temp3_input", 55000);
  RootedSysfs fs(t.root());
  auto by_label = find_sensor(fs, source(SensorSource::Kind::hwmon, "k10temp", "Tccd1"));
  ASSERT_TRUE(by_label) << by_label.error().to_string();
  EXPECT_EQ(by_label->path, "class/hwmon/hwmon2/temp3_input");
  auto by_index = find_sensor(fs, source(SensorSource::Kind::hwmon, "k10temp", "", 1));
  ASSERT_TRUE(by_index);
  EXPECT_EQ(by_index->path, "class/hwmon/hwmon2/temp1_input");
  EXPECT_FALSE(by_index->thermal_zone_id);
  EXPECT_FALSE(find_sensor(fs, source(SensorSource::Kind::hwmon, "k10temp", "Tdie")));
  EXPECT_FALSE(find_sensor(fs, source(SensorSource::Kind::hwmon, "k10temp", "", 7)));
}

TEST(FindSensor, PowerSupplyIsInTenthsOfCelsius) {
  FakeTree t;
  t.write("class/power_supply/BAT0/temp", 312);
  RootedSysfs fs(t.root());
  auto b = find_sensor(fs, source(SensorSource::Kind::power_supply, "BAT0"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->scale_to_mc, 100);
}

TEST(FindSensor, MissingHardwareNamesWhatWasSearched) {
  FakeTree t;
  RootedSysfs fs(t.root());
  auto b = find_sensor(fs, source(SensorSource::Kind::thermal_zone, "skin"));
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().to_string().find("skin"), std::string::npos);
  EXPECT_FALSE(find_sensor(fs, source(SensorSource::Kind::none, "x")));
  EXPECT_FALSE(find_sensor(fs, source(SensorSource::Kind::power_supply, "BAT1")));
}

TEST(InterpolateLevels, EndpointsExactAndRoundedBetween) {
  EXPECT_EQ(interpolate_levels(0, 10, 4), (std::vector<std::int64_t>{0, 3, 5, 8, 10}));
  EXPECT_EQ(interpolate_levels(2800000, 800000, 4),
            (std::vector<std::int64_t>{2800000, 2300000, 1800000, 1300000, 800000}));
  EXPECT_EQ(interpolate_levels(100, 0, 3), (std::vector<std::int64_t>{100, 67, 33, 0}));
  // Halves round away from zero on the value, not on the offset.
  EXPECT_EQ(interpolate_levels(100, 99, 2), (std::vector<std::int64_t>{100, 100, 99}));
  EXPECT_EQ(interpolate_levels(-100, -99, 2), (std::vector<std::int64_t>{-100, -100, -99}));
}

TEST(FindKnob, CoolingDeviceMapsLevelsOntoMaxState) {
  FakeTree t;
  t.cooling_device(0, "Processor", 10, 0);
  t.cooling_device(1, "Fan", 3, 1);
  RootedSysfs fs(t.root());
  auto b = find_knob(fs, knob(DeviceKnob::Kind::cooling_device, "Fan"), 3, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_EQ(b->targets.size(), 1u);
  EXPECT_EQ(b->targets[0].path, "class/thermal/cooling_device1/cur_state");
  EXPECT_EQ(b->targets[0].original, 1);
  // Level 0 is the state found at start (1), not state 0: 1 + 2 * L / 3.
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{1, 2, 2, 3}));
  auto proc = find_knob(fs, knob(DeviceKnob::Kind::cooling_device, "Processor"), 2, kNone);
  ASSERT_TRUE(proc);
  EXPECT_EQ(proc->targets[0].values, (std::vector<std::int64_t>{0, 5, 10}));
}

// Issue 10: level 0 is the value found at start for every knob kind. A
// throttle state found already throttled (a kernel governor left the fan at
// 2 of 4) is kept at idle, never "released" to 0, and no level goes below
// it, with explicit values too; the range check still applies to them.
TEST(FindKnob, ThrottleStatesFoundThrottledStayAtLeastThere) {
  FakeTree t;
  t.cooling_device(0, "Fan", 4, 2);
  t.write("class/coolhand/zone0/name", "skin");
  t.write("class/coolhand/zone0/emul_throttle0/throttling", 3);
  t.write("class/coolhand/zone0/emul_throttle0/throttling_max", 10);
  RootedSysfs fs(t.root());
  auto fan = find_knob(fs, knob(DeviceKnob::Kind::cooling_device, "Fan"), 2, kNone);
  ASSERT_TRUE(fan) << fan.error().to_string();
  EXPECT_EQ(fan->targets[0].original, 2);
  EXPECT_EQ(fan->targets[0].values, (std::vector<std::int64_t>{2, 3, 4}));
  DeviceKnob table = knob(DeviceKnob::Kind::cooling_device, "Fan");
  table.values = {{KnobValue::Unit::raw, 1}, {KnobValue::Unit::raw, 4}};
  auto explicit_values = find_knob(fs, table, 2, kNone);
  ASSERT_TRUE(explicit_values) << explicit_values.error().to_string();
  EXPECT_EQ(explicit_values->targets[0].values, (std::vector<std::int64_t>{2, 2, 4}));
  table.values = {{KnobValue::Unit::raw, 1}, {KnobValue::Unit::raw, 5}};  // 5 > max_state
  EXPECT_FALSE(find_knob(fs, table, 2, kNone));
  auto module = find_knob(fs, knob(DeviceKnob::Kind::coolhand, "emul_throttle0"), 7, kNone);
  ASSERT_TRUE(module) << module.error().to_string();
  EXPECT_EQ(module->targets[0].values, (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 9, 10}));
}

// Caps: an explicit value above the start value is lowered to it (a level
// never raises a cap), one above the advertised range is an error.
TEST(FindKnob, ExplicitCapValuesNeverRaiseTheStartValue) {
  FakeTree t;
  t.write("class/backlight/panel/max_brightness", 1000);
  t.write("class/backlight/panel/brightness", 300);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::backlight, "panel");
  k.values = {{KnobValue::Unit::percent, 50}, {KnobValue::Unit::percent, 20}};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{300, 300, 200}));
  k.values = {{KnobValue::Unit::raw, 1001}, {KnobValue::Unit::raw, 100}};
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
}

TEST(FindKnob, CpufreqAllBindsEveryPolicyWithItsOwnRange) {
  FakeTree t;
  t.cpufreq_policy(0, 400000, 2000000);
  t.cpufreq_policy(4, 800000, 3000000);
  RootedSysfs fs(t.root());
  auto b = find_knob(fs, knob(DeviceKnob::Kind::cpufreq, "all"), 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_EQ(b->targets.size(), 2u);
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{2000000, 1200000, 400000}));
  EXPECT_EQ(b->targets[1].values, (std::vector<std::int64_t>{3000000, 1900000, 800000}));
  auto one = find_knob(fs, knob(DeviceKnob::Kind::cpufreq, "4"), 2, kNone);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->targets.size(), 1u);
}

TEST(FindKnob, ExplicitValuesOutsideTheDiscoveredRangeAreRejected) {
  FakeTree t;
  t.cpufreq_policy(0, 400000, 2000000);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::cpufreq);
  k.values = {{KnobValue::Unit::frequency_khz, 2500000}, {KnobValue::Unit::frequency_khz, 400000}};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().detail.find("outside"), std::string::npos);
}

TEST(FindKnob, RaplNeedsAnExplicitDeepestAndHonoursMaxPower) {
  FakeTree t;
  t.write("class/powercap/intel-rapl:0/constraint_0_power_limit_uw", 15000000);
  t.write("class/powercap/intel-rapl:0/constraint_0_max_power_uw", 28000000);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::rapl, "intel-rapl:0");
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
  k.deepest = W(6);
  auto b = find_knob(fs, k, 3, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].values,
            (std::vector<std::int64_t>{15000000, 12000000, 9000000, 6000000}));
  k.values = {W(20), W(29), W(10)};  // 29 W: above the advertised 28 W
  EXPECT_FALSE(find_knob(fs, k, 3, kNone));
}

// MSI Claw 8 AI+: firmware sets PL1 30 W against max_power_uw 17 W. That is
// level 0 (restored as found); coolhand's writes stay within [0, 17 W].
TEST(FindKnob, RaplOriginalAboveTheAdvertisedMaximumIsKept) {
  FakeTree t;
  t.write("class/powercap/intel-rapl:0/constraint_0_power_limit_uw", 30000000);
  t.write("class/powercap/intel-rapl:0/constraint_0_max_power_uw", 17000000);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::rapl, "intel-rapl:0");
  k.deepest = KnobValue{KnobValue::Unit::percent, 40};
  auto b = find_knob(fs, k, 3, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].original, 30000000);
  EXPECT_EQ(b->targets[0].values,
            (std::vector<std::int64_t>{30000000, 13600000, 10200000, 6800000}));
}

TEST(FindKnob, AmdgpuBacklightChargeAndPstateDefaults) {
  FakeTree t;
  t.hwmon(1, "amdgpu");
  t.write("class/hwmon/hwmon1/power1_cap", 15000000);
  t.write("class/hwmon/hwmon1/power1_cap_min", 3000000);
  t.write("class/hwmon/hwmon1/power1_cap_max", 30000000);
  t.write("class/backlight/panel/brightness", 800);
  t.write("class/backlight/panel/max_brightness", 1000);
  t.write("class/power_supply/BAT0/constant_charge_current_max", 2000000);
  t.write("devices/system/cpu/intel_pstate/max_perf_pct", 100);
  t.write("devices/system/cpu/intel_pstate/min_perf_pct", 20);
  RootedSysfs fs(t.root());
  DeviceKnob amdk = knob(DeviceKnob::Kind::amdgpu_power);
  EXPECT_FALSE(find_knob(fs, amdk, 2, kNone));  // power1_cap_min (0 W on 6.1) is no floor
  amdk.deepest = W(3);
  auto amd = find_knob(fs, amdk, 2, kNone);
  ASSERT_TRUE(amd) << amd.error().to_string();
  EXPECT_EQ(amd->targets[0].values, (std::vector<std::int64_t>{15000000, 9000000, 3000000}));
  DeviceKnob backlight = knob(DeviceKnob::Kind::backlight, "panel");
  EXPECT_FALSE(find_knob(fs, backlight, 2, kNone));  // no safe default floor
  backlight.deepest = KnobValue{KnobValue::Unit::raw, 200};
  auto bl = find_knob(fs, backlight, 2, kNone);
  ASSERT_TRUE(bl);
  // Level 0 is the brightness found at start (800), not max_brightness (1000).
  EXPECT_EQ(bl->targets[0].values, (std::vector<std::int64_t>{800, 500, 200}));
  auto ch = find_knob(fs, knob(DeviceKnob::Kind::charge_current, "BAT0"), 2, kNone);
  ASSERT_TRUE(ch);
  EXPECT_EQ(ch->targets[0].values, (std::vector<std::int64_t>{2000000, 1000000, 0}));
  auto ps = find_knob(fs, knob(DeviceKnob::Kind::intel_pstate), 4, kNone);
  ASSERT_TRUE(ps);
  EXPECT_EQ(ps->targets[0].values, (std::vector<std::int64_t>{100, 80, 60, 40, 20}));
}

TEST(FindKnob, SysfsKnobNeedsATableOfTheRightSize) {
  FakeTree t;
  t.write("class/drm/card0/gt_max_freq_mhz", 1100);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::sysfs);
  k.path = "class/drm/card0/gt_max_freq_mhz";
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
  k.values = {{KnobValue::Unit::raw, 700}};
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
  k.values = {{KnobValue::Unit::raw, 700}, {KnobValue::Unit::raw, 300}};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b);
  // Level 0 is the value found at start.
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{1100, 700, 300}));
}

TEST(FindKnob, SavedOriginalWinsOverTheCurrentValue) {
  FakeTree t;
  t.write("class/power_supply/BAT0/constant_charge_current_max", 100);  // currently throttled by us
  RootedSysfs fs(t.root());
  auto b = find_knob(fs, knob(DeviceKnob::Kind::charge_current, "BAT0"), 1,
                     [](const KnobTarget&) { return std::optional<std::int64_t>(900); });
  ASSERT_TRUE(b);
  EXPECT_EQ(b->targets[0].original, 900);
  EXPECT_EQ(b->targets[0].values[0], 900);
}

// The lookup sees the path and the discovered range, so a recorded original
// can be checked before it is used (originals.h); the range stays on the target.
TEST(FindKnob, LookupSeesTheDiscoveredRange) {
  FakeTree t;
  t.cpufreq_policy(0, 400000, 2000000);
  RootedSysfs fs(t.root());
  std::optional<KnobTarget> seen;
  auto b = find_knob(fs, knob(DeviceKnob::Kind::cpufreq, "all"), 2, [&](const KnobTarget& k) {
    seen = k;
    return std::optional<std::int64_t>();
  });
  ASSERT_TRUE(b);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->path, "devices/system/cpu/cpufreq/policy0/scaling_max_freq");
  EXPECT_EQ(seen->min, 400000);
  EXPECT_EQ(seen->max, 2000000);
  EXPECT_EQ(b->targets[0].min, 400000);
  EXPECT_EQ(b->targets[0].max, 2000000);
  EXPECT_TRUE(original_acceptable(b->targets[0], 2000000));
  EXPECT_FALSE(original_acceptable(b->targets[0], 2000001));
  EXPECT_FALSE(original_acceptable(b->targets[0], 399999));
  KnobTarget unranged;
  EXPECT_TRUE(original_acceptable(unranged, -5));
}

TEST(FindKnob, GarbageInTheKnobIsAnError) {
  FakeTree t;
  t.cooling_device(0, "Fan", 3);
  t.write("class/thermal/cooling_device0/cur_state", "busy");
  RootedSysfs fs(t.root());
  EXPECT_FALSE(find_knob(fs, knob(DeviceKnob::Kind::cooling_device, "Fan"), 3, kNone));
  t.write("class/thermal/cooling_device0/cur_state", 0);
  t.write("class/thermal/cooling_device0/max_state", "");
  EXPECT_FALSE(find_knob(fs, knob(DeviceKnob::Kind::cooling_device, "Fan"), 3, kNone));
}

}  // namespace
}  // namespace coolhand::daemon::discovery_test

namespace coolhand::daemon::discovery_test {
namespace {

// kmod/README section 3: zones under class/coolhand, devices reached through
// the zone's link to them, the mirrored thermal zone through a link.
void coolhand_module(FakeTree& t) {
  t.write("class/coolhand/zone0/name", "skin");
  t.write("class/coolhand/zone0/temp1_input", 41000);
  t.write("class/coolhand/zone0/event_window", "40000 42000");
  t.write("devices/coolhand_emul/throttle0/throttling", 0);
  t.write("devices/coolhand_emul/throttle0/throttling_max", 10);
  t.thermal_zone(4, "skin", 41000);
  std::filesystem::create_directory_symlink("../../../devices/coolhand_emul/throttle0",
                                            t.root() + "/class/coolhand/zone0/emul_throttle0");
  std::filesystem::create_directory_symlink("../../thermal/thermal_zone4",
                                            t.root() + "/class/coolhand/zone0/thermal_zone");
}

TEST(FindSensor, CoolhandZoneByNameWithItsThermalMirror) {
  FakeTree t;
  coolhand_module(t);
  RootedSysfs fs(t.root());
  auto b = find_sensor(fs, source(SensorSource::Kind::coolhand, "skin"));
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->path, "class/coolhand/zone0/temp1_input");
  EXPECT_EQ(b->thermal_zone_id, 4u);
  EXPECT_EQ(b->coolhand_zone_id, 0u);
  EXPECT_EQ(b->event_window_path, "class/coolhand/zone0/event_window");
  EXPECT_FALSE(find_sensor(fs, source(SensorSource::Kind::coolhand, "cpu")));
}

TEST(FindKnob, CoolhandDeviceThroughTheZoneLink) {
  FakeTree t;
  coolhand_module(t);
  RootedSysfs fs(t.root());
  auto b = find_knob(fs, knob(DeviceKnob::Kind::coolhand, "emul_throttle0"), 5, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].path, "class/coolhand/zone0/emul_throttle0/throttling");
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{0, 2, 4, 6, 8, 10}));
  EXPECT_FALSE(find_knob(fs, knob(DeviceKnob::Kind::coolhand, "emul_throttle9"), 5, kNone));
}

}  // namespace
}  // namespace coolhand::daemon::discovery_test
