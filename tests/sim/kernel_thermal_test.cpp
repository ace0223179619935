// The 6.1 governors' rules on crafted temperature traces: step_wise trends,
// bang_bang hysteresis, fair_share's level formula, power_allocator's PID
// with estimated defaults and its divvy-up, and the core's polling delays;
// then where the 6.13+ rules (--kernel 7.3) answer otherwise.
#include "coolhand/sim/kernel_thermal.h"

#include <gtest/gtest.h>

namespace coolhand::sim::kernel_thermal_test {
namespace {

using policy::MilliC;

KernelTripSpec trip(std::string name, KernelTripSpec::Type type, double c, double hyst = 0) {
  KernelTripSpec t;
  t.name = std::move(name);
  t.type = type;
  t.temp = MilliC::from_celsius(c);
  t.hyst = MilliC::from_celsius(hyst);
  return t;
}

KernelCoolingMap map(std::string trip_name, std::string device, std::uint32_t weight = 0) {
  KernelCoolingMap m;
  m.trip = std::move(trip_name);
  m.device = std::move(device);
  m.weight = weight;
  return m;
}

CoolingDevice cdev(std::string name, std::uint32_t max_state, std::vector<std::uint32_t> power = {},
                   PowerActor actor = PowerActor::none) {
  return CoolingDevice{std::move(name), max_state, std::move(power), actor};
}

constexpr auto kPassive = KernelTripSpec::Type::passive;
constexpr auto kCritical = KernelTripSpec::Type::critical;

KernelZoneSpec one_trip_zone() {
  KernelZoneSpec z;
  z.name = "skin";
  z.polling_delay = policy::Millis(1000);
  z.passive_delay = policy::Millis(250);
  z.trips = {trip("hot", kPassive, 40.0, 2.0)};
  z.cooling = {map("hot", "cpu")};
  return z;
}

// ---------------------------------------------------------------- step_wise

TEST(StepWiseTest, RisesOneStepPerUpdateWhileAboveTripAndRising) {
  KernelThermal k({cdev("cpu", 3)});
  const auto z = k.add_zone(one_trip_zone(), Governor::step_wise);
  k.update_zone(z, MilliC(39000));  // first pass, below: no target
  EXPECT_EQ(k.instance_target(z, 0), std::nullopt);
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_EQ(k.next_delay(z), policy::Millis(1000));
  k.update_zone(z, MilliC(40000));  // throttle and rising
  EXPECT_EQ(k.cur_state(0), 1u);
  EXPECT_EQ(k.next_delay(z), policy::Millis(250));  // passive polling now
  k.update_zone(z, MilliC(40500));
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(41000));
  k.update_zone(z, MilliC(42000));
  EXPECT_EQ(k.cur_state(0), 3u);  // clamped to upper
}

TEST(StepWiseTest, HoldsWhenStableOrDroppingAboveTrip) {
  KernelThermal k({cdev("cpu", 5)});
  const auto z = k.add_zone(one_trip_zone(), Governor::step_wise);
  k.update_zone(z, MilliC(41000));  // first pass above: cur + 1
  k.update_zone(z, MilliC(42000));
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(42000));  // stable: keep
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(41000));  // dropping but still throttling: keep
  EXPECT_EQ(k.cur_state(0), 2u);
}

TEST(StepWiseTest, StepsDownOnlyWhileBelowTripAndDropping) {
  KernelThermal k({cdev("cpu", 5)});
  const auto z = k.add_zone(one_trip_zone(), Governor::step_wise);
  k.update_zone(z, MilliC(41000));
  k.update_zone(z, MilliC(42000));
  k.update_zone(z, MilliC(43000));
  EXPECT_EQ(k.cur_state(0), 3u);
  k.update_zone(z, MilliC(39000));  // below trip (6.1 ignores hysteresis here) and dropping
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(39500));  // below but rising: keep
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(39500));  // stable: keep
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(39000));
  k.update_zone(z, MilliC(38000));
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_EQ(k.instance_target(z, 0), std::optional<std::uint32_t>(0));  // still engaged
  EXPECT_EQ(k.next_delay(z), policy::Millis(250));
  k.update_zone(z, MilliC(37000));  // at lower and dropping: deactivated
  EXPECT_EQ(k.instance_target(z, 0), std::nullopt);
  EXPECT_EQ(k.next_delay(z), policy::Millis(1000));
}

TEST(StepWiseTest, DeepestTargetWinsAcrossZones) {
  KernelThermal k({cdev("cpu", 5)});
  const auto a = k.add_zone(one_trip_zone(), Governor::step_wise);
  auto other = one_trip_zone();
  other.name = "soc";
  other.trips = {trip("hot", kPassive, 80.0)};
  const auto b = k.add_zone(other, Governor::step_wise);
  k.update_zone(a, MilliC(41000));
  k.update_zone(b, MilliC(50000));
  EXPECT_EQ(k.cur_state(0), 1u);
  k.update_zone(a, MilliC(42000));
  EXPECT_EQ(k.cur_state(0), 2u);
}

TEST(StepWiseTest, RespectsLowerAndUpperLimits) {
  auto spec = one_trip_zone();
  spec.cooling[0].lower = 1;
  spec.cooling[0].upper = 2;
  KernelThermal k({cdev("cpu", 5)});
  const auto z = k.add_zone(spec, Governor::step_wise);
  k.update_zone(z, MilliC(41000));
  EXPECT_EQ(k.cur_state(0), 1u);
  for (int t = 42000; t < 50000; t += 1000) k.update_zone(z, MilliC(t));
  EXPECT_EQ(k.cur_state(0), 2u);
}

// ---------------------------------------------------------------- bang_bang

TEST(BangBangTest, HysteresisBetweenTripAndTripMinusHyst) {
  KernelThermal k({cdev("fan", 1)});
  auto spec = one_trip_zone();
  spec.cooling = {map("hot", "fan")};
  const auto z = k.add_zone(spec, Governor::bang_bang);
  k.update_zone(z, MilliC(39999));
  EXPECT_EQ(k.cur_state(0), 0u);
  k.update_zone(z, MilliC(40000));  // T >= trip: on
  EXPECT_EQ(k.cur_state(0), 1u);
  k.update_zone(z, MilliC(38001));  // above trip - hyst: stays on
  EXPECT_EQ(k.cur_state(0), 1u);
  k.update_zone(z, MilliC(38000));  // T <= trip - hyst: off
  EXPECT_EQ(k.cur_state(0), 0u);
  k.update_zone(z, MilliC(39000));  // inside the band: stays off
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_EQ(k.next_delay(z), policy::Millis(1000));  // bang_bang never sets passive
}

TEST(BangBangTest, MultiStateDeviceOnlyGetsStateOne) {
  KernelThermal k({cdev("cpu", 7)});
  const auto z = k.add_zone(one_trip_zone(), Governor::bang_bang);
  for (int t = 40000; t < 60000; t += 2000) k.update_zone(z, MilliC(t));
  EXPECT_EQ(k.cur_state(0), 1u);
}

// --------------------------------------------------------------- fair_share

TEST(FairShareTest, LevelFormulaWithWeights) {
  KernelZoneSpec spec;
  spec.name = "skin";
  spec.trips = {trip("t0", kPassive, 40), trip("t1", kPassive, 42), trip("t2", kPassive, 44),
                trip("crit", kCritical, 60)};
  spec.cooling = {map("t2", "cpu", 3), map("t2", "gpu", 1)};
  KernelThermal k({cdev("cpu", 10), cdev("gpu", 8)});
  const auto z = k.add_zone(spec, Governor::fair_share);
  k.update_zone(z, MilliC(39000));  // level 0
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_EQ(k.cur_state(1), 0u);
  k.update_zone(z, MilliC(40000));  // level 1 of 4 trips
  // cpu: 75% * 1 * 10 / (100 * 4) = 1 (750/400); gpu: 25 * 1 * 8 / 400 = 0
  EXPECT_EQ(k.cur_state(0), 1u);
  EXPECT_EQ(k.cur_state(1), 0u);
  k.update_zone(z, MilliC(44500));  // level 3
  // cpu: 75*3*10/400 = 5; gpu: 25*3*8/400 = 1
  EXPECT_EQ(k.cur_state(0), 5u);
  EXPECT_EQ(k.cur_state(1), 1u);
  k.update_zone(z, MilliC(41000));  // level 1 again: no hysteresis, no trend
  EXPECT_EQ(k.cur_state(0), 1u);
}

TEST(FairShareTest, EqualSharesWhenWeightsAreDefault) {
  KernelZoneSpec spec;
  spec.name = "skin";
  spec.trips = {trip("t0", kPassive, 40), trip("t1", kPassive, 45)};
  spec.cooling = {map("t1", "cpu"), map("t1", "gpu")};
  KernelThermal k({cdev("cpu", 10), cdev("gpu", 10)});
  const auto z = k.add_zone(spec, Governor::fair_share);
  k.update_zone(z, MilliC(46000));  // level 2 of 2: 50 * 2 * 10 / 200 = 5
  EXPECT_EQ(k.cur_state(0), 5u);
  EXPECT_EQ(k.cur_state(1), 5u);
}

// ---------------------------------------------------------- power_allocator

KernelZoneSpec ipa_zone() {
  KernelZoneSpec z;
  z.name = "skin";
  z.passive_delay = policy::Millis(100);
  z.polling_delay = policy::Millis(1000);
  z.trips = {trip("switch_on", kPassive, 40), trip("control", kPassive, 45),
             trip("crit", kCritical, 70)};
  z.cooling = {map("control", "cpu"), map("control", "gpu"), map("control", "panel")};
  return z;
}

TEST(PowerAllocatorTest, EstimatesDefaultsFromDeepestStates) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq),
                   cdev("gpu", 1, {4000, 500}, PowerActor::devfreq)});
  const auto z = k.add_zone(ipa_zone(), Governor::power_allocator);
  k.set_load(0, 100);               // requested 3000 * 100 / 100
  k.set_load(1, 1024);              // requested 4000 * 1024 >> 10
  k.update_zone(z, MilliC(45000));  // at the control temperature: err = 0
  const auto& s = k.ipa(z);
  EXPECT_EQ(s.sustainable_power_mw, 1500u);    // 1000 + 500
  EXPECT_EQ(s.k_po, (1500 << 10) / 5000);      // 307
  EXPECT_EQ(s.k_pu, (2 * 1500 << 10) / 5000);  // 614
  EXPECT_EQ(s.k_i, 61);                        // k_pu / 10
  EXPECT_EQ(s.power_range_mw, 1500u);          // sustainable + 0
  // Divvy in proportion to requests: 1500 * 3/7 = 643, 1500 * 4/7 = 857.
  ASSERT_EQ(s.granted_mw.size(), 2u);  // the panel is no power actor: not bound
  EXPECT_EQ(s.granted_mw[0], 643u);
  EXPECT_EQ(s.granted_mw[1], 857u);
  EXPECT_EQ(k.cur_state(0), 2u);  // 643 < 1000: deepest
  EXPECT_EQ(k.cur_state(1), 1u);  // 857 >= 500
  EXPECT_EQ(k.next_delay(z), policy::Millis(100));
}

TEST(PowerAllocatorTest, ProportionalAndIntegralTerms) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq),
                   cdev("gpu", 1, {4000, 500}, PowerActor::devfreq)});
  auto spec = ipa_zone();
  spec.sustainable_power_mw = 2000;
  const auto z = k.add_zone(spec, Governor::power_allocator);
  k.set_load(0, 100);  // requested 3000
  k.set_load(1, 768);  // requested 4000 * 768 >> 10 = 3000
  // Undershoot by 2 °C: no integration (err >= integral_cutoff = 0).
  k.update_zone(z, MilliC(43000));
  const std::int64_t k_pu = (2 * 2000 << 10) / 5000;  // 819
  const std::int64_t err = 2000 << 10;
  EXPECT_EQ(k.ipa(z).power_range_mw,
            2000u + static_cast<std::uint32_t>(((k_pu * err) >> 10) >> 10));
  // Overshoot by 1 °C: P with k_po, and the integral starts.
  k.update_zone(z, MilliC(46000));
  const std::int64_t k_po = (2000 << 10) / 5000;  // 409
  const std::int64_t k_i = k_pu / 10;             // 81
  const std::int64_t e2 = -(1000 << 10);
  const std::int64_t p2 = (k_po * e2) >> 10;
  const std::int64_t i2 = (k_i * e2) >> 10;
  EXPECT_EQ(static_cast<std::int64_t>(k.ipa(z).power_range_mw), 2000 + ((p2 + i2) >> 10));
  // Again: the integral doubles.
  k.update_zone(z, MilliC(46000));
  const std::int64_t i3 = (k_i * (2 * e2)) >> 10;
  EXPECT_EQ(static_cast<std::int64_t>(k.ipa(z).power_range_mw), 2000 + ((p2 + i3) >> 10));
}

TEST(PowerAllocatorTest, SurplusIsReDividedByHeadroom) {
  // gpu asks for more than it may get: its excess goes to the cpu.
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq),
                   cdev("gpu", 1, {1000, 500}, PowerActor::devfreq)});
  auto spec = ipa_zone();
  spec.sustainable_power_mw = 3000;
  const auto z = k.add_zone(spec, Governor::power_allocator);
  k.set_load(0, 25);    // requested 3000 * 25 / 100 = 750
  k.set_load(1, 1024);  // requested 1000
  EXPECT_EQ(k.requested_power_mw(0), 750u);
  EXPECT_EQ(k.requested_power_mw(1), 1000u);
  // budget 3000: cpu round(3000 * 750 / 1750) = 1286, gpu 1714 -> capped
  // 1000; surplus 714, headroom cpu 1714, gpu 0 -> cpu + 714 = 2000.
  k.update_zone(z, MilliC(45000));
  EXPECT_EQ(k.ipa(z).granted_mw[0], 2000u);
  EXPECT_EQ(k.ipa(z).granted_mw[1], 1000u);
  EXPECT_EQ(k.cur_state(0), 0u);  // 2000 at 25 % load is 8000 at full load
  EXPECT_EQ(k.cur_state(1), 0u);
}

TEST(PowerAllocatorTest, ReleasesBelowSwitchOn) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq)});
  auto spec = ipa_zone();
  spec.cooling = {map("control", "cpu")};
  const auto z = k.add_zone(spec, Governor::power_allocator);
  k.set_load(0, 100);
  k.update_zone(z, MilliC(50000));
  EXPECT_EQ(k.cur_state(0), 2u);
  EXPECT_TRUE(k.ipa(z).active);
  k.update_zone(z, MilliC(39000));
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_FALSE(k.ipa(z).active);
  EXPECT_EQ(k.next_delay(z), policy::Millis(1000));
}

// 6.1's get_sustainable_power re-estimates k_po, k_pu and k_i on the first
// allocation (the governor's copy of the sustainable power starts at 0), so
// gains written after registration do not survive it; k_d does.
TEST(PowerAllocatorTest, WrittenGainsLastUntilTheFirstAllocation) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq)});
  auto spec = ipa_zone();
  spec.cooling = {map("control", "cpu")};
  spec.sustainable_power_mw = 2000;
  spec.k_po = 5;
  spec.k_pu = 6;
  spec.k_i = 7;
  spec.k_d = 8;
  const auto z = k.add_zone(spec, Governor::power_allocator);
  EXPECT_EQ(k.ipa(z).k_po, 5);
  EXPECT_EQ(k.ipa(z).k_d, 8);
  k.set_load(0, 100);
  k.update_zone(z, MilliC(44000));
  EXPECT_EQ(k.ipa(z).k_po, (2000 << 10) / 5000);
  EXPECT_EQ(k.ipa(z).k_pu, (2 * 2000 << 10) / 5000);
  EXPECT_EQ(k.ipa(z).k_i, (2 * 2000 << 10) / 5000 / 10);
  EXPECT_EQ(k.ipa(z).k_d, 8);
}

// cpufreq_power2state and devfreq_cooling_power2state divide the grant by
// the last load before the table lookup.
TEST(PowerAllocatorTest, Power2StateNormalisesByLastLoad) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq),
                   cdev("gpu", 2, {3000, 2000, 1000}, PowerActor::devfreq)});
  k.set_load(0, 50);   // 1000 * 100 / 50 = 2000
  k.set_load(1, 512);  // (1000 << 10) / 512 = 2000
  EXPECT_EQ(k.power2state(0, 1000), 1u);
  EXPECT_EQ(k.power2state(1, 1000), 1u);
  EXPECT_EQ(k.power2state(0, 999), 2u);  // 1998: only the deepest state fits
  k.set_load(0, 0);                      // no load: divided by 1
  EXPECT_EQ(k.power2state(0, 30), 0u);
  k.set_load(1, 0);  // busy_time is at least 1
  EXPECT_EQ(k.power2state(1, 3), 0u);
  k.set_load(0, 100);
  k.set_load(1, 1024);
  EXPECT_EQ(k.power2state(0, 1999), 2u);  // full load: the plain table
  EXPECT_EQ(k.power2state(1, 2000), 1u);
  EXPECT_EQ(k.requested_power_mw(0), 3000u);
  EXPECT_EQ(k.requested_power_mw(1), 3000u);
}

TEST(GovernorNamesTest, RoundTrip) {
  for (auto g : {Governor::none, Governor::step_wise, Governor::bang_bang, Governor::fair_share,
                 Governor::power_allocator})
    EXPECT_EQ(governor_from_string(to_string(g)), g);
  EXPECT_EQ(governor_from_string("userspace"), std::nullopt);
}

TEST(NoneGovernorTest, NeverThrottles) {
  KernelThermal k({cdev("cpu", 3)});
  const auto z = k.add_zone(one_trip_zone(), Governor::none);
  for (int t = 30000; t < 90000; t += 5000) k.update_zone(z, MilliC(t));
  EXPECT_EQ(k.cur_state(0), 0u);
}

}  // namespace
}  // namespace coolhand::sim::kernel_thermal_test

// ------------------------------------------- the 6.13+ rules (--kernel 7.3)
// Each test picks a trace where 6.1's rule gives another answer (said in the
// comments); the rules are in kernel_thermal_73.cpp.
namespace coolhand::sim::kernel_thermal_test {
namespace {

constexpr auto k73 = KernelVersion::v7_3;

TEST(KernelVersionTest, ParsesBothNamesAndRefusesOthers) {
  EXPECT_EQ(kernel_version_from_string("6.1"), KernelVersion::v6_1);
  EXPECT_EQ(kernel_version_from_string("7.3"), KernelVersion::v7_3);
  EXPECT_EQ(kernel_version_from_string("6.13"), std::nullopt);
  EXPECT_EQ(kernel_version_from_string("6.16"), std::nullopt);
  EXPECT_EQ(to_string(KernelVersion::v7_3), "7.3");
}

TEST(StepWise73Test, HysteresisHoldsThrottlingAndCoolingDropsAtOnce) {
  KernelThermal k({cdev("cpu", 5)}, k73);
  const auto z = k.add_zone(one_trip_zone(), Governor::step_wise);  // trip 40, hyst 2
  k.update_zone(z, MilliC(41000));  // crossed up: passive trip reached, first pass: 1
  EXPECT_EQ(k.cur_state(0), 1u);
  EXPECT_EQ(k.next_delay(z), policy::Millis(250));
  k.update_zone(z, MilliC(42000));
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(39000));  // above 40 - 2 and dropping: cur - 1
  EXPECT_EQ(k.cur_state(0), 1u);
  k.update_zone(z, MilliC(39500));  // still throttling, rising: cur + 1 (6.1: keep 1)
  EXPECT_EQ(k.cur_state(0), 2u);
  k.update_zone(z, MilliC(37500));  // below 38: crossed down, no target at once (6.1: 1)
  EXPECT_EQ(k.cur_state(0), 0u);
  EXPECT_EQ(k.instance_target(z, 0), std::nullopt);
  EXPECT_EQ(k.next_delay(z), policy::Millis(1000));
}

TEST(BangBang73Test, SwitchesOnCrossingsOnly) {
  KernelThermal f({cdev("cpu", 3)}, k73);
  const auto fz = f.add_zone(one_trip_zone(), Governor::bang_bang);
  f.update_zone(fz, MilliC(39000));  // first manage: below threshold 40, off
  EXPECT_EQ(f.instance_target(fz, 0), std::optional<std::uint32_t>(0));
  f.update_zone(fz, MilliC(40000));  // crossed up: on, a 3-state device gets exactly 1
  EXPECT_EQ(f.cur_state(0), 1u);
  EXPECT_EQ(f.next_delay(fz), policy::Millis(250));  // a passive trip is reached
  f.update_zone(fz, MilliC(38000));  // at 40 - 2: still reached, on (6.1: off at <=)
  EXPECT_EQ(f.cur_state(0), 1u);
  f.update_zone(fz, MilliC(37999));  // crossed down: off
  EXPECT_EQ(f.cur_state(0), 0u);
  EXPECT_EQ(f.next_delay(fz), policy::Millis(1000));
}

TEST(FairShare73Test, LevelCountsFromMinusOne) {
  KernelThermal k({cdev("cpu", 10)}, k73);
  KernelZoneSpec spec = one_trip_zone();
  spec.trips = {trip("warm", kPassive, 40), trip("hot", kPassive, 50), trip("crit", kCritical, 60)};
  spec.cooling = {map("hot", "cpu")};
  const auto z = k.add_zone(spec, Governor::fair_share);
  k.update_zone(z, MilliC(45000));  // one trip reached: level 0 (6.1: 1, state 3)
  EXPECT_EQ(k.cur_state(0), 0u);
  k.update_zone(z, MilliC(55000));  // two: level 1, 1 * 10 / (3 trips * 1 instance)
  EXPECT_EQ(k.cur_state(0), 3u);
  k.update_zone(z, MilliC(60000));  // three, critical included: 2 * 10 / 3
  EXPECT_EQ(k.cur_state(0), 6u);
}

TEST(PowerAllocator73Test, NoRequestGrantsMaximumPower) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq)}, k73);
  auto spec = ipa_zone();
  spec.cooling = {map("control", "cpu")};
  const auto z = k.add_zone(spec, Governor::power_allocator);
  k.set_load(0, 0);                 // idle: requested power 0
  k.update_zone(z, MilliC(44000));  // above switch-on: allocate
  ASSERT_EQ(k.ipa(z).granted_mw.size(), 1u);
  EXPECT_EQ(k.ipa(z).granted_mw[0], 3000u);  // its state2power(lower) (6.1: 0)
  EXPECT_EQ(k.cur_state(0), 0u);             // (6.1: the deepest, 2)
}

TEST(PowerAllocator73Test, FirmwareSustainablePowerKeepsSysfsGains) {
  KernelThermal k({cdev("cpu", 2, {3000, 2000, 1000}, PowerActor::cpufreq)}, k73);
  auto spec = ipa_zone();
  spec.cooling = {map("control", "cpu")};
  spec.sustainable_power_mw = 2000;
  spec.k_po = 100;
  spec.k_pu = 200;
  spec.k_i = 7;
  const auto z = k.add_zone(spec, Governor::power_allocator);
  k.set_load(0, 100);
  k.update_zone(z, MilliC(44000));
  EXPECT_EQ(k.ipa(z).k_po, 100);  // 6.1 re-estimates them at the first allocation
  EXPECT_EQ(k.ipa(z).k_pu, 200);
  EXPECT_EQ(k.ipa(z).k_i, 7);
}

}  // namespace
}  // namespace coolhand::sim::kernel_thermal_test
