// One decision step of a handheld-sized policy: 16 sensors (10 physical, 6
// virtual of every kind), 8 devices, 8 controllers of every kind and 2 zones
// with trips and severities. Readings sweep slowly up and down through the
// limits so every stage does real work: controllers engage and release,
// trips and severities change, windows switch between fine and coarse.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coolhand/policy/engine.h"

namespace {

using namespace coolhand::policy;
using SK = SensorSpec::Kind;
using CK = ControllerSpec::Kind;

MilliC c(double celsius) {
  return MilliC::from_celsius(celsius);
}

PolicySpec handheld_policy() {
  PolicySpec spec;
  for (int i = 0; i < 10; ++i) {
    SensorSpec s;
    s.name = "p" + std::to_string(i);
    s.stale_after = std::chrono::seconds(30);
    spec.sensors.push_back(s);
  }
  const auto virt = [&](std::string name, SK kind, std::vector<std::string> in,
                        std::vector<double> w = {}) {
    SensorSpec s;
    s.name = std::move(name);
    s.kind = kind;
    s.inputs = std::move(in);
    s.weights = std::move(w);
    return s;
  };
  spec.sensors.push_back(
      virt("skin", SK::weighted_sum, {"p0", "p1", "p2", "p3"}, {0.4, 0.3, 0.2, 0.1}));
  spec.sensors.push_back(virt("hottest", SK::max, {"p4", "p5", "p6"}));
  spec.sensors.push_back(virt("coolest", SK::min, {"p7", "p8", "p9"}));
  SensorSpec ema = virt("skin_avg", SK::ema, {"skin"});
  ema.time_constant = std::chrono::seconds(20);
  spec.sensors.push_back(ema);
  SensorSpec fir = virt("skin_fir", SK::fir, {"p0", "p4"}, {0.3, 0.2, 0.1, 0.2, 0.1, 0.1});
  fir.taps = 3;
  fir.tap_period = std::chrono::seconds(2);
  spec.sensors.push_back(fir);
  SensorSpec pred = virt("skin_pred", SK::predictor, {"skin"});
  pred.horizon = std::chrono::seconds(30);
  pred.window = std::chrono::seconds(10);
  spec.sensors.push_back(pred);

  for (int i = 0; i < 8; ++i) {
    DeviceSpec d;
    d.name = "d" + std::to_string(i);
    d.max_level = 6;
    d.power_mw = {6000, 5000, 4000, 3000, 2000, 1000, 500};
    d.max_step_up = 2;
    d.min_dwell = std::chrono::milliseconds(100);
    spec.devices.push_back(d);
  }

  ZoneSpec skin;
  skin.name = "skin_zone";
  skin.sensor = "skin";
  TripSpec passive;
  passive.name = "passive";
  passive.threshold = c(43);
  passive.hysteresis = c(1);
  TripSpec crit;
  crit.name = "crit";
  crit.type = TripSpec::Type::critical;
  crit.threshold = c(48);
  crit.hysteresis = c(2);
  crit.action = TripAction::force_deepest;
  crit.devices = {"d0", "d1"};
  crit.debounce_samples = 3;
  skin.trips = {passive, crit};
  skin.severities = {{Severity::light, c(40), c(1)},
                     {Severity::moderate, c(43), c(1)},
                     {Severity::severe, c(46), c(1)}};
  ZoneSpec soc;
  soc.name = "soc_zone";
  soc.sensor = "hottest";
  TripSpec hot;
  hot.name = "hot";
  hot.type = TripSpec::Type::hot;
  hot.threshold = c(90);
  hot.hysteresis = c(5);
  soc.trips = {hot};
  spec.zones = {skin, soc};

  const auto ctl = [](std::string name, CK kind, std::string input, std::vector<std::string> devs) {
    ControllerSpec k;
    k.name = std::move(name);
    k.kind = kind;
    k.input = std::move(input);
    for (auto& d : devs) k.devices.push_back({std::move(d), 1.0});
    return k;
  };
  ControllerSpec sw = ctl("sw", CK::step_wise, "skin_zone", {"d0", "d1"});
  sw.threshold = c(42);
  sw.hysteresis = c(2);
  ControllerSpec sw2 = ctl("sw2", CK::step_wise, "hottest", {"d2"});
  sw2.threshold = c(80);
  sw2.hysteresis = c(3);
  ControllerSpec tab = ctl("tab", CK::table, "skin_avg", {"d3", "d4"});
  tab.table = {{c(40), c(39), 1}, {c(42), c(41), 3}, {c(44), c(43), 5}};
  ControllerSpec tab2 = ctl("tab2", CK::table, "coolest", {"d7"});
  tab2.table = {{c(45), c(44), 2}};
  ControllerSpec pid = ctl("pid", CK::pid, "skin_fir", {"d5"});
  pid.setpoint = c(42);
  pid.kp = 0.3;
  pid.ki = 0.01;
  pid.kd = 0.5;
  pid.period = std::chrono::milliseconds(500);
  ControllerSpec pa = ctl("pa", CK::power_budget, "skin_pred", {"d0", "d5", "d6"});
  pa.setpoint = c(44);
  pa.switch_on = c(40);
  pa.sustainable_power_mw = 6000;
  pa.kp_over_mw = 800;
  pa.kp_under_mw = 200;
  pa.ki_mw = 20;
  pa.period = std::chrono::milliseconds(500);
  ControllerSpec bb = ctl("bb", CK::bang_bang, "p9", {"d6"});
  bb.threshold = c(50);
  bb.hysteresis = c(5);
  ControllerSpec bb2 = ctl("bb2", CK::bang_bang, "skin", {"d7", "d2"});
  bb2.threshold = c(45);
  bb2.hysteresis = c(1);
  bb2.on_level = 4;
  spec.controllers = {sw, sw2, tab, tab2, pid, pa, bb, bb2};

  ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = c(-2);
  spec.profiles = {quiet};
  return spec;
}

// Temperature of physical sensor i at step n: a slow triangle between 30 and
// 55 °C (period 5000 steps), offset per sensor.
std::int32_t reading(std::int64_t n, int i) {
  const std::int64_t phase = (n + 313 * i) % 5000;
  const std::int64_t tri = phase < 2500 ? phase : 5000 - phase;
  return static_cast<std::int32_t>(30000 + tri * 10 + 100 * i);
}

// The common case: one sensor reports (an event or a poll) and the engine
// steps. Time advances 100 ms per step.
void BM_StepOneReading(benchmark::State& state) {
  CompileResult r = Engine::compile(handheld_policy());
  if (!r.engine) {
    state.SkipWithError("policy does not compile");
    return;
  }
  Engine& e = *r.engine;
  std::int64_t n = 0;
  for (int i = 0; i < 10; ++i)
    e.set_sensor(SensorId{static_cast<std::uint16_t>(i)}, MilliC(reading(0, i)), Time(0));
  for (auto _ : state) {
    ++n;
    const int i = static_cast<int>(n % 10);
    const Time now(n * 100);
    e.set_sensor(SensorId{static_cast<std::uint16_t>(i)}, MilliC(reading(n, i)), now);
    benchmark::DoNotOptimize(e.step(now));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StepOneReading);

// Worst case: every physical sensor reports before each step.
void BM_StepAllReadings(benchmark::State& state) {
  CompileResult r = Engine::compile(handheld_policy());
  if (!r.engine) {
    state.SkipWithError("policy does not compile");
    return;
  }
  Engine& e = *r.engine;
  std::int64_t n = 0;
  for (auto _ : state) {
    ++n;
    const Time now(n * 100);
    for (int i = 0; i < 10; ++i) {
      e.set_sensor(SensorId{static_cast<std::uint16_t>(i)}, MilliC(reading(n, i)), now);
    }
    benchmark::DoNotOptimize(e.step(now));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StepAllReadings);

// A timer wake-up: no new reading, only time-driven work.
void BM_StepTimerOnly(benchmark::State& state) {
  CompileResult r = Engine::compile(handheld_policy());
  if (!r.engine) {
    state.SkipWithError("policy does not compile");
    return;
  }
  Engine& e = *r.engine;
  for (int i = 0; i < 10; ++i) {
    e.set_sensor(SensorId{static_cast<std::uint16_t>(i)}, MilliC(44000 + 100 * i), Time(0));
  }
  std::int64_t n = 0;
  for (auto _ : state) {
    ++n;
    benchmark::DoNotOptimize(e.step(Time(n * 100)));
    if (n % 200 == 0) {
      for (int i = 0; i < 10; ++i) {
        e.set_sensor(SensorId{static_cast<std::uint16_t>(i)}, MilliC(44000 + 100 * i),
                     Time(n * 100));
      }
    }
  }
}
BENCHMARK(BM_StepTimerOnly);

}  // namespace
