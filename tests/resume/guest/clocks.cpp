// guest_clocks: prints CLOCK_MONOTONIC and CLOCK_BOOTTIME in ms on one line,
// "monotonic_ms M boottime_ms B", for the resume guest (guest/init.sh). The
// guest reads it before and after a real suspend: CLOCK_MONOTONIC stops
// while the machine sleeps and CLOCK_BOOTTIME does not (clock_gettime(2)),
// so their difference must grow by about the time slept. That growth is the
// test's positive control: without it, the daemon's resume trigger was
// never exercised. Linked statically; it runs in a busybox initramfs.
#include <cstdio>
#include <ctime>

namespace {
long long clock_ms(clockid_t id) {
  timespec ts{};
  if (clock_gettime(id, &ts) != 0) {
    std::perror("guest_clocks: clock_gettime");
    return -1;
  }
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}
}  // namespace

int main() {
  const long long monotonic = clock_ms(CLOCK_MONOTONIC);
  const long long boottime = clock_ms(CLOCK_BOOTTIME);
  if (monotonic < 0 || boottime < 0) return 1;
  std::printf("monotonic_ms %lld boottime_ms %lld\n", monotonic, boottime);
  return 0;
}
