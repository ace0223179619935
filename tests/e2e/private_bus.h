// The private system bus of the D-Bus end-to-end tests (dbus_e2e_test.cpp,
// logind_e2e_test.cpp): a PRIVATE dbus-daemon (generated config, never the
// host's bus) with the shipped policy included, the real coolhandd against
// a fake sysfs tree and the real coolhandctl, all pointed at the private bus
// through DBUS_SYSTEM_BUS_ADDRESS. The unauthorised caller is uid 65534
// (setpriv) when the tests run as root, and the test user itself otherwise.
// In CI (CI=true) a missing dbus-daemon or setpriv, or not being root, fails.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fake_tree.h"

extern char** environ;

namespace coolhand::e2e_testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using coolhand::daemon::testing::FakeTree;

inline constexpr int kNobody = 65534;
inline constexpr const char* kFan = "class/thermal/cooling_device0/cur_state";
inline constexpr const char* kTemp = "class/thermal/thermal_zone0/temp";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// At 46 °C: fan level 1, zone severity light, next limit 48 °C. The quiet
// profile lowers the table by 2 °C, so 46 °C means level 2 there. The fan
// and its table are tests/data/fan-control.yaml, which the measuring
// scripts' policy (scripts/lib/measure-daemon.sh) uses too.
inline const std::string kPolicy = std::string(R"(version: 1
sampling:
  min_interval: 100ms
  max_interval: 300ms
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
zones:
  skin_zone:
    sensor: skin
    trips:
      warm: {type: passive, threshold_c: 48, hysteresis_c: 1}
    severities:
      light: {threshold_c: 45, hysteresis_c: 1}
      moderate: {threshold_c: 48, hysteresis_c: 1}
)") + slurp(fs::path(COOLHAND_TEST_DATA_DIR) / "fan-control.yaml") +
                                   R"(profiles:
  quiet:
    limit_offset_c: -2
)";

// The reloaded policy: level 3 from 45 °C.
inline constexpr const char* kPolicyDeeper = R"(version: 1
sampling:
  min_interval: 100ms
  max_interval: 300ms
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
controllers:
  guard:
    kind: table
    input: skin
    devices: [fan]
    table:
      - {up_c: 45, down_c: 43, level: 3}
)";

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

inline bool is_root() {
  return geteuid() == 0;
}

inline std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

inline bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

// A child process with stdout and stderr in files.
class Process {
 public:
  Process(std::vector<std::string> argv, const fs::path& out, const fs::path& err) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Process() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      (void)wait();
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] bool running() {
    if (pid_ <= 0 || status_) return false;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) status_ = st;
    return !status_;
  }
  // Exit code (128+signal when killed); -1 if it never started.
  int wait() {
    if (pid_ <= 0) return -1;
    if (!status_) {
      int st = 0;
      ::waitpid(pid_, &st, 0);
      status_ = st;
    }
    return WIFEXITED(*status_) ? WEXITSTATUS(*status_) : 128 + WTERMSIG(*status_);
  }
  int stop() {
    if (running()) ::kill(pid_, SIGTERM);
    return wait();
  }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// The authorised cases need a root caller; only the test itself can be one.
#define REQUIRE_ROOT()                                                           \
  do {                                                                           \
    if (is_root()) break;                                                        \
    if (in_ci()) FAIL() << "the authorised D-Bus cases need root, which CI has"; \
    GTEST_SKIP() << "not root: no authorised caller available";                  \
  } while (0)

struct CtlRun {
  int code = -1;
  std::string out;
  std::string err;
};

class DbusEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dbus_daemon_ = find_in_path("dbus-daemon");
    setpriv_ = find_in_path("setpriv");
    if (dbus_daemon_.empty() || (is_root() && setpriv_.empty())) {
      const std::string why = "dbus-daemon or setpriv not found (packages dbus, util-linux)";
      if (in_ci()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    dir_ = tree_.root() + "-bus";
    fs::create_directories(dir_);
    // The unauthorised uid must reach the socket and run the binaries.
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    tree_.thermal_zone(0, "skin-therm", 46000);
    tree_.cooling_device(0, "Fan", 3, 0);
    policy_ = dir_ / "policy.yaml";
    write_policy(kPolicy);
    start_bus();
  }

  void TearDown() override {
    daemon_.reset();
    bus_.reset();
    unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  void write_policy(const std::string& text) { std::ofstream(policy_) << text; }

  // The bus of tests/data/private-bus.conf, listening in dir_: every uid
  // may connect, the tests' fake logind may own its name, the shipped policy
  // is included. A non-root test user cannot be root, so it may own the name
  // through the default context instead (private-bus-user.conf).
  void start_bus() {
    const fs::path conf = fs::path(COOLHAND_TEST_DATA_DIR) /
                          (is_root() ? "private-bus.conf" : "private-bus-user.conf");
    bus_ = std::make_unique<Process>(
        std::vector<std::string>{dbus_daemon_, "--config-file=" + conf.string(),
                                 "--address=unix:path=" + (dir_ / "bus").string(), "--nofork",
                                 "--print-address"},
        dir_ / "bus.address", dir_ / "bus.log");
    // The address is complete once its line is.
    ASSERT_TRUE(wait_until(
        [&] {
          const std::string a = slurp(dir_ / "bus.address");
          return !a.empty() && a.back() == '\n';
        },
        5s))
        << slurp(dir_ / "bus.log");
    std::string address = slurp(dir_ / "bus.address");
    address.erase(address.find_last_not_of("\n") + 1);
    setenv("DBUS_SYSTEM_BUS_ADDRESS", address.c_str(), 1);
  }

  std::string daemon_log() { return slurp(dir_ / "daemon.log"); }

  // The fan's cur_state. The daemon replaces the file whole
  // (RootedSysfs::write), so a read never sees an empty file; should one
  // ever, wait for a value up to a real deadline rather than a retry count.
  int fan() {
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    for (;;) {
      const std::string text = tree_.read(kFan);
      if (text.find_first_of("0123456789") != std::string::npos) return std::stoi(text);
      if (std::chrono::steady_clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(5ms);
    }
  }

  // Atomically, so the daemon never reads half a value.
  void set_temp(std::int64_t mc) {
    tree_.write(std::string(kTemp) + ".new", mc);
    fs::rename(fs::path(tree_.root()) / (std::string(kTemp) + ".new"),
               fs::path(tree_.root()) / kTemp);
  }

  // coolhandd on the private bus; `extra` arguments go at the end.
  void start_daemon(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv{COOLHAND_DAEMON, "--config", policy_.string(), "--sysfs-root",
                                  tree_.root(),    "--bus",    "system"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    daemon_ = std::make_unique<Process>(argv, dir_ / "daemon.out", dir_ / "daemon.log");
    ASSERT_TRUE(wait_until([&] { return daemon_log().find("running") != std::string::npos; }, 5s))
        << daemon_log();
    ASSERT_NE(daemon_log().find("D-Bus: serving org.coolhand.Thermal1"), std::string::npos)
        << daemon_log();
  }

  // coolhandctl ARGS, as root or as the unauthorised uid.
  CtlRun ctl(std::vector<std::string> args, bool unauthorised = false) {
    std::vector<std::string> argv;
    if (unauthorised && is_root()) {
      argv = {setpriv_, "--reuid=" + std::to_string(kNobody), "--regid=" + std::to_string(kNobody),
              "--clear-groups"};
    }
    argv.push_back(COOLHAND_CTL);
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, dir_ / "ctl.out", dir_ / "ctl.err");
    CtlRun r;
    r.code = p.wait();
    r.out = slurp(dir_ / "ctl.out");
    r.err = slurp(dir_ / "ctl.err");
    return r;
  }

  nlohmann::json status() {
    const CtlRun r = ctl({"status", "--json"}, true);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
  }

  FakeTree tree_;
  fs::path dir_;
  fs::path policy_;
  std::string dbus_daemon_;
  std::string setpriv_;
  std::unique_ptr<Process> bus_;
  std::unique_ptr<Process> daemon_;
};

}  // namespace coolhand::e2e_testing
