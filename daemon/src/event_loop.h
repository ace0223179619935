// The daemon's one event loop: sd-event with signalfd-backed signal
// sources, I/O sources for the netlink and udev sockets, and a single
// CLOCK_MONOTONIC timer that is armed only when the runtime asks for a time
// (a poll due or a time-driven engine step) and disabled otherwise, so a
// daemon whose sensors all send events sleeps without wakeups.
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

// CLOCK_MONOTONIC and CLOCK_BOOTTIME as policy::Time (ms).
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
  [[nodiscard]] sd_event* raw() const { return event_; }

 private:
  EventLoop() = default;
  sd_event* event_ = nullptr;
  sd_event_source* timer_ = nullptr;
  Handler timer_handler_;
  std::vector<std::unique_ptr<Handler>> handlers_;  // stable addresses for sd-event userdata
  std::vector<sd_event_source*> sources_;
};

}  // namespace coolhand::daemon
