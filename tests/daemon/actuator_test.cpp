// Actuator: writes with read-back, firmware overrides, read-only knobs,
// restore and dry-run.
#include "actuator.h"

#include <gtest/gtest.h>

#include "fake_tree.h"

namespace coolhand::daemon::actuator_test {
namespace {

using testing::FakeTree;
using testing::FaultySysfs;

constexpr const char* kPath = "class/thermal/cooling_device0/cur_state";

KnobBinding fan_binding() {
  KnobBinding b;
  b.targets.push_back(KnobTarget{kPath, 0, {0, 1, 2, 3}});
  return b;
}

struct ActuatorTest : ::testing::Test {
  ActuatorTest() : fs(tree.root()) {
    tree.cooling_device(0, "Fan", 3, 0);
    log.capture();
  }
  FakeTree tree;
  FaultySysfs fs;
  Logger log;
};

TEST_F(ActuatorTest, AppliesAndRestores) {
  Actuator a("fan", fan_binding(), fs, log, false);
  ASSERT_TRUE(a.apply(2));
  EXPECT_EQ(tree.read_int(kPath), 2);
  EXPECT_EQ(a.level(), 2u);
  ASSERT_TRUE(a.restore());
  EXPECT_EQ(tree.read_int(kPath), 0);
  EXPECT_FALSE(a.level());
}

TEST_F(ActuatorTest, ReadOnlyKnobIsAnErrorLoggedOnce) {
  fs.read_only.insert(kPath);
  Actuator a("fan", fan_binding(), fs, log, false);
  auto s = a.apply(3);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().err, EACCES);
  EXPECT_FALSE(a.apply(3));
  EXPECT_EQ(a.write_failures(), 2u);
  EXPECT_FALSE(a.level());
  std::size_t errors = 0;
  for (const auto& l : log.lines()) errors += l.rfind("<3>", 0) == 0 ? 1 : 0;
  EXPECT_EQ(errors, 1u);
  EXPECT_EQ(tree.read_int(kPath), 0);  // never left throttled
}

TEST_F(ActuatorTest, FirmwareOverrideIsLoggedOnceAndReapplied) {
  int fights = 1;  // firmware clamps the first write only
  fs.on_write = [&](std::string_view, std::string_view v) -> std::string {
    if (fights-- > 0) return "1";
    return std::string(v);
  };
  Actuator a("fan", fan_binding(), fs, log, false);
  ASSERT_TRUE(a.apply(3));
  EXPECT_EQ(tree.read_int(kPath), 3);
  EXPECT_EQ(fs.writes[kPath], 2);
  EXPECT_EQ(a.overrides_seen(), 1u);
  ASSERT_EQ(log.lines().size(), 1u);
  EXPECT_EQ(log.lines()[0].rfind("<4>", 0), 0u);
}

TEST_F(ActuatorTest, PersistentClampIsAcceptedWithoutLooping) {
  fs.on_write = [](std::string_view, std::string_view) -> std::string { return "1"; };
  Actuator a("fan", fan_binding(), fs, log, false);
  EXPECT_TRUE(a.apply(3));
  EXPECT_EQ(fs.writes[kPath], 2);
  EXPECT_TRUE(a.apply(2));
  EXPECT_EQ(log.lines().size(), 1u);  // the override is reported once
}

// Issue 11: every write attempt is a knob_write record with the value
// written and the value the kernel kept (a clamp shows as a second attempt).
TEST_F(ActuatorTest, RecordsEachWriteWithWhatWasReadBack) {
  recorder::Ring ring(64);
  ring.set_time(5000);
  fs.on_write = [](std::string_view, std::string_view v) -> std::string {
    return v == "3" ? "1" : std::string(v);  // the kernel clamps 3 to 1
  };
  Actuator a("fan", fan_binding(), fs, log, false);
  a.record_into(ring, 7);
  ASSERT_TRUE(a.apply(2));
  ASSERT_TRUE(a.apply(3));
  fs.read_only.insert(kPath);
  EXPECT_FALSE(a.apply(0));
  struct Want {
    std::uint32_t level;
    std::int32_t written, back;
  };
  const Want want[] = {{2, 2, 2}, {3, 3, 1}, {3, 3, 1}, {0, 0, recorder::kNoValue}};
  ASSERT_EQ(ring.total(), std::size(want));
  for (std::size_t i = 0; i < std::size(want); ++i) {
    const recorder::Record& r = ring.at(i);
    EXPECT_EQ(r.kind, static_cast<std::uint16_t>(recorder::Kind::knob_write)) << i;
    EXPECT_EQ(r.index, 7u) << i;
    EXPECT_EQ(r.t_ns, 5000u) << i;
    EXPECT_EQ(r.a, want[i].level) << i;
    EXPECT_EQ(r.c, want[i].written) << i;
    EXPECT_EQ(r.d, want[i].back) << i;
  }
}

// A knob that already holds the value is not written, so nothing is recorded.
TEST_F(ActuatorTest, RecordsNothingWhenNothingIsWritten) {
  recorder::Ring ring(16);
  Actuator a("fan", fan_binding(), fs, log, false);
  a.record_into(ring, 0);
  ASSERT_TRUE(a.apply(0));
  EXPECT_EQ(ring.total(), 0u);
}

TEST_F(ActuatorTest, VerifyReappliesAfterFirmwareReset) {
  Actuator a("fan", fan_binding(), fs, log, false);
  ASSERT_TRUE(a.apply(2));
  tree.write(kPath, 0);  // e.g. firmware reset during suspend
  ASSERT_TRUE(a.verify());
  EXPECT_EQ(tree.read_int(kPath), 2);
  EXPECT_EQ(a.overrides_seen(), 1u);
  tree.write(kPath, 1);
  ASSERT_TRUE(a.verify());
  EXPECT_EQ(tree.read_int(kPath), 2);
  ASSERT_EQ(log.lines().size(), 1u);  // reported once
  EXPECT_NE(log.lines()[0].find("behind the daemon's back"), std::string::npos);
}

// Two CPU policies on one device: the first refuses the restore, the
// second must still get its original back (mutant: restore() returns at the
// first failing target, leaving the other policies throttled). Each failure
// is reported on its own.
TEST_F(ActuatorTest, RestoreTriesEveryTargetAndReportsEachFailure) {
  constexpr const char* kCpu0 = "devices/system/cpu/cpufreq/policy0/scaling_max_freq";
  constexpr const char* kCpu4 = "devices/system/cpu/cpufreq/policy4/scaling_max_freq";
  constexpr const char* kCpu6 = "devices/system/cpu/cpufreq/policy6/scaling_max_freq";
  tree.cpufreq_policy(0, 400000, 2000000);
  tree.cpufreq_policy(4, 400000, 2000000);
  tree.cpufreq_policy(6, 400000, 2000000);
  KnobBinding b;
  for (const char* p : {kCpu0, kCpu4, kCpu6}) {
    b.targets.push_back(KnobTarget{p, 2000000, {2000000, 1200000, 400000}});
  }
  Actuator a("cpu", b, fs, log, false);
  ASSERT_TRUE(a.apply(2));
  for (const char* p : {kCpu0, kCpu4, kCpu6}) ASSERT_EQ(tree.read_int(p), 400000) << p;

  fs.read_only.insert(kCpu0);
  fs.read_only.insert(kCpu4);
  auto s = a.restore();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().err, EACCES);
  EXPECT_NE(s.error().to_string().find("policy0"), std::string::npos) << s.error().to_string();
  EXPECT_EQ(tree.read_int(kCpu6), 2000000);  // the last target restored despite two failures
  std::vector<std::string> errors;
  for (const auto& l : log.lines()) {
    if (l.rfind("<3>", 0) == 0) errors.push_back(l);
  }
  ASSERT_EQ(errors.size(), 2u);  // one line per failing target
  EXPECT_NE(errors[0].find("policy0"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("policy4"), std::string::npos) << errors[1];
  EXPECT_FALSE(a.level());
}

TEST_F(ActuatorTest, DryRunWritesNothing) {
  Actuator a("fan", fan_binding(), fs, log, true);
  ASSERT_TRUE(a.apply(3));
  EXPECT_EQ(tree.read_int(kPath), 0);
  EXPECT_TRUE(fs.writes.empty());
  ASSERT_FALSE(log.lines().empty());
  EXPECT_NE(log.lines()[0].find("would write 3"), std::string::npos);
}

}  // namespace
}  // namespace coolhand::daemon::actuator_test
