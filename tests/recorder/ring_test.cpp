// Ring: wrap-around, the lost count, ordered copies and timestamps.
#include "coolhand/recorder/ring.h"

#include <gtest/gtest.h>

#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace coolhand::recorder::ring_test {
namespace {

TEST(Ring, KeepsEverythingUntilFull) {
  Ring r(16);
  for (int i = 0; i < 10; ++i) r.put(Kind::call_tick, 0, 0, i);
  EXPECT_EQ(r.total(), 10u);
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(r.lost(), 0u);
  EXPECT_EQ(r.first(), 0u);
  EXPECT_EQ(r.at(3).b, 3);
}

TEST(Ring, WrapOverwritesTheOldestAndCountsThemLost) {
  Ring r(16);
  for (int i = 0; i < 40; ++i) r.put(Kind::call_tick, 0, 0, i);
  EXPECT_EQ(r.total(), 40u);
  EXPECT_EQ(r.size(), 16u);
  EXPECT_EQ(r.lost(), 24u);
  EXPECT_EQ(r.first(), 24u);
  for (std::uint64_t s = r.first(); s < r.total(); ++s) {
    EXPECT_EQ(r.at(s).b, static_cast<std::int64_t>(s));
  }
}

TEST(Ring, CapacityIsClampedToTheMinimum) {
  Ring r(1);
  EXPECT_EQ(r.capacity(), Ring::kMinCapacity);
}

TEST(Ring, CopySinceSkipsOverwrittenRecordsAndPages) {
  Ring r(16);
  for (int i = 0; i < 20; ++i) r.put(Kind::call_tick, 0, 0, i);
  std::array<Record, 5> out{};
  // Sequence 2 was overwritten: the copy starts at the oldest held (4).
  EXPECT_EQ(r.copy_since(2, out), 5u);
  EXPECT_EQ(out[0].b, 4);
  EXPECT_EQ(out[4].b, 8);
  EXPECT_EQ(r.copy_since(18, out), 2u);
  EXPECT_EQ(out[1].b, 19);
  EXPECT_EQ(r.copy_since(20, out), 0u);
}

TEST(Ring, TimeNeverGoesBackwards) {
  Ring r(16);
  r.set_time(1000);
  r.put(Kind::call_tick, 0);
  r.set_time(500);
  r.put(Kind::call_tick, 0);
  EXPECT_EQ(r.at(0).t_ns, 1000u);
  EXPECT_EQ(r.at(1).t_ns, 1000u);
  r.set_time(2000);
  r.put(Kind::call_tick, 0);
  EXPECT_EQ(r.at(2).t_ns, 2000u);
}

TEST(Ring, PutStoresEveryField) {
  Ring r(16);
  r.set_time(42);
  r.put(Kind::port_watch, 7, 1, -2, -3000, 4000);
  const Record& x = r.at(0);
  EXPECT_EQ(x.t_ns, 42u);
  EXPECT_EQ(x.kind, static_cast<std::uint16_t>(Kind::port_watch));
  EXPECT_EQ(x.index, 7);
  EXPECT_EQ(x.a, 1u);
  EXPECT_EQ(x.b, -2);
  EXPECT_EQ(x.c, -3000);
  EXPECT_EQ(x.d, 4000);
}

TEST(Ring, MapsWholePagesOfItsOwn) {
  const Ring r(262144);
  EXPECT_EQ(r.mapped_bytes(), 262144u * kRecordSize);  // 8 MiB: no extra page
  const Ring small(Ring::kMinCapacity);
  EXPECT_EQ(small.mapped_bytes() % 4096, 0u);
  EXPECT_GE(small.mapped_bytes(), Ring::kMinCapacity * kRecordSize);
}

// The ring's records are one mapping of exactly mapped_bytes() in
// /proc/self/maps, even beside another ring: the kernel merged two
// adjacent anonymous mappings of 32 KiB into one of 64 KiB, and
// measure-recorder-cost.sh found no mapping of the ring's size (RECORDS=1024).
TEST(Ring, IsAMappingOfItsOwnBesideAnother) {
  Ring a(1024);
  Ring b(1024);
  for (Ring* r : {&a, &b}) {
    const auto start = reinterpret_cast<std::uintptr_t>(r->next_slots(1).data());
    std::ifstream maps("/proc/self/maps");
    std::string line;
    bool found = false;
    while (std::getline(maps, line)) {
      std::uintptr_t lo = 0, hi = 0;
      if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) != 2) continue;
      if (lo <= start && start < hi) {
        EXPECT_EQ(lo, start) << line;
        EXPECT_EQ(hi - lo, r->mapped_bytes()) << line;
        found = true;
      }
    }
    EXPECT_TRUE(found);
  }
  a.resize(2048);  // a new mapping, guarded the same way; the old one unmapped whole
  EXPECT_EQ(a.capacity(), 2048u);
}

TEST(Ring, ShrinkKeepsTheNewestAndCountsTheRestLost) {
  Ring r(64);
  r.set_time(7);
  for (int i = 0; i < 40; ++i) r.put(Kind::call_tick, 0, 0, i);
  r.resize(16);
  EXPECT_EQ(r.capacity(), 16u);
  EXPECT_EQ(r.total(), 40u);
  EXPECT_EQ(r.size(), 16u);
  EXPECT_EQ(r.lost(), 24u);
  EXPECT_EQ(r.first(), 24u);
  EXPECT_EQ(r.time(), 7u);
  for (std::uint64_t s = r.first(); s < r.total(); ++s) {
    EXPECT_EQ(r.at(s).b, static_cast<std::int64_t>(s));
  }
  // Recording carries on: sequence numbers continue, the oldest go.
  for (int i = 40; i < 45; ++i) r.put(Kind::call_tick, 0, 0, i);
  EXPECT_EQ(r.first(), 29u);
  EXPECT_EQ(r.lost(), 29u);
  for (std::uint64_t s = r.first(); s < r.total(); ++s) {
    EXPECT_EQ(r.at(s).b, static_cast<std::int64_t>(s));
  }
}

TEST(Ring, GrowBringsNothingLostBack) {
  Ring r(16);
  for (int i = 0; i < 40; ++i) r.put(Kind::call_tick, 0, 0, i);
  r.resize(64);
  EXPECT_EQ(r.capacity(), 64u);
  EXPECT_EQ(r.size(), 16u);  // not 40: records 0..23 were overwritten
  EXPECT_EQ(r.lost(), 24u);
  EXPECT_EQ(r.first(), 24u);
  for (int i = 40; i < 80; ++i) r.put(Kind::call_tick, 0, 0, i);
  EXPECT_EQ(r.size(), 56u);  // room to spare: nothing more lost
  EXPECT_EQ(r.lost(), 24u);
  for (int i = 80; i < 100; ++i) r.put(Kind::call_tick, 0, 0, i);
  EXPECT_EQ(r.size(), 64u);
  EXPECT_EQ(r.lost(), 36u);
  std::array<Record, 64> out{};
  ASSERT_EQ(r.copy_since(0, out), 64u);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].b, static_cast<std::int64_t>(36 + i));
  }
}

TEST(Ring, ResizeOfAnEmptyRingAndToTheSameSize) {
  Ring r(16);
  r.resize(32);
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.lost(), 0u);
  r.put(Kind::call_tick, 0, 0, 5);
  r.resize(32);
  EXPECT_EQ(r.size(), 1u);
  EXPECT_EQ(r.at(0).b, 5);
  r.resize(1);  // clamped like the constructor's
  EXPECT_EQ(r.capacity(), Ring::kMinCapacity);
  EXPECT_EQ(r.at(0).b, 5);
}

}  // namespace
}  // namespace coolhand::recorder::ring_test
