// step() must not touch the heap in steady state: every buffer is sized by
// compile(). This file replaces the global operator new/delete of the test
// binary with counting versions (they only count while a test asks).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "rig.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace coolhand::policy::testing {
namespace {

using SK = SensorSpec::Kind;
using CK = ControllerSpec::Kind;

PolicySpec everything() {
  PolicySpec spec;
  SensorSpec ema = virtual_sensor("avg", SK::ema, {"a"});
  ema.time_constant = Millis(5000);
  SensorSpec fir = virtual_sensor("est", SK::fir, {"a", "b"}, {0.3, 0.2, 0.3, 0.2});
  fir.taps = 2;
  fir.tap_period = Millis(1000);
  SensorSpec pred = virtual_sensor("pred", SK::predictor, {"est"});
  pred.horizon = Millis(10000);
  pred.window = Millis(5000);
  spec.sensors = {physical("a"), physical("b"),
                  ema,           fir,
                  pred,          virtual_sensor("sum", SK::weighted_sum, {"a", "b"}, {0.5, 0.5})};
  DeviceSpec cpu = device("cpu", 3);
  cpu.power_mw = {3000, 2000, 1000, 500};
  cpu.max_step_up = 1;
  cpu.min_dwell = Millis(300);
  DeviceSpec screen = device("screen", 2);
  screen.power_mw = {1500, 1000, 600};
  screen.performance = {1.0, 0.9, 0.7};
  spec.devices = {cpu, device("gpu", 3), screen};
  ControllerSpec pid = controller("pid", CK::pid, "avg", {"gpu"});
  pid.setpoint = mc(50000);
  pid.kp = 0.5;
  pid.ki = 0.01;
  ControllerSpec pa = controller("pa", CK::power_budget, "pred", {"cpu"});
  pa.setpoint = mc(50000);
  pa.switch_on = mc(45000);
  pa.sustainable_power_mw = 2000;
  pa.kp_over_mw = 300;
  ControllerSpec sw = controller("sw", CK::step_wise, "z", {"gpu", "cpu"});
  sw.threshold = mc(52000);
  sw.hysteresis = mc(2000);
  ControllerSpec tab = controller("tab", CK::table, "sum", {"cpu"});
  tab.table = {{mc(48000), mc(46000), 1}, {mc(53000), mc(51000), 2}};
  ControllerSpec bb = controller("bb", CK::bang_bang, "b", {"gpu"});
  bb.threshold = mc(55000);
  spec.controllers = {pid, pa, sw, tab, bb};
  ZoneSpec z;
  z.name = "z";
  z.sensor = "est";
  TripSpec crit;
  crit.name = "crit";
  crit.threshold = mc(56000);
  crit.hysteresis = mc(3000);
  crit.action = TripAction::force_deepest;
  crit.devices = {"cpu"};
  crit.debounce_samples = 2;
  z.trips = {crit};
  z.severities = {{Severity::light, mc(45000), mc(1000)}, {Severity::severe, mc(55000), mc(1000)}};
  z.last_resort = LastResortSpec{
      .limit = mc(54000), .hysteresis = mc(2000), .hold = Millis(500), .devices = {"screen"}};
  spec.zones = {z};
  ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = mc(-3000);
  spec.profiles = {quiet};
  return spec;
}

TEST(Allocation, StepDoesNotAllocateInSteadyState) {
  Rig rig(everything());
  ASSERT_TRUE(rig.ok());
  // Temperatures sweep 35..65 °C so every element changes state, a sensor
  // is lost and found, and the profile flips.
  std::uint32_t escalated_steps = 0;
  const auto drive = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t n = from; n < to; ++n) {
      const std::int64_t phase = n % 600;
      const auto temp =
          static_cast<std::int32_t>(35000 + 100 * (phase < 300 ? phase : 600 - phase));
      rig.set("a", temp, ms(n * 100));
      if (n % 50 == 7) {
        rig.engine->set_sensor_unknown(rig.sensor("b"), ms(n * 100));
      } else {
        rig.set("b", temp - 2000, ms(n * 100));
      }
      if (n % 400 == 0) rig.engine->set_profile((n / 400) % 2 == 0 ? "quiet" : "");
      if (rig.step(ms(n * 100)).zones[0].last_resort_levels > 0) ++escalated_steps;
    }
  };
  drive(0, 3000);  // warm-up: rings fill, every path runs once
  g_allocations = 0;
  g_counting = true;
  drive(3000, 6000);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_GT(escalated_steps, 0U);  // the last resort ran too
}

TEST(Allocation, CounterWorks) {
  g_allocations = 0;
  g_counting = true;
  auto* p = new int(3);
  g_counting = false;
  delete p;
  EXPECT_EQ(g_allocations.load(), 1);
}

}  // namespace
}  // namespace coolhand::policy::testing
