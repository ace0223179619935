// ResumeDetector: suspend shows as CLOCK_BOOTTIME running ahead of
// CLOCK_MONOTONIC.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "event_loop.h"

namespace coolhand::daemon::resume_test {
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

// The threshold is inclusive, measured from the previous check (not from
// the first), and a clock stepping backwards is no resume.
TEST(ResumeDetector, ThresholdIsInclusiveAndRelativeToThePreviousCheck) {
  ResumeDetector d(policy::Millis(1000));
  EXPECT_FALSE(d.resumed(Time(0), Time(100)));      // offset 100
  EXPECT_FALSE(d.resumed(Time(10), Time(1109)));    // offset 1099: 999 ms more, below
  EXPECT_TRUE(d.resumed(Time(20), Time(2119)));     // offset 2099: 1000 ms more, at it
  EXPECT_FALSE(d.resumed(Time(30), Time(2129)));    // the new offset is the baseline
  EXPECT_FALSE(d.resumed(Time(5000), Time(5099)));  // offset shrinking: not a sleep
}

// Each clock function reads its own clock in milliseconds: its value lies
// between two raw readings of that clock taken around it.
policy::Time raw_ms(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return policy::Time(static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000);
}

TEST(Clocks, EachReadsItsOwnClockInMilliseconds) {
  const Time m0 = raw_ms(CLOCK_MONOTONIC);
  const Time m = monotonic_now();
  const Time m1 = raw_ms(CLOCK_MONOTONIC);
  EXPECT_LE(m0, m);
  EXPECT_LE(m, m1);
  const Time b0 = raw_ms(CLOCK_BOOTTIME);
  const Time b = boottime_now();
  const Time b1 = raw_ms(CLOCK_BOOTTIME);
  EXPECT_LE(b0, b);
  EXPECT_LE(b, b1);
}

// On a machine that never slept both clocks agree, so the test above cannot
// tell them apart. A time namespace can: in one whose CLOCK_BOOTTIME runs a
// day ahead (time_namespaces(7), needs CAP_SYS_ADMIN), boottime_now() must
// be a day ahead of monotonic_now() (mutant: both read CLOCK_MONOTONIC).
TEST(Clocks, BoottimeFollowsATimeNamespaceOffset) {
  constexpr std::int64_t kDayMs = 86'400'000;
  const pid_t outer = fork();
  ASSERT_GE(outer, 0);
  if (outer == 0) {
    // Child: a new time namespace for its children, boottime +1 day.
    if (unshare(CLONE_NEWTIME) != 0) _exit(77);
    const int fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
    if (fd < 0) _exit(77);
    const char offsets[] = "boottime 86400 0\n";
    if (write(fd, offsets, sizeof offsets - 1) != static_cast<ssize_t>(sizeof offsets - 1)) {
      _exit(77);
    }
    close(fd);
    const pid_t inner = fork();
    if (inner < 0) _exit(2);
    if (inner == 0) {
      const std::int64_t ahead = (boottime_now() - monotonic_now()).count();
      _exit(ahead >= kDayMs ? 0 : 1);
    }
    int st = 0;
    if (waitpid(inner, &st, 0) != inner || !WIFEXITED(st)) _exit(2);
    _exit(WEXITSTATUS(st));
  }
  int status = 0;
  ASSERT_EQ(waitpid(outer, &status, 0), outer);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string_view(ci) == "true") {
      FAIL() << "no time namespace (unshare(CLONE_NEWTIME) needs CAP_SYS_ADMIN, Linux 5.6)";
    }
    GTEST_SKIP() << "no time namespace (unshare(CLONE_NEWTIME) needs CAP_SYS_ADMIN, Linux 5.6)";
  }
  EXPECT_EQ(WEXITSTATUS(status), 0) << "boottime_now() did not follow CLOCK_BOOTTIME";
}

}  // namespace
}  // namespace coolhand::daemon::resume_test
