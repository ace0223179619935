// Replaying a recorded segment (file.h: segments()) through a fresh
// policy::ControlLoop.
//
// ReplayPorts answers the loop's port calls from the segment's port records,
// in order: each read/apply/rebind/watch consumes the next port record,
// which must be of that kind and for that slot or device; present/delivery
// and bound answer from state records (port_sensor_state, port_bound),
// applied as they come up. Observer and daemon records are skipped; a call_*
// record ends the answers of the call before it. Any mismatch (the fresh
// loop asked something the recorded one did not) is a divergence: the first
// one is kept with the record index, and the port answers a safe default.
//
// replay_segment() drives the loop: it builds the loop as loop_created and
// slot_map say (or, for a segment that lost its start to the ring's wrap,
// from its first whole checkpoint: the loop's and the ports' state restored
// from it), issues every call_* record to a LoopRecorder on a scratch
// Ring (so the replayed loop records itself), and compares each record it
// produces with the recorded one, field by field except t_ns. Equal streams
// mean the same inputs, the same port answers and the same decisions (steps,
// per-device levels and causes, virtual sensor values, engine events). At
// every later whole checkpoint the replayed loop's state must equal the
// recorded one byte for byte.
//
// issue_call() is the one switch over the recorded calls, shared by
// replay_segment() and coolhand-sim's what-if replay.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/policy/engine.h"
#include "coolhand/policy/loop.h"
#include "coolhand/recorder/checkpoint.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/record.h"

namespace coolhand::recorder {

// Records a replay reproduces (loop inputs, port answers, observer
// records); not checkpoints or daemon records.
[[nodiscard]] constexpr bool replayed_kind(std::uint16_t k) {
  return k < static_cast<std::uint16_t>(Kind::netlink) &&
         (k < static_cast<std::uint16_t>(Kind::checkpoint) ||
          k > static_cast<std::uint16_t>(Kind::checkpoint_end));
}
[[nodiscard]] constexpr bool is_call_kind(std::uint16_t k) {
  return k >= static_cast<std::uint16_t>(Kind::call_start) &&
         k <= static_cast<std::uint16_t>(Kind::call_set_profile);
}

// Issue call record `r` to `loop` (a policy::ControlLoop or a LoopRecorder;
// the same method names). A slot at or past `slots` drops the call.
// `device_of(i)` maps recorded device i to the loop's (std::optional; none
// drops the call); `profile_of(p)` gives the name set_profile is called
// with for recorded profile index p (kAsWritten, kNoIndex or an index), or
// none to drop the call. Returns tick()'s answer for call_tick.
template <typename Loop, typename DeviceOf, typename ProfileOf>
std::optional<policy::Time> issue_call(Loop& loop, const Record& r, std::size_t slots,
                                       const DeviceOf& device_of, const ProfileOf& profile_of) {
  const policy::Time now{r.b};
  switch (static_cast<Kind>(r.kind)) {
    case Kind::call_start:
      loop.start(now);
      break;
    case Kind::call_tick:
      return loop.tick(now);
    case Kind::call_push:
      if (r.index < slots) loop.push(r.index, policy::MilliC(r.c), now);
      break;
    case Kind::call_sensor_gone:
      if (r.index < slots) loop.sensor_gone(r.index, now);
      break;
    case Kind::call_resync:
      loop.resync(now);
      break;
    case Kind::call_resume:
      loop.resume(now);
      break;
    case Kind::call_verify:
      loop.verify_devices();
      break;
    case Kind::call_restore_all:
      loop.restore_all();
      break;
    case Kind::call_seed_level:
      if (const std::optional<std::size_t> d = device_of(r.index)) loop.seed_level(*d, r.a, now);
      break;
    case Kind::call_set_profile:
      if (const std::optional<std::string_view> name = profile_of(r.index)) {
        (void)loop.set_profile(*name);
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

struct Divergence {
  std::size_t record = 0;  // index into Recording::records
  std::string message;
};

class ReplayPorts final : public policy::SensorPort,
                          public policy::KnobPort,
                          public policy::WindowPort {
 public:
  // `records` is the whole recording; answers come from [begin, end).
  ReplayPorts(std::span<const Record> records, std::size_t begin, std::size_t end,
              std::size_t slots, std::size_t devices);

  // The loop is about to handle the call at record `call`: answers come
  // from the records after it.
  void begin_call(std::size_t call);
  // The last present/delivery and bound answers, as a checkpoint gives them.
  void set_state(std::span<const std::uint32_t> sensor_state,
                 std::span<const std::uint32_t> bound_state);
  // Index of the next record not consumed.
  [[nodiscard]] std::size_t position() const { return pos_; }
  [[nodiscard]] const std::optional<Divergence>& divergence() const { return divergence_; }

  policy::SensorRead read(std::size_t slot, bool rebind) override;
  [[nodiscard]] bool present(std::size_t slot) const override;
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override;
  [[nodiscard]] bool bound(std::size_t device) const override;
  bool rebind(std::size_t device) override;
  bool apply(std::size_t device, std::uint32_t level) override;
  void verify(std::size_t device) override;
  void restore(std::size_t device) override;
  bool watch(std::size_t slot, const policy::Window& w) override;

 private:
  // Apply state records and skip non-port records up to the next port
  // answer; null (and a divergence) when the call's answers are used up.
  const Record* next(Kind want, std::size_t index, const char* what) const;
  void diverge(std::size_t at, std::string message) const;

  std::span<const Record> records_;
  std::size_t end_;
  mutable std::size_t pos_;
  mutable std::vector<std::uint32_t> sensor_state_;
  mutable std::vector<std::uint32_t> bound_state_;
  mutable std::optional<Divergence> divergence_;
};

struct ReplayResult {
  std::size_t calls = 0;                 // call_* records issued
  std::size_t compared = 0;              // records compared
  std::size_t steps = 0;                 // engine steps replayed
  std::size_t checkpoints = 0;           // recorded checkpoints the replayed state matched
  std::optional<Divergence> divergence;  // none: bit-exact
};

struct ReplayOptions {
  // Also sees the replayed loop's steps (as LoopPorts::observer).
  policy::LoopObserver* observer = nullptr;
  // Called once with the replayed loop, before its first call.
  std::function<void(const policy::ControlLoop&)> on_loop;
};

// Replay segment `seg` of `rec` with `engine` (compiled from the recording's
// policy, or a candidate's for open-loop what-ifs, where divergences are
// expected) and the policy's sampling spec. A segment that is neither
// complete nor has a whole checkpoint cannot be replayed (a divergence at
// its first record says so).
[[nodiscard]] ReplayResult replay_segment(const Recording& rec, const Segment& seg,
                                          std::unique_ptr<policy::Engine> engine,
                                          const policy::SamplingSpec& sampling,
                                          const ReplayOptions& options = {});

}  // namespace coolhand::recorder
