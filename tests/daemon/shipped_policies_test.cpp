// The shipped policies for real hardware bind on a fake tree of the machine
// they target: every required sensor and knob is found with the names and
// ranges the policy assumes, and heat makes them throttle.
#include <gtest/gtest.h>

#include "coolhand/config/policy_file.h"
#include "fake_tree.h"
#include "runtime.h"

namespace coolhand::daemon {
namespace {

using testing::FakeTree;
using testing::FaultySysfs;

std::unique_ptr<Runtime> bind(const std::string& file, Sysfs& fs, Logger& log) {
  auto doc = config::load_policy_file(std::string(COOLHAND_POLICY_DIR) + "/" + file);
  EXPECT_TRUE(doc.document) << (doc.errors.empty() ? "" : doc.errors[0].to_string());
  if (!doc.document) return nullptr;
  auto rt = Runtime::create(std::move(*doc.document), fs, log, {});
  EXPECT_TRUE(rt) << rt.error().to_string();
  return rt ? std::move(*rt) : nullptr;
}

// Drive the runtime for `seconds` of virtual time.
void run(Runtime& rt, policy::Time& now, int seconds) {
  const policy::Time end = now + policy::Time(seconds * 1000);
  while (now < end) {
    auto wake = rt.tick(now);
    now = wake ? std::min(*wake, end) : end;
  }
  (void)rt.tick(now);
}

TEST(ShippedPolicies, IntelUmpc) {
  FakeTree t;
  t.thermal_zone(0, "acpitz", 35000);
  t.thermal_zone(5, "x86_pkg_temp", 50000);
  t.write("class/power_supply/BAT0/temp", 300);
  t.write("class/power_supply/BAT0/constant_charge_current_max", 2000000);
  t.write("class/powercap/intel-rapl:0/constraint_0_power_limit_uw", 15000000);
  t.write("class/powercap/intel-rapl:0/constraint_0_max_power_uw", 28000000);
  t.write("devices/system/cpu/intel_pstate/max_perf_pct", 100);
  t.write("devices/system/cpu/intel_pstate/min_perf_pct", 20);
  t.write("class/drm/card0/gt_max_freq_mhz", 1100);
  t.write("class/backlight/intel_backlight/brightness", 12000);
  t.write("class/backlight/intel_backlight/max_brightness", 19200);
  FaultySysfs fs(t.root());
  Logger log;
  log.capture();
  auto rt = bind("intel-umpc.yaml", fs, log);
  ASSERT_TRUE(rt);
  policy::Time now{0};
  rt->start(now);
  run(*rt, now, 30);
  EXPECT_EQ(t.read_int("devices/system/cpu/intel_pstate/max_perf_pct"), 100);
  EXPECT_EQ(t.read_int("class/powercap/intel-rapl:0/constraint_0_power_limit_uw"), 15000000);
  t.thermal_zone(0, "acpitz", 60000);  // skin estimate well above 47 °C
  t.thermal_zone(5, "x86_pkg_temp", 90000);
  t.write("class/power_supply/BAT0/temp", 450);
  run(*rt, now, 300);
  EXPECT_LT(t.read_int("devices/system/cpu/intel_pstate/max_perf_pct"), 100);
  EXPECT_LT(t.read_int("class/powercap/intel-rapl:0/constraint_0_power_limit_uw"), 15000000);
  EXPECT_LT(t.read_int("class/drm/card0/gt_max_freq_mhz"), 1100);
  rt->restore_all();
  EXPECT_EQ(t.read_int("class/backlight/intel_backlight/brightness"), 12000);
  EXPECT_EQ(t.read_int("class/powercap/intel-rapl:0/constraint_0_power_limit_uw"), 15000000);
}

void amd_apu(FakeTree& t, int hwmon, std::int64_t cap_uw, std::int64_t min_uw,
             std::int64_t max_uw) {
  const std::string d = "class/hwmon/hwmon" + std::to_string(hwmon) + "/";
  t.hwmon(hwmon, "amdgpu");
  t.write(d + "temp1_label", "edge");
  t.write(d + "temp1_input", 45000);
  t.write(d + "power1_cap", cap_uw);
  t.write(d + "power1_cap_min", min_uw);
  t.write(d + "power1_cap_max", max_uw);
}

TEST(ShippedPolicies, AmdHandheld) {
  FakeTree t;
  t.hwmon(0, "k10temp");
  t.write("class/hwmon/hwmon0/temp1_label", "Tctl");
  t.write("class/hwmon/hwmon0/temp1_input", 50000);
  amd_apu(t, 3, 25000000, 4000000, 30000000);
  t.write("class/power_supply/BAT0/temp", 300);
  t.write("class/power_supply/BAT0/constant_charge_current_max", 3000000);
  t.write("class/backlight/amdgpu_bl0/brightness", 200);
  t.write("class/backlight/amdgpu_bl0/max_brightness", 255);
  FaultySysfs fs(t.root());
  Logger log;
  log.capture();
  auto rt = bind("amd-handheld.yaml", fs, log);
  ASSERT_TRUE(rt);
  policy::Time now{0};
  rt->start(now);
  run(*rt, now, 30);
  EXPECT_EQ(t.read_int("class/hwmon/hwmon3/power1_cap"), 25000000);
  t.write("class/hwmon/hwmon0/temp1_input", 95000);
  t.write("class/power_supply/BAT0/temp", 450);
  run(*rt, now, 300);
  EXPECT_LT(t.read_int("class/hwmon/hwmon3/power1_cap"), 25000000);
  EXPECT_GE(t.read_int("class/hwmon/hwmon3/power1_cap"), 5000000);
  rt->restore_all();
  EXPECT_EQ(t.read_int("class/hwmon/hwmon3/power1_cap"), 25000000);
}

TEST(ShippedPolicies, SteamDeck) {
  FakeTree t;
  t.hwmon(0, "acpitz");
  amd_apu(t, 4, 15000000, 3000000, 15000000);
  t.thermal_zone(0, "acpitz", 40000);
  t.write("class/power_supply/BAT1/temp", 310);
  t.write("class/power_supply/BAT1/constant_charge_current_max", 2500000);
  FaultySysfs fs(t.root());
  Logger log;
  log.capture();
  auto rt = bind("steam-deck.yaml", fs, log);  // no backlight: optional
  ASSERT_TRUE(rt);
  policy::Time now{0};
  rt->start(now);
  run(*rt, now, 30);
  EXPECT_EQ(t.read_int("class/hwmon/hwmon4/power1_cap"), 15000000);
  t.write("class/hwmon/hwmon4/temp1_input", 90000);
  t.write("class/power_supply/BAT1/temp", 450);
  run(*rt, now, 300);
  EXPECT_LT(t.read_int("class/hwmon/hwmon4/power1_cap"), 15000000);
  EXPECT_LT(t.read_int("class/power_supply/BAT1/constant_charge_current_max"), 2500000);
  rt->restore_all();
  EXPECT_EQ(t.read_int("class/hwmon/hwmon4/power1_cap"), 15000000);
}

}  // namespace
}  // namespace coolhand::daemon
