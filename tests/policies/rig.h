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
