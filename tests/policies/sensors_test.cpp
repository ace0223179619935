// Sensors: physical readings, offsets and staleness; every virtual kind with
// hand-computed values; unknown propagation; the safe-level fallback of
// controllers and its recovery; sensor_known/unknown events.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "rig.h"

namespace coolhand::policy::testing::sensors_test {
namespace {

using SK = SensorSpec::Kind;
using CK = ControllerSpec::Kind;

std::optional<std::int32_t> value(Rig& rig, std::string_view name) {
  const auto v = rig.engine->sensor_value(rig.sensor(name));
  return v ? std::optional<std::int32_t>(v->mc()) : std::nullopt;
}

TEST(Physical, OffsetAndStaleness) {
  PolicySpec spec;
  SensorSpec s = physical("t");
  s.offset = mc(-1500);
  s.stale_after = Millis(5000);
  spec.sensors = {s};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  EXPECT_EQ(value(rig, "t"), std::nullopt);
  rig.feed("t", 40000, ms(1000));
  EXPECT_EQ(value(rig, "t"), 38500);
  const Decision& d = rig.step(ms(6000));  // exactly stale_after old: still known
  EXPECT_EQ(value(rig, "t"), 38500);
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 6001);  // when it turns stale
  rig.step(ms(6001));
  EXPECT_EQ(value(rig, "t"), std::nullopt);
}

TEST(Physical, ReadingsForVirtualOrUnknownIdsAreIgnored) {
  PolicySpec spec;
  spec.sensors = {physical("a"), virtual_sensor("m", SK::max, {"a"})};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.engine->set_sensor(rig.sensor("m"), mc(99000), ms(0));
  rig.engine->set_sensor(SensorId{77}, mc(99000), ms(0));
  rig.engine->set_sensor_unknown(SensorId{77}, ms(0));
  rig.step(ms(0));
  EXPECT_EQ(value(rig, "m"), std::nullopt);
  EXPECT_FALSE(rig.engine->sensor_value(SensorId{77}).has_value());
}

PolicySpec three_inputs(SensorSpec v) {
  PolicySpec spec;
  spec.sensors = {physical("a"), physical("b"), physical("c"), std::move(v)};
  return spec;
}

void feed3(Rig& rig, std::int32_t a, std::int32_t b, std::int32_t c, Time t) {
  rig.set("a", a, t);
  rig.set("b", b, t);
  rig.set("c", c, t);
  rig.step(t);
}

TEST(Virtual, WeightedSumMaxMinWithOffset) {
  struct Case {
    SK kind;
    std::vector<double> weights;
    std::int32_t expected;
  };
  // a = 40 °C, b = 30 °C, c = 50 °C; offset +1 °C.
  const std::vector<Case> cases = {
      {SK::weighted_sum, {0.5, 0.25, 0.25}, 41000},  // 20 + 7.5 + 12.5 + 1
      {SK::weighted_sum, {1.0, -1.0, 0.0}, 11000},   // 40 - 30 + 1
      {SK::max, {}, 51000},
      {SK::min, {}, 31000},
  };
  for (const Case& c : cases) {
    SensorSpec v = virtual_sensor("v", c.kind, {"a", "b", "c"}, c.weights);
    v.offset = mc(1000);
    Rig rig(three_inputs(v));
    ASSERT_TRUE(rig.ok());
    feed3(rig, 40000, 30000, 50000, ms(0));
    EXPECT_EQ(value(rig, "v"), c.expected) << to_string(c.kind);
  }
}

TEST(Virtual, AnyUnknownInputMakesItUnknown) {
  for (SK kind : {SK::weighted_sum, SK::max, SK::min}) {
    SensorSpec v = virtual_sensor(
        "v", kind, {"a", "b", "c"},
        kind == SK::weighted_sum ? std::vector<double>{1, 1, 1} : std::vector<double>{});
    Rig rig(three_inputs(v));
    ASSERT_TRUE(rig.ok());
    rig.set("a", 40000, ms(0));
    rig.set("c", 40000, ms(0));
    rig.step(ms(0));
    EXPECT_EQ(value(rig, "v"), std::nullopt) << to_string(kind);
    rig.set("b", 40000, ms(1));
    rig.step(ms(1));
    EXPECT_TRUE(value(rig, "v").has_value()) << to_string(kind);
  }
}

TEST(Virtual, Ema) {
  PolicySpec spec;
  SensorSpec e = virtual_sensor("e", SK::ema, {"a"});
  e.time_constant = Millis(10000);
  spec.sensors = {physical("a"), e};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.feed("a", 30000, ms(0));
  EXPECT_EQ(value(rig, "e"), 30000);  // starts at the first value
  rig.feed("a", 40000, ms(10000));    // one time constant: 30 + 10 * (1 - e^-1)
  EXPECT_EQ(value(rig, "e"),
            static_cast<std::int32_t>(std::lround(30000 + 10000 * (1 - std::exp(-1.0)))));
  const double after1 = 30000 + 10000 * (1 - std::exp(-1.0));
  rig.step(ms(15000));  // input held at 40 for another 5 s
  const double after2 = after1 + (40000 - after1) * (1 - std::exp(-0.5));
  EXPECT_EQ(value(rig, "e"), static_cast<std::int32_t>(std::lround(after2)));
  rig.step(ms(1000000));  // settled exactly
  EXPECT_EQ(value(rig, "e"), 40000);
}

TEST(Virtual, FirOverHeldSamples) {
  PolicySpec spec;
  SensorSpec f = virtual_sensor("f", SK::fir, {"a", "b"}, {0.5, 0.3, 0.2, 1.0, 0.0, -1.0});
  f.taps = 3;
  f.tap_period = Millis(1000);
  spec.sensors = {physical("a"), physical("b"), f};
  // A consumer with its limit at 18 °C, so the fir's drift matters.
  spec.devices = {device("d", 1)};
  ControllerSpec bb = controller("bb", CK::bang_bang, "f", {"d"});
  bb.threshold = mc(18000);
  spec.controllers = {bb};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.set("a", 10000, ms(0));
  rig.set("b", 20000, ms(0));
  rig.step(ms(0));
  // Before any history every tap holds the first value:
  // a: (0.5+0.3+0.2)*10 = 10; b: (1+0-1)*20 = 0.
  EXPECT_EQ(value(rig, "f"), 10000);
  const Decision& d = rig.feed("a", 20000, ms(500));
  // a(now)=20, a(now-1s)=10, a(now-2s)=10 -> 10+3+2 = 15.
  EXPECT_EQ(value(rig, "f"), 15000);
  // It can still drift by 0.3*10 + 0.2*10 = 5 °C, more than the 2.999 °C
  // room below 18 °C: step when the change reaches tap 1.
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 1500);
  const Decision& d2 = rig.feed("b", 26000, ms(1500));
  // a: 0.5*20 + 0.3*20 + 0.2*10 = 18; b: 26 - 20 = 6.
  EXPECT_EQ(value(rig, "f"), 24000);
  // Drift 0.2*10 + 1*6 = 8 °C against 6 °C of room above 18.
  ASSERT_TRUE(d2.next_step.has_value());
  EXPECT_EQ(d2.next_step->count(), 2500);
  const Decision& d3 = rig.step(ms(2500));
  // a: all taps 20 except tap 2 (t=500: 20) -> 20; b: 26 + 0 - 20 = 6.
  EXPECT_EQ(value(rig, "f"), 26000);
  // Drift 6 °C against 8 °C of room: the last change cannot cross 18 °C, so
  // no step is needed for it.
  EXPECT_FALSE(d3.next_step.has_value());
  const Decision& settled = rig.step(ms(3500));
  EXPECT_EQ(value(rig, "f"), 20000);  // b: 26 - 26 = 0
  EXPECT_FALSE(settled.next_step.has_value());
}

// The fir rule of docs/engine.md evaluated the plain way: per input the
// changes since the last reset (at most 8·taps+2 kept), each tap the newest
// change at or before its time, else the oldest kept. The engine keeps a
// position per tap across steps instead of searching; both must agree on
// long random runs with bursts of changes (more than the ring holds), steps
// at the same time, and an input going unknown (which resets the history).
TEST(Virtual, FirMatchesTheRuleOnRandomRuns) {
  constexpr std::uint32_t kTaps = 4;
  constexpr std::int64_t kPeriodMs = 1000;
  constexpr std::size_t kKept = 8 * kTaps + 2;
  const std::vector<double> w = {0.4, -0.3, 0.25, 0.15, 1.1, 0.2, -0.6, 0.3};
  PolicySpec spec;
  SensorSpec f = virtual_sensor("f", SK::fir, {"a", "b"}, w);
  f.taps = kTaps;
  f.tap_period = Millis(kPeriodMs);
  f.offset = mc(250);
  spec.sensors = {physical("a"), physical("b"), f};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());

  struct Change {
    std::int64_t t;
    std::int32_t v;
  };
  std::vector<std::vector<Change>> changes(2);
  std::mt19937 rng(7);
  std::int64_t now = 0;
  std::int32_t a = 30000;
  std::int32_t b = 40000;
  bool b_known = true;
  int checked = 0;
  for (int n = 0; n < 4000; ++n) {
    const auto r = rng() % 100;
    // Mostly 0-200 ms apart (bursts), sometimes seconds or the same time.
    now += r < 5 ? 0 : r < 90 ? static_cast<std::int64_t>(rng() % 200) : 500 + rng() % 4000;
    if (rng() % 3 != 0) a += static_cast<std::int32_t>(rng() % 401) - 200;
    if (rng() % 5 == 0) b += static_cast<std::int32_t>(rng() % 201) - 100;
    if (rng() % (b_known ? 300 : 10) == 0) b_known = !b_known;
    rig.set("a", a, ms(now));
    if (b_known) {
      rig.set("b", b, ms(now));
    } else {
      rig.engine->set_sensor_unknown(rig.sensor("b"), ms(now));
    }
    rig.step(ms(now));

    if (!b_known) {
      for (auto& c : changes) c.clear();
      ASSERT_EQ(value(rig, "f"), std::nullopt) << "step " << n;
      continue;
    }
    const std::int32_t x[2] = {a, b};
    double sum = 0.0;
    for (std::size_t i = 0; i < 2; ++i) {
      auto& h = changes[i];
      if (h.empty() || h.back().v != x[i]) h.push_back({now, x[i]});
      const std::size_t first = h.size() > kKept ? h.size() - kKept : 0;
      for (std::uint32_t k = 0; k < kTaps; ++k) {
        const std::int64_t at = now - kPeriodMs * k;
        std::size_t idx = first;
        for (std::size_t c = first; c < h.size(); ++c)
          if (h[c].t <= at) idx = c;
        sum += w[i * kTaps + k] * h[idx].v;
      }
    }
    ASSERT_EQ(value(rig, "f"), static_cast<std::int32_t>(std::round(sum + 250))) << "step " << n;
    ++checked;
  }
  EXPECT_GT(checked, 3000);
}

// Two firs over the same inputs, taps and tap_period share one history. The
// second must behave exactly as it does alone: same values and the same
// next_step (its drift and next change) with a consumer on it, through
// bursts, quiet spells and an input going unknown.
TEST(Virtual, FirSharingAHistoryBehavesAsAlone) {
  SensorSpec first = virtual_sensor("f1", SK::fir, {"a", "b"}, {1, 0, 0, 0, 0, 1});
  SensorSpec second = virtual_sensor("f2", SK::fir, {"a", "b"}, {0.5, 0.3, 0.2, -0.4, 0.9, -0.5});
  for (SensorSpec* f : {&first, &second}) {
    f->taps = 3;
    f->tap_period = Millis(700);
  }
  const auto make = [&](bool shared) {
    PolicySpec spec;
    spec.sensors = {physical("a"), physical("b")};
    if (shared) spec.sensors.push_back(first);
    spec.sensors.push_back(second);
    spec.devices = {device("d", 1)};
    ControllerSpec bb = controller("bb", CK::bang_bang, "f2", {"d"});
    bb.threshold = mc(30500);
    spec.controllers = {bb};
    return spec;
  };
  Rig shared(make(true)), alone(make(false));
  ASSERT_TRUE(shared.ok());
  ASSERT_TRUE(alone.ok());
  std::mt19937 rng(11);
  std::int64_t now = 0;
  int steps_wanted = 0;
  for (int n = 0; n < 3000; ++n) {
    now += rng() % 4 == 0 ? 1500 + rng() % 3000 : rng() % 300;
    const auto a = 30000 + static_cast<std::int32_t>(rng() % 1001) - 500;
    const bool b_known = n % 500 < 480;
    for (Rig* rig : {&shared, &alone}) {
      rig->set("a", a, ms(now));
      if (b_known) {
        rig->set("b", 20000 + (n / 7) % 5 * 100, ms(now));
      } else {
        rig->engine->set_sensor_unknown(rig->sensor("b"), ms(now));
      }
    }
    const std::optional<Time> next = shared.step(ms(now)).next_step;
    ASSERT_EQ(next, alone.step(ms(now)).next_step) << "step " << n;
    ASSERT_EQ(value(shared, "f2"), value(alone, "f2")) << "step " << n;
    if (next) ++steps_wanted;
  }
  EXPECT_GT(steps_wanted, 100);  // the drift and next-change paths were exercised
}

TEST(Virtual, PredictorExtrapolatesTheSlope) {
  PolicySpec spec;
  SensorSpec p = virtual_sensor("p", SK::predictor, {"a"});
  p.horizon = Millis(10000);
  p.window = Millis(5000);
  spec.sensors = {physical("a"), p};
  spec.devices = {device("d", 1)};
  ControllerSpec bb = controller("bb", CK::bang_bang, "p", {"d"});
  bb.threshold = mc(45000);
  spec.controllers = {bb};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.feed("a", 40000, ms(0));
  EXPECT_EQ(value(rig, "p"), 40000);  // one sample: no slope
  rig.feed("a", 41000, ms(1000));     // 1 °C/s -> +10 °C in 10 s
  EXPECT_EQ(value(rig, "p"), 51000);
  const Decision& d = rig.feed("a", 42000, ms(2000));
  EXPECT_EQ(value(rig, "p"), 52000);
  // As samples leave, the slope can fall to 0 (prediction 42 °C), across the
  // 45 °C limit: step when the oldest sample leaves the window.
  ASSERT_TRUE(d.next_step.has_value());
  EXPECT_EQ(d.next_step->count(), 5000);
  rig.feed("a", 42000, ms(4000));
  // Samples (0,40) (1,41) (2,42) (4,42): slope = 4.25 / 8.75 °C/s.
  EXPECT_EQ(value(rig, "p"), 42000 + static_cast<std::int32_t>(std::lround(10000 * 17.0 / 35.0)));
  rig.step(ms(9000));  // only the 4 s sample is left
  EXPECT_EQ(value(rig, "p"), 42000);
  EXPECT_FALSE(rig.step(ms(9001)).next_step.has_value());
}

PolicySpec fallback_spec(std::optional<std::uint32_t> safe) {
  PolicySpec spec;
  spec.sensors = {physical("a"), physical("b"),
                  virtual_sensor("skin", SK::weighted_sum, {"a", "b"}, {0.5, 0.5})};
  DeviceSpec d = device("d", 5);
  d.limit_level = 4;
  spec.devices = {d};
  ControllerSpec c = controller("tab", CK::table, "skin", {"d"});
  c.table = {{mc(40000), mc(39000), 1}, {mc(45000), mc(44000), 2}};
  c.safe_level = safe;
  spec.controllers = {c};
  return spec;
}

TEST(Unknown, SafeLevelAndRecovery) {
  for (const std::optional<std::uint32_t> safe :
       {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{3}}) {
    Rig rig(fallback_spec(safe));
    ASSERT_TRUE(rig.ok());
    rig.set("a", 30000, ms(0));
    rig.set("b", 30000, ms(0));
    Decision d = rig.step(ms(0));
    EXPECT_EQ(d.devices[0].level, 0U);
    EXPECT_TRUE(d.events.empty());

    rig.engine->set_sensor_unknown(rig.sensor("b"), ms(1000));
    d = rig.step(ms(1000));
    EXPECT_EQ(d.devices[0].level, safe.value_or(4U));  // default: deepest allowed
    EXPECT_EQ(d.devices[0].cause, rig.engine->controller_id("tab"));
    const auto lost = events_of(d, Event::Kind::sensor_unknown);
    ASSERT_EQ(lost.size(), 2U);  // b and the virtual sensor built on it
    EXPECT_EQ(lost[0].index, rig.sensor("b").index);
    EXPECT_EQ(lost[1].index, rig.sensor("skin").index);

    d = rig.feed("a", 31000, ms(2000));  // still unknown: no repeated event
    EXPECT_TRUE(d.events.empty());
    EXPECT_EQ(d.devices[0].level, safe.value_or(4U));

    d = rig.feed("b", 41000, ms(3000));  // skin = 36 °C
    EXPECT_EQ(events_of(d, Event::Kind::sensor_known).size(), 2U);
    EXPECT_EQ(d.devices[0].level, 0U);
  }
}

// The optional-sensor fallback (sensors.cpp): a weighted_sum renormalises
// the weights of its known inputs while an optional input is unknown, max
// and min leave it out, and a required input still makes them unknown.
TEST(Optional, WeightedSumRenormalisesMaxAndMinLeaveItOut) {
  struct Case {
    SK kind;
    std::vector<double> weights;
    std::int32_t all_known;
    std::int32_t without_c;
  };
  // a = 40 °C, b = 30 °C, c = 50 °C (optional); offset +1 °C.
  const std::vector<Case> cases = {
      // 0.25*40 + 0.25*30 + 0.5*50 + 1 = 43.5; without c: (10 + 7.5) * 1/0.5 + 1 = 36
      {SK::weighted_sum, {0.25, 0.25, 0.5}, 43500, 36000},
      {SK::max, {}, 51000, 41000},
      {SK::min, {}, 31000, 31000},
  };
  for (const Case& c : cases) {
    SensorSpec v = virtual_sensor("v", c.kind, {"a", "b", "c"}, c.weights);
    v.offset = mc(1000);
    PolicySpec spec = three_inputs(v);
    spec.sensors[2].optional = true;
    Rig rig(spec);
    ASSERT_TRUE(rig.ok());
    rig.set("a", 40000, ms(0));
    rig.set("b", 30000, ms(0));
    rig.step(ms(0));  // c never read: absent
    EXPECT_EQ(value(rig, "v"), c.without_c) << to_string(c.kind);
    rig.set("c", 50000, ms(1));
    rig.step(ms(1));
    EXPECT_EQ(value(rig, "v"), c.all_known) << to_string(c.kind);
    rig.engine->set_sensor_unknown(rig.sensor("c"), ms(2));  // lost at run time
    rig.step(ms(2));
    EXPECT_EQ(value(rig, "v"), c.without_c) << to_string(c.kind);
    rig.engine->set_sensor_unknown(rig.sensor("a"), ms(3));  // a required input
    rig.step(ms(3));
    EXPECT_EQ(value(rig, "v"), std::nullopt) << to_string(c.kind);
  }
}

TEST(Optional, NoFallbackWhenEveryInputIsAbsentOrThroughEma) {
  PolicySpec spec;
  SensorSpec a = physical("a");
  SensorSpec b = physical("b");
  a.optional = true;
  b.optional = true;
  spec.sensors = {a,
                  b,
                  virtual_sensor("m", SK::max, {"a", "b"}),
                  virtual_sensor("e", SK::ema, {"b"}),
                  physical("c"),
                  virtual_sensor("s", SK::weighted_sum, {"c", "e"}, {0.5, 0.5})};
  spec.sensors[3].time_constant = Millis(1000);
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.set("c", 40000, ms(0));
  rig.step(ms(0));
  EXPECT_EQ(value(rig, "m"), std::nullopt);  // nothing left to fall back on
  EXPECT_EQ(value(rig, "e"), std::nullopt);  // ema has no fallback
  EXPECT_EQ(value(rig, "s"), 40000);         // but a sum over it does: 0.5 * 40 / 0.5
  rig.set("a", 35000, ms(1));
  rig.step(ms(1));
  EXPECT_EQ(value(rig, "m"), 35000);
}

// Without the fallback a controller on the estimate would sit at its safe
// level for as long as the device lacks the optional sensor.
TEST(Optional, AControllerOnTheEstimateKeepsControlling) {
  PolicySpec spec = fallback_spec(std::nullopt);
  spec.sensors[1].optional = true;  // b
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  Decision d = rig.feed("a", 30000, ms(0));  // skin = 30 °C from a alone
  EXPECT_EQ(d.devices[0].level, 0U);
  d = rig.feed("a", 41000, ms(1000));  // skin = 41 °C
  EXPECT_EQ(d.devices[0].level, 1U);
  d = rig.feed("a", 46000, ms(2000));
  EXPECT_EQ(d.devices[0].level, 2U);
}

TEST(Optional, ValidationRules) {
  const auto errors_of = [](const PolicySpec& spec) {
    std::string out;
    for (const SpecError& e : Engine::compile(spec).errors) out += e.path + "/" + e.key + " ";
    return out;
  };
  PolicySpec spec = fallback_spec(std::nullopt);
  spec.sensors[1].optional = true;
  EXPECT_EQ(errors_of(spec), "");
  spec.sensors[2].weights = {1.5, -0.5};  // renormalising would flip the estimate
  EXPECT_EQ(errors_of(spec), "sensors[2]/weights ");
  spec = fallback_spec(std::nullopt);
  spec.sensors[2].optional = true;  // only physical sensors are optional
  EXPECT_EQ(errors_of(spec), "sensors[2]/optional ");
  // A controller directly on an optional sensor would hold its safe level
  // while the sensor is absent: it must stand aside with safe_level 0.
  spec = fallback_spec(std::nullopt);
  spec.sensors[1].optional = true;
  spec.controllers[0].input = "b";
  EXPECT_EQ(errors_of(spec), "controllers[0]/safe_level ");
  spec.controllers[0].safe_level = 2;
  EXPECT_EQ(errors_of(spec), "controllers[0]/safe_level ");
  spec.controllers[0].safe_level = 0;
  EXPECT_EQ(errors_of(spec), "");
}

TEST(Unknown, FirstStepAnnouncesSensorsWithoutReadings) {
  Rig rig(fallback_spec(std::nullopt));
  ASSERT_TRUE(rig.ok());
  rig.set("a", 30000, ms(0));
  const Decision& d = rig.step(ms(0));
  EXPECT_EQ(events_of(d, Event::Kind::sensor_unknown).size(), 2U);
  EXPECT_EQ(d.devices[0].level, 4U);
}

TEST(Unknown, StepWiseResumesAndPidResets) {
  PolicySpec spec;
  spec.sensors = {physical("t")};
  spec.devices = {device("d", 4), device("e", 4)};
  ControllerSpec sw = controller("sw", CK::step_wise, "t", {"d"});
  sw.threshold = mc(50000);
  sw.hysteresis = mc(5000);
  sw.safe_level = 4;
  ControllerSpec pid = controller("pid", CK::pid, "t", {"e"});
  pid.setpoint = mc(50000);
  pid.ki = 0.1;
  pid.safe_level = 2;
  spec.controllers = {sw, pid};
  Rig rig(spec);
  ASSERT_TRUE(rig.ok());
  rig.feed("t", 55000, ms(0));
  Decision d = rig.feed("t", 55000, ms(1000));
  EXPECT_EQ(rig.level(d, "d"), 2U);
  EXPECT_EQ(rig.level(d, "e"), 2U);  // I = 5 °C·s -> u = 0.5
  rig.engine->set_sensor_unknown(rig.sensor("t"), ms(1500));
  d = rig.step(ms(1500));
  EXPECT_EQ(rig.level(d, "d"), 4U);
  EXPECT_EQ(rig.level(d, "e"), 2U);
  EXPECT_FALSE(d.next_step.has_value()) << "nothing to do until the sensor is back";
  d = rig.feed("t", 48000, ms(5000));  // in the band: step_wise holds its old 2
  EXPECT_EQ(rig.level(d, "d"), 2U);
  EXPECT_EQ(rig.level(d, "e"), 0U);  // pid restarted with I = 0
}

}  // namespace
}  // namespace coolhand::policy::testing::sensors_test
