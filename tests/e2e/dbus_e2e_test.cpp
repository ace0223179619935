// End-to-end tests of coolhandd's D-Bus service and coolhandctl's bus
// commands: a PRIVATE dbus-daemon (generated config, never the host's bus),
// the real coolhandd against a fake sysfs tree, and the real coolhandctl,
// all pointed at the private bus through DBUS_SYSTEM_BUS_ADDRESS.
//
// The private bus includes the shipped policy file (daemon/
// org.coolhand.Thermal1.conf), so running as root also checks that root may
// own the name and others may call it. The unauthorised caller is uid 65534
// (setpriv) when the tests run as root, and the test user itself otherwise;
// then the authorised cases skip, since no caller can be root. In CI
// (CI=true) a missing dbus-daemon or setpriv, or not being root, fails.
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

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using coolhand::daemon::testing::FakeTree;

constexpr int kNobody = 65534;
const char* const kFan = "class/thermal/cooling_device0/cur_state";
const char* const kTemp = "class/thermal/thermal_zone0/temp";

// At 46 °C: fan level 1, zone severity light, next limit 48 °C. The quiet
// profile lowers the table by 2 °C, so 46 °C means level 2 there.
const char* const kPolicy = R"(version: 1
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
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 48, down_c: 46, level: 2}
profiles:
  quiet:
    limit_offset_c: -2
)";

// The reloaded policy: level 3 from 45 °C.
const char* const kPolicyDeeper = R"(version: 1
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

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

bool is_root() {
  return geteuid() == 0;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path p = fs::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
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

  // A bus config that listens in dir_, lets every uid connect and includes
  // the shipped policy. A non-root test user cannot be root, so it may own
  // the name through the default context instead.
  void start_bus() {
    const fs::path conf = dir_ / "bus.conf";
    std::ofstream(conf)
        << R"(<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path=)"
        << (dir_ / "bus").string() << R"(</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
)" << (is_root() ? "" : "    <allow own=\"org.coolhand.Thermal1\"/>\n")
        << R"(  </policy>
  <include>)"
        << COOLHAND_DBUS_POLICY << R"(</include>
</busconfig>
)";
    bus_ = std::make_unique<Process>(
        std::vector<std::string>{dbus_daemon_, "--config-file=" + conf.string(), "--nofork",
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

  // The fan's cur_state. The daemon writes as sysfs expects (truncate, then
  // write), so a read may land in between and see nothing: read again.
  int fan() {
    for (int i = 0; i < 100; ++i) {
      const std::string text = tree_.read(kFan);
      if (text.find_first_of("0123456789") != std::string::npos) return std::stoi(text);
      std::this_thread::sleep_for(1ms);
    }
    return -1;
  }

  // Atomically, so the daemon never reads half a value.
  void set_temp(std::int64_t mc) {
    tree_.write(std::string(kTemp) + ".new", mc);
    fs::rename(fs::path(tree_.root()) / (std::string(kTemp) + ".new"),
               fs::path(tree_.root()) / kTemp);
  }

  void start_daemon() {
    daemon_ = std::make_unique<Process>(
        std::vector<std::string>{COOLHAND_DAEMON, "--config", policy_.string(), "--sysfs-root",
                                 tree_.root(), "--bus", "system"},
        dir_ / "daemon.out", dir_ / "daemon.log");
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

TEST_F(DbusEndToEnd, StatusShowsZonesSensorsAndLevelsToAnyCaller) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  const nlohmann::json s = status();  // as the unauthorised uid: reading is open
  EXPECT_EQ(s["severity"], "light");
  EXPECT_EQ(s["profile"], "");
  ASSERT_EQ(s["zones"].size(), 1U);
  EXPECT_EQ(s["zones"][0]["name"], "skin_zone");
  EXPECT_EQ(s["zones"][0]["severity"], "light");
  EXPECT_EQ(s["zones"][0]["temperature_mc"], 46000);
  EXPECT_EQ(s["zones"][0]["next_limit_mc"], 48000);
  ASSERT_EQ(s["sensors"].size(), 1U);
  EXPECT_EQ(s["sensors"][0]["value_mc"], 46000);
  EXPECT_EQ(s["sensors"][0]["lost"], false);
  ASSERT_EQ(s["devices"].size(), 1U);
  EXPECT_EQ(s["devices"][0]["name"], "fan");
  EXPECT_EQ(s["devices"][0]["level"], 1);
  EXPECT_EQ(s["devices"][0]["max_level"], 3);
  EXPECT_EQ(s["devices"][0]["applied"], true);
  EXPECT_GT(s["counters"]["samples"].get<int>(), 0);

  const CtlRun text = ctl({"status"}, true);
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("level 1 of 3"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("46.0 °C"), std::string::npos) << text.out;
}

TEST_F(DbusEndToEnd, LostSensorShowsInStatus) {
  start_daemon();
  tree_.remove(kTemp);
  ASSERT_TRUE(
      wait_until([&] { return daemon_log().find("sensor skin: lost") != std::string::npos; }, 5s))
      << daemon_log();
  const nlohmann::json s = status();
  EXPECT_EQ(s["sensors"][0]["lost"], true);
  EXPECT_TRUE(s["zones"][0]["temperature_mc"].is_null());
}

TEST_F(DbusEndToEnd, ReloadByRootAppliesTheNewPolicy) {
  REQUIRE_ROOT();
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  write_policy(kPolicyDeeper);
  const CtlRun r = ctl({"reload"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(wait_until([&] { return fan() == 3; }, 3s)) << daemon_log();
  const nlohmann::json s = status();
  EXPECT_EQ(s["devices"][0]["level"], 3);
  EXPECT_TRUE(s["zones"].empty());
  EXPECT_EQ(s["counters"]["reloads"], 1);
}

TEST_F(DbusEndToEnd, BadReloadIsRefusedWithTheReasonAndTheOldPolicyKept) {
  REQUIRE_ROOT();
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  write_policy("version: 1\nsensors: [this is not a policy\n");
  const CtlRun r = ctl({"reload"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("reload refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("policy.yaml:"), std::string::npos) << r.err;  // file:line:column
  EXPECT_TRUE(daemon_->running());
  const nlohmann::json s = status();
  EXPECT_EQ(s["zones"].size(), 1U) << "the old policy (with its zone) still runs";
  EXPECT_EQ(s["devices"][0]["level"], 1);
  EXPECT_EQ(s["counters"]["reloads"], 0);
  // Hardware the policy cannot bind is refused the same way.
  std::string missing = kPolicyDeeper;
  missing.replace(missing.find("name: Fan"), 9, "name: NoSuchFan");
  write_policy(missing);
  const CtlRun r2 = ctl({"reload"});
  EXPECT_EQ(r2.code, 1);
  EXPECT_NE(r2.err.find("NoSuchFan"), std::string::npos) << r2.err;
  EXPECT_EQ(fan(), 1);
}

TEST_F(DbusEndToEnd, UnauthorisedCallerIsRefusedAndNothingChanges) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  write_policy(kPolicyDeeper);  // valid: only the caller's uid stops it

  const CtlRun r = ctl({"reload"}, true);
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.err.find("access denied"), std::string::npos) << r.err;
  const CtlRun p = ctl({"set-profile", "quiet"}, true);
  EXPECT_EQ(p.code, 4);
  EXPECT_NE(p.err.find("access denied"), std::string::npos) << p.err;
  EXPECT_NE(daemon_log().find("Reload from"), std::string::npos) << daemon_log();
  EXPECT_NE(daemon_log().find("refused"), std::string::npos) << daemon_log();

  std::this_thread::sleep_for(500ms);  // several steps: nothing may have moved
  EXPECT_EQ(fan(), 1);
  const nlohmann::json s = status();
  EXPECT_EQ(s["devices"][0]["level"], 1);
  EXPECT_EQ(s["profile"], "");
  EXPECT_EQ(s["zones"].size(), 1U);
  EXPECT_EQ(s["counters"]["reloads"], 0);
  EXPECT_EQ(s["counters"]["reload_failures"], 0);
}

TEST_F(DbusEndToEnd, SetProfileByRootTakesEffectAndUnknownIsRefused) {
  REQUIRE_ROOT();
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  const CtlRun r = ctl({"set-profile", "quiet"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(wait_until([&] { return fan() == 2; }, 3s)) << daemon_log();
  EXPECT_EQ(status()["profile"], "quiet");
  const CtlRun bad = ctl({"set-profile", "turbo"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("no profile 'turbo'"), std::string::npos) << bad.err;
  EXPECT_EQ(status()["profile"], "quiet");
}

// PropertiesChanged comes once per state change (here: level, severity and
// zone severity changing together), never for a sample that changes none.
TEST_F(DbusEndToEnd, PropertiesChangedOncePerStateChangeNeverPerSample) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  auto conn = sdbus::createSystemBusConnection();
  std::vector<std::vector<std::string>> signals;
  auto slot = conn->addMatch(
      "type='signal',sender='org.coolhand.Thermal1',interface='org.freedesktop.DBus.Properties',"
      "member='PropertiesChanged'",
      [&](sdbus::Message& m) {
        std::string iface;
        std::map<std::string, sdbus::Variant> changed;
        m >> iface >> changed;
        std::vector<std::string> names;
        for (const auto& [name, value] : changed) names.push_back(name);
        signals.push_back(names);
      });
  auto pump = [&](std::chrono::milliseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
      while (conn->processPendingRequest()) {
      }
      std::this_thread::sleep_for(10ms);
    }
  };
  const int samples_before = status()["counters"]["samples"].get<int>();
  for (int t : {46300, 46700, 46100}) {
    set_temp(t);
    pump(400ms);
  }
  EXPECT_GT(status()["counters"]["samples"].get<int>(), samples_before + 3) << "it did sample";
  EXPECT_TRUE(signals.empty()) << signals.size() << " signals without a state change";

  set_temp(49000);
  ASSERT_TRUE(wait_until([&] { return fan() == 2; }, 3s)) << daemon_log();
  pump(800ms);
  ASSERT_EQ(signals.size(), 1U);
  const std::vector<std::string> expected{"Levels", "Severity", "ZoneSeverities"};
  EXPECT_EQ(signals[0], expected);
}

TEST_F(DbusEndToEnd, CtlSaysWhenTheDaemonIsNotRunning) {
  const CtlRun r = ctl({"status"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("coolhandd is not running"), std::string::npos) << r.err;
  const CtlRun rl = ctl({"reload"});
  EXPECT_EQ(rl.code, 3);
}

TEST_F(DbusEndToEnd, NoBusIsAWarningForTheDaemonAndAnErrorForCtl) {
  setenv("DBUS_SYSTEM_BUS_ADDRESS", ("unix:path=" + (dir_ / "no-such-bus").string()).c_str(), 1);
  const CtlRun r = ctl({"status"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("cannot reach the system bus"), std::string::npos) << r.err;

  Process d({COOLHAND_DAEMON, "--config", policy_.string(), "--sysfs-root", tree_.root(), "--bus",
             "system"},
            dir_ / "daemon.out", dir_ / "daemon.log");
  ASSERT_TRUE(wait_until([&] { return daemon_log().find("running") != std::string::npos; }, 5s))
      << daemon_log();
  EXPECT_NE(daemon_log().find("<4>D-Bus service unavailable"), std::string::npos) << daemon_log();
  EXPECT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << "still controls";
  EXPECT_EQ(d.stop(), 0);
  EXPECT_EQ(fan(), 0) << "original restored";
}

// CPU time (utime + stime) of a process, in clock ticks.
long cpu_ticks(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

TEST_F(DbusEndToEnd, BusGoingAwayStopsTheServiceNotTheDaemon) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  EXPECT_EQ(bus_->stop(), 0);
  ASSERT_TRUE(wait_until(
      [&] { return daemon_log().find("D-Bus: connection lost") != std::string::npos; }, 3s))
      << daemon_log();
  const long before = cpu_ticks(daemon_->pid());
  set_temp(49000);
  EXPECT_TRUE(wait_until([&] { return fan() == 2; }, 3s)) << "control carries on";
  std::this_thread::sleep_for(1s);
  EXPECT_LT(cpu_ticks(daemon_->pid()) - before, sysconf(_SC_CLK_TCK) / 5)
      << "no busy loop on the dead socket";
  const std::string log = daemon_log();
  EXPECT_EQ(log.find("D-Bus: connection lost"), log.rfind("D-Bus: connection lost"))
      << "one warning";
  EXPECT_EQ(daemon_->stop(), 0);
  EXPECT_EQ(fan(), 0);
}

TEST_F(DbusEndToEnd, OnlyRootMayOwnTheNameUnderTheShippedPolicy) {
  REQUIRE_ROOT();
  // The daemon as uid 65534: the bus refuses it the name; it runs on without.
  fs::permissions(tree_.root(), fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  Process d(
      {setpriv_, "--reuid=65534", "--regid=65534", "--clear-groups", COOLHAND_DAEMON, "--config",
       policy_.string(), "--sysfs-root", tree_.root(), "--bus", "system", "--dry-run"},
      dir_ / "daemon.out", dir_ / "daemon.log");
  ASSERT_TRUE(wait_until([&] { return daemon_log().find("running") != std::string::npos; }, 5s))
      << daemon_log();
  EXPECT_NE(daemon_log().find("D-Bus service unavailable"), std::string::npos) << daemon_log();
  EXPECT_EQ(ctl({"status"}).code, 3);
  EXPECT_EQ(d.stop(), 0);
}

}  // namespace
