// Zones: trip hysteresis edges and events, the severity ladder up and down,
// critical-action debounce (N-1 readings do not fire, N do, once per
// excursion), and the overall severity.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing::zones_test {
namespace {

TripSpec trip(std::string name, std::int32_t threshold, std::int32_t hysteresis,
              TripAction action = TripAction::none, std::uint32_t debounce = 1) {
  TripSpec t;
  t.name = std::move(name);
  t.threshold = mc(threshold);
  t.hysteresis = mc(hysteresis);
  t.action = action;
  t.debounce_samples = debounce;
  return t;
}

PolicySpec zone_spec(std::vector<TripSpec> trips, std::vector<SeverityStepSpec> severities = {}) {
  PolicySpec spec;
  spec.sensors = {physical("t"), physical("u")};
  ZoneSpec z;
  z.name = "skin";
  z.sensor = "t";
  z.trips = std::move(trips);
  z.severities = std::move(severities);
  ZoneSpec other;
  other.name = "battery";
  other.sensor = "u";
  other.severities = {{Severity::moderate, mc(40000), mc(0)}};
  spec.zones = {z, other};
  return spec;
}

TEST(Trips, HysteresisEdgesAndEvents) {
  Rig rig(zone_spec({trip("passive", 45000, 2000)}));
  ASSERT_TRUE(rig.ok());
  struct Case {
    std::int32_t temp;
    bool reached;
    std::optional<Event::Kind> event;
  };
  const std::vector<Case> cases = {
      {44999, false, std::nullopt},         // threshold - 1
      {45000, true, Event::Kind::trip_up},  // exactly at threshold
      {45500, true, std::nullopt},          // no repeated event
      {43000, true, std::nullopt},          // threshold - hysteresis: still reached
      {42999, false, Event::Kind::trip_down},
      {44999, false, std::nullopt},  // inside the band from below: not reached
      {45000, true, Event::Kind::trip_up},
  };
  rig.set("u", 20000, ms(0));
  std::int64_t t = 0;
  for (const Case& c : cases) {
    const Decision& d = rig.feed("t", c.temp, ms(t++));
    EXPECT_EQ(d.zones[0].trips_reached & 1U, c.reached ? 1U : 0U) << "T=" << c.temp;
    const auto ups = events_of(d, Event::Kind::trip_up);
    const auto downs = events_of(d, Event::Kind::trip_down);
    EXPECT_EQ(ups.size() + downs.size(), c.event ? 1U : 0U) << "T=" << c.temp;
    if (c.event) {
      const Event& e = ups.empty() ? downs[0] : ups[0];
      EXPECT_EQ(e.kind, *c.event);
      EXPECT_EQ(e.index, 0);
      EXPECT_EQ(e.detail, 0);
      EXPECT_EQ(e.temperature, mc(c.temp));
    }
  }
}

TEST(Severity, LadderUpAndDownWithHysteresis) {
  Rig rig(zone_spec({}, {{Severity::light, mc(40000), mc(1000)},
                         {Severity::moderate, mc(45000), mc(1000)},
                         {Severity::severe, mc(50000), mc(2000)}}));
  ASSERT_TRUE(rig.ok());
  rig.set("u", 20000, ms(0));
  struct Case {
    std::int32_t temp;
    Severity level;
    bool event;
  };
  const std::vector<Case> cases = {
      {39999, Severity::none, false},     {40000, Severity::light, true},
      {39000, Severity::light, false},  // threshold - hysteresis: kept
      {38999, Severity::none, true},      {50000, Severity::severe, true},  // jumps two rungs up
      {48000, Severity::severe, false},                                     // 50 - 2: kept
      {47999, Severity::moderate, true},  // one rung down (45 - 1 = 44 holds moderate)
      {44000, Severity::moderate, false}, {43999, Severity::light, true},
      {30000, Severity::none, true},  // several rungs down at once
  };
  std::int64_t t = 0;
  for (const Case& c : cases) {
    const Decision& d = rig.feed("t", c.temp, ms(t++));
    EXPECT_EQ(d.zones[0].severity, c.level) << "T=" << c.temp;
    const auto ev = events_of(d, Event::Kind::severity_change);
    ASSERT_EQ(ev.size(), c.event ? 1U : 0U) << "T=" << c.temp;
    if (c.event) {
      EXPECT_EQ(ev[0].detail, static_cast<std::uint16_t>(c.level));
    }
  }
}

TEST(Severity, OverallIsTheMaximumOverZones) {
  Rig rig(zone_spec({}, {{Severity::light, mc(40000), mc(0)}}));
  ASSERT_TRUE(rig.ok());
  rig.set("t", 41000, ms(0));
  rig.set("u", 20000, ms(0));
  EXPECT_EQ(rig.step(ms(0)).severity, Severity::light);
  rig.set("u", 41000, ms(1));
  EXPECT_EQ(rig.step(ms(1)).severity, Severity::moderate);
  rig.set("t", 20000, ms(2));
  rig.set("u", 20000, ms(2));
  EXPECT_EQ(rig.step(ms(2)).severity, Severity::none);
}

class Debounce : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(Debounce, FiresAfterNReadingsOncePerExcursion) {
  const std::uint32_t n = GetParam();
  Rig rig(zone_spec({trip("crit", 60000, 5000, TripAction::shutdown, n)}));
  ASSERT_TRUE(rig.ok());
  rig.set("u", 20000, ms(0));
  std::int64_t t = 0;
  // N-1 readings at or above the threshold do not fire.
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    const Decision& d = rig.feed("t", 60000 + static_cast<std::int32_t>(i), ms(t++));
    EXPECT_TRUE(d.actions.empty()) << "reading " << i + 1;
    EXPECT_TRUE(d.next_step.has_value()) << "debouncing asks for readings";
  }
  // Steps without a new reading do not count.
  EXPECT_TRUE(rig.step(ms(t++)).actions.empty());
  // The N-th reading fires.
  Decision d = rig.feed("t", 61000, ms(t++));
  ASSERT_EQ(d.actions.size(), 1U);
  EXPECT_EQ(d.actions[0].action, TripAction::shutdown);
  EXPECT_EQ(d.actions[0].zone, ZoneId{0});
  EXPECT_EQ(d.actions[0].trip, 0);
  EXPECT_EQ(events_of(d, Event::Kind::action_fired).size(), 1U);
  // Not again while the excursion lasts, even dipping below the threshold
  // but not below threshold - hysteresis.
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(rig.feed("t", 62000, ms(t++)).actions.empty());
  EXPECT_TRUE(rig.feed("t", 55000, ms(t++)).actions.empty());
  for (std::uint32_t i = 0; i < n + 2; ++i)
    EXPECT_TRUE(rig.feed("t", 60000, ms(t++)).actions.empty());
  // A new excursion fires again.
  rig.feed("t", 54999, ms(t++));
  for (std::uint32_t i = 0; i + 1 < n; ++i)
    EXPECT_TRUE(rig.feed("t", 60000, ms(t++)).actions.empty());
  EXPECT_EQ(rig.feed("t", 60000, ms(t++)).actions.size(), 1U);
}

INSTANTIATE_TEST_SUITE_P(Samples, Debounce, ::testing::Values(1U, 2U, 3U, 5U));

TEST(DebounceCount, AReadingBelowTheThresholdRestartsIt) {
  Rig rig(zone_spec({trip("crit", 60000, 5000, TripAction::suspend, 3)}));
  ASSERT_TRUE(rig.ok());
  rig.set("u", 20000, ms(0));
  EXPECT_TRUE(rig.feed("t", 60000, ms(0)).actions.empty());
  EXPECT_TRUE(rig.feed("t", 60000, ms(1)).actions.empty());
  EXPECT_TRUE(rig.feed("t", 59999, ms(2)).actions.empty());  // restart
  EXPECT_TRUE(rig.feed("t", 60000, ms(3)).actions.empty());
  EXPECT_TRUE(rig.feed("t", 60000, ms(4)).actions.empty());
  const Decision& d = rig.feed("t", 60000, ms(5));
  ASSERT_EQ(d.actions.size(), 1U);
  EXPECT_EQ(d.actions[0].action, TripAction::suspend);
}

TEST(Zones, UnknownSensorKeepsState) {
  Rig rig(zone_spec({trip("hot", 50000, 1000)}, {{Severity::light, mc(40000), mc(0)}}));
  ASSERT_TRUE(rig.ok());
  rig.set("u", 20000, ms(0));
  rig.feed("t", 55000, ms(0));
  rig.engine->set_sensor_unknown(rig.sensor("t"), ms(1));
  const Decision& d = rig.step(ms(1));
  EXPECT_FALSE(d.zones[0].temperature.has_value());
  EXPECT_EQ(d.zones[0].trips_reached, 1U);
  EXPECT_EQ(d.zones[0].severity, Severity::light);
}

TEST(Strings, SeverityRoundTrip) {
  for (std::size_t i = 0; i < kSeverityCount; ++i) {
    const auto s = static_cast<Severity>(i);
    EXPECT_EQ(severity_from_string(to_string(s)), s);
  }
  EXPECT_FALSE(severity_from_string("warm").has_value());
  EXPECT_EQ(to_string(Event::Kind::action_fired), "action_fired");
  EXPECT_EQ(to_string(TripAction::force_deepest), "force_deepest");
  EXPECT_EQ(to_string(ControllerSpec::Kind::power_budget), "power_budget");
  EXPECT_EQ(to_string(SensorSpec::Kind::predictor), "predictor");
}

}  // namespace
}  // namespace coolhand::policy::testing::zones_test
