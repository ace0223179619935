// Plain description of a thermal policy: sensors, zones, trips, throttle
// devices, controllers and profiles. `config/` fills these structs from YAML;
// tests and the simulator may build them in code. `Engine::compile` validates
// a PolicySpec and turns it into a running engine. Nothing here knows about
// hardware: how a physical sensor is read or how a device level is written is
// the business of the adapters (daemon, simulator).
//
// Conventions: temperatures are MilliC, durations Millis, powers carry `_mw`.
// Levels are 0 (full performance) .. max_level (deepest state before device
// state is lost, as in the Cool Hand paper). A zero duration or zero step
// limit means "no limit" unless stated otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coolhand/policy/units.h"

namespace coolhand::policy {

// Severity levels as Android reports them, in increasing order.
enum class Severity : std::uint8_t { none, light, moderate, severe, critical, emergency, shutdown };
inline constexpr std::size_t kSeverityCount = 7;

// ---------------------------------------------------------------- sensors --

struct SensorSpec {
  enum class Kind : std::uint8_t {
    physical,      // value supplied by an adapter through Engine::set_sensor
    weighted_sum,  // sum(weights[i] * inputs[i]) + offset
    max,           // max(inputs) + offset
    min,           // min(inputs) + offset
    ema,           // exponential moving average of inputs[0], time constant `time_constant`
    fir,  // sum over inputs i and taps k of weights[i*taps+k] * inputs[i](now - k*tap_period) +
          // offset
    predictor,  // inputs[0] extrapolated `horizon` ahead from the least-squares slope over `window`
    // inputs[0], a physical sensor with a quantum, between its readings:
    // the sub-quantum value recovered from when the readings flip
    // (policies/src/sensors.cpp; docs/engine.md, "Quantised sensors")
    dequantise,
  };

  // What a physical sensor's readings measure. A brightness is a display
  // backlight's actual brightness as a fraction of its maximum, carried in
  // the value's thousandths (MilliC{1000} is full brightness, 0 is dark):
  // not a temperature, so it may only be an input of a fir sensor, whose
  // weight on it is then in °C per full brightness (validate_brightness.cpp;
  // docs/policy-language.md, "Backlight brightness").
  enum class Quantity : std::uint8_t { temperature, brightness };

  std::string name;
  Kind kind = Kind::physical;
  Quantity quantity = Quantity::temperature;  // physical only
  std::vector<std::string> inputs;            // virtual kinds: names of other sensors (no cycles)
  std::vector<double>
      weights;            // weighted_sum: one per input; fir: inputs.size() * taps coefficients
  MilliC offset{0};       // added to the value (all kinds; a calibration offset for physical)
  Millis stale_after{0};  // physical: a reading older than this is unknown (0: never stale)
  // physical: the platform may lack this sensor (the policy's `required:
  // false`). While it is unknown, weighted_sum, max and min sensors that use
  // it fall back on their other inputs (see policies/src/sensors.cpp).
  bool optional = false;
  // physical: the step its readings come in, rounded to the nearest (0: fine
  // grained). A pid or power_budget setpoint on it is moved down to the
  // nearest point where two readings meet (docs/engine.md, "Quantised
  // sensors").
  MilliC quantum{0};
  Millis time_constant{0};  // ema, dequantise: tau (> 0)
  Millis tap_period{0};     // fir: spacing between taps (> 0); held samples, zero-order hold
  std::uint32_t taps = 0;   // fir: taps per input (>= 1)
  Millis horizon{0};        // predictor: look-ahead (> 0)
  Millis window{0};         // predictor: regression window (> 0)
};

// ------------------------------------------------------------ zones, trips --

// What the engine asks the adapters to do when a trip with an action has been
// above its threshold for `debounce_samples` consecutive evaluations.
enum class TripAction : std::uint8_t {
  none,
  shutdown,       // orderly power-off
  suspend,        // suspend to RAM
  force_deepest,  // force `devices` to their deepest allowed level while the trip is reached
};

struct TripSpec {
  enum class Type : std::uint8_t { passive, hot, critical };
  std::string name;  // unique within the zone
  Type type = Type::passive;
  MilliC threshold{0};   // reached when T >= threshold
  MilliC hysteresis{0};  // left when T < threshold - hysteresis (>= 0)
  TripAction action = TripAction::none;
  std::vector<std::string> devices;  // force_deepest: devices to force
  std::uint32_t debounce_samples =
      1;  // consecutive readings above threshold before the action fires (>= 1)
};

// One rung of a zone's severity ladder: the zone is at `level` or above while
// T >= threshold, and drops below it when T < threshold - hysteresis.
struct SeverityStepSpec {
  Severity level = Severity::light;
  MilliC threshold{0};
  MilliC hysteresis{0};
};

// A zone's last resort (docs/engine.md, "Last resort"): while the zone stays
// at or above `limit` with every device its controllers drive at its deepest
// allowed level, `devices` are throttled too, one level per `hold`, the level
// that costs the least performance per watt saved first (from their
// power_mw and performance tables). Levels are given back in reverse order,
// one per `hold`, once T < limit - hysteresis or the controllers have
// headroom again (a driven device shallower than its deepest) with T < limit.
struct LastResortSpec {
  MilliC limit{0};
  MilliC hysteresis{0};              // >= 0
  Millis hold{10000};                // > 0: how long a condition must last before each level
  std::vector<std::string> devices;  // >= 1, each with power_mw and performance tables
};

struct ZoneSpec {
  std::string name;
  std::string sensor;  // a sensor name (physical or virtual)
  std::vector<TripSpec> trips;
  std::vector<SeverityStepSpec> severities;  // strictly increasing level and threshold
  std::optional<LastResortSpec> last_resort;
};

// ---------------------------------------------------------------- devices --

struct DeviceSpec {
  std::string name;
  std::uint32_t max_level = 0;          // >= 1
  std::vector<std::uint32_t> power_mw;  // empty or max_level+1 entries, non-increasing
  std::vector<double> performance;      // empty or max_level+1 entries in [0,1], non-increasing
  std::uint32_t min_level = 0;          // never go shallower than this
  std::optional<std::uint32_t> limit_level;  // never go deeper than this (default max_level)
  std::uint32_t max_step_up = 0;    // deepest change per decision towards throttling (0: unlimited)
  std::uint32_t max_step_down = 0;  // per decision towards performance (0: unlimited)
  Millis min_dwell{0};              // minimum time at a level before the next change
  // Minimum time at a level before a change towards performance (0: only
  // min_dwell). For devices whose heat reaches the limited place slowly.
  Millis release_dwell{0};
};

// ------------------------------------------------------------ controllers --

struct DeviceBinding {
  std::string device;
  double weight = 1.0;  // > 0; share in power_budget, scaling nothing else
};

// A row of a table controller: level `level` is requested while T >= up;
// once requested it is kept until T < down (down <= up).
struct TableRow {
  MilliC up{0};
  MilliC down{0};
  std::uint32_t level = 0;
};

struct ControllerSpec {
  enum class Kind : std::uint8_t {
    step_wise,     // one level deeper per `period` while T >= threshold and not falling;
                   // one shallower per `period` while T < threshold - hysteresis
    table,         // temperature -> level table with separate up/down thresholds
    pid,           // PID on (T - setpoint), output 0..1 of each device's range
    power_budget,  // PID on a power budget split among devices by weight via power tables
    bang_bang,     // level `on_level` (default deepest) at T >= threshold, 0 below threshold -
                   // hysteresis
  };

  std::string name;
  Kind kind = Kind::step_wise;
  std::string input;                   // a sensor name or a zone name (a zone means its sensor)
  std::vector<DeviceBinding> devices;  // >= 1
  std::optional<std::uint32_t>
      safe_level;  // level while the input is unknown (default: deepest allowed)

  // step_wise, bang_bang
  MilliC threshold{0};
  MilliC hysteresis{0};
  std::optional<std::uint32_t> on_level;  // bang_bang
  // step_wise, pid, power_budget: the step period while engaged (> 0)
  Millis period{1000};

  // table
  std::vector<TableRow> table;  // rows with strictly increasing `up` and `level`

  // pid: u = kp*e + ki*integral(e) + kd*d(T)/dt with e = T - setpoint in °C
  // (derivative on measurement: de/dt = dT/dt, so a rising T throttles harder),
  // u clamped to [0, 1]; the integral only accumulates while u is not
  // saturated in the direction of e (anti-windup). Engaged while
  // T >= setpoint - engage_below; below that the controller releases and resets.
  MilliC setpoint{0};
  double kp = 0.0;  // 1/°C
  double ki = 0.0;  // 1/(°C·s)
  double kd = 0.0;  // s/°C
  MilliC engage_below{5000};

  // power_budget: budget_mw = sustainable_power_mw + P + I + D, where
  // e = setpoint - T in °C; P = (e < 0 ? kp_over : kp_under) * e;
  // I accumulates ki*e while |I| <= sum of max powers; D = kd * de/dt. The
  // budget is clamped to [0, sum of device max powers] and split by weight;
  // each device gets the shallowest level whose power_mw fits its share.
  // Below `switch_on` the devices are released and the PID reset.
  std::uint32_t sustainable_power_mw = 0;
  double kp_over_mw = 0.0;   // mW/°C when above the setpoint
  double kp_under_mw = 0.0;  // mW/°C when below
  double ki_mw = 0.0;        // mW/(°C·s)
  double kd_mw = 0.0;        // mW·s/°C
  MilliC switch_on{0};
};

// ---------------------------------------------------------------- profiles --

struct ControllerOverride {
  std::string controller;
  std::optional<MilliC> threshold;  // step_wise, bang_bang
  std::optional<MilliC> setpoint;   // pid, power_budget
  std::optional<bool> enabled;
};

struct DeviceOverride {
  std::string device;
  std::optional<std::uint32_t> min_level;
  std::optional<std::uint32_t> limit_level;
};

// A named set of overrides, switchable at run time without a reload. A profile
// with no overrides is the policy as written.
struct ProfileSpec {
  std::string name;
  MilliC limit_offset{
      0};  // added to every controller threshold/setpoint/table row (e.g. -2 °C for "quiet")
  std::vector<ControllerOverride> controllers;
  std::vector<DeviceOverride> devices;
};

// --------------------------------------------------------------- sampling --

// How the engine sizes the per-sensor event windows (the Cool Hand paper's
// §3.8: the policy says which temperature changes are interesting).
struct SamplingSpec {
  MilliC fine_granularity{500};     // window half-width near a limit
  MilliC coarse_granularity{5000};  // window half-width far from every limit
  MilliC near_distance{5000};       // "near" = within this distance of the nearest limit
  Millis min_interval{250};         // bounds for adaptive polling of sensors without events
  Millis max_interval{30000};
};

struct PolicySpec {
  std::vector<SensorSpec> sensors;
  std::vector<ZoneSpec> zones;
  std::vector<DeviceSpec> devices;
  std::vector<ControllerSpec> controllers;
  std::vector<ProfileSpec> profiles;
  std::string default_profile;  // empty: no profile active
  SamplingSpec sampling;
};

}  // namespace coolhand::policy
