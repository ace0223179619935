// What the engine wants next: event windows (fine near a limit, coarse far
// from every limit, never spanning one, scaled through virtual sensors), poll
// intervals, and next_step (absent when everything is cool and settled).
#include <gtest/gtest.h>

#include <random>

#include "rig.h"

namespace coolhand::policy::testing::windows_test {
namespace {

using SK = SensorSpec::Kind;
using CK = ControllerSpec::Kind;

// A table on "t" with limits at 58 °C (down) and 60 °C (up); default sampling
// (fine 0.5 °C, coarse 5 °C, near 5 °C, polls 250 ms .. 30 s).
PolicySpec table_on(std::string input, std::vector<SensorSpec> sensors) {
  PolicySpec spec;
  spec.sensors = std::move(sensors);
  spec.devices = {device("d", 3)};
  ControllerSpec c = controller("tab", CK::table, std::move(input), {"d"});
  c.table = {{mc(60000), mc(58000), 2}};
  spec.controllers = {c};
  return spec;
}

std::pair<std::int32_t, std::int32_t> window(const Decision& d, SensorId id) {
  return {d.windows[id.index].low.mc(), d.windows[id.index].high.mc()};
}

TEST(Windows, FineNearCoarseFarNeverSpanning) {
  Rig rig(table_on("t", {physical("t")}));
  ASSERT_TRUE(rig.ok());
  struct Case {
    std::int32_t temp, low, high;
  };
  const std::vector<Case> cases = {
      {30000, 25000, 35000},  // far: coarse
      {52999, 47999, 57999},  // 5.001 °C below 58: coarse, clipped below the limit
      {53000, 52500, 53500},  // exactly near_distance from 58: fine
      {57800, 57300, 57999},  // fine, clipped: 58 is outside
      {57999, 57499, 57999}, {58000, 58000, 58500},  // at the limit: any fall below it is outside
      {59999, 59499, 59999},                         // 60 is outside
      {60000, 60000, 60500}, {70000, 65000, 75000},  // 10 °C past the last limit: coarse again
  };
  std::int64_t t = 0;
  for (const Case& c : cases) {
    const Decision& d = rig.feed("t", c.temp, ms(t += 1000));
    EXPECT_EQ(window(d, rig.sensor("t")), std::make_pair(c.low, c.high)) << "T=" << c.temp;
  }
}

TEST(Windows, ReportedInTheAdaptersUnits) {
  SensorSpec t = physical("t");
  t.offset = mc(-2000);  // the adapter reads 2 °C high
  Rig rig(table_on("t", {t}));
  ASSERT_TRUE(rig.ok());
  const Decision& d = rig.feed("t", 59800, ms(0));  // value 57.8 °C
  EXPECT_EQ(window(d, rig.sensor("t")), std::make_pair(59300, 59999));
}

TEST(Windows, UnknownSensorGetsTheFullRange) {
  Rig rig(table_on("t", {physical("t")}));
  ASSERT_TRUE(rig.ok());
  const Decision& d = rig.step(ms(0));
  EXPECT_EQ(d.windows[0].low, MilliC::min());
  EXPECT_EQ(d.windows[0].high, MilliC::max());
  EXPECT_EQ(d.poll_intervals[0], Millis(250));
}

TEST(Windows, ScaledByTheVirtualSensorsGain) {
  // skin = 2 * a: a change of a moves skin twice as far.
  Rig rig(
      table_on("skin", {physical("a"), virtual_sensor("skin", SK::weighted_sum, {"a"}, {2.0})}));
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("a", 20000, ms(0));  // skin 40: 18 °C from 58
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(15000, 25000));
  d = rig.feed("a", 25000, ms(1));  // skin 50: 8 °C (skin) = 3.9995 °C (a) of room
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(21001, 28999));
  d = rig.feed("a", 28000, ms(2));  // skin 56: near, room 1.999 °C -> 0.9995 in a
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(27500, 28500));
  d = rig.feed("a", 28900, ms(3));  // skin 57.8: room 0.199 -> 0.099
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(28801, 28999));
}

// skin = 0.5 * a + 0.5 * bv, bv = 0.2 * c with c optional and absent: the
// fallback makes skin = a, so a's window must allow for gain 1, not the 0.6
// (0.5 * 1 + 0.5 * 0.2) of the full sum, or a rise of a could cross the
// 58 °C limit of skin unreported.
TEST(Windows, ScaledByTheRenormalisedGainOfAnOptionalFallback) {
  SensorSpec c = physical("c");
  c.optional = true;
  Rig rig(table_on("skin", {physical("a"), c, virtual_sensor("bv", SK::weighted_sum, {"c"}, {0.2}),
                            virtual_sensor("skin", SK::weighted_sum, {"a", "bv"}, {0.5, 0.5})}));
  ASSERT_TRUE(rig.ok());
  const Decision& d = rig.feed("a", 57800, ms(0));  // skin 57.8 (c never read)
  ASSERT_EQ(rig.engine->sensor_value(rig.sensor("skin")), mc(57800));
  const auto [low, high] = window(d, rig.sensor("a"));
  EXPECT_LE(low, 57800);
  EXPECT_GE(high, 57800);
  EXPECT_LE(high, 57999);  // skin = a: 58 is outside
}

TEST(Windows, FirScaledBySumOfTaps) {
  SensorSpec f = virtual_sensor("f", SK::fir, {"a"}, {0.5, -0.5, 1.0});
  f.taps = 3;
  f.tap_period = Millis(1000);
  Rig rig(table_on("f", {physical("a"), f}));
  ASSERT_TRUE(rig.ok());
  const Decision& d = rig.feed("a", 50000, ms(0));  // f = 50: 8 °C of room, gain 2
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(46001, 53999));
}

// A fir row of zero weights (an input left for the fit to fill) cannot move
// f: b's window stays coarse however close f is to a limit, while a's is
// narrowed through f's gain. Counted as a dependency, b's window had been
// narrowed too, and every change of a fast b woke the engine for nothing.
TEST(Windows, ZeroWeightFirInputIsNoDependency) {
  SensorSpec f = virtual_sensor("f", SK::fir, {"a", "b"}, {1.0, 0.0});
  f.taps = 1;
  f.tap_period = Millis(1000);
  Rig rig(table_on("f", {physical("a"), physical("b"), f}));
  ASSERT_TRUE(rig.ok());
  rig.feed("b", 30000, ms(0));
  const Decision& d = rig.feed("a", 57800, ms(1));  // f = 57.8: 0.199 °C of room
  EXPECT_EQ(window(d, rig.sensor("a")), std::make_pair(57601, 57999));
  EXPECT_EQ(window(d, rig.sensor("b")), std::make_pair(25000, 35000));
}

// The same zero row over an input that changed: its change reaching tap 1
// (at 2.5 s) moves nothing, so only a's change reaching tap 1 (at 3 s),
// which carries f towards its limit, asks for a step.
TEST(NextStep, ZeroWeightFirTapSchedulesNoStep) {
  SensorSpec f = virtual_sensor("f", SK::fir, {"a", "b"}, {0.5, 0.5, 0.0, 0.0});
  f.taps = 2;
  f.tap_period = Millis(1000);
  Rig rig(table_on("f", {physical("a"), physical("b"), f}));
  ASSERT_TRUE(rig.ok());
  rig.set("a", 56000, ms(0));
  rig.set("b", 30000, ms(0));
  rig.step(ms(0));
  rig.feed("b", 31000, ms(1500));
  const Decision& d = rig.feed("a", 59000, ms(2000));  // f = 57.5, drifting to 59
  ASSERT_EQ(rig.engine->sensor_value(rig.sensor("f")), mc(57500));
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(*d.next_step, ms(3000));
}

// Sweeps values across the limits, through a direct and a virtual consumer:
// every value inside a reported window must be on the same side of every
// limit as the current value.
TEST(Windows, NeverSpanALimitProperty) {
  PolicySpec spec =
      table_on("t", {physical("t"), physical("a"), physical("b"),
                     virtual_sensor("mix", SK::weighted_sum, {"a", "b"}, {0.7, -0.4})});
  ZoneSpec z;
  z.name = "z";
  z.sensor = "mix";
  TripSpec trip;
  trip.name = "hot";
  trip.threshold = mc(20000);
  trip.hysteresis = mc(1500);
  z.trips = {trip};
  spec.zones = {z};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  const std::vector<std::int32_t> t_points = {58000, 60000};
  const std::vector<std::int32_t> mix_points = {18500, 20000};
  std::mt19937 rng(42);
  std::uniform_int_distribution<std::int32_t> temp(40000, 75000);
  for (int i = 0; i < 3000; ++i) {
    const Time now = ms(i);
    const std::int32_t t = temp(rng), a = temp(rng), b = temp(rng);
    rig.set("t", t, now);
    rig.set("a", a, now);
    rig.set("b", b, now);
    const Decision& d = rig.step(now);
    const auto [tl, th] = window(d, rig.sensor("t"));
    ASSERT_LE(tl, t);
    ASSERT_GE(th, t);
    for (std::int32_t x : t_points) ASSERT_EQ(tl >= x, th >= x) << "t window spans " << x;
    // Worst corners of the a/b windows for mix.
    const auto [al, ah] = window(d, rig.sensor("a"));
    const auto [bl, bh] = window(d, rig.sensor("b"));
    const double mix_now = 0.7 * a - 0.4 * b;
    const double mix_lo = 0.7 * al - 0.4 * bh;
    const double mix_hi = 0.7 * ah - 0.4 * bl;
    for (std::int32_t x : mix_points) {
      const bool above = std::lround(mix_now) >= x;
      ASSERT_EQ(std::lround(mix_lo) >= x, above) << "mix window spans " << x << " at i=" << i;
      ASSERT_EQ(std::lround(mix_hi) >= x, above) << "mix window spans " << x << " at i=" << i;
    }
  }
}

TEST(PollIntervals, ShortNearLongFarAndFastChanges) {
  Rig rig(table_on("t", {physical("t")}));
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("t", 30000, ms(0));
  EXPECT_EQ(d.poll_intervals[0], Millis(30000));  // far from every limit
  d = rig.feed("t", 57900, ms(100000));
  EXPECT_EQ(d.poll_intervals[0], Millis(250));  // 0.1 °C from a limit
  // 5.5 °C from the limit: dist - fine = 5000 of a 9500 span.
  d = rig.feed("t", 52500, ms(200000));
  EXPECT_NEAR(static_cast<double>(d.poll_intervals[0].count()), 250 + 29750.0 * 5000 / 9500, 1.0);
  // Far, but rising 1 °C/s: the coarse window edge (5 °C) is 5 s away.
  rig.feed("t", 30000, ms(300000));
  d = rig.feed("t", 31000, ms(301000));
  EXPECT_EQ(d.poll_intervals[0], Millis(5000));
}

TEST(PollIntervals, StaleAfterAndThrottlingControllersCapThem) {
  SensorSpec t = physical("t");
  t.stale_after = Millis(8000);
  PolicySpec spec = table_on("t", {t});
  ControllerSpec sw = controller("sw", CK::step_wise, "t", {"d"});
  sw.threshold = mc(90000);
  sw.period = Millis(2000);
  spec.controllers.push_back(sw);
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(rig.feed("t", 30000, ms(0)).poll_intervals[0], Millis(4000));
  // Now the table throttles (no period) and step_wise engages at 90 °C.
  rig.feed("t", 95000, ms(1000));
  const Decision& d = rig.feed("t", 95000, ms(3000));  // steady: no rate limit
  EXPECT_EQ(d.poll_intervals[0], Millis(2000));
}

// Every time-driven element at once, all cool and settled.
PolicySpec busy_policy() {
  PolicySpec spec;
  SensorSpec ema = virtual_sensor("avg", SK::ema, {"soc"});
  ema.time_constant = Millis(20000);
  SensorSpec fir = virtual_sensor("est", SK::fir, {"soc", "batt"}, {0.3, 0.2, 0.3, 0.2});
  fir.taps = 2;
  fir.tap_period = Millis(5000);
  SensorSpec pred = virtual_sensor("pred", SK::predictor, {"est"});
  pred.horizon = Millis(30000);
  pred.window = Millis(10000);
  spec.sensors = {physical("soc"), physical("batt"), ema, fir, pred};
  DeviceSpec cpu = device("cpu", 3);
  cpu.power_mw = {3000, 2000, 1000, 500};
  spec.devices = {cpu, device("gpu", 3)};
  ControllerSpec pid = controller("pid", CK::pid, "avg", {"gpu"});
  pid.setpoint = mc(70000);
  pid.kp = 0.5;
  ControllerSpec pa = controller("pa", CK::power_budget, "pred", {"cpu"});
  pa.setpoint = mc(45000);
  pa.switch_on = mc(42000);
  pa.sustainable_power_mw = 2000;
  ControllerSpec sw = controller("sw", CK::step_wise, "est", {"gpu"});
  sw.threshold = mc(50000);
  spec.controllers = {pid, pa, sw};
  ZoneSpec z;
  z.name = "skin";
  z.sensor = "est";
  TripSpec crit;
  crit.name = "crit";
  crit.threshold = mc(60000);
  crit.action = TripAction::shutdown;
  crit.debounce_samples = 3;
  z.trips = {crit};
  spec.zones = {z};
  return spec;
}

TEST(NextStep, AbsentWhenIdleAndCool) {
  Rig rig(busy_policy());
  ASSERT_TRUE(rig.ok());
  rig.set("soc", 35000, ms(0));
  rig.set("batt", 30000, ms(0));
  Decision d = rig.step(ms(0));
  EXPECT_FALSE(d.next_step.has_value());
  // A small change starts the fir and predictor moving; they settle by themselves.
  d = rig.feed("soc", 36000, ms(1000));
  ASSERT_TRUE(d.next_step.has_value());
  std::int64_t steps = 0;
  while (d.next_step && steps < 100) {
    d = rig.step(*d.next_step);
    ++steps;
  }
  EXPECT_FALSE(d.next_step.has_value());
  EXPECT_LT(steps, 10);
  for (const DeviceDecision& dev : d.devices) EXPECT_EQ(dev.level, 0U);
}

// What the daemon and simulator do: re-read every sensor when woken for
// next_step. Small noise in those readings must not keep a cool engine awake.
TEST(NextStep, ReReadingNoisySensorsLetsACoolEngineSleep) {
  Rig rig(busy_policy());
  ASSERT_TRUE(rig.ok());
  rig.set("soc", 35000, ms(0));
  rig.set("batt", 30000, ms(0));
  rig.step(ms(0));
  rig.set("soc", 36000, ms(1000));
  Decision d = rig.step(ms(1000));
  int wakeups = 0;
  while (d.next_step && wakeups < 100) {
    const Time t = *d.next_step;
    rig.set("soc", 36000 + 60 * (wakeups % 3), t);
    rig.set("batt", 30000 - 40 * (wakeups % 2), t);
    d = rig.step(t);
    ++wakeups;
  }
  EXPECT_FALSE(d.next_step.has_value());
  EXPECT_LT(wakeups, 5);
}

TEST(NextStep, PeriodicWhileAControllerIsEngaged) {
  Rig rig(busy_policy());
  ASSERT_TRUE(rig.ok());
  rig.set("soc", 69000, ms(0));  // the pid on "avg" engages (setpoint 70 - 5)
  rig.set("batt", 30000, ms(0));
  Decision d = rig.step(ms(0));
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 1000);
  d = rig.step(ms(1000));
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 2000);
}

TEST(NextStep, EmaSettlingTowardsALimit) {
  PolicySpec spec;
  SensorSpec ema = virtual_sensor("avg", SK::ema, {"t"});
  ema.time_constant = Millis(10000);
  spec.sensors = {physical("t"), ema};
  spec.devices = {device("d", 2)};
  ControllerSpec bb = controller("bb", CK::bang_bang, "avg", {"d"});
  bb.threshold = mc(50000);
  spec.controllers = {bb};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.feed("t", 40000, ms(0));
  // The input jumps past the threshold: the average will cross it, so the
  // engine steps until it has.
  Decision d = rig.feed("t", 55000, ms(1000));
  EXPECT_EQ(d.devices[0].level, 0U);
  int steps = 0;
  while (d.devices[0].level == 0 && d.next_step && steps < 1000) {
    d = rig.step(*d.next_step);
    ++steps;
  }
  EXPECT_EQ(d.devices[0].level, 2U);
  EXPECT_GT(steps, 1);
  // A small move far below the threshold needs no step while it settles.
  rig.feed("t", 20000, ms(1000000));
  d = rig.step(ms(2000000));
  EXPECT_FALSE(d.next_step.has_value());
  d = rig.feed("t", 21000, ms(2001000));
  EXPECT_FALSE(d.next_step.has_value());
}

}  // namespace
}  // namespace coolhand::policy::testing::windows_test
