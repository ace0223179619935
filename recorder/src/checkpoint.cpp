// Checkpoint records: writing and reading them back (checkpoint.h).
#include "coolhand/recorder/checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "coolhand/recorder/file.h"

namespace coolhand::recorder {

namespace {

std::uint64_t checksum(std::span<const std::byte> payload) {
  return policy_hash(
      std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()));
}

bool is(const Record& r, Kind k) {
  return r.kind == static_cast<std::uint16_t>(k);
}

}  // namespace

void encode_checkpoint_head(std::span<std::byte> out, std::span<const std::uint16_t> slot_map,
                            std::span<const std::uint32_t> sensor_state,
                            std::span<const std::uint32_t> bound_state) {
  std::size_t pos = 0;
  const auto put = [&](const void* p, std::size_t n) {
    std::memcpy(out.data() + pos, p, n);
    pos += n;
  };
  put(slot_map.data(), slot_map.size_bytes());
  put(sensor_state.data(), sensor_state.size_bytes());
  put(bound_state.data(), bound_state.size_bytes());
}

// A chunk's 20 payload bytes are the last 20 of its record (a, b, c, d,
// contiguous and little-endian in memory as in the file).
constexpr std::size_t kChunkOffset = offsetof(Record, a);
static_assert(offsetof(Record, b) == kChunkOffset + 4 && offsetof(Record, c) == kChunkOffset + 12 &&
              offsetof(Record, d) == kChunkOffset + 16 &&
              kChunkOffset + kCheckpointChunkBytes == sizeof(Record));

std::span<std::byte> checkpoint_scratch(Ring& ring, std::size_t max_bytes) {
  const std::span<Record> slots = ring.next_slots(checkpoint_records(max_bytes));
  if (slots.empty()) return {};
  // From the first chunk record's slot to the end record's.
  return std::as_writable_bytes(slots.subspan(1, slots.size() - 2));
}

void put_checkpoint(Ring& ring, const CheckpointHeader& h, std::size_t bytes) {
  const std::size_t chunks = (bytes + kCheckpointChunkBytes - 1) / kCheckpointChunkBytes;
  const std::span<Record> slots = ring.next_slots(chunks + 2);
  if (slots.empty()) return;  // not from checkpoint_scratch(): nothing to spread
  std::byte* const scratch = reinterpret_cast<std::byte*>(slots.data() + 1);
  const std::uint64_t sum = checksum(std::span<const std::byte>(scratch, bytes));
  // Spread the packed payload over its records, last chunk first: chunk k
  // moves from scratch offset 20k to 32k + 12 or later, past every chunk
  // before it, so no chunk is overwritten before it has moved.
  for (std::size_t k = chunks; k-- > 0;) {
    const std::size_t n = std::min(kCheckpointChunkBytes, bytes - k * kCheckpointChunkBytes);
    std::byte* const rec = scratch + k * sizeof(Record);
    std::memmove(rec + kChunkOffset, scratch + k * kCheckpointChunkBytes, n);
    std::memset(rec + kChunkOffset + n, 0, kCheckpointChunkBytes - n);
    Record& r = slots[1 + k];
    r.t_ns = ring.time();
    r.kind = static_cast<std::uint16_t>(Kind::checkpoint_data);
    r.index = static_cast<std::uint16_t>(k);
  }
  ring.put(Kind::checkpoint, h.slots, static_cast<std::uint32_t>(bytes),
           static_cast<std::int64_t>(h.policy_hash), h.lost_after_failures,
           static_cast<std::int32_t>(h.devices));
  ring.commit(chunks);
  ring.put(Kind::checkpoint_end, 0, static_cast<std::uint32_t>(chunks),
           static_cast<std::int64_t>(sum));
}

std::optional<Checkpoint> read_checkpoint(std::span<const Record> records, std::size_t at,
                                          std::size_t end, std::string* why) {
  const auto fail = [&](std::string msg) -> std::optional<Checkpoint> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  end = std::min(end, records.size());
  if (at >= end || !is(records[at], Kind::checkpoint)) return fail("not a checkpoint record");
  const Record& h = records[at];
  Checkpoint cp;
  cp.begin = at;
  cp.header = CheckpointHeader{h.index, static_cast<std::uint32_t>(h.d),
                               static_cast<std::uint64_t>(h.b), h.c};
  const std::size_t bytes = h.a;
  const std::size_t chunks = (bytes + kCheckpointChunkBytes - 1) / kCheckpointChunkBytes;
  if (h.d < 0 || bytes < checkpoint_head_size(h.index, cp.header.devices)) {
    return fail(fmt::format("checkpoint of {} bytes cannot hold {} slots and {} devices", bytes,
                            h.index, h.d));
  }
  if (chunks + 2 > end - at) return fail("checkpoint cut short by the end of the recording");
  cp.payload.resize(chunks * kCheckpointChunkBytes);
  for (std::size_t k = 0; k < chunks; ++k) {
    const Record& r = records[at + 1 + k];
    if (!is(r, Kind::checkpoint_data) || r.index != static_cast<std::uint16_t>(k)) {
      return fail(fmt::format("checkpoint chunk {} missing", k));
    }
    std::byte* p = cp.payload.data() + k * kCheckpointChunkBytes;
    std::memcpy(p, &r.a, 4);
    std::memcpy(p + 4, &r.b, 8);
    std::memcpy(p + 12, &r.c, 4);
    std::memcpy(p + 16, &r.d, 4);
  }
  cp.payload.resize(bytes);
  const Record& e = records[at + 1 + chunks];
  if (!is(e, Kind::checkpoint_end) || e.a != chunks) return fail("checkpoint_end missing");
  if (static_cast<std::uint64_t>(e.b) != checksum(cp.payload)) {
    return fail("checkpoint checksum does not match its payload");
  }
  cp.end = at + 2 + chunks;
  const std::size_t slots = h.index;
  std::size_t pos = 0;
  const auto take = [&](auto& v, std::size_t n) {
    v.resize(n);
    std::memcpy(v.data(), cp.payload.data() + pos, n * sizeof(v[0]));
    pos += n * sizeof(v[0]);
  };
  take(cp.slot_map, slots);
  take(cp.sensor_state, slots);
  take(cp.bound_state, cp.header.devices);
  cp.loop_state_at = pos;
  return cp;
}

}  // namespace coolhand::recorder
