// The daemon's one event loop: sd-event with signalfd-backed signal
// sources, I/O sources for the netlink and udev sockets, and a single
// CLOCK_MONOTONIC timer that is armed only when the runtime asks for a time
// (a poll due or a time-driven engine step) and disabled otherwise, so a
// daemon whose sensors all send events sleeps without wakeups.
//
// For tests only, the loop can run on a lockstep clock instead (coolhandd
// --lockstep-fd N; docs/daemon.md, "Lockstep clock"): "now" is a virtual
// time a driver advances over a socket, and the timer fires at virtual
// deadlines, so a test or the lockstep guest runs the daemon step for step
// with a model and never waits in real time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "coolhand/policy/units.h"
#include "result.h"

struct sd_event;
struct sd_event_source;

namespace coolhand::daemon {

// CLOCK_MONOTONIC and CLOCK_BOOTTIME as policy::Time (ms). Under the
// lockstep clock both return the virtual time (it has no suspend).
[[nodiscard]] policy::Time monotonic_now();
[[nodiscard]] policy::Time boottime_now();

// Resume from suspend shows as CLOCK_BOOTTIME running ahead of
// CLOCK_MONOTONIC (which stops while suspended). Each check compares the
// offset with the previous one; a growth of at least `min_sleep` means the
// machine slept since. Times are passed in so tests need no suspend.
class ResumeDetector {
 public:
  explicit ResumeDetector(policy::Millis min_sleep = policy::Millis(1000))
      : min_sleep_(min_sleep) {}
  [[nodiscard]] bool resumed(policy::Time monotonic, policy::Time boottime);

 private:
  policy::Millis min_sleep_;
  std::optional<policy::Millis> offset_;
};

class EventLoop {
 public:
  using Handler = std::function<void()>;
  // Blocks SIGTERM, SIGINT, SIGHUP and SIGUSR1 for the process (sd-event reads them
  // from a signalfd).
  [[nodiscard]] static Result<std::unique_ptr<EventLoop>> create();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Status on_signal(int sig, Handler h);
  Status on_readable(int fd, Handler h);
  // The handler the timer calls; set once, before set_timer.
  void on_timer(Handler h) { timer_handler_ = std::move(h); }
  // Arm the timer for `at` (CLOCK_MONOTONIC), or disable it (nullopt).
  Status set_timer(std::optional<policy::Time> at);
  // Run until exit(); returns the exit code.
  int run();
  void exit(int code);

  // Test-only lockstep clock, driven over `fd` (a socket or pipe the
  // driver owns; not closed here). From this call on, monotonic_now() and
  // boottime_now() return a virtual time that starts at 0 ms, set_timer()
  // arms a virtual deadline (no CLOCK_MONOTONIC source), and run() serves
  // the driver's lines instead of sleeping in sd-event:
  //   "advance <T>\n" (T in ms, not before the current virtual time):
  //     1. every timer deadline before T fires, each with now = its deadline;
  //     2. now = T; pending events (netlink, signals) are dispatched, then
  //        the timer fires while its deadline is <= T, repeated until
  //        neither is left (a handler's knob write may raise an event);
  //     3. the loop answers "ok <T> <D>\n", D the armed deadline in ms or
  //        "-" for none: every write of this step is done, and nothing will
  //        happen before D unless an event arrives.
  //   end of file: the loop ends with exit code 0, as after SIGTERM.
  // A malformed line ends run() with exit code 1. Call it once, before
  // anything reads the clock; the loop's destructor makes the clocks real
  // again.
  void use_lockstep(int fd);
  [[nodiscard]] sd_event* raw() const { return event_; }

 private:
  EventLoop() = default;
  int run_lockstep();
  // Lockstep: pending event sources dispatched (true when any was), and the
  // virtual timer fired at its deadline.
  bool dispatch_pending();
  void fire_timer();

  sd_event* event_ = nullptr;
  int lockstep_fd_ = -1;                  // >= 0: the lockstep clock is in use
  std::optional<policy::Time> deadline_;  // lockstep: the armed virtual deadline
  std::optional<int> exit_code_;          // lockstep: set by exit()
  sd_event_source* timer_ = nullptr;
  Handler timer_handler_;
  std::vector<std::unique_ptr<Handler>> handlers_;  // stable addresses for sd-event userdata
  std::vector<sd_event_source*> sources_;
};

}  // namespace coolhand::daemon
