// Checkpoints: the whole state of a recorded loop between two calls, so a
// replay can start there instead of at loop_created once the ring has
// wrapped (docs/recording-format.md, "Checkpoints").
//
// A checkpoint is a run of consecutive records:
//   checkpoint       slots, payload bytes, policy hash, lost_after_failures,
//                    devices (what loop_created says);
//   checkpoint_data  ceil(bytes / 20) of them, chunk number in `index`
//                    (mod 65536), 20 payload bytes in a, b, c, d;
//   checkpoint_end   the chunk count and the FNV-1a 64 of the payload.
// The payload (its size varies with the filters' live history): per slot the policy sensor index
// (u16, slot_map's), per slot the last present/delivery answer the recorder saw (u32, as in
// port_sensor_state; 0xFFFFFFFF none yet), per device the last bound answer
// (u32, as in port_bound), then policy::ControlLoop::save_state().
// LoopRecorder writes one before a call record every `interval` records
// (loop_recorder.h); a ring of capacity C keeps a complete one as long as
// interval + checkpoint_records() <= C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coolhand/recorder/record.h"
#include "coolhand/recorder/ring.h"

namespace coolhand::recorder {

inline constexpr std::size_t kCheckpointChunkBytes = 20;

// What the checkpoint record itself says.
struct CheckpointHeader {
  std::uint16_t slots = 0;
  std::uint32_t devices = 0;
  std::uint64_t policy_hash = 0;
  std::int32_t lost_after_failures = 0;
};

struct Checkpoint {
  std::size_t begin = 0;  // index of the checkpoint record
  std::size_t end = 0;    // one past its checkpoint_end record
  CheckpointHeader header;
  std::vector<std::byte> payload;           // all of it, as recorded
  std::vector<std::uint16_t> slot_map;      // per slot: policy sensor index
  std::vector<std::uint32_t> sensor_state;  // per slot
  std::vector<std::uint32_t> bound_state;   // per device
  std::size_t loop_state_at = 0;            // where the loop's state starts in `payload`

  [[nodiscard]] std::span<const std::byte> loop_state() const {
    return std::span<const std::byte>(payload).subspan(loop_state_at);
  }
};

// Payload bytes before the loop's state.
[[nodiscard]] constexpr std::size_t checkpoint_head_size(std::size_t slots, std::size_t devices) {
  return 2 * slots + 4 * slots + 4 * devices;
}
// Records a checkpoint of `payload` bytes takes (header, chunks, end).
[[nodiscard]] constexpr std::size_t checkpoint_records(std::size_t payload) {
  return 2 + (payload + kCheckpointChunkBytes - 1) / kCheckpointChunkBytes;
}

// LoopRecorder's default interval between checkpoints, in records, for a
// ring of `capacity` and a payload of at most `payload` bytes: a quarter
// of the ring, and at least four times the checkpoint's own records. A
// wrapped ring then holds three whole checkpoints or more (one at least
// while interval + checkpoint <= capacity), and checkpoints cost the
// default ring of the busiest shipped policy 0.7% of its records
// (docs/benchmarks.md).
[[nodiscard]] constexpr std::uint64_t default_checkpoint_interval(std::size_t capacity,
                                                                  std::size_t payload) {
  const std::uint64_t quarter = capacity / 4;
  const std::uint64_t floor = 4 * checkpoint_records(payload);
  return quarter > floor ? quarter : floor;
}

// Write the payload's head (slot map, sensor states, bound states) into
// `out` (at least checkpoint_head_size() bytes).
void encode_checkpoint_head(std::span<std::byte> out, std::span<const std::uint16_t> slot_map,
                            std::span<const std::uint32_t> sensor_state,
                            std::span<const std::uint32_t> bound_state);

// A checkpoint is encoded in place, in the ring slots its own records will
// take, so the recorder keeps no payload buffer of its own:
//   1. checkpoint_scratch(): the bytes of those slots for a payload of up
//      to `max_bytes` (chunk records start one slot after the header's);
//      empty when the checkpoint's records would wrap past the ring's end
//      (then try at a later call: the ring is contiguous again after the
//      wrap), or cannot fit in the ring at all;
//   2. the caller writes the payload at the scratch's start;
//   3. put_checkpoint(): the header record, the payload spread over
//      checkpoint_data records in place (a chunk's 20 bytes are the
//      record's last 20, a, b, c and d), the end record with the checksum.
// No allocation, no lock, no system call. Nothing else may use the ring
// between 1 and 3.
[[nodiscard]] std::span<std::byte> checkpoint_scratch(Ring& ring, std::size_t max_bytes);
void put_checkpoint(Ring& ring, const CheckpointHeader& h, std::size_t bytes);

// The checkpoint whose first record is records[at], if it is whole: every
// chunk in order, the end record's count and checksum matching, nothing
// past `end`. Otherwise none, and `why` (if given) says what is wrong.
[[nodiscard]] std::optional<Checkpoint> read_checkpoint(std::span<const Record> records,
                                                        std::size_t at, std::size_t end,
                                                        std::string* why = nullptr);

}  // namespace coolhand::recorder
