// sd-event wrapper and clocks, and the test-only lockstep clock
// (event_loop.h, EventLoop::use_lockstep).
#include "event_loop.h"

#include <systemd/sd-event.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>

namespace coolhand::daemon {

namespace {
policy::Time clock_ms(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return policy::Time(static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000);
}

int call_handler(void* userdata) {
  (*static_cast<EventLoop::Handler*>(userdata))();
  return 0;
}

// The lockstep clock's virtual time; empty in normal operation. One per
// process: the daemon has one loop, and the clock functions are free.
std::optional<policy::Time>& virtual_now() {
  static std::optional<policy::Time> now;
  return now;
}

// The next line from `fd` (without its newline), reading into `buf`;
// nullopt at end of file or on a read error (errno kept, 0 at EOF).
std::optional<std::string> read_line(int fd, std::string& buf) {
  for (;;) {
    if (const auto nl = buf.find('\n'); nl != std::string::npos) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      return line;
    }
    char chunk[256];
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = 0;
      return std::nullopt;
    }
    buf.append(chunk, static_cast<std::size_t>(n));
  }
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// "advance <ms>" -> the time; nullopt when malformed.
std::optional<policy::Time> parse_advance(std::string_view line) {
  constexpr std::string_view kVerb = "advance ";
  if (line.substr(0, kVerb.size()) != kVerb) return std::nullopt;
  line.remove_prefix(kVerb.size());
  std::int64_t ms = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), ms);
  if (ec != std::errc() || end != line.data() + line.size() || ms < 0) return std::nullopt;
  return policy::Time(ms);
}
}  // namespace

policy::Time monotonic_now() {
  if (const auto& v = virtual_now()) return *v;
  return clock_ms(CLOCK_MONOTONIC);
}
policy::Time boottime_now() {
  if (const auto& v = virtual_now()) return *v;
  return clock_ms(CLOCK_BOOTTIME);
}

bool ResumeDetector::resumed(policy::Time monotonic, policy::Time boottime) {
  const policy::Millis offset = boottime - monotonic;
  const bool slept = offset_ && offset - *offset_ >= min_sleep_;
  offset_ = offset;
  return slept;
}

Result<std::unique_ptr<EventLoop>> EventLoop::create() {
  std::unique_ptr<EventLoop> l(new EventLoop());
  if (int r = sd_event_new(&l->event_); r < 0) return errno_error("sd_event_new", "", -r);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);  // flight-recorder dump
  if (sigprocmask(SIG_BLOCK, &set, nullptr) < 0) return errno_error("sigprocmask", "", errno);
  return l;
}

EventLoop::~EventLoop() {
  if (lockstep_fd_ >= 0) virtual_now().reset();  // the clocks are real again
  if (timer_) sd_event_source_unref(timer_);
  for (sd_event_source* s : sources_) sd_event_source_unref(s);
  if (event_) sd_event_unref(event_);
}

Status EventLoop::on_signal(int sig, Handler h) {
  handlers_.push_back(std::make_unique<Handler>(std::move(h)));
  sd_event_source* s = nullptr;
  const int r = sd_event_add_signal(
      event_, &s, sig,
      [](sd_event_source*, const signalfd_siginfo*, void* u) { return call_handler(u); },
      handlers_.back().get());
  if (r < 0) return errno_error("sd_event_add_signal", std::to_string(sig), -r);
  sources_.push_back(s);
  return Ok{};
}

Status EventLoop::on_readable(int fd, Handler h) {
  handlers_.push_back(std::make_unique<Handler>(std::move(h)));
  sd_event_source* s = nullptr;
  const int r = sd_event_add_io(
      event_, &s, fd, EPOLLIN,
      [](sd_event_source*, int, std::uint32_t, void* u) { return call_handler(u); },
      handlers_.back().get());
  if (r < 0) return errno_error("sd_event_add_io", "fd " + std::to_string(fd), -r);
  sources_.push_back(s);
  return Ok{};
}

Status EventLoop::set_timer(std::optional<policy::Time> at) {
  if (lockstep_fd_ >= 0) {
    deadline_ = at;
    return Ok{};
  }
  if (!at) {
    if (timer_) sd_event_source_set_enabled(timer_, SD_EVENT_OFF);
    return Ok{};
  }
  const auto usec = static_cast<std::uint64_t>(std::max<std::int64_t>(at->count(), 0)) * 1000;
  if (!timer_) {
    const int r = sd_event_add_time(
        event_, &timer_, CLOCK_MONOTONIC, usec, 1000,
        [](sd_event_source*, std::uint64_t, void* u) { return call_handler(u); }, &timer_handler_);
    if (r < 0) return errno_error("sd_event_add_time", "", -r);
    return Ok{};
  }
  if (int r = sd_event_source_set_time(timer_, usec); r < 0)
    return errno_error("sd_event_source_set_time", "", -r);
  if (int r = sd_event_source_set_enabled(timer_, SD_EVENT_ONESHOT); r < 0) {
    return errno_error("sd_event_source_set_enabled", "", -r);
  }
  return Ok{};
}

int EventLoop::run() {
  if (lockstep_fd_ >= 0) return run_lockstep();
  const int r = sd_event_loop(event_);
  return r < 0 ? 1 : r;
}

void EventLoop::exit(int code) {
  if (lockstep_fd_ >= 0) exit_code_ = code;
  sd_event_exit(event_, code);
}

// -- lockstep clock (tests only)
void EventLoop::use_lockstep(int fd) {
  lockstep_fd_ = fd;
  virtual_now() = policy::Time(0);
}

bool EventLoop::dispatch_pending() {
  bool any = false;
  // A zero timeout: what is pending now is dispatched, nothing is waited for.
  while (!exit_code_ && sd_event_run(event_, 0) > 0) any = true;
  return any;
}

void EventLoop::fire_timer() {
  virtual_now() = std::max(*virtual_now(), *deadline_);
  deadline_.reset();  // one-shot, as SD_EVENT_ONESHOT; the handler re-arms it
  if (timer_handler_) timer_handler_();
}

int EventLoop::run_lockstep() {
  std::string buf;
  while (!exit_code_) {
    const auto line = read_line(lockstep_fd_, buf);
    if (!line) {
      if (errno == 0) return 0;  // the driver is done: as SIGTERM
      std::fprintf(stderr, "<3>coolhandd: lockstep: read: %s\n", std::strerror(errno));
      return 1;
    }
    const auto to = parse_advance(*line);
    if (!to || *to < *virtual_now()) {
      std::fprintf(stderr, "<3>coolhandd: lockstep: bad line '%s' (want 'advance <ms>' >= %lld)\n",
                   line->c_str(), static_cast<long long>(virtual_now()->count()));
      return 1;
    }
    while (!exit_code_ && deadline_ && *deadline_ < *to) fire_timer();
    virtual_now() = *to;
    for (bool busy = true; busy && !exit_code_;) {
      busy = dispatch_pending();
      if (!exit_code_ && deadline_ && *deadline_ <= *to) {
        fire_timer();
        busy = true;
      }
    }
    // The answer names the armed deadline, so a driver may skip the steps
    // before it in which it raises no event (the daemon would do nothing).
    const std::string next = deadline_ ? std::to_string(deadline_->count()) : "-";
    if (!write_all(lockstep_fd_, "ok " + std::to_string(to->count()) + " " + next + "\n")) {
      std::fprintf(stderr, "<3>coolhandd: lockstep: write: %s\n", std::strerror(errno));
      return 1;
    }
  }
  return *exit_code_;
}
// -- end lockstep clock

}  // namespace coolhand::daemon
