// The stress runs: throttling levels, temperatures and netlink dumps
// hammered for a number of seconds, side by side (tests/kmod/guest/init.sh).
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "checks.hpp"
#include "coolhand_nl.hpp"
#include "suites.hpp"

namespace coolhand::vmtest {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

// Writes throttling levels (valid and invalid) through both interfaces.
int stress_throttle(int seconds) {
  std::mt19937 rng(1);
  const std::string cd0 = thermal_dir("cooling_device", "emul_throttle0");
  long ok = 0, bad = 0;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    const int dev = rng() % 2;
    const int level = rng() % 13;  // 11 and 12 are out of range
    const int err = (rng() % 4 == 0 && !cd0.empty() && dev == 0)
                        ? write_file(cd0 + "/cur_state", std::to_string(level))
                        : write_file(throttle(dev) + "/throttling", std::to_string(level));
    if ((level <= kMaxLevel) == (err == 0)) {
      ++ok;
    } else {
      ++bad;
    }
    read_int(throttle(dev) + "/throttling");
  }
  std::printf("# stress-throttle: %ld writes as expected, %ld unexpected\n", ok, bad);
  return bad == 0 && ok > 0 ? 0 : 1;
}

// Writes temperatures across both trips and changes the granularity.
int stress_temp(int seconds) {
  std::mt19937 rng(2);
  long ok = 0, bad = 0;
  const std::string zones[2] = {zone_dir("emul_zone0"), zone_dir("emul_zone1")};
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    const int s = rng() % 2;
    const int temp = 30000 + static_cast<int>(rng() % 70000);  // 30..100 °C
    (inject(s, temp) == 0 ? ok : bad)++;
    switch (rng() % 8) {
      case 0:
        (write_file(zones[s] + "/event_step",
                    std::to_string(1 + rng() % 3000) + " " + std::to_string(1 + rng() % 3000)) == 0
             ? ok
             : bad)++;
        break;
      case 1:
        (write_file(zones[s] + "/event_window", "40000 70000") == 0 ? ok : bad)++;
        break;
      case 2:
        read_int(zones[s] + "/temp1_input");
        write_file(zones[s] + "/temp1_alarm", "0");
        break;
      default:
        break;
    }
  }
  std::printf("# stress-temp: %ld writes as expected, %ld unexpected\n", ok, bad);
  return bad == 0 && ok > 0 ? 0 : 1;
}

// Dumps and listens while the others write.
int stress_netlink(int seconds) {
  std::string why;
  auto nl = CoolhandNl::open(&why);
  if (!nl || !nl->subscribe(&why)) {
    std::printf("# stress-netlink: %s\n", why.c_str());
    return 1;
  }
  long dumps = 0, events = 0, errors = 0;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    std::vector<NlMsg> rep;
    if (nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep) != 0 || rep.size() != 2) ++errors;
    rep.clear();
    if (nl->request(COOLHAND_CMD_DEV_GET, true, nullptr, &rep) != 0 || rep.size() != 2) ++errors;
    ++dumps;
    events += nl->drain_events(1);
  }
  std::printf("# stress-netlink: %ld dump pairs, %ld events, %ld errors\n", dumps, events, errors);
  return errors == 0 && dumps > 0 ? 0 : 1;
}

}  // namespace coolhand::vmtest
