// Discovery of the knob kinds real handhelds have (issue 10): firmware
// attributes, hwmon attributes by chip name, charge thresholds, amdgpu's
// power1_cap with power2_cap in whole watts, and GPU caps found by driver.
// Layouts follow tests/devices/*/README.md (cited from kernel sources).
#include <gtest/gtest.h>

#include "actuator.h"
#include "discovery.h"
#include "fake_tree.h"

namespace coolhand::daemon::knob_kinds_test {
namespace {

using config::DeviceKnob;
using config::KnobValue;
using testing::FakeTree;

const OriginalLookup kNone = [](const KnobTarget&) { return std::optional<std::int64_t>(); };

DeviceKnob knob(DeviceKnob::Kind k, std::string name, std::string attribute = {}) {
  DeviceKnob d;
  d.kind = k;
  d.name = std::move(name);
  d.attribute = std::move(attribute);
  return d;
}

KnobValue W(std::int64_t watts) {
  return {KnobValue::Unit::power_uw, watts * 1000000};
}
KnobValue pct(std::int64_t p) {
  return {KnobValue::Unit::percent, p};
}

void firmware_attribute(FakeTree& t, const std::string& dev, const std::string& attr, int cur,
                        int lo, int hi) {
  const std::string base = "class/firmware-attributes/" + dev + "/attributes/" + attr + "/";
  t.write(base + "current_value", cur);
  t.write(base + "min_value", lo);
  t.write(base + "max_value", hi);
}

TEST(KnobKinds, FirmwareAttributeInWattsWithinItsRange) {
  FakeTree t;
  firmware_attribute(t, "asus-armoury", "ppt_pl1_spl", 15, 7, 25);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::firmware_attribute, "asus-armoury", "ppt_pl1_spl");
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));  // no safe default floor
  k.deepest = W(7);
  auto b = find_knob(fs, k, 4, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].path,
            "class/firmware-attributes/asus-armoury/attributes/ppt_pl1_spl/current_value");
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{15, 13, 11, 9, 7}));  // W
  k.deepest = W(5);  // below min_value
  auto low = find_knob(fs, k, 2, kNone);
  ASSERT_FALSE(low);
  EXPECT_NE(low.error().detail.find("outside [7, 25]"), std::string::npos);
  k.deepest = KnobValue{KnobValue::Unit::power_uw, 7500000};  // not whole watts
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
}

TEST(KnobKinds, FirmwareValueAboveMaxIsTheOriginalAndIsRestored) {
  FakeTree t;
  firmware_attribute(t, "lenovo-wmi-other-0", "ppt_pl1_spl", 35, 4, 30);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::firmware_attribute, "lenovo-wmi-other-0", "ppt_pl1_spl");
  k.deepest = pct(40);  // 40 % of max_value 30 W = 12 W
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{35, 21, 12}));
  Logger log;
  log.capture();
  Actuator a("apu", *b, fs, log, false);
  ASSERT_TRUE(a.apply(2));
  EXPECT_EQ(t.read_int("class/firmware-attributes/lenovo-wmi-other-0/attributes/ppt_pl1_spl/"
                       "current_value"),
            12);
  ASSERT_TRUE(a.restore());
  EXPECT_EQ(t.read_int("class/firmware-attributes/lenovo-wmi-other-0/attributes/ppt_pl1_spl/"
                       "current_value"),
            35);
}

TEST(KnobKinds, HwmonAttributeByChipNameNeverByIndex) {
  FakeTree t;
  t.hwmon(2, "BAT1");
  t.hwmon(6, "steamdeck_hwmon");
  t.write("class/hwmon/hwmon6/max_battery_charge_rate", 100);
  RootedSysfs fs(t.root());
  DeviceKnob k =
      knob(DeviceKnob::Kind::hwmon_attribute, "steamdeck_hwmon", "max_battery_charge_rate");
  k.values = {{KnobValue::Unit::raw, 50}, {KnobValue::Unit::raw, 20}};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].path, "class/hwmon/hwmon6/max_battery_charge_rate");
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{100, 50, 20}));
  k.values = {pct(50), pct(20)};  // no _max file: a percentage has nothing to refer to
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
  EXPECT_FALSE(
      find_knob(fs, knob(DeviceKnob::Kind::hwmon_attribute, "steamdeck_hwmon", "nope"), 1, kNone));
}

TEST(KnobKinds, ChargeThresholdInPercent) {
  FakeTree t;
  t.write("class/power_supply/BAT0/charge_control_end_threshold", 100);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::charge_threshold, "BAT0");
  k.values = {pct(80), pct(60)};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{100, 80, 60}));
  EXPECT_FALSE(find_knob(fs, knob(DeviceKnob::Kind::charge_threshold, "BAT1"), 2, kNone));
}

// Van Gogh has power1_cap and power2_cap; the kernel keeps whole watts
// (amdgpu_pm.c divides the written µW by 1000000), so coolhand writes whole
// watts and the actuator's read-back check never sees the rounding.
TEST(KnobKinds, AmdgpuBothCapsInWholeWatts) {
  FakeTree t;
  t.hwmon(4, "amdgpu");
  t.write("class/hwmon/hwmon4/power1_cap", 15000000);
  t.write("class/hwmon/hwmon4/power1_cap_min", 0);
  t.write("class/hwmon/hwmon4/power1_cap_max", 29000000);
  t.write("class/hwmon/hwmon4/power2_cap", 15000000);
  t.write("class/hwmon/hwmon4/power2_cap_min", 0);
  t.write("class/hwmon/hwmon4/power2_cap_max", 30000000);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::amdgpu_power, "");
  k.deepest = W(4);
  auto b = find_knob(fs, k, 5, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_EQ(b->targets.size(), 2u);
  EXPECT_EQ(b->targets[1].path, "class/hwmon/hwmon4/power2_cap");
  // 15 -> 4 W in 5 steps: 12.8, 10.6, 8.4, 6.2 W rounded down to whole watts.
  const std::vector<std::int64_t> want{15000000, 12000000, 10000000, 8000000, 6000000, 4000000};
  EXPECT_EQ(b->targets[0].values, want);
  EXPECT_EQ(b->targets[1].values, want);
  Logger log;
  log.capture();
  Actuator a("apu", *b, fs, log, false);
  for (std::uint32_t l = 0; l <= 5; ++l) ASSERT_TRUE(a.apply(l));
  EXPECT_EQ(a.overrides_seen(), 0u);
}

TEST(KnobKinds, I915CapFoundByDriverNotByCardIndex) {
  FakeTree t;
  t.write("class/drm/card0/device/uevent", "DRIVER=simple-framebuffer");
  t.write("class/drm/card1/device/uevent", "DRIVER=i915\nPCI_CLASS=30000");
  t.write("class/drm/card1/gt_max_freq_mhz", 1050);
  t.write("class/drm/card1/gt_RP0_freq_mhz", 1050);
  t.write("class/drm/card1/gt_RPn_freq_mhz", 300);
  t.write("class/drm/card1-eDP-1/status", "connected");
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::gpu_freq, "i915");
  k.values = {pct(50), {KnobValue::Unit::frequency_khz, 300000}};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_EQ(b->targets.size(), 1u);
  EXPECT_EQ(b->targets[0].path, "class/drm/card1/gt_max_freq_mhz");
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{1050, 525, 300}));  // MHz
  EXPECT_FALSE(find_knob(fs, knob(DeviceKnob::Kind::gpu_freq, "xe"), 2, kNone));
}

// drivers/gpu/drm/xe/xe_gt_freq.c: device/tile#/gt#/freq0/{max,rpn,rp0}_freq.
TEST(KnobKinds, XeCapsOfEveryGt) {
  FakeTree t;
  t.write("class/drm/card0/device/uevent", "DRIVER=xe");
  for (const char* gt : {"gt0", "gt1"}) {
    const std::string d = std::string("class/drm/card0/device/tile0/") + gt + "/freq0/";
    t.write(d + "max_freq", 1950);
    t.write(d + "rp0_freq", 1950);
    t.write(d + "rpn_freq", 400);
  }
  RootedSysfs fs(t.root());
  auto b = find_knob(fs, knob(DeviceKnob::Kind::gpu_freq, "xe"), 2, kNone);  // default: RPn
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_EQ(b->targets.size(), 2u);
  EXPECT_EQ(b->targets[0].path, "class/drm/card0/device/tile0/gt0/freq0/max_freq");
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{1950, 1175, 400}));
}

TEST(KnobKinds, BacklightPercentOfMaxBrightness) {
  FakeTree t;
  t.write("class/backlight/intel_backlight/brightness", 900);
  t.write("class/backlight/intel_backlight/max_brightness", 937);
  RootedSysfs fs(t.root());
  DeviceKnob k = knob(DeviceKnob::Kind::backlight, "intel_backlight");
  k.values = {pct(75), pct(50)};
  auto b = find_knob(fs, k, 2, kNone);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->targets[0].values, (std::vector<std::int64_t>{900, 703, 469}));
  k.values = {{KnobValue::Unit::raw, 19200}, {KnobValue::Unit::raw, 9600}};  // > 937
  EXPECT_FALSE(find_knob(fs, k, 2, kNone));
}

}  // namespace
}  // namespace coolhand::daemon::knob_kinds_test
