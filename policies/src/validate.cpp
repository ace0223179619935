// Semantic validation of a PolicySpec: every rule that does not depend on how
// the spec was written (YAML syntax and unknown keys are config/'s business).
// All errors are collected, none stops the walk. Each error carries the path
// of the offending element ("controllers[2].devices[0]") and the spec field
// name as `key`; for a string inside a list field (a sensor's `inputs`, a
// trip's `devices`) the path is the owning element and the message names the
// index ("inputs[1]: unknown sensor ...").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine_impl.h"

namespace coolhand::policy::detail {
namespace {

using Index = std::map<std::string, std::size_t, std::less<>>;

std::string at(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}
std::string at(const std::string& parent, std::string_view field, std::size_t i) {
  return parent + "." + at(field, i);
}
std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

class Validator {
 public:
  explicit Validator(const PolicySpec& spec) : spec_(spec) {}

  std::vector<SpecError> run(std::vector<std::uint16_t>& order) {
    check_counts();
    index_names();
    for (std::size_t i = 0; i < spec_.sensors.size(); ++i) check_sensor(i);
    check_cycles(order);
    for (std::size_t i = 0; i < spec_.zones.size(); ++i) check_zone(i);
    for (std::size_t i = 0; i < spec_.devices.size(); ++i) check_device(i);
    for (std::size_t i = 0; i < spec_.controllers.size(); ++i) check_controller(i);
    for (std::size_t i = 0; i < spec_.profiles.size(); ++i) check_profile(i);
    check_optional(order);
    check_sampling();
    if (!spec_.default_profile.empty() && !profiles_.contains(spec_.default_profile)) {
      error("", "default_profile", "unknown profile " + quoted(spec_.default_profile));
    }
    return std::move(errors_);
  }

 private:
  void error(std::string path, std::string key, std::string message) {
    errors_.push_back(SpecError{std::move(path), std::move(key), std::move(message)});
  }

  void check_counts() {
    constexpr std::size_t kMax = std::numeric_limits<std::uint16_t>::max();
    const auto check = [&](std::size_t n, const char* key) {
      if (n > kMax) error("", key, "more than " + std::to_string(kMax) + " entries");
    };
    check(spec_.sensors.size(), "sensors");
    check(spec_.zones.size(), "zones");
    check(spec_.devices.size(), "devices");
    check(spec_.controllers.size(), "controllers");
    check(spec_.profiles.size(), "profiles");
  }

  template <typename T>
  void index(const std::vector<T>& items, std::string_view field, std::string_view what,
             Index& out) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string& name = items[i].name;
      if (name.empty()) {
        error(at(field, i), "name", std::string(what) + " name must not be empty");
        continue;
      }
      auto [it, inserted] = out.emplace(name, i);
      if (!inserted) {
        error(at(field, i), "name",
              "duplicate " + std::string(what) + " name " + quoted(name) + " (first at " +
                  at(field, it->second) + ")");
      }
    }
  }

  void index_names() {
    index(spec_.sensors, "sensors", "sensor", sensors_);
    index(spec_.zones, "zones", "zone", zones_);
    index(spec_.devices, "devices", "device", devices_);
    index(spec_.controllers, "controllers", "controller", controllers_);
    index(spec_.profiles, "profiles", "profile", profiles_);
    for (std::size_t i = 0; i < spec_.zones.size(); ++i) {
      if (sensors_.contains(spec_.zones[i].name)) {
        error(at("zones", i), "name",
              "zone name " + quoted(spec_.zones[i].name) +
                  " is also a sensor name; controller inputs would be ambiguous");
      }
    }
  }

  void check_weights_finite(const std::string& path, const std::vector<double>& w) {
    for (std::size_t j = 0; j < w.size(); ++j) {
      if (!std::isfinite(w[j])) error(path, "weights", at("weights", j) + " is not finite");
    }
  }

  void check_sensor(std::size_t i) {
    using Kind = SensorSpec::Kind;
    const SensorSpec& s = spec_.sensors[i];
    const std::string path = at("sensors", i);
    const auto no_weights = [&] {
      if (!s.weights.empty()) {
        error(path, "weights",
              std::string(to_string(s.kind)) +
                  " sensors take no weights (only weighted_sum and fir)");
      }
    };
    const auto one_input = [&] {
      if (s.inputs.size() != 1) {
        error(path, "inputs",
              std::string(to_string(s.kind)) + " sensors take exactly one input, got " +
                  std::to_string(s.inputs.size()));
      }
    };
    if (s.kind == Kind::physical) {
      if (!s.inputs.empty()) error(path, "inputs", "a physical sensor has no inputs");
      no_weights();
      if (s.stale_after < Millis{0}) error(path, "stale_after", "must be >= 0");
      if (s.quantum < MilliC{0}) error(path, "quantum", "must be >= 0");
      return;
    }
    if (s.quantum != MilliC{0}) error(path, "quantum", "only a physical sensor has a quantum");
    if (s.inputs.empty()) error(path, "inputs", "a virtual sensor needs at least one input");
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      if (!sensors_.contains(s.inputs[j])) {
        error(path, "inputs", at("inputs", j) + ": unknown sensor " + quoted(s.inputs[j]));
      }
    }
    check_weights_finite(path, s.weights);
    switch (s.kind) {
      case Kind::physical:
        break;
      case Kind::weighted_sum:
        if (s.weights.size() != s.inputs.size()) {
          error(path, "weights",
                "weighted_sum needs one weight per input: " + std::to_string(s.inputs.size()) +
                    " inputs, " + std::to_string(s.weights.size()) + " weights");
        }
        break;
      case Kind::max:
      case Kind::min:
        no_weights();
        break;
      case Kind::ema:
        one_input();
        no_weights();
        if (s.time_constant <= Millis{0}) error(path, "time_constant", "must be > 0");
        break;
      case Kind::fir:
        if (s.taps == 0) error(path, "taps", "must be >= 1");
        if (s.taps > 1024) error(path, "taps", "must be <= 1024");
        if (s.tap_period <= Millis{0}) error(path, "tap_period", "must be > 0");
        if (s.taps != 0 && s.weights.size() != s.inputs.size() * s.taps) {
          error(path, "weights",
                "fir needs inputs*taps = " + std::to_string(s.inputs.size() * s.taps) +
                    " weights, got " + std::to_string(s.weights.size()));
        }
        break;
      case Kind::dequantise:
        one_input();
        no_weights();
        if (s.time_constant <= Millis{0}) error(path, "time_constant", "must be > 0");
        if (s.inputs.size() == 1) {
          const auto it = sensors_.find(s.inputs[0]);
          if (it != sensors_.end()) {
            const SensorSpec& in = spec_.sensors[it->second];
            if (in.kind != Kind::physical || in.quantum <= MilliC{0})
              error(
                  path, "inputs",
                  "dequantise needs a physical sensor with a quantum, got " + quoted(s.inputs[0]));
          }
        }
        break;
      case Kind::predictor:
        one_input();
        no_weights();
        if (s.horizon <= Millis{0}) error(path, "horizon", "must be > 0");
        if (s.window <= Millis{0}) error(path, "window", "must be > 0");
        break;
    }
  }

  // Depth-first search over sensor inputs: a grey node met again closes a
  // cycle, reported once at the sensor where the search entered it. The
  // post-order of a search without cycles is an evaluation order.
  void check_cycles(std::vector<std::uint16_t>& order) {
    const std::size_t n = spec_.sensors.size();
    std::vector<std::uint8_t> color(n, 0);  // 0 white, 1 grey, 2 black
    std::vector<std::size_t> stack;
    bool cyclic = false;
    order.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (color[i] == 0) visit(i, color, stack, order, cyclic);
    }
    if (cyclic) order.clear();
  }

  void visit(std::size_t i, std::vector<std::uint8_t>& color, std::vector<std::size_t>& stack,
             std::vector<std::uint16_t>& order, bool& cyclic) {
    color[i] = 1;
    stack.push_back(i);
    for (const std::string& in : spec_.sensors[i].inputs) {
      auto it = sensors_.find(in);
      if (it == sensors_.end()) continue;
      const std::size_t j = it->second;
      if (color[j] == 1) {
        cyclic = true;
        std::string chain;
        auto from = std::find(stack.begin(), stack.end(), j);
        for (auto k = from; k != stack.end(); ++k) chain += spec_.sensors[*k].name + " -> ";
        chain += spec_.sensors[j].name;
        error(at("sensors", j), "inputs", "sensor inputs form a cycle: " + chain);
      } else if (color[j] == 0) {
        visit(j, color, stack, order, cyclic);
      }
    }
    stack.pop_back();
    color[i] = 2;
    order.push_back(static_cast<std::uint16_t>(i));
  }

  void check_zone(std::size_t i) {
    const ZoneSpec& z = spec_.zones[i];
    const std::string path = at("zones", i);
    if (!sensors_.contains(z.sensor)) error(path, "sensor", "unknown sensor " + quoted(z.sensor));
    if (z.trips.size() > 32) error(path, "trips", "at most 32 trips per zone");
    Index trip_names;
    for (std::size_t j = 0; j < z.trips.size(); ++j) {
      const TripSpec& t = z.trips[j];
      const std::string tp = at(path, "trips", j);
      if (t.name.empty()) {
        error(tp, "name", "trip name must not be empty");
      } else if (auto [it, ok] = trip_names.emplace(t.name, j); !ok) {
        error(tp, "name",
              "duplicate trip name " + quoted(t.name) + " in zone (first at " +
                  at(path, "trips", it->second) + ")");
      }
      if (t.hysteresis < MilliC{0}) error(tp, "hysteresis", "must be >= 0");
      if (t.debounce_samples == 0) error(tp, "debounce_samples", "must be >= 1");
      if (t.action == TripAction::force_deepest) {
        if (t.devices.empty()) error(tp, "devices", "force_deepest needs at least one device");
        for (std::size_t k = 0; k < t.devices.size(); ++k) {
          if (!devices_.contains(t.devices[k])) {
            error(tp, "devices", at("devices", k) + ": unknown device " + quoted(t.devices[k]));
          }
        }
      } else if (!t.devices.empty()) {
        error(tp, "devices", "only a force_deepest action takes devices");
      }
    }
    for (std::size_t j = 0; j < z.severities.size(); ++j) {
      const SeverityStepSpec& s = z.severities[j];
      const std::string sp = at(path, "severities", j);
      if (s.level == Severity::none) {
        error(sp, "level", "none is the level below the first step and cannot be a step");
      }
      if (s.hysteresis < MilliC{0}) error(sp, "hysteresis", "must be >= 0");
      if (j > 0) {
        const SeverityStepSpec& prev = z.severities[j - 1];
        if (s.level <= prev.level) {
          error(sp, "level",
                "severity levels must be strictly increasing (" + std::string(to_string(s.level)) +
                    " after " + std::string(to_string(prev.level)) + ")");
        }
        if (s.threshold <= prev.threshold) {
          error(sp, "threshold", "severity thresholds must be strictly increasing");
        }
      }
    }
  }

  void check_device(std::size_t i) {
    const DeviceSpec& d = spec_.devices[i];
    const std::string path = at("devices", i);
    if (d.max_level < 1) error(path, "max_level", "must be >= 1");
    if (d.max_level > 0xFFFF) error(path, "max_level", "must be <= 65535");
    const std::size_t levels = static_cast<std::size_t>(d.max_level) + 1;
    if (!d.power_mw.empty()) {
      if (d.power_mw.size() != levels) {
        error(path, "power_mw",
              "needs max_level+1 = " + std::to_string(levels) + " entries, got " +
                  std::to_string(d.power_mw.size()));
      }
      for (std::size_t j = 1; j < d.power_mw.size(); ++j) {
        if (d.power_mw[j] > d.power_mw[j - 1]) {
          error(path, "power_mw",
                "must be non-increasing: " + at("power_mw", j) + " > " + at("power_mw", j - 1));
        }
      }
    }
    if (!d.performance.empty()) {
      if (d.performance.size() != levels) {
        error(path, "performance",
              "needs max_level+1 = " + std::to_string(levels) + " entries, got " +
                  std::to_string(d.performance.size()));
      }
      for (std::size_t j = 0; j < d.performance.size(); ++j) {
        const double p = d.performance[j];
        if (!(p >= 0.0 && p <= 1.0)) {
          error(path, "performance", at("performance", j) + " must be within [0, 1]");
        } else if (j > 0 && p > d.performance[j - 1]) {
          error(
              path, "performance",
              "must be non-increasing: " + at("performance", j) + " > " + at("performance", j - 1));
        }
      }
    }
    if (d.min_level > d.max_level) error(path, "min_level", "exceeds max_level");
    if (d.limit_level && *d.limit_level > d.max_level) {
      error(path, "limit_level", "exceeds max_level");
    }
    if (d.limit_level && d.min_level <= d.max_level && d.min_level > *d.limit_level) {
      error(path, "min_level", "exceeds limit_level");
    }
    if (d.min_dwell < Millis{0}) error(path, "min_dwell", "must be >= 0");
    if (d.release_dwell < Millis{0}) error(path, "release_dwell", "must be >= 0");
  }

  const DeviceSpec* device(const std::string& name) const {
    auto it = devices_.find(name);
    return it == devices_.end() ? nullptr : &spec_.devices[it->second];
  }

  void check_gain(const std::string& path, const char* key, double v) {
    if (!std::isfinite(v) || v < 0.0) error(path, key, "must be finite and >= 0");
  }

  void check_controller(std::size_t i) {
    using Kind = ControllerSpec::Kind;
    const ControllerSpec& c = spec_.controllers[i];
    const std::string path = at("controllers", i);
    if (!sensors_.contains(c.input) && !zones_.contains(c.input)) {
      error(path, "input", "unknown sensor or zone " + quoted(c.input));
    }
    if (c.devices.empty()) error(path, "devices", "a controller needs at least one device");
    std::uint32_t min_max_level = std::numeric_limits<std::uint32_t>::max();
    Index seen;
    for (std::size_t j = 0; j < c.devices.size(); ++j) {
      const DeviceBinding& b = c.devices[j];
      const std::string bp = at(path, "devices", j);
      const DeviceSpec* d = device(b.device);
      if (d == nullptr) {
        error(bp, "device", "unknown device " + quoted(b.device));
      } else {
        min_max_level = std::min(min_max_level, d->max_level);
        if (c.kind == Kind::power_budget && d->power_mw.empty()) {
          error(bp, "device", "power_budget needs a power_mw table on device " + quoted(b.device));
        }
      }
      if (auto [it, ok] = seen.emplace(b.device, j); !ok) {
        error(bp, "device", "device " + quoted(b.device) + " bound twice");
      }
      if (!std::isfinite(b.weight) || !(b.weight > 0.0)) error(bp, "weight", "must be > 0");
    }
    const bool have_devices = min_max_level != std::numeric_limits<std::uint32_t>::max();
    if (c.safe_level && have_devices && *c.safe_level > min_max_level) {
      error(path, "safe_level",
            "exceeds the max_level (" + std::to_string(min_max_level) + ") of a bound device");
    }
    switch (c.kind) {
      case Kind::step_wise:
      case Kind::bang_bang:
        if (c.hysteresis < MilliC{0}) error(path, "hysteresis", "must be >= 0");
        if (c.kind == Kind::bang_bang && c.on_level && have_devices &&
            *c.on_level > min_max_level) {
          error(path, "on_level",
                "exceeds the max_level (" + std::to_string(min_max_level) + ") of a bound device");
        }
        if (c.kind == Kind::bang_bang && c.on_level && *c.on_level == 0) {
          error(path, "on_level", "must be >= 1");
        }
        break;
      case Kind::table:
        check_table(path, c, have_devices ? min_max_level : 0, have_devices);
        break;
      case Kind::pid:
        check_gain(path, "kp", c.kp);
        check_gain(path, "ki", c.ki);
        check_gain(path, "kd", c.kd);
        if (c.kp == 0.0 && c.ki == 0.0 && c.kd == 0.0) {
          error(path, "kp", "a pid controller needs at least one non-zero gain");
        }
        if (c.engage_below < MilliC{0}) error(path, "engage_below", "must be >= 0");
        break;
      case Kind::power_budget:
        check_gain(path, "kp_over_mw", c.kp_over_mw);
        check_gain(path, "kp_under_mw", c.kp_under_mw);
        check_gain(path, "ki_mw", c.ki_mw);
        check_gain(path, "kd_mw", c.kd_mw);
        break;
    }
    if ((c.kind == Kind::step_wise || c.kind == Kind::pid || c.kind == Kind::power_budget) &&
        c.period <= Millis{0}) {
      error(path, "period", "must be > 0");
    }
  }

  void check_table(const std::string& path, const ControllerSpec& c, std::uint32_t max_level,
                   bool have_devices) {
    if (c.table.empty()) error(path, "table", "a table controller needs at least one row");
    for (std::size_t j = 0; j < c.table.size(); ++j) {
      const TableRow& r = c.table[j];
      const std::string rp = at(path, "table", j);
      if (r.down > r.up) error(rp, "down", "must be <= up");
      if (have_devices && r.level > max_level) {
        error(rp, "level",
              "exceeds the max_level (" + std::to_string(max_level) + ") of a bound device");
      }
      if (j > 0) {
        if (r.up <= c.table[j - 1].up) error(rp, "up", "rows need strictly increasing up");
        if (r.level <= c.table[j - 1].level) {
          error(rp, "level", "rows need strictly increasing level");
        }
      }
    }
  }

  void check_profile(std::size_t i) {
    using Kind = ControllerSpec::Kind;
    const ProfileSpec& p = spec_.profiles[i];
    const std::string path = at("profiles", i);
    Index seen;
    for (std::size_t j = 0; j < p.controllers.size(); ++j) {
      const ControllerOverride& o = p.controllers[j];
      const std::string op = at(path, "controllers", j);
      auto it = controllers_.find(o.controller);
      if (it == controllers_.end()) {
        error(op, "controller", "unknown controller " + quoted(o.controller));
        continue;
      }
      if (auto [s, ok] = seen.emplace(o.controller, j); !ok) {
        error(op, "controller", "controller " + quoted(o.controller) + " overridden twice");
      }
      const Kind k = spec_.controllers[it->second].kind;
      if (o.threshold && k != Kind::step_wise && k != Kind::bang_bang) {
        error(op, "threshold",
              std::string(to_string(k)) + " controllers have no threshold (step_wise, bang_bang)");
      }
      if (o.setpoint && k != Kind::pid && k != Kind::power_budget) {
        error(op, "setpoint",
              std::string(to_string(k)) + " controllers have no setpoint (pid, power_budget)");
      }
    }
    Index seen_devices;
    for (std::size_t j = 0; j < p.devices.size(); ++j) {
      const DeviceOverride& o = p.devices[j];
      const std::string op = at(path, "devices", j);
      const DeviceSpec* d = device(o.device);
      if (d == nullptr) {
        error(op, "device", "unknown device " + quoted(o.device));
        continue;
      }
      if (auto [s, ok] = seen_devices.emplace(o.device, j); !ok) {
        error(op, "device", "device " + quoted(o.device) + " overridden twice");
      }
      if (o.min_level && *o.min_level > d->max_level) error(op, "min_level", "exceeds max_level");
      if (o.limit_level && *o.limit_level > d->max_level) {
        error(op, "limit_level", "exceeds max_level");
      }
      const std::uint32_t lo = o.min_level.value_or(d->min_level);
      const std::uint32_t hi = o.limit_level.value_or(d->limit_level.value_or(d->max_level));
      if (lo > hi && lo <= d->max_level && hi <= d->max_level) {
        error(op, o.limit_level ? "limit_level" : "min_level",
              "effective min_level " + std::to_string(lo) + " exceeds limit_level " +
                  std::to_string(hi));
      }
    }
  }

  void check_sampling() {
    const SamplingSpec& s = spec_.sampling;
    if (s.fine_granularity <= MilliC{0}) error("sampling", "fine_granularity", "must be > 0");
    if (s.coarse_granularity < s.fine_granularity) {
      error("sampling", "coarse_granularity", "must be >= fine_granularity");
    }
    if (s.near_distance < MilliC{0}) error("sampling", "near_distance", "must be >= 0");
    if (s.min_interval <= Millis{0}) error("sampling", "min_interval", "must be > 0");
    if (s.max_interval < s.min_interval) {
      error("sampling", "max_interval", "must be >= min_interval");
    }
  }

  // Optional sensors (SensorSpec::optional) and their fallback
  // (policies/src/sensors.cpp). Where one is absent, no controller may sit
  // at a safe level for good: a controller whose input may stay unknown
  // (its may_be_absent rule, engine_impl.h) must stand aside with
  // safe_level 0. A weighted_sum that may renormalise needs weights > 0, so
  // that the weights left keep the sign and size of the estimate.
  void check_optional(const std::vector<std::uint16_t>& order) {
    using Kind = SensorSpec::Kind;
    if (order.size() != spec_.sensors.size()) return;  // cycles, already reported
    std::vector<bool> absent(spec_.sensors.size(), false);
    for (std::uint16_t i : order) {
      const SensorSpec& s = spec_.sensors[i];
      const std::string path = at("sensors", i);
      if (s.kind == Kind::physical) {
        absent[i] = s.optional;
        continue;
      }
      if (s.optional) error(path, "optional", "only a physical sensor can be optional");
      bool any = false;
      bool all = true;
      for (const std::string& in : s.inputs) {
        auto it = sensors_.find(in);
        const bool a = it != sensors_.end() && absent[it->second];
        any = any || a;
        all = all && a;
      }
      const bool falls_back =
          s.kind == Kind::weighted_sum || s.kind == Kind::max || s.kind == Kind::min;
      absent[i] = falls_back ? all : any;
      if (s.kind == Kind::weighted_sum && any) {
        for (std::size_t j = 0; j < s.weights.size(); ++j) {
          if (!(s.weights[j] > 0.0)) {
            error(path, "weights",
                  at("weights", j) +
                      " must be > 0: an input is optional, and the weights left when it is "
                      "absent are renormalised");
          }
        }
      }
    }
    for (std::size_t i = 0; i < spec_.controllers.size(); ++i) {
      const ControllerSpec& c = spec_.controllers[i];
      std::string sensor = c.input;
      if (auto z = zones_.find(c.input); z != zones_.end()) sensor = spec_.zones[z->second].sensor;
      auto it = sensors_.find(sensor);
      if (it == sensors_.end() || !absent[it->second]) continue;
      if (!c.safe_level || *c.safe_level != 0) {
        error(at("controllers", i), "safe_level",
              "input " + quoted(c.input) +
                  " may stay unknown for good (it rests on an optional sensor with no "
                  "fallback): set safe_level 0 so the controller stands aside while it is "
                  "absent instead of holding a safe level forever");
      }
    }
  }

  const PolicySpec& spec_;
  std::vector<SpecError> errors_;
  Index sensors_, zones_, devices_, controllers_, profiles_;
};

}  // namespace

std::vector<SpecError> validate(const PolicySpec& spec, std::vector<std::uint16_t>& order) {
  std::vector<SpecError> errors = Validator(spec).run(order);
  validate_magnitudes(spec, errors);
  validate_brightness(spec, errors);
  validate_last_resorts(spec, errors);
  return errors;
}

}  // namespace coolhand::policy::detail
