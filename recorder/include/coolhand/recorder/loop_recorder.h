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
//   - checkpoints (checkpoint.h): before a call record, once `interval`
//     records have gone into the ring since the last one. The default
//     interval is default_checkpoint_interval(): a quarter of the ring (in
//     a ring of default size ~7.5 minutes of the busiest shipped policy),
//     at least 4 × the checkpoint's own records. The payload is encoded in
//     place in the ring (checkpoint_scratch()), so the recorder holds no
//     payload buffer; a checkpoint whose records would wrap past the ring's
//     end waits for the first call after the wrap (a few records later).
// Timestamps: the ring's time. With a clock (set_clock), LoopRecorder sets it
// at each call; without one it uses `now` (ms) * 1e6.
//
// Nothing here allocates after construction, locks or makes a system call
// (the clock the caller supplies aside).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "coolhand/policy/loop.h"
#include "coolhand/recorder/checkpoint.h"
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

  // Records between checkpoints; 0: none. Takes effect from the next call.
  void set_checkpoint_interval(std::uint64_t records);
  [[nodiscard]] std::uint64_t checkpoint_interval() const { return checkpoint_every_; }
  // The largest checkpoint payload of this loop, in bytes.
  [[nodiscard]] std::size_t checkpoint_bytes() const { return max_payload_; }
  // Records one checkpoint now (the calls do when one is due). False, and
  // nothing recorded, when its records would wrap past the ring's end or
  // cannot fit in the ring.
  bool checkpoint();
  // The payload a checkpoint would carry now (valid until the next call).
  // For replay's checks: its buffer is allocated at the first call, which
  // the recording path never makes.
  [[nodiscard]] std::span<const std::byte> state_payload();
  // Continue from checkpoint `cp` (for a replay that starts there): the
  // recorder's last port answers and the loop's state. False when the
  // checkpoint does not fit this loop (slots, devices, slot map, state).
  [[nodiscard]] bool restore(const Checkpoint& cp);

  // The loop itself, for queries (engine(), applied_level(), counters()...).
  [[nodiscard]] const policy::ControlLoop& loop() const { return *loop_; }
  [[nodiscard]] Ring& ring() { return ring_; }

  struct Taps;  // the recording decorators (loop_recorder.cpp)

 private:
  void stamp(policy::Time now);
  std::size_t encode_payload(std::span<std::byte> out) const;
  void checkpoint_if_due() {
    if (checkpoint_every_ != 0 && ring_.total() >= next_checkpoint_) checkpoint();
  }

  Ring& ring_;
  ClockNs clock_;
  CheckpointHeader header_;              // what every checkpoint's first record says
  std::vector<std::uint16_t> slot_map_;  // slot -> policy sensor index
  std::size_t max_payload_ = 0;          // the largest checkpoint payload, bytes
  std::vector<std::byte> payload_;       // state_payload()'s buffer (replay only)
  std::uint64_t checkpoint_every_ = 0;
  std::uint64_t next_checkpoint_ = 0;  // ring total() at which one is due
  std::unique_ptr<Taps> taps_;
  std::unique_ptr<policy::ControlLoop> loop_;
};

}  // namespace coolhand::recorder
