// Start-up memory release: free heap pages that glibc's free() keeps (they
// lie below a live allocation) are given back to the kernel, so the
// process's resident anonymous memory falls by about their size.
#include "memory.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

// AddressSanitizer replaces glibc's allocator, so malloc_trim has none of
// this test's heap to give back there.
#if defined(__SANITIZE_ADDRESS__)
#define COOLHAND_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COOLHAND_TEST_ASAN 1
#endif
#endif

namespace coolhand::daemon::memory_test {
namespace {

#ifdef COOLHAND_TEST_ASAN
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

// RssAnon of this process, kB (/proc/PID/status, proc(5)).
std::optional<long> rss_anon_kb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "RssAnon:" && status >> value) return value;
    status.ignore(1 << 10, '\n');
  }
  return std::nullopt;
}

TEST(ReleaseStartupMemory, GivesBackFreeHeapBelowALiveAllocation) {
  if (kAsan) GTEST_SKIP() << "AddressSanitizer's allocator, not glibc's: nothing for malloc_trim";
  // 2048 chunks of 32 KiB: below glibc's mmap threshold (128 KiB), so they
  // come from the heap; the last one stays allocated and pins the top of the
  // heap, so free() alone cannot shrink it (as after the daemon's start-up).
  constexpr std::size_t kChunk = 32 * 1024;
  constexpr std::size_t kCount = 2048;
  constexpr long kTotalKb = static_cast<long>(kChunk * kCount / 1024);
  std::vector<char*> chunks;
  chunks.reserve(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    auto* p = static_cast<char*>(std::malloc(kChunk));  // NOLINT(*-no-malloc,*-owning-memory)
    ASSERT_NE(p, nullptr);
    std::memset(p, static_cast<int>(i & 0x7f) + 1, kChunk);  // resident and dirty
    chunks.push_back(p);
  }
  volatile char sink = 0;
  for (char* p : chunks) sink = static_cast<char>(sink + p[kChunk - 1]);
  for (std::size_t i = 0; i + 1 < kCount; ++i)
    std::free(chunks[i]);  // NOLINT(*-no-malloc,*-owning-memory)

  const auto before = rss_anon_kb();
  ASSERT_TRUE(before) << "no RssAnon in /proc/self/status";
  const TrimReport r = release_startup_memory();
  const auto after = rss_anon_kb();
  ASSERT_TRUE(after);
  EXPECT_TRUE(r.heap_released);
  // Nearly all of the freed 64 MiB leaves the resident set (chunk headers
  // and page rounding keep a few pages).
  EXPECT_GT(*before - *after, kTotalKb * 9 / 10)
      << "before " << *before << " kB, after " << *after << " kB";
  std::free(chunks.back());  // NOLINT(*-no-malloc,*-owning-memory)
}

TEST(ReleaseStartupMemory, TheHeapStillWorksAfterwards) {
  (void)release_startup_memory();
  std::string s;
  for (int i = 0; i < 10000; ++i) s += std::to_string(i);
  EXPECT_EQ(s.size(), 38890U);
}

}  // namespace
}  // namespace coolhand::daemon::memory_test
