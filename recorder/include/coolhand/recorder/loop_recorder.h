// LoopRecorder: a policy::ControlLoop whose every input, every port answer
// and every observed decision goes into a Ring, so that the loop can be
// replayed exactly from a recording (replay_ports.h).
//
// It owns the loop and wraps the caller's ports and observer in recording
// decorators; the caller calls LoopRecorder's methods instead of the loop's
// (same names, same meaning, loop.h). What is recorded, in order:
//   - at construction: loop_created (slot and device counts, policy hash,
//     lost_after_failures) and one slot_map per slot;
//   - each call: a call_* record with its `now` in ms, BEFORE the call, so
//     the port answers and decisions the call causes follow it;
//   - port answers: every read, apply, rebind and watch; present/delivery
//     and bound only when their answer changes for that slot or device
//     (the loop asks them many times per step);
//   - observer: per engine step a step record, one device_decision per
//     device (level, requested, winning controller, its input value and
//     threshold or setpoint), one virtual_value per virtual sensor, one
//     engine_event per event; lost and recovered sensors; actions.
// Timestamps: the ring's time. With a clock (set_clock), LoopRecorder sets it
// at each call; without one it uses `now` (ms) * 1e6.
//
// Nothing here allocates after construction, locks or makes a system call
// (the clock the caller supplies aside).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "coolhand/policy/loop.h"
#include "coolhand/recorder/ring.h"

namespace coolhand::recorder {

// A monotonic clock in ns, supplied by the caller (the library reads none).
using ClockNs = std::uint64_t (*)();

class LoopRecorder {
 public:
  // As ControlLoop's constructor, plus the ring (outlives this object) and
  // the hash of the policy's text (policy_hash() in file.h).
  LoopRecorder(Ring& ring, std::uint64_t policy_hash, std::unique_ptr<policy::Engine> engine,
               const std::vector<policy::SensorId>& sensors, policy::LoopConfig config,
               policy::LoopPorts ports, ClockNs clock = nullptr);
  ~LoopRecorder();
  LoopRecorder(const LoopRecorder&) = delete;
  LoopRecorder& operator=(const LoopRecorder&) = delete;

  void start(policy::Time now);
  [[nodiscard]] std::optional<policy::Time> tick(policy::Time now);
  void push(std::size_t slot, policy::MilliC value, policy::Time now);
  void sensor_gone(std::size_t slot, policy::Time now);
  void resync(policy::Time now);
  void resume(policy::Time now);
  void verify_devices();
  void restore_all();
  void seed_level(std::size_t device, std::uint32_t level, policy::Time now);
  bool set_profile(std::string_view name);

  // The loop itself, for queries (engine(), applied_level(), counters()...).
  [[nodiscard]] const policy::ControlLoop& loop() const { return *loop_; }
  [[nodiscard]] Ring& ring() { return ring_; }

  struct Taps;  // the recording decorators (loop_recorder.cpp)

 private:
  void stamp(policy::Time now);

  Ring& ring_;
  ClockNs clock_;
  std::unique_ptr<Taps> taps_;
  std::unique_ptr<policy::ControlLoop> loop_;
};

}  // namespace coolhand::recorder
