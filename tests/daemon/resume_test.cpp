// ResumeDetector: suspend shows as CLOCK_BOOTTIME running ahead of
// CLOCK_MONOTONIC.
#include <gtest/gtest.h>

#include "event_loop.h"

namespace coolhand::daemon {
namespace {

using policy::Time;

TEST(ResumeDetector, DetectsBoottimeJumpOnly) {
  ResumeDetector d(policy::Millis(1000));
  EXPECT_FALSE(d.resumed(Time(1000), Time(1500)));   // first observation
  EXPECT_FALSE(d.resumed(Time(5000), Time(5500)));   // both advanced together
  EXPECT_FALSE(d.resumed(Time(6000), Time(6900)));   // jitter below threshold
  EXPECT_TRUE(d.resumed(Time(7000), Time(67900)));   // slept a minute
  EXPECT_FALSE(d.resumed(Time(8000), Time(68900)));  // reported once
}

TEST(Clocks, BoottimeIsNeverBehindMonotonic) {
  const Time m = monotonic_now();
  const Time b = boottime_now();
  EXPECT_GE(b.count() + 1, m.count());
}

}  // namespace
}  // namespace coolhand::daemon
