// The control loop around the engine, shared by coolhandd and coolhand-sim.
// Like the engine it does no I/O, reads no clock and throws nothing: `now`
// (monotonic) is passed in, and the world is reached through four ports
// handed in at construction. coolhandd implements them over sysfs and the
// thermal and coolhand netlink families (daemon/src/runtime.cpp);
// coolhand-sim over its thermal model (sim/src/policy_controller.cpp).
//
// Sensor rules:
// - A sensor slot is one physical sensor of the policy. Its readings are
//   either pushed by the platform (Delivery::pushed: kernel events, the
//   coolhand module's or an EC's window reports) or polled by the loop.
//   A pushed sensor is never polled while readable: the loop hands the
//   engine's window for it to the WindowPort whenever the window changes,
//   so the platform reports only the changes the policy cares about. When
//   the port answers that the platform now watches exactly that window, the
//   loop reads the sensor once: the platform sees a crossing only between
//   two of its own readings, and a value that left the window while the
//   window was being programmed would never be reported. A value found
//   outside the window is handed on and stepped on at once (at most
//   kMaxSettleSteps engine steps per tick()).
// - A polled sensor is read at the engine's adaptive interval for it
//   (Decision::poll_intervals), clamped to the policy's
//   [sampling.min_interval, sampling.max_interval], counted from its last
//   reading.
// - A read that fails counts as a failure; after `lost_after_failures`
//   consecutive failures the sensor is lost: the engine is told it is
//   unknown (its controllers go to their safe level) and the observer hears
//   of it once. A failing sensor is retried every min_interval, a lost or
//   absent one every max(min_interval, min(max_interval, 5 s)), asking the
//   port to look for its hardware again. The first good reading makes it
//   known again. Pushed readings of a failing or lost sensor are ignored:
//   it recovers through reads.
// - A sensor that has never given a reading counts as lost for status.
//
// Device rules: the loop owns the applied level of every device. A level is
// written when the engine's decision differs from what was last applied
// (so a failed write is retried at the next step). restore_all() asks the
// port to write back every bound device's original value; the port keeps
// the originals (the daemon across reloads and crashes, see
// daemon/src/originals.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "coolhand/policy/engine.h"

namespace coolhand::policy {

// One read of a sensor through the SensorPort.
struct SensorRead {
  std::optional<MilliC> value;  // none: the read failed or gave garbage
  std::string_view error;       // why, when value is none; valid until the port's next call
};

enum class Delivery : std::uint8_t {
  polled,  // the loop reads the sensor at its adaptive interval
  pushed,  // the platform pushes readings outside the window the loop set
};

// Sensor slots are indices into the loop's `sensors` vector.
class SensorPort {
 public:
  virtual ~SensorPort() = default;
  // Read slot `slot` now. `rebind`: the sensor is absent or lost; look for
  // its hardware again first (a hwmon that came back under another number).
  virtual SensorRead read(std::size_t slot, bool rebind) = 0;
  [[nodiscard]] virtual bool present(std::size_t slot) const = 0;
  // How the slot's readings arrive now (may change after a rebind).
  [[nodiscard]] virtual Delivery delivery(std::size_t slot) const = 0;
};

// Devices are addressed by DeviceId::index.
class KnobPort {
 public:
  virtual ~KnobPort() = default;
  // Whether the device has hardware to write (none: levels are decided only).
  [[nodiscard]] virtual bool bound(std::size_t device) const = 0;
  // Look for an unbound device's hardware again (hot-plug); true if found.
  virtual bool rebind(std::size_t device) = 0;
  // Write `level`; true when the knob now holds it (or what the kernel made
  // of it). On false the applied level is unknown and retried next step.
  virtual bool apply(std::size_t device, std::uint32_t level) = 0;
  // Check the knob still holds what was last applied; write again if not.
  virtual void verify(std::size_t device) = 0;
  // Write the device's original value back.
  virtual void restore(std::size_t device) = 0;
};

class WindowPort {
 public:
  virtual ~WindowPort() = default;
  // The engine's window for pushed slot `slot` changed. True when the
  // platform now reports crossings of exactly `w` (and nothing else): the
  // loop then reads the sensor once (see the sensor rules).
  virtual bool watch(std::size_t slot, const Window& w) = 0;
};

// What happened, for logs and the flight recorder. Every method has an
// empty default; calls are made synchronously from the loop.
class LoopObserver {
 public:
  virtual ~LoopObserver() = default;
  virtual void sampled(std::size_t /*slot*/, MilliC /*value*/, bool /*pushed*/, Time /*now*/) {}
  // The read after a watched window (before it is handed on, if outside).
  virtual void rechecked(std::size_t /*slot*/, MilliC /*value*/, Time /*now*/) {}
  virtual void read_failed(std::size_t /*slot*/, std::string_view /*why*/, Time /*now*/) {}
  virtual void sensor_lost(std::size_t /*slot*/, std::uint32_t /*failures*/,
                           std::string_view /*why*/, Time /*now*/) {}
  virtual void sensor_recovered(std::size_t /*slot*/, MilliC /*value*/, Time /*now*/) {}
  // After every engine step, before any knob is written.
  virtual void stepped(const Decision& /*d*/, Time /*now*/) {}
  // A device whose decided level changed (dd.changed), before it is written.
  virtual void level_changed(std::size_t /*device*/, const DeviceDecision& /*dd*/, Time /*now*/) {}
  virtual void action(const ActionRequest& /*a*/, Time /*now*/) {}
};

struct LoopConfig {
  SamplingSpec sampling;                  // poll clamps and retry intervals
  std::uint32_t lost_after_failures = 3;  // consecutive failures before a sensor is lost
};

struct LoopCounters {
  std::uint64_t samples = 0;         // readings handed to the engine
  std::uint64_t pushed_samples = 0;  // of which pushed by the platform
  std::uint64_t read_failures = 0;   // failed or garbage reads
  std::uint64_t sensors_lost = 0;    // transitions to lost
  std::uint64_t steps = 0;
  std::uint64_t resyncs = 0;
  std::uint64_t resumes = 0;
};

struct LoopPorts {
  SensorPort& sensors;
  KnobPort& knobs;
  WindowPort& windows;
  LoopObserver* observer = nullptr;  // optional
};

class ControlLoop {
 public:
  // Minimum gap between two wake-ups the loop asks for.
  static constexpr Millis kMinWake{10};
  // Engine steps one tick() may take to settle after rechecks.
  static constexpr int kMaxSettleSteps = 4;
  // Cap on the retry interval of a lost or absent sensor.
  static constexpr Millis kLostRetryCap{5000};

  // `sensors[slot]` is the engine id of slot `slot` (physical sensors only).
  ControlLoop(std::unique_ptr<Engine> engine, const std::vector<SensorId>& sensors,
              LoopConfig config, LoopPorts ports);
  ~ControlLoop();
  ControlLoop(const ControlLoop&) = delete;
  ControlLoop& operator=(const ControlLoop&) = delete;

  // Read every sensor, step and apply. Call once before tick().
  void start(Time now);
  // Do everything due at `now`: polls, then an engine step if a reading
  // came in or the engine asked for one. Returns when to call again
  // (never earlier than now + kMinWake); nullopt when only a pushed reading
  // or another outside event can make work.
  [[nodiscard]] std::optional<Time> tick(Time now);
  // A reading the platform pushed for `slot`; takes effect at the next tick().
  void push(std::size_t slot, MilliC value, Time now);
  // The slot's hardware went away (the port has dropped its binding).
  void sensor_gone(std::size_t slot, Time now);
  // Messages may have been lost or hardware came and went: send every
  // window again, read every sensor (rebinding what is missing), rebind
  // missing devices, and step.
  void resync(Time now);
  // Resumed from suspend: firmware may have reset knobs; write every
  // applied level again, then resync.
  void resume(Time now);
  // Something else may have written a knob: re-apply where it differs.
  void verify_devices();
  // Write back every bound device's original value (exit, reload drop).
  void restore_all();
  // Tell the engine the level a device has now, e.g. one kept across a
  // reload, so rate limits start from the truth. The level is written once
  // more at the next step (a new policy may map it to other values).
  void seed_level(std::size_t device, std::uint32_t level, Time now);
  // Switch the engine's profile; takes effect at the next tick(). False if
  // the policy has no such profile.
  bool set_profile(std::string_view name);

  [[nodiscard]] const Engine& engine() const { return *engine_; }
  [[nodiscard]] const LoopCounters& counters() const { return counters_; }
  [[nodiscard]] std::size_t sensor_count() const { return slots_.size(); }
  [[nodiscard]] SensorId sensor_id(std::size_t slot) const { return slots_[slot].id; }
  // Lost, absent, or never read.
  [[nodiscard]] bool sensor_lost(std::size_t slot) const;
  [[nodiscard]] std::optional<std::uint32_t> applied_level(std::size_t device) const {
    return applied_[device];
  }
  // The last engine decision; null before start(). Valid until the next step.
  [[nodiscard]] const Decision* last_decision() const { return last_; }

  // Checkpoints (the flight recorder's): the loop's complete dynamic state,
  // the engine's included (Engine::save_state), as bytes: per slot the
  // failure count, lost flag, next poll, last sample and window sent; the
  // applied levels; the last step's time; counters. Pure: no I/O, and
  // save_state() does not allocate; it returns the bytes written (at most
  // max_state_size(); 0: `out` too small). restore_state() takes what
  // save_state() wrote for a loop built from the same spec and slots, and
  // returns false on a bad input (discard the loop then).
  [[nodiscard]] std::size_t max_state_size() const;
  std::size_t save_state(std::span<std::byte> out) const;
  [[nodiscard]] bool restore_state(std::span<const std::byte> in);

 private:
  struct Slot {
    SensorId id;
    std::uint32_t failures = 0;  // consecutive
    bool lost = false;
    bool ever_read = false;
    std::optional<Time> next_poll;
    std::optional<Time> last_sample;
    std::optional<Window> sent_window;  // last window handed to the WindowPort
  };

  void sample(std::size_t slot, Time now);
  void take(Slot& s, std::size_t slot, MilliC value, bool pushed, Time now);
  void step(Time now);
  void apply(const Decision& d, Time now);
  void schedule(Time now);
  void recheck(std::size_t slot, const Window& w, Time now);
  [[nodiscard]] Millis lost_retry() const;
  // The loop's own fields for the checkpoint codec (loop_state.cpp).
  template <typename Io, typename Self>
  static void visit_state(Io& io, Self& self);

  std::unique_ptr<Engine> engine_;
  std::vector<Slot> slots_;
  LoopConfig config_;
  LoopPorts ports_;
  std::vector<std::optional<std::uint32_t>> applied_;  // by DeviceId::index
  const Decision* last_ = nullptr;
  std::optional<Time> last_step_;
  bool dirty_ = false;  // a reading arrived (or the profile changed) since the last step
  LoopCounters counters_;
};

}  // namespace coolhand::policy
