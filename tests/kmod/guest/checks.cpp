// The suites' shared helpers (declared in checks.hpp).
#include "checks.hpp"

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/stat.h>
#include <time.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace coolhand::vmtest {

int file_mode(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 07777);
}

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

int inject(int sensor_idx, int temp_mc) {
  return write_file(sensor(sensor_idx) + "/temp", std::to_string(temp_mc));
}

std::string shown(const std::string& v) {
  std::string out;
  for (char c : v) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return "'" + out + "'";
}

std::string errname(int err) {
  return err ? std::strerror(err) : "success";
}

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void expect_einval(Tap& t, const std::string& path, const std::string& value,
                   const std::string& what) {
  const auto before = read_file(path);
  const int err = write_file(path, value);
  t.check(err == EINVAL, what + ": " + shown(value) + " -> EINVAL", "got " + errname(err));
  t.eq(read_file(path), before, what + ": " + shown(value) + " changes nothing");
}

std::vector<NlMsg> collect(CoolhandNl& nl, EventLog& log, int ms) {
  std::vector<NlMsg> out;
  bool overrun = false;
  while (auto e = nl.next_event(ms, &overrun)) {
    log.all.push_back(*e);
    out.push_back(std::move(*e));
  }
  return out;
}

std::vector<NlMsg> only(const std::vector<NlMsg>& evs, uint8_t cmd, int zone) {
  std::vector<NlMsg> out;
  for (const auto& e : evs) {
    if (e.cmd == cmd && (zone < 0 || e.get(COOLHAND_A_ZONE_ID) == zone)) out.push_back(e);
  }
  return out;
}

int set_steps(CoolhandNl& nl, int zone, uint32_t below, uint32_t above) {
  return nl.request(
      COOLHAND_CMD_WINDOW_SET, false,
      [&](nl_msg* m) {
        nla_put_u32(m, COOLHAND_A_ZONE_ID, zone);
        nla_put_u32(m, COOLHAND_A_STEP_BELOW, below);
        nla_put_u32(m, COOLHAND_A_STEP_ABOVE, above);
      },
      nullptr);
}

int set_window(CoolhandNl& nl, int zone, int32_t low, int32_t high) {
  return nl.request(
      COOLHAND_CMD_WINDOW_SET, false,
      [&](nl_msg* m) {
        nla_put_u32(m, COOLHAND_A_ZONE_ID, zone);
        nla_put_s32(m, COOLHAND_A_WINDOW_LOW, low);
        nla_put_s32(m, COOLHAND_A_WINDOW_HIGH, high);
      },
      nullptr);
}

int set_level(CoolhandNl& nl, int dev, uint32_t level) {
  return nl.request(
      COOLHAND_CMD_LEVEL_SET, false,
      [&](nl_msg* m) {
        nla_put_u32(m, COOLHAND_A_DEV_ID, dev);
        nla_put_u32(m, COOLHAND_A_LEVEL, level);
      },
      nullptr);
}

}  // namespace coolhand::vmtest
