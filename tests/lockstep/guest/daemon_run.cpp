// coolhandd in the lockstep guest (daemon_run.h). One model step:
//  1. every emulated zone whose model sensor took a fresh sample this step
//     gets the reading (noise and quantisation included) written to
//     sensor<i>/temp; the emulated EC in window mode raises its interrupt
//     when the reading is at or beyond the window the daemon programmed, and
//     coolhand.ko sends the daemon EVENT_TEMP (the simulator pushes exactly
//     these samples: sim/policy_loop.h, Delivery::pushed);
//  2. "advance <t>" to the daemon's lockstep clock (docs/daemon.md,
//     "Lockstep clock"): it dispatches the events at t, fires its timer
//     while due, writes its knobs (throttle<d>), sets new windows
//     (WINDOW_SET) and answers "ok <t> <next deadline>";
//  3. every device's level is read from throttle<d>/throttling and each
//     zone's new window from sensor<i>/window;
//  4. the model steps with those levels (sim::run).
// A write is skipped when the zone holds that value already and it lies
// inside the window (the module would do nothing with it). Steps 2-3 are
// skipped when no write of step 1 interrupted and the
// daemon's deadline lies after t: the daemon would do nothing (its loop
// wakes only for events and its timer), so the levels stand. At t = 0 the
// zones get their first readings before the daemon starts, which reads
// every sensor at start as the simulator's loop does.
#include "daemon_run.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "../lockstep_daemon.h"
#include "../lockstep_trace.h"
#include "coolhand/sim/runner.h"
#include "sys_file.h"

namespace coolhand::lockstep {

namespace {

namespace fs = std::filesystem;
using policy::Time;

constexpr const char* kEmul = "/sys/devices/coolhand_emul";
constexpr int kLockstepFd = 3;  // the daemon's end of the socketpair

struct EmulZone {
  std::size_t sensor = 0;  // model sensor index
  SysFile temp, window;
  long low_mc = 0, high_mc = 0;  // the window programmed in the EC
  long written_mc = 0;           // the value last written to temp
};

class DaemonController final : public sim::Controller {
 public:
  DaemonController(const sim::ModelSpec& model, const DaemonLayout& layout,
                   std::vector<std::string> argv, std::string log)
      : argv_(std::move(argv)), log_(std::move(log)), step_(model.time_step) {
    for (std::size_t z = 0; z < layout.zone_sensor.size(); ++z) {
      const fs::path s = fs::path(kEmul) / ("sensor" + std::to_string(z));
      zones_.push_back(EmulZone{layout.zone_sensor[z], SysFile(s / "temp", O_WRONLY),
                                SysFile(s / "window", O_RDONLY), 0, 0, 0});
    }
    for (std::size_t d = 0; d < model.devices.size(); ++d)
      levels_.emplace_back(fs::path(kEmul) / ("throttle" + std::to_string(d)) / "throttling",
                           O_RDONLY);
  }
  DaemonController(const DaemonController&) = delete;
  DaemonController& operator=(const DaemonController&) = delete;
  ~DaemonController() override {
    if (pid_ > 0) {  // an error path: do not leave the daemon behind
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) ::close(fd_);
  }

  std::string name() const override { return "coolhandd"; }
  // The steps on which the daemon was advanced (woken by an event or its
  // timer); not the engine's step count, which the daemon keeps to itself.
  std::uint64_t decisions() const override { return advances_; }

  void control(const sim::ThermalModel& model, std::span<std::uint32_t> levels) override {
    const Time now = model.now();
    const auto outputs = model.sensor_outputs();
    bool interrupted = false;
    for (auto& z : zones_) {
      const auto& o = outputs[z.sensor];
      if (pid_ > 0 && !o.sampled) continue;
      const long mc = o.reading.mc();
      const bool outside = mc <= z.low_mc || mc >= z.high_mc;
      // Writing the value the sensor already holds, inside the window,
      // changes nothing in the module (no interrupt): skipped, it saves
      // most writes of the 1 °C-quantised on-die sensors.
      if (pid_ > 0 && !outside && z.written_mc == mc) continue;
      z.temp.write(std::to_string(mc));
      z.written_mc = mc;
      interrupted |= outside;
    }
    if (pid_ <= 0) {
      start();
    } else if (!interrupted && (!next_ || *next_ > now)) {
      return;
    }
    advance(now);
    for (std::size_t d = 0; d < levels.size(); ++d)
      levels[d] = static_cast<std::uint32_t>(levels_[d].read_long());
    for (auto& z : zones_) {
      std::istringstream w(z.window.read());
      if (!(w >> z.low_mc >> z.high_mc)) die("sensor window unreadable");
    }
  }

  // Close the lockstep socket (the daemon restores its knobs and exits 0).
  void finish() {
    ::close(fd_);
    fd_ = -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      die("coolhandd did not exit cleanly (status " + std::to_string(status) + "; see " + log_ +
          ")");
  }

 private:
  void start() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
      die(std::string("socketpair: ") + std::strerror(errno));
    std::vector<std::string> args = argv_;
    args.emplace_back("--lockstep-fd");
    args.emplace_back(std::to_string(kLockstepFd));
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) die(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      // dup2 clears close-on-exec on the copy; when the socket is fd 3
      // already, clear it by hand.
      if (sv[1] == kLockstepFd)
        ::fcntl(kLockstepFd, F_SETFD, 0);
      else
        ::dup2(sv[1], kLockstepFd);
      const int out = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (out < 0 || in < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::execv(cargs[0], cargs.data());
      ::_exit(127);
    }
    ::close(sv[1]);
    fd_ = sv[0];
  }

  void advance(Time now) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string line = "advance " + std::to_string(now.count()) + "\n";
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      die("coolhandd: lockstep write failed (see " + log_ + ")");
    std::string answer;
    for (;;) {
      if (const auto nl = buf_.find('\n'); nl != std::string::npos) {
        answer = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        break;
      }
      char chunk[128];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n <= 0) die("coolhandd ended during the run (see " + log_ + ")");
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
    std::istringstream in(answer);
    std::string ok, next;
    long long at = -1;
    if (!(in >> ok >> at >> next) || ok != "ok" || at != now.count())
      die("coolhandd: unexpected lockstep answer '" + answer + "' to " + line);
    next_.reset();
    if (next != "-") {
      next_ = Time(std::stoll(next));
      ++deadlines_;
      // The daemon fires at its deadline, the simulator's loop at the
      // first step at or after it: they agree only on the step grid.
      if (next_->count() % step_.count() != 0) ++off_grid_;
    }
    ++advances_;
    in_daemon_ += std::chrono::steady_clock::now() - t0;
  }

  std::vector<std::string> argv_;
  std::string log_;
  policy::Millis step_;  // the model's time step
  std::vector<EmulZone> zones_;
  std::vector<SysFile> levels_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buf_;
  std::optional<Time> next_;
  std::uint64_t advances_ = 0;
  std::uint64_t deadlines_ = 0, off_grid_ = 0;       // timer deadlines the daemon armed
  std::chrono::steady_clock::duration in_daemon_{};  // waiting for the daemon's answers

 public:
  // "<n> of <m> timer deadlines off the model's step grid; <a> advances,
  // <ms> ms waiting for the daemon" (where a run's guest time goes).
  [[nodiscard]] std::string grid_note() const {
    return std::to_string(off_grid_) + " of " + std::to_string(deadlines_) +
           " timer deadlines off the " + std::to_string(step_.count()) + " ms step grid; " +
           std::to_string(advances_) + " advances, " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::milliseconds>(in_daemon_).count()) +
           " ms waiting for the daemon";
  }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int cmd_daemon_run(const sim::ModelSpec& spec, const std::string& policy_path,
                   const std::string& workload_path, std::uint64_t seed, const std::string& label,
                   const std::string& daemon_log, const std::vector<std::string>& daemon_argv) {
  auto layout = daemon_layout(spec, read_text(policy_path));
  if (auto* e = std::get_if<LayoutError>(&layout)) die(e->what);
  auto table = sim::load_csv_file(workload_path);
  if (auto* e = std::get_if<config::ConfigError>(&table)) die(e->to_string());
  auto bound = sim::Workload::bind(std::get<sim::CsvTable>(std::move(table)), spec);
  if (auto* e = std::get_if<config::ConfigError>(&bound)) die(e->to_string());
  DaemonController controller(spec, std::get<DaemonLayout>(layout), daemon_argv, daemon_log);
  sim::ThermalModel model(spec, seed);
  const auto result = sim::run(model, std::get<sim::Workload>(bound), controller);
  controller.finish();
  std::cout << "LOCKSTEP-NOTE " << label << ": " << controller.grid_note() << "\n";
  write_trace(std::cout, label, result);
  return 0;
}

}  // namespace coolhand::lockstep
