// Test helpers for the policy engine: terse builders for spec parts and a
// Rig that compiles a spec and drives the engine with a hand-advanced clock.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "coolhand/policy/engine.h"
#include "coolhand/policy/spec.h"

namespace coolhand::policy::testing {

inline MilliC mc(std::int32_t v) {
  return MilliC(v);
}
inline Time ms(std::int64_t v) {
  return Time(v);
}

inline SensorSpec physical(std::string name) {
  SensorSpec s;
  s.name = std::move(name);
  return s;
}

inline SensorSpec virtual_sensor(std::string name, SensorSpec::Kind kind,
                                 std::vector<std::string> inputs,
                                 std::vector<double> weights = {}) {
  SensorSpec s;
  s.name = std::move(name);
  s.kind = kind;
  s.inputs = std::move(inputs);
  s.weights = std::move(weights);
  return s;
}

inline DeviceSpec device(std::string name, std::uint32_t max_level) {
  DeviceSpec d;
  d.name = std::move(name);
  d.max_level = max_level;
  return d;
}

inline ControllerSpec controller(std::string name, ControllerSpec::Kind kind, std::string input,
                                 std::vector<std::string> devices) {
  ControllerSpec c;
  c.name = std::move(name);
  c.kind = kind;
  c.input = std::move(input);
  for (auto& d : devices) c.devices.push_back(DeviceBinding{std::move(d), 1.0});
  return c;
}

inline std::string describe(const std::vector<SpecError>& errors) {
  std::string out;
  for (const SpecError& e : errors) out += e.path + " / " + e.key + ": " + e.message + "\n";
  return out;
}

// A spec with one of everything (ema, fir, predictor, weighted_sum; pid,
// power_budget, step_wise, table, bang_bang; a debounced force_deepest
// trip, severities, a last resort; a profile).
inline PolicySpec everything() {
  PolicySpec spec;
  SensorSpec ema = virtual_sensor("avg", SensorSpec::Kind::ema, {"a"});
  ema.time_constant = Millis(5000);
  SensorSpec fir = virtual_sensor("est", SensorSpec::Kind::fir, {"a", "b"}, {0.3, 0.2, 0.3, 0.2});
  fir.taps = 2;
  fir.tap_period = Millis(1000);
  SensorSpec pred = virtual_sensor("pred", SensorSpec::Kind::predictor, {"est"});
  pred.horizon = Millis(10000);
  pred.window = Millis(5000);
  spec.sensors = {
      physical("a"), physical("b"),
      ema,           fir,
      pred,          virtual_sensor("sum", SensorSpec::Kind::weighted_sum, {"a", "b"}, {0.5, 0.5})};
  DeviceSpec cpu = device("cpu", 3);
  cpu.power_mw = {3000, 2000, 1000, 500};
  cpu.max_step_up = 1;
  cpu.min_dwell = Millis(300);
  DeviceSpec screen = device("screen", 2);
  screen.power_mw = {1500, 1000, 600};
  screen.performance = {1.0, 0.9, 0.7};
  spec.devices = {cpu, device("gpu", 3), screen};
  ControllerSpec pid = controller("pid", ControllerSpec::Kind::pid, "avg", {"gpu"});
  pid.setpoint = mc(50000);
  pid.kp = 0.5;
  pid.ki = 0.01;
  ControllerSpec pa = controller("pa", ControllerSpec::Kind::power_budget, "pred", {"cpu"});
  pa.setpoint = mc(50000);
  pa.switch_on = mc(45000);
  pa.sustainable_power_mw = 2000;
  pa.kp_over_mw = 300;
  ControllerSpec sw = controller("sw", ControllerSpec::Kind::step_wise, "z", {"gpu", "cpu"});
  sw.threshold = mc(52000);
  sw.hysteresis = mc(2000);
  ControllerSpec tab = controller("tab", ControllerSpec::Kind::table, "sum", {"cpu"});
  tab.table = {{mc(48000), mc(46000), 1}, {mc(53000), mc(51000), 2}};
  ControllerSpec bb = controller("bb", ControllerSpec::Kind::bang_bang, "b", {"gpu"});
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

// Compiles `spec` (failing the test on errors) and steps it with readings.
struct Rig {
  explicit Rig(const PolicySpec& spec) {
    CompileResult r = Engine::compile(spec);
    EXPECT_TRUE(r.errors.empty()) << describe(r.errors);
    engine = std::move(r.engine);
  }
  [[nodiscard]] bool ok() const { return engine != nullptr; }
  SensorId sensor(std::string_view name) const { return *engine->sensor_id(name); }
  DeviceId dev(std::string_view name) const { return *engine->device_id(name); }
  void set(std::string_view name, std::int32_t value_mc, Time t) {
    engine->set_sensor(sensor(name), MilliC(value_mc), t);
  }
  const Decision& step(Time t) { return engine->step(t); }
  // Set one sensor and step at the same time.
  const Decision& feed(std::string_view name, std::int32_t value_mc, Time t) {
    set(name, value_mc, t);
    return step(t);
  }
  std::uint32_t level(const Decision& d, std::string_view device) const {
    return d.devices[dev(device).index].level;
  }
  std::unique_ptr<Engine> engine;
};

inline std::vector<Event> events_of(const Decision& d, Event::Kind kind) {
  std::vector<Event> out;
  for (const Event& e : d.events) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

}  // namespace coolhand::policy::testing
