// The policy engine: a compiled PolicySpec that turns sensor readings and the
// current time into throttle levels, severities and critical actions. It does
// no I/O, reads no clock and throws nothing (besides std::bad_alloc at
// compile time). One instance is driven by one thread.
//
// Driving it (daemon and simulator alike):
//   auto r = Engine::compile(spec);          // errors come back as values
//   engine.set_sensor(id, value, now);       // each new physical reading
//   const Decision& d = engine.step(now);    // after one or more readings, or at d.next_step
//   ... write d.devices[i].level where d.devices[i].changed ...
//   ... sleep until a sensor leaves d.windows[i] or until d.next_step ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/policy/spec.h"
#include "coolhand/policy/units.h"

namespace coolhand::policy {

// Indices into the spec's vectors, in spec order.
struct SensorId {
  std::uint16_t index = 0;
  auto operator<=>(const SensorId&) const = default;
};
struct ZoneId {
  std::uint16_t index = 0;
  auto operator<=>(const ZoneId&) const = default;
};
struct DeviceId {
  std::uint16_t index = 0;
  auto operator<=>(const DeviceId&) const = default;
};
struct ControllerId {
  std::uint16_t index = 0;
  auto operator<=>(const ControllerId&) const = default;
};

// A validation error. `path` locates the offending element in spec terms,
// e.g. "controllers[2].devices[0]" or "sensors[1]"; `key` is the field name
// ("device"). config/ maps the path back to a file:line:column.
struct SpecError {
  std::string path;
  std::string key;
  std::string message;
};

// The engine's verdict for one device.
struct DeviceDecision {
  std::uint32_t level = 0;            // level to apply now
  std::uint32_t requested = 0;        // deepest level asked for, before rate/dwell limits
  std::optional<ControllerId> cause;  // controller whose request won arbitration (none: released)
  bool forced = false;                // held deep by a trip's force_deepest action
  bool changed = false;               // level differs from the previous step's
  bool escalated = false;             // a zone's last resort asks for more than any controller
};

struct ZoneState {
  Severity severity = Severity::none;
  std::optional<MilliC> temperature;     // none while the zone's sensor is unknown
  std::uint32_t trips_reached = 0;       // bit i: trip i reached (hysteresis applied)
  std::uint32_t last_resort_levels = 0;  // levels its last resort has taken (0: idle)
};

// Something worth one log line: what changed and why.
struct Event {
  enum class Kind : std::uint8_t {
    trip_up,
    trip_down,
    severity_change,
    sensor_unknown,
    sensor_known,
    action_fired,
    profile_change
  };
  Kind kind = Kind::trip_up;
  std::uint16_t index = 0;   // zone index (trip, severity, action) or sensor index
  std::uint16_t detail = 0;  // trip index, or new severity as an integer
  std::optional<MilliC> temperature;
};

struct ActionRequest {
  ZoneId zone;
  std::uint16_t trip = 0;
  TripAction action = TripAction::none;
};

// [low, high]: the engine needs a new reading of a physical sensor once its
// value is < low or > high. Unknown sensors get the full range (any reading
// is wanted).
struct Window {
  MilliC low = MilliC::min();
  MilliC high = MilliC::max();
};

struct Decision {
  Time at{0};
  std::vector<DeviceDecision> devices;  // indexed by DeviceId
  std::vector<ZoneState> zones;         // indexed by ZoneId
  Severity severity = Severity::none;   // max over zones
  std::vector<Event> events;            // produced by this step only
  std::vector<ActionRequest> actions;   // actions that fired in this step
  std::vector<Window> windows;          // indexed by SensorId; meaningful for physical sensors
  std::optional<Time> next_step;  // a time-driven controller or virtual sensor needs a step then
  // Adaptive poll interval per SensorId for sensors that cannot send events:
  // short near a limit or when changing fast, long when cool; within
  // SamplingSpec's [min_interval, max_interval].
  std::vector<Millis> poll_intervals;
};

// Why a device is at its level, as of the last step (Engine::explain): for
// `coolhandctl explain` and the flight recorder. The limit is the one that
// decides the cause's request under the active profile (overrides and
// limit_offset applied): a step_wise or bang_bang threshold, a pid or
// power_budget setpoint, or the `up` of the table row the controller is on.
struct DeviceExplanation {
  std::uint32_t level = 0;
  std::optional<ControllerId> cause;  // winner of arbitration (none: released or forced)
  bool forced = false;                // held deep by a trip's force_deepest action
  bool safe = false;                  // the cause's input is unknown: it asks for its safe level
  std::optional<SensorId> input;      // the cause's input (a zone input resolved to its sensor)
  std::optional<MilliC> input_value;  // that sensor's value as of the last step
  std::string_view limit_kind;        // "threshold", "setpoint", "table row"; empty without cause
  std::optional<MilliC> limit;
  std::optional<Time> since;  // when the engine last changed the level (or was told it)
};

class Engine;

struct CompileResult {
  std::unique_ptr<Engine> engine;  // set iff errors is empty
  std::vector<SpecError> errors;
};

class Engine {
 public:
  [[nodiscard]] static CompileResult compile(const PolicySpec& spec);

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  [[nodiscard]] std::optional<SensorId> sensor_id(std::string_view name) const;
  [[nodiscard]] std::optional<ZoneId> zone_id(std::string_view name) const;
  [[nodiscard]] std::optional<DeviceId> device_id(std::string_view name) const;
  [[nodiscard]] std::optional<ControllerId> controller_id(std::string_view name) const;
  [[nodiscard]] const PolicySpec& spec() const;

  // Record a reading of a physical sensor taken at `now`.
  void set_sensor(SensorId id, MilliC value, Time now);
  // The adapter lost the sensor (unreadable for N tries, hot-unplugged).
  void set_sensor_unknown(SensorId id, Time now);
  // Current value of any sensor (physical or virtual), as of the last step.
  [[nodiscard]] std::optional<MilliC> sensor_value(SensorId id) const;

  // Evaluate everything at `now` (monotonic, never earlier than the last
  // call). The reference stays valid until the next call.
  const Decision& step(Time now);

  // Switch profile; takes effect at the next step. False if unknown.
  bool set_profile(std::string_view name);
  [[nodiscard]] std::string_view profile() const;

  // Tell the engine the level a device actually has (e.g. read back after
  // restore or resume), so rate limits start from the truth.
  void set_device_level(DeviceId id, std::uint32_t level, Time now);

  // Why device `id` is at its level (see DeviceExplanation); a default
  // explanation for an unknown id.
  [[nodiscard]] DeviceExplanation explain(DeviceId id) const;

  // Checkpoints (the flight recorder's, docs/recording-format.md): the
  // engine's complete dynamic state (sensor values and filter histories,
  // trip hysteresis and debounce counts, controller integrators, table rows
  // and hold timers, levels, last resorts, the profile, the last decision)
  // as bytes. Pure: no I/O, and save_state() does not allocate. The size
  // varies with the filters' live history, up to max_state_size() (fixed by
  // compile()). save_state() returns the bytes written (0: `out` too
  // small). restore_state() takes exactly what save_state() wrote for an
  // engine compiled from the same spec and leaves the engine as the saved
  // one was; it checks every index and value it reads and returns false on
  // a bad one (the engine's state is then unspecified: discard it).
  [[nodiscard]] std::size_t max_state_size() const;
  std::size_t save_state(std::span<std::byte> out) const;
  [[nodiscard]] bool restore_state(std::span<const std::byte> in);
  // The last step's decision (the one step() returned).
  [[nodiscard]] const Decision& decision() const;

 private:
  Engine();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

[[nodiscard]] std::string_view to_string(Severity s);
[[nodiscard]] std::optional<Severity> severity_from_string(std::string_view s);
[[nodiscard]] std::string_view to_string(Event::Kind k);
[[nodiscard]] std::string_view to_string(TripAction a);
[[nodiscard]] std::string_view to_string(ControllerSpec::Kind k);
[[nodiscard]] std::string_view to_string(SensorSpec::Kind k);

}  // namespace coolhand::policy
