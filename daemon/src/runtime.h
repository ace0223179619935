// Runtime: a policy bound to hardware. It owns the compiled policy::Engine,
// the sensor bindings and the device actuators, and turns inputs (sysfs
// polls, kernel events, hot-plug, resume, reload, exit) into engine steps and
// knob writes. It reads no clock and owns no file descriptor: the event loop
// passes `now` (CLOCK_MONOTONIC) in and arms one timer for the time tick()
// returns. Tests drive it with a virtual clock and a temp-dir sysfs.
//
// Sensor rules:
// - A sensor is event-driven when the kernel pushes its temperature; it is
//   then never polled while readable. In order of preference:
//   - a coolhand module zone while the module's own family is subscribed:
//     EVENT_TEMP and EVENT_TRIP carry its temperature. Its engine window goes
//     to the module through program_module_window (WINDOW_SET); when that is
//     unset or fails, it is written to the zone's event_window file;
//   - a thermal zone, or a coolhand zone through its mirrored thermal zone,
//     while the thermal family is subscribed: SAMPLING_TEMP, TRIP_UP/DOWN,
//     THRESHOLD_UP/DOWN. Its window goes to on_window (user thresholds,
//     6.13+) and, for a coolhand zone, to its event_window file. After the
//     kernel accepts new thresholds the zone is read once from sysfs; a value
//     already outside the new window is handed to the engine and stepped on
//     at once (at most kMaxSettleSteps times per tick).
//   The window tells the kernel which changes the policy cares about. Every
//   other sensor is polled at the engine's adaptive interval for it
//   (Decision::poll_intervals, clamped to the policy's sampling min/max).
// - A read that fails or returns garbage counts as a failure; after
//   `lost_after_failures` consecutive failures the sensor is lost: the engine
//   is told it is unknown (its controllers go to their safe level) and one
//   warning is logged. A failing sensor is retried every min_interval, a lost
//   one every max(min_interval, min(max_interval, 5 s)), re-running discovery
//   so a hwmon that came back under another number is found again. The first
//   good reading makes it known again (one info line).
//
// Device rules: a device's level is written when the engine's decision
// differs from what the actuator last applied (so a failed write is retried
// at the next step). Originals are saved once per attribute path in an
// OriginalStore (persisted before the first write) and kept across reloads;
// restore_all() and a reload that drops a device write them back.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actuator.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/policy/engine.h"
#include "discovery.h"
#include "log.h"
#include "originals.h"
#include "result.h"
#include "sysfs.h"

namespace coolhand::daemon {

using policy::MilliC;
using policy::Time;

struct RuntimeOptions {
  bool dry_run = false;                  // decide and log, write nothing
  bool events_available = false;         // the thermal netlink family is subscribed
  bool module_events_available = false;  // the coolhand module's family is subscribed
  // Where knob originals are recorded (originals.h), owned by the caller and
  // outliving the Runtime; null: an in-memory store of the Runtime's own.
  OriginalStore* originals = nullptr;
};

// Why create() failed: the policy does not compile, or hardware it requires
// is absent (coolhandd exits 3, "not for this machine").
struct CreateError : SysError {
  enum class Reason : std::uint8_t { bad_policy, missing_hardware };
  Reason reason = Reason::bad_policy;
};

struct RuntimeCounters {
  std::uint64_t samples = 0;         // readings handed to the engine
  std::uint64_t pushed_samples = 0;  // of which pushed by kernel events
  std::uint64_t read_failures = 0;   // failed or garbage sensor reads
  std::uint64_t sensors_lost = 0;    // transitions to lost
  std::uint64_t steps = 0;
  std::uint64_t resyncs = 0;
  std::uint64_t resumes = 0;
  std::uint64_t reloads = 0;
  std::uint64_t reload_failures = 0;
};

struct SensorSlot;  // one policy sensor and its binding (runtime.cpp)

class Runtime {
 public:
  // Compile the policy and bind its hardware. Fails (and writes nothing) when
  // the engine rejects the spec or a required sensor or device is absent.
  [[nodiscard]] static Result<std::unique_ptr<Runtime>, CreateError> create(
      config::PolicyDocument doc, Sysfs& fs, Logger& log, RuntimeOptions opts);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Read every sensor, step and apply. Call once before tick().
  void start(Time now);
  // Do everything due at `now`: polls, then an engine step if a reading came
  // in or the engine asked for one. Returns when to call again; nullopt when
  // only an event (netlink, udev, signal) can make work.
  [[nodiscard]] std::optional<Time> tick(Time now);
  // A zone temperature pushed by the kernel; takes effect at the next tick().
  void on_zone_temperature(std::uint32_t tz_id, MilliC value, Time now);
  // A coolhand module zone's temperature (EVENT_TEMP, EVENT_TRIP); `zone_id`
  // is N of class/coolhand/zoneN. Takes effect at the next tick().
  void on_module_zone_temperature(std::uint32_t zone_id, MilliC value, Time now);
  // A thermal zone went away (netlink TZ_DELETE): its sensors are lost.
  void on_zone_deleted(std::uint32_t tz_id, Time now);
  // Messages may have been lost (ENOBUFS, sequence gap) or hardware came and
  // went (udev, TZ_CREATE): rebind what is missing and read every sensor.
  void resync(Time now);
  // Something else may have written a knob (a kernel governor changed a
  // cooling device): re-apply levels where the attribute differs.
  void verify_devices();
  // Resumed from suspend: firmware may have reset knobs; write levels again.
  void on_resume(Time now);
  // Replace the policy. On error the old policy keeps running untouched.
  Status reload(config::PolicyDocument doc, Time now);
  // Switch the engine's profile; takes effect at the next tick(). False if
  // the policy has no profile of that name. A reload returns to the policy's
  // default profile.
  bool set_profile(std::string_view name);
  // Write back every knob's original value (exit).
  void restore_all();

  // Windows of thermal-family event-driven sensors changed (kernel
  // thresholds, 6.13+). Returns true when the kernel now reports crossings
  // of this window (and nothing else) for the zone: the runtime then reads
  // the zone once, since the kernel detects a crossing only between two of
  // its own readings and a temperature that left the window before the
  // thresholds were in place would never be reported.
  std::function<bool(std::uint32_t tz_id, const policy::Window&)> on_window;
  // Program a module-driven zone's event window (coolhand WINDOW_SET). An
  // error (or no function) makes the runtime write the zone's event_window
  // file instead. Not called in dry-run mode.
  std::function<Status(std::uint32_t zone_id, const policy::Window&)> program_module_window;
  // A trip asked for shutdown or suspend.
  std::function<void(policy::TripAction, const std::string& zone)> on_action;

  [[nodiscard]] const policy::Engine& engine() const;
  [[nodiscard]] const RuntimeCounters& counters() const { return counters_; }
  // One line for sd_notify STATUS=.
  [[nodiscard]] std::string status_line() const;
  // Thermal zone ids with sensors driven by the thermal family.
  [[nodiscard]] std::vector<std::uint32_t> event_zones() const;
  // coolhand zone ids with sensors driven by the module's family.
  [[nodiscard]] std::vector<std::uint32_t> module_event_zones() const;
  // Level currently applied to device `name` (tests, status).
  [[nodiscard]] std::optional<std::uint32_t> device_level(std::string_view name) const;
  [[nodiscard]] bool sensor_lost(std::string_view name) const;
  // The last engine decision; null before start(). Valid until the next step.
  [[nodiscard]] const policy::Decision* last_decision() const;

  struct Bound;  // a compiled policy with its bindings (runtime.cpp)

 private:
  Runtime(Sysfs& fs, Logger& log, RuntimeOptions opts);

  [[nodiscard]] Result<std::unique_ptr<Bound>, CreateError> bind(config::PolicyDocument doc);
  void sample(std::size_t i, Time now);
  void pushed_sample(SensorSlot& s, MilliC value, Time now);
  void step(Time now);
  void schedule_polls(Time now);
  void recheck(std::size_t i, const policy::Window& w, Time now);
  void write_event_window(const std::string& path, const policy::Window& w);
  bool send_window(const SensorSlot& s, const policy::Window& w);
  void log_events(const policy::Decision& d);
  void remember_originals(const Bound& b);

  Sysfs& fs_;
  Logger& log_;
  RuntimeOptions opts_;
  std::unique_ptr<Bound> bound_;
  std::unique_ptr<OriginalStore> own_originals_;  // when opts.originals is null
  OriginalStore& originals_;                      // by attribute path, kept across reloads
  bool dirty_ = false;                            // a reading arrived since the last step
  std::optional<Time> last_step_;
  RuntimeCounters counters_;
};

}  // namespace coolhand::daemon
