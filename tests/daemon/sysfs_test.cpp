// RootedSysfs against a temporary tree: normal files and the garbage a
// broken driver produces (directory in place of a file, FIFO, deleted file).
#include "sysfs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "fake_tree.h"

namespace coolhand::daemon::sysfs_test {
namespace {

using testing::FakeTree;

TEST(RootedSysfs, ReadsAndWritesBelowTheRoot) {
  FakeTree t;
  t.write("class/thermal/thermal_zone0/temp", 42000);
  RootedSysfs fs(t.root() + "/");
  EXPECT_EQ(*fs.read_integer("class/thermal/thermal_zone0/temp"), 42000);
  ASSERT_TRUE(fs.write_integer("class/thermal/thermal_zone0/temp", 7));
  EXPECT_EQ(t.read_int("class/thermal/thermal_zone0/temp"), 7);
  EXPECT_EQ(fs.absolute("a/b"), t.root() + "/a/b");
}

// A shorter value over a longer one leaves exactly the new value, and the
// file keeps its mode; no temporary file is left beside it.
TEST(RootedSysfs, ShorterValueReplacesALongerOneExactly) {
  FakeTree t;
  t.write("devices/system/cpu/cpufreq/policy0/scaling_max_freq", 2000000);
  RootedSysfs fs(t.root());
  ASSERT_TRUE(fs.write_integer("devices/system/cpu/cpufreq/policy0/scaling_max_freq", 400000));
  EXPECT_EQ(t.read("devices/system/cpu/cpufreq/policy0/scaling_max_freq"), "400000");
  ASSERT_TRUE(fs.write_integer("devices/system/cpu/cpufreq/policy0/scaling_max_freq", 1200000));
  EXPECT_EQ(t.read("devices/system/cpu/cpufreq/policy0/scaling_max_freq"), "1200000");
  const auto dir = std::filesystem::path(t.root()) / "devices/system/cpu/cpufreq/policy0";
  std::filesystem::permissions(dir / "scaling_max_freq", std::filesystem::perms::owner_read |
                                                             std::filesystem::perms::owner_write |
                                                             std::filesystem::perms::group_read);
  ASSERT_TRUE(fs.write_integer("devices/system/cpu/cpufreq/policy0/scaling_max_freq", 800000));
  EXPECT_EQ(std::filesystem::status(dir / "scaling_max_freq").permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                std::filesystem::perms::group_read);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // scaling_max_freq alone: no temporary file left
}

// A reader racing the daemon's writes sees a whole value every time, never
// an empty file (mutant: open with O_TRUNC, then write) nor digits of two
// values mixed (mutant: overwrite in place, then ftruncate). Not timed: the
// reader simply runs for as long as the writer.
TEST(RootedSysfs, ConcurrentReaderNeverSeesAnEmptyOrMixedValue) {
  constexpr const char* kKnob = "devices/system/cpu/cpufreq/policy0/scaling_max_freq";
  // On tmpfs, like sysfs and like loop_agreement_test's tree: on ext4 each of
  // the 20000 create-and-rename writes waited on the journal (25 s of I/O wait
  // for 6 s of CPU, measured); the rename's atomicity is the VFS's either way.
  FakeTree t{std::filesystem::is_directory("/dev/shm") ? std::filesystem::path("/dev/shm")
                                                       : std::filesystem::temp_directory_path()};
  t.write(kKnob, 2000000);
  RootedSysfs writer(t.root());
  RootedSysfs reader(t.root());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::string bad;
  std::thread th([&] {
    while (!done.load()) {
      auto text = reader.read(kKnob);
      std::string v = text ? *text : text.error().to_string();
      if (!v.empty() && v.back() == '\n') v.pop_back();
      if (v != "2000000" && v != "400000") {
        bad = "'" + v + "'";
        return;
      }
      reads.fetch_add(1);
    }
  });
  for (int i = 0; i < 20000 && bad.empty(); ++i) {
    ASSERT_TRUE(writer.write_integer(kKnob, i % 2 == 0 ? 400000 : 2000000));
  }
  done = true;
  th.join();
  EXPECT_EQ(bad, "") << "after " << reads.load() << " good reads";
  EXPECT_GT(reads.load(), 0);
}

TEST(RootedSysfs, DeletedFileIsAnErrorWithPathAndErrno) {
  FakeTree t;
  RootedSysfs fs(t.root());
  auto r = fs.read("class/hwmon/hwmon0/temp1_input");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().err, ENOENT);
  EXPECT_EQ(r.error().path, "class/hwmon/hwmon0/temp1_input");
  EXPECT_NE(r.error().to_string().find("ENOENT"), std::string::npos);
  EXPECT_FALSE(fs.write("class/hwmon/hwmon0/pwm1", "1"));  // never creates files
  EXPECT_FALSE(t.read("class/hwmon/hwmon0/pwm1").size());
}

TEST(RootedSysfs, DirectoryInPlaceOfFileIsAnError) {
  FakeTree t;
  t.mkdir("class/thermal/thermal_zone0/temp");
  RootedSysfs fs(t.root());
  auto r = fs.read("class/thermal/thermal_zone0/temp");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().err, EISDIR);
}

TEST(RootedSysfs, FifoWithoutWriterReadsEmptyWithoutBlocking) {
  FakeTree t;
  t.mkfifo("class/thermal/thermal_zone0/temp");
  RootedSysfs fs(t.root());
  auto r = fs.read_integer("class/thermal/thermal_zone0/temp");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().detail.find("empty"), std::string::npos);
}

TEST(RootedSysfs, ListIsSortedAndErrorsWhenAbsent) {
  FakeTree t;
  t.write("class/thermal/thermal_zone1/type", "b");
  t.write("class/thermal/thermal_zone0/type", "a");
  RootedSysfs fs(t.root());
  auto l = fs.list("class/thermal");
  ASSERT_TRUE(l);
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ((*l)[0], "thermal_zone0");
  EXPECT_FALSE(fs.list("class/nothing"));
}

}  // namespace
}  // namespace coolhand::daemon::sysfs_test
