// Checkpoints encoded in place in the ring (checkpoint.h): the payload
// written into checkpoint_scratch() reads back byte for byte, and a
// checkpoint never straddles the ring's wrap.
#include "coolhand/recorder/checkpoint.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace coolhand::recorder::checkpoint_test {
namespace {

std::vector<Record> held(const Ring& r) {
  std::vector<Record> out(r.size());
  out.resize(r.copy_since(r.first(), out));
  return out;
}

// `bytes` payload bytes: a slot-map head for 1 slot and 1 device (10 bytes),
// then a counting pattern.
void fill(std::span<std::byte> out, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>(i * 7 + 1);
}

TEST(Checkpoint, WaitsForTheWrapAndReadsBackByteForByte) {
  constexpr std::size_t kBytes = 50;  // 3 chunks, the last one padded: 5 records
  const CheckpointHeader h{1, 1, 0x1234, 3};
  Ring ring(16);
  ring.set_time(5);
  for (int i = 0; i < 13; ++i) ring.put(Kind::call_tick, 0, 0, i);
  // Slots 13..17 would wrap: no scratch, and nothing is put.
  EXPECT_TRUE(checkpoint_scratch(ring, kBytes).empty());
  EXPECT_EQ(ring.total(), 13u);
  for (int i = 13; i < 16; ++i) ring.put(Kind::call_tick, 0, 0, i);
  const std::span<std::byte> scratch = checkpoint_scratch(ring, kBytes);
  ASSERT_GE(scratch.size(), kBytes);
  fill(scratch, kBytes);
  put_checkpoint(ring, h, kBytes);
  EXPECT_EQ(ring.total(), 21u);  // checkpoint, 3 chunks, end

  const std::vector<Record> recs = held(ring);
  const std::size_t at = recs.size() - 5;
  std::string why;
  const auto cp = read_checkpoint(recs, at, recs.size(), &why);
  ASSERT_TRUE(cp) << why;
  EXPECT_EQ(cp->end, recs.size());
  EXPECT_EQ(cp->header.policy_hash, 0x1234u);
  EXPECT_EQ(cp->header.lost_after_failures, 3);
  ASSERT_EQ(cp->payload.size(), kBytes);
  std::vector<std::byte> want(kBytes);
  fill(want, kBytes);
  EXPECT_EQ(cp->payload, want);
  for (std::size_t i = at; i < recs.size(); ++i) EXPECT_EQ(recs[i].t_ns, 5u);
  EXPECT_EQ(recs[at + 3].d, 0);  // the last chunk's padding is zero
}

TEST(Checkpoint, TooLargeForTheRingHasNoScratch) {
  Ring ring(16);
  EXPECT_TRUE(checkpoint_scratch(ring, 15 * kCheckpointChunkBytes).empty());   // 17 records
  EXPECT_FALSE(checkpoint_scratch(ring, 14 * kCheckpointChunkBytes).empty());  // 16
}

}  // namespace
}  // namespace coolhand::recorder::checkpoint_test
