// RootedSysfs against a temporary tree: normal files and the garbage a
// broken driver produces (directory in place of a file, FIFO, deleted file).
#include "sysfs.h"

#include <gtest/gtest.h>

#include "fake_tree.h"

namespace coolhand::daemon {
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
}  // namespace coolhand::daemon
