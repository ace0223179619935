// Resume from suspend, end to end: a fake logind on the private system bus
// (private_bus.h) sends PrepareForSleep, and the real coolhandd, started
// with --logind on (it talks to logind only with the real /sys by default),
// must re-apply every device's level after PrepareForSleep(false) and do
// nothing on PrepareForSleep(true).
//
// Ordering without sleeps: the fake's signals and its Peer.Ping calls to the
// daemon's logind connection travel over one connection to one connection,
// which the bus keeps in order, and sd-bus handles them in order; so the
// ping's reply means the daemon has handled every signal sent before it.
//
// The other resume trigger, CLOCK_BOOTTIME jumping ahead of CLOCK_MONOTONIC,
// cannot be driven end to end: only a real suspend moves one clock without
// the other (clock_settime() refuses both, and a time namespace's offsets
// are fixed before its first process starts). ResumeDetector takes the two
// readings as arguments and is tested with them in
// tests/daemon/resume_test.cpp, where a time namespace also checks that
// boottime_now() reads CLOCK_BOOTTIME.
#include <gtest/gtest.h>
#include <sdbus-c++/sdbus-c++.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "private_bus.h"

namespace {

using namespace coolhand::e2e_testing;  // NOLINT(google-build-using-namespace)
using namespace std::chrono_literals;

constexpr const char* kLogindName = "org.freedesktop.login1";
constexpr const char* kLogindPath = "/org/freedesktop/login1";
constexpr const char* kManager = "org.freedesktop.login1.Manager";

// The part of logind coolhandd listens to: the PrepareForSleep(b) signal.
class FakeLogind {
 public:
  FakeLogind()
      : conn_(sdbus::createSystemBusConnection(kLogindName)),
        object_(sdbus::createObject(*conn_, kLogindPath)) {
    object_->registerSignal("PrepareForSleep").onInterface(kManager).withParameters<bool>("start");
    object_->finishRegistration();
  }

  void prepare_for_sleep(bool start) {
    object_->emitSignal("PrepareForSleep").onInterface(kManager).withArguments(start);
  }

  // Ping every bus connection of process `pid` from this connection: when
  // the replies are in, the process has handled all our earlier signals.
  // Returns how many connections answered.
  int sync_with(pid_t pid) {
    auto bus = sdbus::createProxy(*conn_, "org.freedesktop.DBus", "/org/freedesktop/DBus");
    std::vector<std::string> names;
    bus->callMethod("ListNames").onInterface("org.freedesktop.DBus").storeResultsTo(names);
    int answered = 0;
    for (const std::string& n : names) {
      if (n.empty() || n[0] != ':' || n == conn_->getUniqueName()) continue;
      std::uint32_t owner = 0;
      try {
        bus->callMethod("GetConnectionUnixProcessID")
            .onInterface("org.freedesktop.DBus")
            .withArguments(n)
            .storeResultsTo(owner);
      } catch (const sdbus::Error&) {
        continue;  // gone meanwhile (a coolhandctl run)
      }
      if (owner != static_cast<std::uint32_t>(pid)) continue;
      auto peer = sdbus::createProxy(*conn_, n, "/");
      peer->callMethod("Ping").onInterface("org.freedesktop.DBus.Peer");
      ++answered;
    }
    return answered;
  }

 private:
  std::unique_ptr<sdbus::IConnection> conn_;
  std::unique_ptr<sdbus::IObject> object_;
};

// Mutants this catches: the PrepareForSleep callback ignoring its argument
// or inverting it; main.cpp not connecting to logind; on_resume not
// re-applying levels.
TEST_F(DbusEndToEnd, PrepareForSleepFalseReappliesLevels) {
  FakeLogind logind;
  start_daemon({"--logind", "on"});
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  // Two connections: the D-Bus service's and the logind client's.
  ASSERT_EQ(logind.sync_with(daemon_->pid()), 2) << daemon_log();

  // Going to sleep: nothing to do.
  logind.prepare_for_sleep(true);
  ASSERT_EQ(logind.sync_with(daemon_->pid()), 2);
  EXPECT_EQ(status()["counters"]["resumes"], 0) << daemon_log();

  // The firmware reset the fan while the machine slept; the daemon cannot
  // know until logind says it woke up.
  tree_.write(kFan, 0);
  logind.prepare_for_sleep(false);
  ASSERT_EQ(logind.sync_with(daemon_->pid()), 2);
  EXPECT_EQ(fan(), 1) << "level re-applied on resume\n" << daemon_log();
  const nlohmann::json s = status();
  EXPECT_EQ(s["counters"]["resumes"], 1) << daemon_log();
  EXPECT_EQ(s["devices"][0]["level"], 1);
  EXPECT_NE(daemon_log().find("resumed from suspend: re-applying device levels"), std::string::npos)
      << daemon_log();
  EXPECT_EQ(daemon_->stop(), 0);
}

}  // namespace
