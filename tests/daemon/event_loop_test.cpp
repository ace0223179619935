// The event loop's test-only lockstep clock (event_loop.h,
// EventLoop::use_lockstep): a driver thread advances the virtual time over
// a socketpair while the loop runs; the timer must fire at its virtual
// deadlines, events must be dispatched at the advanced time and before the
// acknowledgement, and a malformed or backward line must end the loop.
#include "event_loop.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace coolhand::daemon::event_loop_test {
namespace {

using policy::Millis;
using policy::Time;

// One side of a socketpair each: the loop's and the driver's.
struct Channel {
  Channel() {
    std::array<int, 2> sv{};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv.data()), 0);
    loop_fd = sv[0];
    driver_fd = sv[1];
  }
  ~Channel() {
    ::close(loop_fd);
    if (driver_fd >= 0) ::close(driver_fd);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  // Send a line, return the loop's answer ("" when the loop closed or ended).
  std::string send(const std::string& line) const {
    const std::string l = line + "\n";
    if (::write(driver_fd, l.data(), l.size()) != static_cast<ssize_t>(l.size())) return "";
    std::string answer;
    char c = 0;
    while (::read(driver_fd, &c, 1) == 1 && c != '\n') answer += c;
    return answer;
  }
  void hang_up() {
    ::close(driver_fd);
    driver_fd = -1;
  }
  int loop_fd = -1;
  int driver_fd = -1;
};

// What the handlers saw, with the virtual time they saw it at.
struct Seen {
  void add(const std::string& what) {
    const std::lock_guard<std::mutex> lock(mutex);
    log.push_back(what + "@" + std::to_string(monotonic_now().count()));
  }
  std::vector<std::string> take() {
    const std::lock_guard<std::mutex> lock(mutex);
    return std::exchange(log, {});
  }
  std::mutex mutex;
  std::vector<std::string> log;
};

std::unique_ptr<EventLoop> lockstep_loop(const Channel& ch) {
  auto created = EventLoop::create();
  EXPECT_TRUE(created);
  auto loop = std::move(*created);
  loop->use_lockstep(ch.loop_fd);
  return loop;
}

TEST(LockstepClock, TimerFiresAtEachVirtualDeadline) {
  Channel ch;
  auto loop = lockstep_loop(ch);
  EXPECT_EQ(monotonic_now(), Time(0));
  EXPECT_EQ(boottime_now(), Time(0));  // no suspend in virtual time
  Seen seen;
  int fired = 0;
  loop->on_timer([&] {
    seen.add("timer");
    if (++fired < 3) {
      ASSERT_TRUE(loop->set_timer(monotonic_now() + Millis(300)));
    }
  });
  ASSERT_TRUE(loop->set_timer(Time(250)));
  int code = -1;
  std::thread driver([&] {
    EXPECT_EQ(ch.send("advance 100"), "ok 100 250");  // armed for 250
    EXPECT_TRUE(seen.take().empty());                 // and not due at 100
    EXPECT_EQ(ch.send("advance 1000"), "ok 1000 -");
    // Each expiry at its own deadline, not at the advanced time.
    EXPECT_EQ(seen.take(), (std::vector<std::string>{"timer@250", "timer@550", "timer@850"}));
    EXPECT_EQ(ch.send("advance 5000"), "ok 5000 -");
    EXPECT_TRUE(seen.take().empty());  // not re-armed after the third
    ch.hang_up();
  });
  code = loop->run();
  driver.join();
  EXPECT_EQ(code, 0);  // end of file ends the loop as SIGTERM would
  EXPECT_EQ(monotonic_now(), Time(5000));
  loop.reset();
  EXPECT_GT(monotonic_now(), Time(5000));  // the real clock again (days of uptime)
}

TEST(LockstepClock, EventsAtTheAdvancedTimeBetweenEarlierAndDueTimers) {
  Channel ch;
  auto loop = lockstep_loop(ch);
  std::array<int, 2> pipe_fds{};
  ASSERT_EQ(::pipe(pipe_fds.data()), 0);
  Seen seen;
  loop->on_timer([&] { seen.add("timer"); });
  ASSERT_TRUE(loop->on_readable(pipe_fds[0], [&] {
    char c = 0;
    ASSERT_EQ(::read(pipe_fds[0], &c, 1), 1);
    seen.add(std::string("event ") + c);
    // Arm the timer for now: it must fire before the acknowledgement.
    ASSERT_TRUE(loop->set_timer(monotonic_now()));
  }));
  ASSERT_TRUE(loop->set_timer(Time(400)));
  std::thread driver([&] {
    ASSERT_EQ(::write(pipe_fds[1], "a", 1), 1);  // pending before the advance
    EXPECT_EQ(ch.send("advance 500"), "ok 500 -");
    EXPECT_EQ(seen.take(), (std::vector<std::string>{"timer@400", "event a@500", "timer@500"}));
    ASSERT_EQ(::write(pipe_fds[1], "b", 1), 1);
    EXPECT_EQ(ch.send("advance 500"), "ok 500 -");  // the same time again is allowed
    EXPECT_EQ(seen.take(), (std::vector<std::string>{"event b@500", "timer@500"}));
    ch.hang_up();
  });
  EXPECT_EQ(loop->run(), 0);
  driver.join();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

TEST(LockstepClock, ExitFromAHandlerEndsTheLoopWithItsCode) {
  Channel ch;
  auto loop = lockstep_loop(ch);
  loop->on_timer([&] { loop->exit(7); });
  ASSERT_TRUE(loop->set_timer(Time(200)));
  std::thread driver([&] { EXPECT_EQ(ch.send("advance 300"), "ok 300 -"); });
  EXPECT_EQ(loop->run(), 7);
  driver.join();
}

TEST(LockstepClock, MalformedOrBackwardLinesEndTheLoopWithAnError) {
  for (const char* bad : {"advance", "advance -5", "advance 10x", "tick 10", "advance 50"}) {
    Channel ch;
    auto loop = lockstep_loop(ch);
    std::thread driver([&] {
      EXPECT_EQ(ch.send("advance 100"), "ok 100 -");
      EXPECT_EQ(ch.send(bad), "") << bad;  // no answer: the loop ended
    });
    EXPECT_EQ(loop->run(), 1) << bad;
    ::shutdown(ch.loop_fd, SHUT_RDWR);  // the daemon's exit closes its end
    driver.join();
  }
}

}  // namespace
}  // namespace coolhand::daemon::event_loop_test
