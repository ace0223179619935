// Start-up memory release: which /proc/PID/smaps mappings may be dropped, and
// that dropping them in a running process frees resident pages and leaves
// the code working (pages come back on use).
#include "memory.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace coolhand::daemon {
namespace {

TEST(DroppableFileMapping, OnlyPrivateNonWritableFileMappings) {
  EXPECT_TRUE(droppable_file_mapping(
      "7f12a0000000-7f12a0150000 r-xp 00028000 08:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(droppable_file_mapping(
      "55d0c0000000-55d0c0200000 r-xp 00010000 fe:00 99 /usr/sbin/coolhandd"));
  // Read-only data qualifies here; RELRO is told apart by its anonymous pages.
  EXPECT_TRUE(droppable_file_mapping(
      "7f12a0150000-7f12a01a0000 r--p 00178000 08:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6"));
  // Writable, shared, anonymous, special.
  EXPECT_FALSE(droppable_file_mapping(
      "7f12a0200000-7f12a0204000 rw-p 001f0000 08:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(
      droppable_file_mapping("7f12a0000000-7f12a0001000 r--s 00000000 00:05 7 /dev/shm/x"));
  EXPECT_FALSE(droppable_file_mapping("55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0   [heap]"));
  EXPECT_FALSE(
      droppable_file_mapping("7f12a0000000-7f12a0001000 r-xs 00000000 00:05 7 /dev/shm/x"));
  EXPECT_FALSE(droppable_file_mapping("7f12a0000000-7f12a0001000 r-xp 00000000 00:00 0"));
  EXPECT_FALSE(droppable_file_mapping("7ffd1a3f2000-7ffd1a3f4000 r-xp 00000000 00:00 0   [vdso]"));
}

TEST(DroppableFileMapping, MalformedLinesAreRejected) {
  EXPECT_FALSE(droppable_file_mapping(""));
  EXPECT_FALSE(droppable_file_mapping("garbage"));
  EXPECT_FALSE(droppable_file_mapping("zz-10 r-xp 0 0:0 1 /x"));
  EXPECT_FALSE(droppable_file_mapping("2000-1000 r-xp 0 0:0 1 /x"));  // end before start
  EXPECT_FALSE(droppable_file_mapping("1000-2000 r-x 0 0:0 1 /x"));   // short permissions
  EXPECT_FALSE(droppable_file_mapping("1000-2000 r-xp 0 0:0"));       // fields missing
}

std::optional<long> rss_file_kb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "RssFile:" && status >> value) return value;
    status.ignore(1 << 10, '\n');
  }
  return std::nullopt;
}

int work(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += std::to_string(i);
  return static_cast<int>(s.size());
}

TEST(ReleaseStartupMemory, FreesCodePagesAndTheCodeStillRuns) {
  // A relocated read-only table: if RELRO were dropped, the vtable pointers
  // would revert to unrelocated file contents and this call would crash.
  std::ostringstream stream;
  const int before_result = work(1000);
  const auto before = rss_file_kb();
  ASSERT_TRUE(before) << "no RssFile in /proc/self/status";
  const TrimReport r = release_startup_memory();
  const auto after = rss_file_kb();
  ASSERT_TRUE(after);
  EXPECT_GT(r.mappings, 1U);  // at least the test binary and libc
  EXPECT_GT(r.bytes, 0U);
  EXPECT_EQ(r.failures, 0U);
  EXPECT_LT(*after, *before);
  EXPECT_EQ(work(1000), before_result);  // code faulted back in
  stream << "still " << 42;              // virtual calls through relocated data
  EXPECT_EQ(stream.str(), "still 42");
}

}  // namespace
}  // namespace coolhand::daemon
