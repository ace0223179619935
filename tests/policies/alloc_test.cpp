// step() must not touch the heap in steady state: every buffer is sized by
// compile(). This file replaces the global operator new/delete of the test
// binary with counting versions (they only count while a test asks).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "rig.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace coolhand::policy::testing {
namespace {

TEST(Allocation, StepDoesNotAllocateInSteadyState) {
  Rig rig(everything());
  ASSERT_TRUE(rig.ok());
  // Temperatures sweep 35..65 °C so every element changes state, a sensor
  // is lost and found, and the profile flips.
  std::uint32_t escalated_steps = 0;
  const auto drive = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t n = from; n < to; ++n) {
      const std::int64_t phase = n % 600;
      const auto temp =
          static_cast<std::int32_t>(35000 + 100 * (phase < 300 ? phase : 600 - phase));
      rig.set("a", temp, ms(n * 100));
      if (n % 50 == 7) {
        rig.engine->set_sensor_unknown(rig.sensor("b"), ms(n * 100));
      } else {
        rig.set("b", temp - 2000, ms(n * 100));
      }
      if (n % 400 == 0) rig.engine->set_profile((n / 400) % 2 == 0 ? "quiet" : "");
      if (rig.step(ms(n * 100)).zones[0].last_resort_levels > 0) ++escalated_steps;
    }
  };
  drive(0, 3000);  // warm-up: rings fill, every path runs once
  g_allocations = 0;
  g_counting = true;
  drive(3000, 6000);
  // A checkpoint (the flight recorder's) into a buffer sized once.
  std::vector<std::byte> buf(rig.engine->max_state_size());
  g_counting = false;
  g_allocations = 0;
  g_counting = true;
  const std::size_t saved = rig.engine->save_state(buf);
  g_counting = false;
  EXPECT_GT(saved, 0U);
  EXPECT_EQ(g_allocations.load(), 0);
  EXPECT_GT(escalated_steps, 0U);  // the last resort ran too
}

TEST(Allocation, CounterWorks) {
  g_allocations = 0;
  g_counting = true;
  auto* p = new int(3);
  g_counting = false;
  delete p;
  EXPECT_EQ(g_allocations.load(), 1);
}

}  // namespace
}  // namespace coolhand::policy::testing
