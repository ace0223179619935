// sd-event wrapper and clocks.
#include "event_loop.h"

#include <systemd/sd-event.h>

#include <algorithm>
#include <csignal>
#include <ctime>

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
}  // namespace

policy::Time monotonic_now() {
  return clock_ms(CLOCK_MONOTONIC);
}
policy::Time boottime_now() {
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
  const int r = sd_event_loop(event_);
  return r < 0 ? 1 : r;
}

void EventLoop::exit(int code) {
  sd_event_exit(event_, code);
}

}  // namespace coolhand::daemon
