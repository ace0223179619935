// Unloading coolhand_emul.ko under load: the core must remove its zones and
// throttle controls while user space holds their sysfs files open, keeps a
// netlink socket subscribed and writes to the emulated EC. Held files must
// then fail cleanly (kernfs answers ENODEV once a file is removed), netlink
// must stop naming the old ids, and the kernel must not oops (init.sh checks
// dmesg afterwards).
#include "unload.hpp"

#include <fcntl.h>
#include <netlink/attr.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "coolhand.h"
#include "coolhand_nl.hpp"

namespace coolhand::vmtest {
namespace {

using Clock = std::chrono::steady_clock;

bool emul_present() {
  struct stat st {};
  return ::lstat(kEmul.c_str(), &st) == 0;
}

// Waits until coolhand_emul.ko removed its root device.
bool wait_for_unload(int seconds) {
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (emul_present()) {
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

struct HeldFile {
  std::string path;
  int fd = -1;
  bool writable = false;
};

std::string errname(int err) {
  return err ? std::strerror(err) : "success";
}

}  // namespace

void suite_hold_across_unload(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const std::string tz0 = thermal_dir("thermal_zone", "emul_zone0");
  const std::string cd0 = thermal_dir("cooling_device", "emul_throttle0");
  if (!t.check(!z0.empty() && !tz0.empty() && !cd0.empty(),
               "emul_zone0, its thermal zone and emul_throttle0's cooling device exist"))
    return;
  const int zid = zone_id(z0);

  std::vector<HeldFile> held = {
      {z0 + "/temp1_input", -1, false}, {z0 + "/event_step", -1, true},
      {sensor(0) + "/temp", -1, true},  {throttle(0) + "/throttling", -1, true},
      {tz0 + "/temp", -1, false},       {cd0 + "/cur_state", -1, true},
  };
  for (auto& h : held) {
    h.fd = ::open(h.path.c_str(), (h.writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    t.check(h.fd >= 0, "opened " + h.path, errname(errno));
  }
  std::string why;
  auto nl = CoolhandNl::open(&why);
  if (!t.check(nl && nl->subscribe(&why), "netlink socket subscribed", why)) return;
  std::vector<NlMsg> rep;
  t.eq(nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep), 0, "zone dump before unload");
  t.check(!rep.empty(), "zones listed before unload");

  std::printf("# holding\n");
  std::fflush(stdout);
  if (!t.check(wait_for_unload(30), "coolhand_emul.ko unloaded while its files were held")) return;

  for (auto& h : held) {
    if (h.fd < 0) continue;
    char buf[64];
    const ssize_t n = ::pread(h.fd, buf, sizeof(buf), 0);
    t.check(n < 0 && errno == ENODEV, "read of held " + h.path + " fails with ENODEV",
            n < 0 ? errname(errno) : "read " + std::to_string(n) + " bytes");
    if (h.writable) {
      const ssize_t w = ::pwrite(h.fd, "1", 1, 0);
      t.check(w < 0 && errno == ENODEV, "write to held " + h.path + " fails with ENODEV",
              w < 0 ? errname(errno) : "wrote " + std::to_string(w) + " bytes");
    }
    t.eq(::close(h.fd), 0, "close of held " + h.path);
  }

  rep.clear();
  t.eq(nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep), 0, "zone dump after unload");
  t.eq(rep.size(), size_t{0}, "no zones left after unload");
  rep.clear();
  t.eq(nl->request(COOLHAND_CMD_DEV_GET, true, nullptr, &rep), 0, "device dump after unload");
  t.eq(rep.size(), size_t{0}, "no devices left after unload");
  rep.clear();
  t.eq(nl->request(
           COOLHAND_CMD_TEMP_GET, false,
           [zid](nl_msg* m) { nla_put_u32(m, COOLHAND_A_ZONE_ID, static_cast<uint32_t>(zid)); },
           &rep),
       -ENOENT, "TEMP_GET of the removed zone: ENOENT");
  rep.clear();
  t.eq(nl->request(
           COOLHAND_CMD_LEVEL_SET, false,
           [](nl_msg* m) {
             nla_put_u32(m, COOLHAND_A_DEV_ID, 0);
             nla_put_u32(m, COOLHAND_A_LEVEL, 1);
           },
           &rep),
       -ENOENT, "LEVEL_SET of the removed device: ENOENT");
  nl->drain_events(10);
}

int hammer_until_unload(int seconds) {
  std::mt19937 rng(static_cast<unsigned>(::getpid()));
  std::string why;
  auto nl = CoolhandNl::open(&why);
  if (!nl) {
    std::printf("# hammer-until-unload: %s\n", why.c_str());
    return 1;
  }
  const std::string zones[2] = {zone_dir("emul_zone0"), zone_dir("emul_zone1")};
  long ok = 0, vanished = 0, bad = 0;
  // 0 or the errno of files and ids that went away with the platform.
  const auto count = [&](int err) {
    (err == 0 ? ok : (err == ENOENT || err == ENODEV) ? vanished : bad)++;
  };
  // Keep going for a moment after the platform left, so requests that
  // were under way during the unload finish and later ones are refused.
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  std::optional<Clock::time_point> gone_at;
  while (Clock::now() < end &&
         (!gone_at || Clock::now() - *gone_at < std::chrono::milliseconds(200))) {
    if (!gone_at && !emul_present()) gone_at = Clock::now();
    const int i = static_cast<int>(rng() % 2);
    count(write_file(sensor(i) + "/temp", std::to_string(30000 + rng() % 70000)));
    count(write_file(throttle(i) + "/throttling", std::to_string(rng() % 11)));
    count(write_file(zones[i] + "/event_step", "500 500"));
    count(read_file(zones[i] + "/temp1_input") ? 0 : errno);
    std::vector<NlMsg> rep;
    count(-nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep));
    if (rep.size() > 2) ++bad;
  }
  std::printf("# hammer-until-unload: %ld ok, %ld refused as gone, %ld unexpected; platform %s\n",
              ok, vanished, bad, gone_at ? "unloaded" : "still loaded at the deadline");
  // Both sides of the unload seen: accepted before, refused after.
  return gone_at && ok > 0 && vanished > 0 && bad == 0 ? 0 : 1;
}

}  // namespace coolhand::vmtest
