// The state file of knob originals: parser and formatter on strings, then
// OriginalStore against a temp-dir sysfs with the Runtime binding its knobs
// (a previous instance's throttled value must never become the original).
#include "originals.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "fake_tree.h"
#include "runtime.h"
#include "runtime_support.h"

namespace coolhand::daemon::originals_test {
namespace {

using testing::FakeTree;
using testing::FaultySysfs;

constexpr const char* kCpu = "devices/system/cpu/cpufreq/policy0/scaling_max_freq";
constexpr const char* kFan = "class/thermal/cooling_device0/cur_state";
constexpr const char* kBoot = "0b5e6f0a-8c1d-4e2f-9a3b-5c6d7e8f9a0b";

constexpr const char* kPolicy = R"(
version: 1
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [cpu]
    table:
      - {up_c: 45, down_c: 43, level: 2}
)";

std::string state_text(const std::string& body, std::size_t knobs) {
  return std::string("coolhand-originals 1\nboot_id ") + kBoot + "\n" + body + "end " +
         std::to_string(knobs) + "\n";
}

// ------------------------------------------------------------- parser --

TEST(StateFile, FormatThenParseGivesTheSameOriginals) {
  const std::map<std::string, std::int64_t> in{{kCpu, 2000000}, {kFan, 1}, {"a b/c", -5}};
  const StateFile f = parse_state(format_state(kBoot, in));
  EXPECT_TRUE(f.problems.empty()) << f.problems.front();
  EXPECT_EQ(f.boot_id, kBoot);
  EXPECT_EQ(f.originals, in);
}

TEST(StateFile, EmptyOriginalsStillAnIntactFile) {
  const StateFile f = parse_state(format_state(kBoot, {}));
  EXPECT_TRUE(f.problems.empty());
  EXPECT_TRUE(f.originals.empty());
}

TEST(StateFile, WrongHeaderMeansNothingIsUsable) {
  const StateFile f = parse_state("coolhand-originals 2\nknob 1 x\nend 1\n");
  ASSERT_FALSE(f.problems.empty());
  EXPECT_NE(f.problems.front().find("line 1"), std::string::npos);
  EXPECT_TRUE(f.originals.empty());
  EXPECT_FALSE(parse_state("").problems.empty());
}

TEST(StateFile, BadLinesAreSkippedAndReported) {
  const std::string body = "knob 2000000 " + std::string(kCpu) +
                           "\n"
                           "knob 12x3 class/a\n"         // bad value
                           "knob 5 /etc/shadow\n"        // absolute
                           "knob 5 class/../../etc/x\n"  // escapes the root
                           "knob 5 class/a\tb\n"         // control character
                           "knob 7 " +
                           std::string(kCpu) +
                           "\n"         // twice
                           "frob 1\n";  // unknown item
  const StateFile f = parse_state(state_text(body, 6));
  EXPECT_EQ(f.problems.size(), 6U);
  ASSERT_EQ(f.originals.size(), 1U);
  EXPECT_EQ(f.originals.at(kCpu), 2000000);
}

TEST(StateFile, TruncationIsDetected) {
  const std::string full = state_text("knob 1 " + std::string(kFan) + "\n", 1);
  // Cut anywhere before the end: never an intact file.
  for (std::size_t cut = 0; cut + 1 < full.size(); ++cut) {
    EXPECT_FALSE(parse_state(full.substr(0, cut)).problems.empty()) << "cut at " << cut;
  }
  EXPECT_TRUE(parse_state(full).problems.empty());
}

TEST(StateFile, EndCountAndTrailingTextAreChecked) {
  EXPECT_FALSE(parse_state(state_text("knob 1 a\n", 2)).problems.empty());
  EXPECT_FALSE(parse_state(state_text("knob 1 a\n", 1) + "knob 2 b\n").problems.empty());
  EXPECT_FALSE(
      parse_state("coolhand-originals 1\nknob 1 a\nend 1\n").problems.empty());  // no boot_id
}

TEST(StateFile, OversizedTextIsRejected) {
  const std::string big(kMaxStateBytes + 1, '#');
  const StateFile f = parse_state(big);
  EXPECT_FALSE(f.problems.empty());
}

// -------------------------------------------------------------- store --

struct StoreTest : ::testing::Test {
  StoreTest() : fs(tree.root()) {
    tree.thermal_zone(0, "skin-therm", 40000);
    tree.cpufreq_policy(0, 400000, 2000000);
    tree.mkdir("run");
    state = tree.root() + "/run/originals";
    log.capture();
  }

  void write_state(const std::string& text) const { std::ofstream(state) << text; }
  [[nodiscard]] bool state_exists() const { return std::filesystem::exists(state); }
  [[nodiscard]] std::string state_file() const {
    std::ifstream in(state);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  [[nodiscard]] bool logged(const std::string& needle) const {
    for (const auto& l : log.lines()) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  std::unique_ptr<Runtime> bind(OriginalStore& store) {
    RuntimeOptions o;
    o.originals = &store;
    auto r = Runtime::create(testing::parse_policy_text(kPolicy), fs, log, o);
    EXPECT_TRUE(r) << r.error().to_string();
    return r ? std::move(*r) : nullptr;
  }

  FakeTree tree;
  FaultySysfs fs;
  Logger log;
  std::string state;
};

TEST_F(StoreTest, OriginalIsOnDiskBeforeTheFirstWrite) {
  OriginalStore store(state, kBoot, log);
  store.load();
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_TRUE(fs.writes.empty());                 // binding writes no knob...
  const StateFile f = parse_state(state_file());  // ...but has recorded its original
  EXPECT_TRUE(f.problems.empty());
  EXPECT_EQ(f.boot_id, kBoot);
  EXPECT_EQ(f.originals.at(kCpu), 2000000);
}

// The invariant a SIGKILL relies on: whenever a knob is written, the state
// file already names it. Checked at every write, through start, a reload
// that adds a device, hot-plug of an optional one and a reload that drops it.
TEST_F(StoreTest, EveryKnobIsOnDiskBeforeItsFirstWrite) {
  constexpr const char* kWithFan = R"(
version: 1
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan, required: false}
controllers:
  guard:
    kind: table
    input: skin
    devices: [cpu, fan]
    table:
      - {up_c: 45, down_c: 43, level: 2}
)";
  tree.write("class/thermal/thermal_zone0/temp", 55000);  // hot: every device throttles
  OriginalStore store(state, kBoot, log);
  std::map<std::string, int> checked;
  fs.on_write = [&](std::string_view rel, std::string_view value) {
    if (rel == kCpu || rel == kFan) {
      const bool recorded =
          state_exists() && parse_state(state_file()).originals.count(std::string(rel)) > 0;
      EXPECT_TRUE(recorded) << rel << " written before its original was on disk";
      ++checked[std::string(rel)];
    }
    return std::string(value);
  };
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  policy::Time now{};
  rt->start(now);
  EXPECT_EQ(tree.read_int(kCpu), 400000);
  // A reload that adds the fan, still absent: bound later by hot-plug.
  ASSERT_TRUE(rt->reload(testing::parse_policy_text(kWithFan), now));
  tree.cooling_device(0, "Fan", 3, 1);
  rt->resync(now);
  EXPECT_EQ(tree.read_int(kFan), 2);  // the table's level 2 of 3
  EXPECT_EQ(parse_state(state_file()).originals.at(kFan), 1);
  // A reload that drops the fan: restored, then forgotten.
  ASSERT_TRUE(rt->reload(testing::parse_policy_text(kPolicy), now));
  EXPECT_EQ(tree.read_int(kFan), 1);
  EXPECT_EQ(parse_state(state_file()).originals.count(kFan), 0U);
  rt->restore_all();
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_GE(checked[kCpu], 2);
  EXPECT_GE(checked[kFan], 1);
}

TEST_F(StoreTest, StateFileOfACrashedInstanceIsTheTruth) {
  tree.write(kCpu, 933333);  // the killed instance left the CPU capped
  write_state(state_text("knob 2000000 " + std::string(kCpu) + "\n", 1));
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_EQ(store.original_of(kCpu), 2000000);
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::bound), 1U);  // bound: stays recorded
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_EQ(parse_state(state_file()).originals.at(kCpu), 2000000);
  // Exit: the actuators restore 2000000, never the 933333 found at start.
  rt->start(policy::Time{});
  rt->restore_all();
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_FALSE(state_exists());  // nothing left to restore: no file
}

TEST_F(StoreTest, RestoreWithoutAPolicyWritesTheIntactFile) {
  tree.write(kCpu, 933333);
  write_state(state_text("knob 2000000 " + std::string(kCpu) + "\n", 1));
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_FALSE(state_exists());
}

TEST_F(StoreTest, AnotherBootsFileIsIgnored) {
  tree.write(kCpu, 1500000);  // after a reboot this is what firmware set
  write_state(std::string("coolhand-originals 1\nboot_id other\nknob 2000000 ") + kCpu +
              "\nend 1\n");
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_TRUE(logged("from another boot"));
  EXPECT_EQ(store.size(), 0U);
  EXPECT_FALSE(state_exists());
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_EQ(tree.read_int(kCpu), 1500000);
}

TEST_F(StoreTest, CorruptFileIsTrustedOnlyInsideTheDiscoveredRange) {
  tree.write(kCpu, 933333);
  tree.cooling_device(0, "Fan", 3, 3);
  // No end line (corrupt); the CPU value is in range, the fan is not bound
  // by the policy (no range to check), the third knob is out of range.
  write_state(std::string("coolhand-originals 1\nboot_id ") + kBoot + "\nknob 2000000 " + kCpu +
              "\nknob 0 " + kFan + "\n");
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_TRUE(logged("is corrupt"));
  std::vector<std::string> cpu_writes;
  fs.on_write = [&](std::string_view rel, std::string_view value) {
    if (rel == kCpu) cpu_writes.emplace_back(value);
    return std::string(value);
  };
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_TRUE(logged("inside [400000, 2000000]; kept"));
  (void)store.restore(fs, OriginalStore::Keep::bound);
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  EXPECT_EQ(tree.read_int(kFan), 3);  // untouched
  EXPECT_TRUE(logged("no bound knob gives a range"));
  // The binding took 2000000 as the original: the exit restore writes it,
  // never the 933333 found at start.
  rt->start(policy::Time{});
  rt->restore_all();
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
  for (const auto& w : cpu_writes) EXPECT_EQ(w, "2000000");
}

TEST_F(StoreTest, CorruptValueOutsideTheRangeIsNotWritten) {
  tree.write(kCpu, 933333);
  write_state(std::string("coolhand-originals 1\nboot_id ") + kBoot + "\nknob 9999999 " + kCpu +
              "\n");
  OriginalStore store(state, kBoot, log);
  store.load();
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  (void)store.restore(fs, OriginalStore::Keep::bound);
  EXPECT_EQ(tree.read_int(kCpu), 933333);
  EXPECT_TRUE(logged("is not trusted"));
  EXPECT_EQ(fs.writes.count(kCpu), 0U);
}

// An intact state file holds what the daemon read from the knob, which may
// lie above the advertised range (firmware sets RAPL PL1 above
// constraint_0_max_power_uw): it is the original and is restored as such.
TEST_F(StoreTest, IntactValueAboveTheRangeIsTheOriginal) {
  tree.write(kCpu, 1000000);
  write_state(state_text("knob 2500000 " + std::string(kCpu) + "\n", 1));
  OriginalStore store(state, kBoot, log);
  store.load();
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_EQ(store.original_of(kCpu), 2500000);
  (void)store.restore(fs, OriginalStore::Keep::bound);
  EXPECT_EQ(tree.read_int(kCpu), 2500000);
}

// A corrupt file's value outside the range is not trusted.
TEST_F(StoreTest, CorruptFileValueOutsideTheRangeIsNotTrusted) {
  tree.write(kCpu, 1000000);
  write_state(state_text("knob 9999999 " + std::string(kCpu) + "\n", 1) + "garbage line\n");
  OriginalStore store(state, kBoot, log);
  store.load();
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_TRUE(logged("is not trusted [400000, 2000000]"));
  (void)store.restore(fs, OriginalStore::Keep::bound);
  EXPECT_EQ(fs.writes.count(kCpu), 0U);
  EXPECT_EQ(store.original_of(kCpu), 1000000);
}

TEST_F(StoreTest, KnobThatNoLongerExistsIsDropped) {
  write_state(state_text("knob 1 class/thermal/cooling_device7/cur_state\n", 1));
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_TRUE(logged("no longer exists"));
  EXPECT_FALSE(state_exists());
  EXPECT_FALSE(std::filesystem::exists(tree.root() + "/class/thermal/cooling_device7"));
}

TEST_F(StoreTest, FailedWriteKeepsTheEntryForALaterRestore) {
  tree.write(kCpu, 933333);
  write_state(state_text("knob 2000000 " + std::string(kCpu) + "\n", 1));
  fs.read_only.insert(kCpu);
  OriginalStore store(state, kBoot, log);
  store.load();
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 1U);
  EXPECT_EQ(parse_state(state_file()).originals.at(kCpu), 2000000);
  fs.read_only.clear();
  EXPECT_EQ(store.restore(fs, OriginalStore::Keep::none), 0U);
  EXPECT_EQ(tree.read_int(kCpu), 2000000);
}

TEST_F(StoreTest, ForgetRemovesTheEntryFromDisk) {
  OriginalStore store(state, kBoot, log);
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  ASSERT_TRUE(state_exists());
  store.forget(kCpu);
  EXPECT_FALSE(state_exists());
  EXPECT_EQ(store.original_of(kCpu), std::nullopt);
}

TEST_F(StoreTest, InMemoryStoreWritesNoFile) {
  OriginalStore store("", kBoot, log);
  store.load();
  auto rt = bind(store);
  ASSERT_TRUE(rt);
  EXPECT_EQ(store.original_of(kCpu), 2000000);
  EXPECT_FALSE(state_exists());
}

}  // namespace
}  // namespace coolhand::daemon::originals_test
