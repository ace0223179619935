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
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "private_bus.h"

namespace {

using namespace coolhand::e2e_testing;  // NOLINT(google-build-using-namespace)
using namespace std::chrono_literals;

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

// A caller whose uid the bus cannot report is refused like any non-root
// caller (mutant: authorise() lets an unknown uid through). The daemon is
// stopped while a Reload without reply is sent and the caller hangs up, so
// when it resumes the sender's unique name is gone and GetConnectionCredentials
// fails: the real failure path, no code seam needed.
TEST_F(DbusEndToEnd, CallerWhoseUidCannotBeObtainedIsRefused) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  write_policy(kPolicyDeeper);  // valid: only the missing uid may stop it
  ASSERT_EQ(::kill(daemon_->pid(), SIGSTOP), 0);
  {
    auto conn = sdbus::createSystemBusConnection();
    auto proxy = sdbus::createProxy(*conn, "org.coolhand.Thermal1", "/org/coolhand/Thermal1");
    proxy->callMethod("Reload").onInterface("org.coolhand.Thermal1").dontExpectReply();
  }  // the connection closes here (flushed first): the bus forgets the sender
  ASSERT_EQ(::kill(daemon_->pid(), SIGCONT), 0);
  ASSERT_TRUE(wait_until(
      [&] { return daemon_log().find("cannot get the caller's uid") != std::string::npos; }, 5s))
      << daemon_log();
  EXPECT_NE(daemon_log().find("(unknown uid) refused"), std::string::npos) << daemon_log();
  const nlohmann::json s = status();
  EXPECT_EQ(s["counters"]["reloads"], 0);
  EXPECT_EQ(s["counters"]["reload_failures"], 0);
  EXPECT_EQ(s["devices"][0]["level"], 1);
  EXPECT_EQ(fan(), 1);
  EXPECT_TRUE(daemon_->running());
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
  auto samples = [&] { return status()["counters"]["samples"].get<int>(); };
  // Pump signals until the daemon has taken `n` more samples (a count the
  // test sets, not a time that a loaded machine may stretch).
  auto pump_samples = [&](int n) {
    const int target = samples() + n;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    int now = 0;
    while ((now = samples()) < target && std::chrono::steady_clock::now() < deadline) pump(50ms);
    pump(50ms);
    return now >= target;
  };
  for (int t : {46300, 46700, 46100}) {
    set_temp(t);
    ASSERT_TRUE(pump_samples(2)) << "the daemon stopped sampling\n" << daemon_log();
  }
  EXPECT_TRUE(signals.empty()) << signals.size() << " signals without a state change";

  set_temp(49000);
  ASSERT_TRUE(wait_until([&] { return fan() == 2; }, 3s)) << daemon_log();
  ASSERT_TRUE(pump_samples(2)) << daemon_log();  // the change and two samples after it
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
