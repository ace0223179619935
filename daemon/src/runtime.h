// Runtime: a policy bound to hardware. It compiles the policy, binds its
// sensors and knobs through discovery, and runs the shared control loop
// (coolhand/policy/loop.h: sampling, failure handling, scheduling,
// settling, applied levels) with ports implemented over sysfs and the two
// netlink families. It reads no clock and owns no file descriptor: the event
// loop passes `now` (CLOCK_MONOTONIC) in and arms one timer for the time
// tick() returns. Tests drive it with a virtual clock and a temp-dir sysfs.
//
// Port rules (the loop's rules are in loop.h):
// - A sensor is pushed (event-driven) when the kernel pushes its
//   temperature. In order of preference:
//   - a coolhand module zone while the module's own family is subscribed:
//     EVENT_TEMP and EVENT_TRIP carry its temperature. Its window goes to
//     the module through KernelHooks::set_module_window (WINDOW_SET); when
//     that fails, it is written to the zone's event_window file;
//   - a thermal zone, or a coolhand zone through its mirrored thermal zone,
//     while the thermal family is subscribed: SAMPLING_TEMP, TRIP_UP/DOWN,
//     THRESHOLD_UP/DOWN. Its window goes to KernelHooks::set_thresholds
//     (user thresholds, 6.13+) and, for a coolhand zone, to its
//     event_window file. When the kernel accepts the thresholds, the loop
//     reads the zone once.
//   Every other sensor is polled.
// - A read is the attribute's text parsed as a temperature; a missing,
//   unreadable or garbage attribute is a failed read. Rebinding re-runs
//   discovery, so a hwmon that came back under another number is found.
// - Knobs: an Actuator per bound device. Originals are saved once per
//   attribute path in an OriginalStore (persisted before the first write)
//   and kept across reloads; restore_all() and a reload that drops a device
//   write them back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actuator.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/policy/engine.h"
#include "coolhand/policy/loop.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/ring.h"
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
  // The flight recorder's ring (flight_recorder.h), owned by the caller and
  // outliving the Runtime; null: a minimal ring of the Runtime's own. Every
  // loop input, port answer and decision goes in (recorder/loop_recorder.h).
  recorder::Ring* ring = nullptr;
  recorder::ClockNs clock = nullptr;  // the ring's timestamps; null: `now` in ns
  std::uint64_t policy_hash = 0;      // of the policy text (recorder::policy_hash)
};

// Why create() failed: the policy does not compile, or hardware it requires
// is absent (coolhandd exits 3, "not for this machine").
struct CreateError : SysError {
  enum class Reason : std::uint8_t { bad_policy, missing_hardware };
  Reason reason = Reason::bad_policy;
};

// The loop's counters summed over every policy run so far, plus reloads.
struct RuntimeCounters : policy::LoopCounters {
  std::uint64_t reloads = 0;
  std::uint64_t reload_failures = 0;
};

// What the runtime asks of the kernel and the session; main implements it
// over the netlink families and logind. The defaults do nothing: no user
// thresholds, no WINDOW_SET (event_window files are written instead), no
// shutdown or suspend.
class KernelHooks {
 public:
  virtual ~KernelHooks() = default;
  // Program thermal zone `tz_id`'s user thresholds (6.13+) to `w`. True when
  // the kernel now reports crossings of this window (and nothing else).
  virtual bool set_thresholds(std::uint32_t /*tz_id*/, const policy::Window& /*w*/) {
    return false;
  }
  // Program a coolhand module zone's event window (WINDOW_SET). An error
  // makes the runtime write the zone's event_window file instead.
  virtual Status set_module_window(std::uint32_t /*zone_id*/, const policy::Window& /*w*/) {
    return SysError{"WINDOW_SET", "coolhand", 0, "no coolhand netlink"};
  }
  // A trip asked for shutdown, suspend or force_deepest (the engine forces
  // the levels itself; the daemon dumps its flight recorder first).
  virtual void request_action(policy::TripAction /*a*/, const std::string& /*zone*/) {}
};

class Runtime {
 public:
  // Compile the policy and bind its hardware. Fails (and writes nothing) when
  // the engine rejects the spec or a required sensor or device is absent.
  // `hooks` must outlive the runtime; null: KernelHooks' defaults.
  [[nodiscard]] static Result<std::unique_ptr<Runtime>, CreateError> create(
      config::PolicyDocument doc, Sysfs& fs, Logger& log, RuntimeOptions opts,
      KernelHooks* hooks = nullptr);
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
  // `policy_hash`: of the new policy's text, for the flight recorder.
  Status reload(config::PolicyDocument doc, Time now, std::uint64_t policy_hash = 0);
  // Switch the engine's profile; takes effect at the next tick(). False if
  // the policy has no profile of that name. A reload returns to the policy's
  // default profile.
  bool set_profile(std::string_view name);
  // Write back every knob's original value (exit).
  void restore_all();

  [[nodiscard]] const policy::Engine& engine() const;
  [[nodiscard]] RuntimeCounters counters() const;
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
  // The flight recorder's ring (RuntimeOptions::ring or the Runtime's own).
  [[nodiscard]] recorder::Ring& ring() { return ring_; }
  // Put a daemon record (netlink, reload, dropped...) stamped with the
  // clock (or `now`): recorder/record.h, kinds 96..127.
  void record(recorder::Kind kind, std::uint16_t index, std::uint32_t a, std::int64_t b,
              std::int32_t c, Time now);

  struct Bound;  // a compiled policy with its bindings (runtime.cpp)

 private:
  Runtime(Sysfs& fs, Logger& log, RuntimeOptions opts, KernelHooks& hooks);

  [[nodiscard]] Result<std::unique_ptr<Bound>, CreateError> bind(config::PolicyDocument doc,
                                                                 std::uint64_t policy_hash);
  void remember_originals(const Bound& b);

  Sysfs& fs_;
  Logger& log_;
  RuntimeOptions opts_;
  KernelHooks& hooks_;
  std::unique_ptr<Bound> bound_;
  std::unique_ptr<OriginalStore> own_originals_;  // when opts.originals is null
  OriginalStore& originals_;                      // by attribute path, kept across reloads
  std::unique_ptr<recorder::Ring> own_ring_;      // when opts.ring is null
  recorder::Ring& ring_;
  RuntimeCounters past_;  // loop counters of the policies replaced by reloads, and reloads
};

}  // namespace coolhand::daemon
