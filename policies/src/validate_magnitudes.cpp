// Validation of magnitudes: bounds on every temperature, duration and
// coefficient of a PolicySpec that keep the engine's arithmetic far from
// overflow (split from validate.cpp, which holds the structural rules).
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine_impl.h"

namespace coolhand::policy::detail {
namespace {

std::string at(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}
std::string at(const std::string& parent, std::string_view field, std::size_t i) {
  return parent + "." + at(field, i);
}

class Magnitudes {
 public:
  Magnitudes(const PolicySpec& spec, std::vector<SpecError>& errors)
      : spec_(spec), errors_(errors) {}

  void run() {
    for (std::size_t i = 0; i < spec_.sensors.size(); ++i) {
      const SensorSpec& s = spec_.sensors[i];
      const std::string path = at("sensors", i);
      temperature(path, "offset", s.offset);
      temperature(path, "quantum", s.quantum);
      duration(path, "stale_after", s.stale_after);
      duration(path, "time_constant", s.time_constant);
      duration(path, "tap_period", s.tap_period);
      duration(path, "horizon", s.horizon);
      duration(path, "window", s.window);
      for (double w : s.weights) coefficient(path, "weights", w);
    }
    for (std::size_t i = 0; i < spec_.zones.size(); ++i) {
      const ZoneSpec& z = spec_.zones[i];
      for (std::size_t j = 0; j < z.trips.size(); ++j) {
        const std::string path = at(at("zones", i), "trips", j);
        temperature(path, "threshold", z.trips[j].threshold);
        temperature(path, "hysteresis", z.trips[j].hysteresis);
      }
      for (std::size_t j = 0; j < z.severities.size(); ++j) {
        const std::string path = at(at("zones", i), "severities", j);
        temperature(path, "threshold", z.severities[j].threshold);
        temperature(path, "hysteresis", z.severities[j].hysteresis);
      }
    }
    for (std::size_t i = 0; i < spec_.devices.size(); ++i) {
      duration(at("devices", i), "min_dwell", spec_.devices[i].min_dwell);
      duration(at("devices", i), "release_dwell", spec_.devices[i].release_dwell);
    }
    for (std::size_t i = 0; i < spec_.controllers.size(); ++i) {
      const ControllerSpec& c = spec_.controllers[i];
      const std::string path = at("controllers", i);
      temperature(path, "threshold", c.threshold);
      temperature(path, "hysteresis", c.hysteresis);
      temperature(path, "setpoint", c.setpoint);
      temperature(path, "engage_below", c.engage_below);
      temperature(path, "switch_on", c.switch_on);
      duration(path, "period", c.period);
      for (std::size_t j = 0; j < c.table.size(); ++j) {
        temperature(at(path, "table", j), "up", c.table[j].up);
        temperature(at(path, "table", j), "down", c.table[j].down);
      }
      for (std::size_t j = 0; j < c.devices.size(); ++j) {
        coefficient(at(path, "devices", j), "weight", c.devices[j].weight);
      }
      coefficient(path, "kp", c.kp);
      coefficient(path, "ki", c.ki);
      coefficient(path, "kd", c.kd);
      coefficient(path, "kp_over_mw", c.kp_over_mw);
      coefficient(path, "kp_under_mw", c.kp_under_mw);
      coefficient(path, "ki_mw", c.ki_mw);
      coefficient(path, "kd_mw", c.kd_mw);
    }
    for (std::size_t i = 0; i < spec_.profiles.size(); ++i) {
      const ProfileSpec& p = spec_.profiles[i];
      temperature(at("profiles", i), "limit_offset", p.limit_offset);
      for (std::size_t j = 0; j < p.controllers.size(); ++j) {
        const std::string path = at(at("profiles", i), "controllers", j);
        if (p.controllers[j].threshold) temperature(path, "threshold", *p.controllers[j].threshold);
        if (p.controllers[j].setpoint) temperature(path, "setpoint", *p.controllers[j].setpoint);
      }
    }
    const SamplingSpec& sp = spec_.sampling;
    temperature("sampling", "fine_granularity", sp.fine_granularity);
    temperature("sampling", "coarse_granularity", sp.coarse_granularity);
    temperature("sampling", "near_distance", sp.near_distance);
    duration("sampling", "min_interval", sp.min_interval);
    duration("sampling", "max_interval", sp.max_interval);
  }

 private:
  void duration(const std::string& path, const char* key, Millis d) {
    if (d.count() > kMaxDurationMs) error(path, key, "must be at most 10^12 ms");
  }
  void coefficient(const std::string& path, const char* key, double v) {
    if (std::isfinite(v) && std::abs(v) > kMaxCoefficient) {
      error(path, key, "must be within ±1e9");
    }
  }

  void error(std::string path, std::string key, std::string message) {
    errors_.push_back(SpecError{std::move(path), std::move(key), std::move(message)});
  }

  // Bounds that keep every sum the engine forms (threshold - hysteresis +
  // profile offset, value - setpoint, ...) far from integer overflow and
  // every product finite. They are far beyond anything physical.
  static constexpr std::int32_t kMaxTemperatureMc = 100'000'000;     // 100000 °C
  static constexpr std::int64_t kMaxDurationMs = 1'000'000'000'000;  // ~31 years
  static constexpr double kMaxCoefficient = 1e9;

  void temperature(const std::string& path, const char* key, MilliC t) {
    if (t.mc() > kMaxTemperatureMc || t.mc() < -kMaxTemperatureMc) {
      error(path, key, "must be within ±100000 °C");
    }
  }
  const PolicySpec& spec_;
  std::vector<SpecError>& errors_;
};

}  // namespace

void validate_magnitudes(const PolicySpec& spec, std::vector<SpecError>& errors) {
  Magnitudes(spec, errors).run();
}

}  // namespace coolhand::policy::detail
