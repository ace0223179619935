// Guest-side tests of coolhand.ko, run by tests/kmod/guest/init.sh inside a
// qemu guest booted with Debian's kernel. Never run on the host: most suites
// expect the module loaded with the emulated platform, and all of them
// write to its sysfs files.
//
//   coolhand_vmtest abi|events|thermal|perm|nocrit|passive (passive.cpp)
//   coolhand_vmtest stress-throttle|stress-temp|stress-netlink SECONDS
//   coolhand_vmtest hold-across-unload|hammer-until-unload SECONDS
//                   (unload.cpp)
//
// The suites except nocrit expect a fresh
//   insmod coolhand.ko critical_report_only=1
//   insmod coolhand_emul.ko emul_zones=2 emul_devices=2 emul_kind=cpu,skin
// (all other parameters at their defaults: passive trip 60000 m°C with
// 2000 m°C hysteresis, critical 95000 m°C, 10 levels, 35000 m°C at start,
// 1000 m°C event steps) and run in the order abi, events, thermal, perm.
// nocrit expects coolhand_emul.ko emul_zones=1 emul_devices=1 emul_crit_mc=0.
// Output is TAP-like ("ok N - ...", "not ok N - ..."); the exit status is
// the number of failed checks (capped), 0 when all passed.
#include <dirent.h>
#include <linux/capability.h>
#include <linux/thermal.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "coolhand.h"
#include "coolhand_nl.hpp"
#include "passive.hpp"
#include "testlib.hpp"
#include "unload.hpp"

namespace coolhand::vmtest {
namespace {

constexpr int kStartMc = 35000;
constexpr int kPassiveMc = 60000;
constexpr int kPassiveHystMc = 2000;
constexpr int kCritMc = 95000;
constexpr int kMaxLevel = 10;

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

// A value as it appears in a check description: newlines spelled out.
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

// Checks that `write` is refused with EINVAL and leaves `read` unchanged.
void expect_einval(Tap& t, const std::string& path, const std::string& value,
                   const std::string& what) {
  const auto before = read_file(path);
  const int err = write_file(path, value);
  t.check(err == EINVAL, what + ": " + shown(value) + " -> EINVAL", "got " + errname(err));
  t.eq(read_file(path), before, what + ": " + shown(value) + " changes nothing");
}

// ---------------------------------------------------------------- abi

void check_zone_files(Tap& t, const std::string& z) {
  const std::pair<const char*, int> modes[] = {
      {"name", 0444},          {"kind", 0444},
      {"temp1_input", 0444},   {"temp1_alarm", 0644},
      {"temp1_crit", 0444},    {"temp1_crit_alarm", 0644},
      {"temp1_passive", 0444}, {"temp1_passive_alarm", 0644},
      {"event_mode", 0444},    {"event_step", 0644},
      {"event_window", 0644},
  };
  for (const auto& [file, mode] : modes) {
    t.eq(file_mode(z + "/" + file), mode, z + "/" + file + " mode");
  }
}

void suite_abi(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const std::string z1 = zone_dir("emul_zone1");
  t.eq(list_dir(kClass, "zone").size(), size_t{2}, "two zones in /sys/class/coolhand");
  if (!t.check(!z0.empty() && !z1.empty(), "zones emul_zone0 and emul_zone1 exist")) return;

  check_zone_files(t, z0);
  check_zone_files(t, z1);

  t.eq(read_file(z0 + "/kind"), "cpu", "zone0 kind");
  t.eq(read_file(z1 + "/kind"), "skin", "zone1 kind");
  t.eq(read_int(z0 + "/temp1_input"), kStartMc, "zone0 temp1_input is the start temperature");
  t.eq(read_int(z0 + "/temp1_crit"), kCritMc, "zone0 temp1_crit");
  t.eq(read_int(z0 + "/temp1_passive"), kPassiveMc, "zone0 temp1_passive");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "zone0 temp1_alarm starts clear");
  t.eq(read_int(z0 + "/temp1_crit_alarm"), 0, "zone0 temp1_crit_alarm starts clear");
  t.eq(read_int(z0 + "/temp1_passive_alarm"), 0, "zone0 temp1_passive_alarm starts clear");
  t.eq(read_file(z0 + "/event_mode"), "step", "default event mode");
  t.eq(read_file(z0 + "/event_step"), "1000 1000", "default event steps");
  t.eq(read_file(z0 + "/event_window"), "34000 36000", "default window around start temp");

  // Links to the associated devices and to the mirrored thermal zone.
  for (int d = 0; d < 2; ++d) {
    const std::string link = z0 + "/throttle" + std::to_string(d);
    t.check(is_symlink(link), "zone0 has link " + link);
    t.eq(real_path(link), real_path(throttle(d)), "zone0 link resolves to the device node");
  }
  t.eq(read_file(z0 + "/thermal_zone/type"), "emul_zone0", "zone0 thermal_zone link");

  // Throttling files on the component's own device node.
  for (int d = 0; d < 2; ++d) {
    const std::string dev = throttle(d);
    t.eq(file_mode(dev + "/throttling"), 0644, dev + "/throttling mode");
    t.eq(file_mode(dev + "/throttling_max"), 0444, dev + "/throttling_max mode");
    t.eq(read_int(dev + "/throttling"), 0, dev + "/throttling starts at 0");
    t.eq(read_int(dev + "/throttling_max"), kMaxLevel, dev + "/throttling_max");
  }

  const std::string thr = throttle(0) + "/throttling";
  for (const char* v : {"0", "1", "5", "10", "7\n"}) {
    const int err = write_file(thr, v);
    t.eq(err, 0, "throttling accepts in-range " + shown(v));
    t.eq(read_int(thr), std::atoi(v), "throttling reads back " + shown(v));
  }
  for (const char* v : {"11", "4294967295", "4294967296", "-1", "abc", "\n", "5abc", " 5", "1.5",
                        "0x3", "99999999999999999999"}) {
    expect_einval(t, thr, v, "throttling");
  }
  const int err = write_file(throttle(0) + "/throttling_max", "3");
  t.eq(err, EACCES, "throttling_max is read-only");
  t.eq(read_int(throttle(0) + "/throttling_max"), kMaxLevel, "throttling_max unchanged");
  t.eq(write_file(thr, "0"), 0, "throttling back to 0");

  // temp1_alarm: set by a reported change, cleared by reading temp1_input or writing 0.
  t.eq(inject(0, 40000), 0, "inject 40000 into sensor0");
  t.eq(read_int(z0 + "/temp1_alarm"), 1, "temp1_alarm set by a reported change");
  t.eq(read_int(z0 + "/temp1_input"), 40000, "temp1_input follows the sensor");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "reading temp1_input clears temp1_alarm");
  t.eq(inject(0, 45000), 0, "inject 45000");
  t.eq(read_int(z0 + "/temp1_alarm"), 1, "temp1_alarm set again");
  t.eq(write_file(z0 + "/temp1_alarm", "0"), 0, "temp1_alarm accepts 0");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "writing 0 clears temp1_alarm");
  t.eq(inject(0, 45500), 0, "inject 45500 (inside the 1000 m°C step)");
  t.eq(read_int(z0 + "/temp1_alarm"), 0, "a change inside the window does not set temp1_alarm");
  t.eq(inject(0, 47000), 0, "inject 47000");
  for (const char* v : {"1", "abc", "-1", "0 0"})
    expect_einval(t, z0 + "/temp1_alarm", v, "temp1_alarm");
  for (const char* v : {"2", "x"}) {
    expect_einval(t, z0 + "/temp1_passive_alarm", v, "temp1_passive_alarm");
    expect_einval(t, z0 + "/temp1_crit_alarm", v, "temp1_crit_alarm");
  }
  t.eq(write_file(z0 + "/temp1_passive_alarm", "0"), 0, "temp1_passive_alarm accepts 0");
  t.eq(write_file(z0 + "/temp1_crit_alarm", "0\n"), 0, "temp1_crit_alarm accepts 0");
  t.eq(write_file(z0 + "/temp1_crit", "1000"), EACCES, "temp1_crit is read-only");
  t.eq(write_file(z0 + "/temp1_input", "1000"), EACCES, "temp1_input is read-only");

  // Granularity files.
  t.eq(write_file(z0 + "/event_step", "2000 3000\n"), 0, "event_step accepts '2000 3000'");
  t.eq(read_file(z0 + "/event_step"), "2000 3000", "event_step reads back");
  t.eq(read_file(z0 + "/event_window"), "45000 50000", "step window centred on reported temp");
  for (const char* v :
       {"0 5", "5", "1 2 3", "abc def", "100001 5", "5 100001", "-5 5", "5 5x", " ", "\n"}) {
    expect_einval(t, z0 + "/event_step", v, "event_step");
  }
  t.eq(write_file(z0 + "/event_window", "30000 50000"), 0, "event_window accepts '30000 50000'");
  t.eq(read_file(z0 + "/event_mode"), "window", "writing event_window selects window mode");
  t.eq(read_file(z0 + "/event_window"), "30000 50000", "event_window reads back");
  for (const char* v : {"50000 30000", "10 10", "-300000 0", "0 600000", "x", "1 2 3"}) {
    expect_einval(t, z0 + "/event_window", v, "event_window");
  }
  t.eq(read_file(z0 + "/event_mode"), "window", "refused writes keep the mode");
  t.eq(write_file(z0 + "/event_step", "1000 1000"), 0, "back to 1000 m°C steps");
  t.eq(read_file(z0 + "/event_mode"), "step", "writing event_step selects step mode");

  // The emulated controller's own input.
  for (const char* v : {"abc", "600000", "-300000", "1e3"}) {
    expect_einval(t, sensor(0) + "/temp", v, "sensor temp");
  }
  t.eq(file_mode(sensor(0) + "/temp"), 0644, "sensor temp mode");
  t.eq(file_mode(sensor(0) + "/window"), 0444, "sensor window mode");
}

// ---------------------------------------------------------------- events

struct EventLog {
  std::vector<NlMsg> all;  // every event received, in order
};

// Collects the events that arrive within `ms` (sysfs writes notify
// synchronously, so by the time a write returns its events are queued).
std::vector<NlMsg> collect(CoolhandNl& nl, EventLog& log, int ms = 100) {
  std::vector<NlMsg> out;
  bool overrun = false;
  while (auto e = nl.next_event(ms, &overrun)) {
    log.all.push_back(*e);
    out.push_back(std::move(*e));
  }
  return out;
}

std::vector<NlMsg> only(const std::vector<NlMsg>& evs, uint8_t cmd, int zone = -1) {
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

// Injects in-window temperatures, then one sentinel outside: the only
// temperature event must be the sentinel, carrying `prev` as previous temp.
void expect_only_sentinel(Tap& t, CoolhandNl& nl, EventLog& log, int zid,
                          const std::vector<int>& inside, int sentinel, int prev,
                          const std::string& what) {
  bool ok = true;
  for (int v : inside) ok = inject(0, v) == 0 && ok;
  ok = inject(0, sentinel) == 0 && ok;
  t.check(ok, what + ": injections accepted");
  const auto temps = only(collect(nl, log), COOLHAND_CMD_EVENT_TEMP, zid);
  if (!t.eq(temps.size(), size_t{1}, what + ": exactly one temperature event")) return;
  t.eq(temps[0].get(COOLHAND_A_TEMP), sentinel, what + ": event temp is the sentinel");
  t.eq(temps[0].get(COOLHAND_A_PREV_TEMP), prev, what + ": event prev temp");
}

void suite_events(Tap& t) {
  std::string why;
  auto nlo = CoolhandNl::open(&why);
  if (!t.check(nlo.has_value(), "coolhand family resolves", why)) return;
  CoolhandNl& nl = *nlo;
  if (!t.check(nl.subscribe(&why), "subscribe to the events group", why)) return;

  const std::string z0 = zone_dir("emul_zone0");
  const int zid = zone_id(z0);
  EventLog log;

  // Known state: steps 1000/1000, reported temperature 45000.
  t.eq(set_steps(nl, zid, 1000, 1000), 0, "WINDOW_SET steps 1000/1000");
  t.eq(inject(0, 20000), 0, "inject 20000");
  t.eq(inject(0, 45000), 0, "inject 45000");
  collect(nl, log);
  const auto irq_before = read_int(sensor(0) + "/interrupts");

  expect_only_sentinel(t, nl, log, zid, {45500, 44200, 45999, 44001}, 46000, 45000,
                       "steps 1000: window (44000, 46000)");
  t.eq(read_int(sensor(0) + "/interrupts"), irq_before ? *irq_before + 1 : -1,
       "the EC raised one interrupt for five writes (only the meaningful one)");
  t.eq(read_file(sensor(0) + "/window"), "45000 47000", "EC window follows the reported temp");

  // Coarser granularity through netlink.
  t.eq(set_steps(nl, zid, 5000, 5000), 0, "WINDOW_SET steps 5000/5000");
  t.eq(read_file(z0 + "/event_step"), "5000 5000", "netlink steps visible in sysfs");
  expect_only_sentinel(t, nl, log, zid, {49000, 43000, 50999, 41001}, 51000, 46000,
                       "steps 5000: window (41000, 51000)");

  // Finer granularity through sysfs.
  t.eq(write_file(z0 + "/event_step", "200 200"), 0, "sysfs steps 200/200");
  expect_only_sentinel(t, nl, log, zid, {51100, 50900, 51199}, 51300, 51000,
                       "steps 200: window (50800, 51200)");

  // Asymmetric steps: small rises matter, falls only when large.
  t.eq(set_steps(nl, zid, 4000, 500), 0, "WINDOW_SET steps 4000 below / 500 above");
  expect_only_sentinel(t, nl, log, zid, {51700, 48000, 47301}, 47300, 51300,
                       "asymmetric: window (47300, 51800)");

  // Fixed window: every sample outside is reported until it moves.
  t.eq(set_window(nl, zid, 40000, 50000), 0, "WINDOW_SET window 40000..50000");
  t.eq(read_file(z0 + "/event_mode"), "window", "netlink window visible in sysfs");
  expect_only_sentinel(t, nl, log, zid, {45000, 49999, 40001}, 50000, 47300,
                       "window (40000, 50000)");
  t.eq(inject(0, 50500), 0, "inject 50500");
  t.eq(inject(0, 39000), 0, "inject 39000");
  {
    const auto temps = only(collect(nl, log), COOLHAND_CMD_EVENT_TEMP, zid);
    t.eq(temps.size(), size_t{2}, "window mode reports every sample outside the window");
  }

  // Refused requests change nothing.
  t.eq(set_window(nl, zid, 50000, 40000), -EINVAL, "WINDOW_SET low > high -> EINVAL");
  t.eq(set_window(nl, zid, 40000, 40000), -EINVAL, "WINDOW_SET low == high -> EINVAL");
  // Out-of-range values are stopped by the nla_policy itself: ERANGE.
  t.eq(set_window(nl, zid, -300000, 0), -ERANGE, "WINDOW_SET below absolute zero -> ERANGE");
  t.eq(set_window(nl, zid, 0, 600000), -ERANGE, "WINDOW_SET above 500 C -> ERANGE");
  t.eq(set_steps(nl, zid, 0, 5), -ERANGE, "WINDOW_SET step 0 -> ERANGE");
  t.eq(set_steps(nl, zid, 100001, 5), -ERANGE, "WINDOW_SET step too large -> ERANGE");
  t.eq(set_steps(nl, 9999, 5, 5), -ENOENT, "WINDOW_SET unknown zone -> ENOENT");
  t.eq(nl.request(
           COOLHAND_CMD_WINDOW_SET, false,
           [&](nl_msg* m) {
             nla_put_u32(m, COOLHAND_A_ZONE_ID, zid);
             nla_put_u32(m, COOLHAND_A_STEP_BELOW, 5);
             nla_put_u32(m, COOLHAND_A_STEP_ABOVE, 5);
             nla_put_s32(m, COOLHAND_A_WINDOW_LOW, 1);
             nla_put_s32(m, COOLHAND_A_WINDOW_HIGH, 2);
           },
           nullptr),
       -EINVAL, "WINDOW_SET with both steps and window -> EINVAL");
  t.eq(nl.request(
           COOLHAND_CMD_WINDOW_SET, false,
           [&](nl_msg* m) {
             nla_put_u32(m, COOLHAND_A_ZONE_ID, zid);
             nla_put_u32(m, COOLHAND_A_STEP_BELOW, 5);
           },
           nullptr),
       -EINVAL, "WINDOW_SET with half a pair -> EINVAL");
  t.eq(nl.request(
           COOLHAND_CMD_WINDOW_SET, false,
           [&](nl_msg* m) {
             nla_put_u32(m, COOLHAND_A_ZONE_ID, zid);
             nla_put_s32(m, COOLHAND_A_TEMP, 5);
           },
           nullptr),
       -EINVAL, "WINDOW_SET with an output-only attribute -> EINVAL (strict policy)");
  t.eq(read_file(z0 + "/event_window"), "40000 50000", "refused WINDOW_SETs changed nothing");
  t.eq(nl.request(COOLHAND_CMD_EVENT_TEMP, false, nullptr, nullptr), -EOPNOTSUPP,
       "event commands are not accepted as requests");

  // Trip crossings: always reported, whatever the granularity.
  t.eq(set_steps(nl, zid, 50000, 50000), 0, "steps 50000: temperature events off nearby");
  t.eq(inject(0, 30000), 0, "inject 30000");
  collect(nl, log);
  t.eq(write_file(z0 + "/temp1_passive_alarm", "0"), 0, "clear passive alarm");
  t.eq(inject(0, 61000), 0, "inject 61000 (passive trip 60000)");
  {
    const auto evs = collect(nl, log);
    const auto trips = only(evs, COOLHAND_CMD_EVENT_TRIP, zid);
    t.eq(only(evs, COOLHAND_CMD_EVENT_TEMP, zid).size(), size_t{0},
         "no temperature event inside the 50000 m°C window");
    if (t.eq(trips.size(), size_t{1}, "one trip event for the passive crossing")) {
      t.eq(trips[0].get(COOLHAND_A_TRIP_TYPE), COOLHAND_TRIP_PASSIVE, "trip type passive");
      t.eq(trips[0].get(COOLHAND_A_TRIP_DIRECTION), COOLHAND_TRIP_UP, "direction up");
      t.eq(trips[0].get(COOLHAND_A_TRIP_TEMP), kPassiveMc, "trip temp");
      t.eq(trips[0].get(COOLHAND_A_TEMP), 61000, "temperature at the crossing");
    }
  }
  t.eq(read_int(z0 + "/temp1_passive_alarm"), 1, "temp1_passive_alarm set by the crossing");
  t.eq(inject(0, 58500), 0, "inject 58500 (inside the 2000 m°C hysteresis)");
  t.eq(only(collect(nl, log), COOLHAND_CMD_EVENT_TRIP, zid).size(), size_t{0},
       "no trip event inside the hysteresis");
  t.eq(inject(0, 57900), 0, "inject 57900 (below trip - hysteresis)");
  {
    const auto trips = only(collect(nl, log), COOLHAND_CMD_EVENT_TRIP, zid);
    if (t.eq(trips.size(), size_t{1}, "one trip event for leaving the passive trip")) {
      t.eq(trips[0].get(COOLHAND_A_TRIP_DIRECTION), COOLHAND_TRIP_DOWN, "direction down");
    }
  }
  t.eq(read_int(z0 + "/temp1_passive_alarm"), 1, "temp1_passive_alarm stays latched");
  t.eq(write_file(z0 + "/temp1_passive_alarm", "0"), 0, "clear passive alarm");
  t.eq(read_int(z0 + "/temp1_passive_alarm"), 0, "passive alarm cleared");

  t.eq(inject(0, 96000), 0, "inject 96000 (critical trip 95000, report-only)");
  {
    const auto trips = only(collect(nl, log, 300), COOLHAND_CMD_EVENT_TRIP, zid);
    bool crit_up = false, passive_up = false;
    for (const auto& e : trips) {
      crit_up |= e.get(COOLHAND_A_TRIP_TYPE) == COOLHAND_TRIP_CRITICAL &&
                 e.get(COOLHAND_A_TRIP_DIRECTION) == COOLHAND_TRIP_UP;
      passive_up |= e.get(COOLHAND_A_TRIP_TYPE) == COOLHAND_TRIP_PASSIVE &&
                    e.get(COOLHAND_A_TRIP_DIRECTION) == COOLHAND_TRIP_UP;
    }
    t.check(crit_up, "critical trip event, up");
    t.check(passive_up, "passive trip event, up, in the same jump");
  }
  t.eq(read_int(z0 + "/temp1_crit_alarm"), 1, "temp1_crit_alarm set");
  t.eq(inject(0, 30000), 0, "inject 30000");
  {
    const auto trips = only(collect(nl, log, 300), COOLHAND_CMD_EVENT_TRIP, zid);
    t.eq(trips.size(), size_t{2}, "both trips left: two down events");
  }
  t.eq(read_int(z0 + "/temp1_crit_alarm"), 1, "temp1_crit_alarm stays latched");
  t.eq(write_file(z0 + "/temp1_crit_alarm", "0"), 0, "clear crit alarm");
  t.eq(read_int(z0 + "/temp1_crit_alarm"), 0, "crit alarm cleared");

  // Throttle events from netlink and from sysfs. Start from level 0 with no
  // temperature change pending, so the zone's governor stays out of it.
  t.eq(set_level(nl, 0, 0), 0, "dev 0 at 0");
  t.eq(set_level(nl, 1, 0), 0, "dev 1 at 0");
  collect(nl, log);
  t.eq(set_level(nl, 0, 3), 0, "LEVEL_SET dev 0 level 3");
  t.eq(read_int(throttle(0) + "/throttling"), 3, "LEVEL_SET applied");
  t.eq(set_level(nl, 0, 11), -EINVAL, "LEVEL_SET level 11 -> EINVAL");
  t.eq(set_level(nl, 77, 1), -ENOENT, "LEVEL_SET unknown device -> ENOENT");
  t.eq(read_int(throttle(0) + "/throttling"), 3, "refused LEVEL_SET changed nothing");
  t.eq(write_file(throttle(1) + "/throttling", "6"), 0, "sysfs throttling 6 on dev 1");
  t.eq(write_file(throttle(1) + "/throttling", "6"), 0, "same level again");
  {
    const auto thr = only(collect(nl, log), COOLHAND_CMD_EVENT_THROTTLE);
    if (t.eq(thr.size(), size_t{2}, "two throttle events (a repeated level is not a change)")) {
      t.eq(thr[0].get(COOLHAND_A_DEV_ID), 0, "first event: dev 0");
      t.eq(thr[0].get(COOLHAND_A_LEVEL), 3, "first event: level 3");
      t.eq(thr[1].get(COOLHAND_A_DEV_ID), 1, "second event: dev 1");
      t.eq(thr[1].get(COOLHAND_A_LEVEL), 6, "second event: level 6");
    }
  }
  t.eq(set_level(nl, 0, 0), 0, "dev 0 back to 0");
  t.eq(set_level(nl, 1, 0), 0, "dev 1 back to 0");
  collect(nl, log);

  // Queries.
  std::vector<NlMsg> rep;
  t.eq(nl.request(
           COOLHAND_CMD_TEMP_GET, false,
           [&](nl_msg* m) { nla_put_u32(m, COOLHAND_A_ZONE_ID, zid); }, &rep),
       0, "TEMP_GET");
  if (t.eq(rep.size(), size_t{1}, "TEMP_GET: one reply")) {
    t.eq(rep[0].get(COOLHAND_A_TEMP), 30000, "TEMP_GET temperature");
    t.check(rep[0].has(COOLHAND_A_TIMESTAMP_NS), "TEMP_GET has a timestamp");
  }
  rep.clear();
  t.eq(nl.request(COOLHAND_CMD_TEMP_GET, false, nullptr, &rep), -EINVAL,
       "TEMP_GET without ZONE_ID -> EINVAL");
  rep.clear();
  t.eq(nl.request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep), 0, "ZONE_GET dump");
  if (t.eq(rep.size(), size_t{2}, "dump lists two zones")) {
    const NlMsg& z = rep[0];
    t.eq(z.str.count(COOLHAND_A_ZONE_NAME) ? z.str.at(COOLHAND_A_ZONE_NAME) : "", "emul_zone0",
         "zone 0 name");
    t.eq(z.get(COOLHAND_A_ZONE_KIND), COOLHAND_KIND_CPU, "zone 0 kind");
    t.eq(rep[1].get(COOLHAND_A_ZONE_KIND), COOLHAND_KIND_SKIN, "zone 1 kind");
    t.eq(z.get(COOLHAND_A_TEMP), 30000, "zone 0 temperature");
    t.eq(z.get(COOLHAND_A_STEP_BELOW), 50000, "zone 0 step below");
    t.eq(z.get(COOLHAND_A_EVENT_MODE), COOLHAND_EVENT_STEP, "zone 0 event mode");
    if (t.eq(z.trips.size(), size_t{2}, "zone 0 has two trips")) {
      t.eq(z.trips[0].type, uint32_t{COOLHAND_TRIP_PASSIVE}, "trip 0 passive");
      t.eq(z.trips[0].temp_mc, kPassiveMc, "trip 0 temp");
      t.eq(z.trips[0].hyst_mc, kPassiveHystMc, "trip 0 hyst");
      t.eq(z.trips[1].type, uint32_t{COOLHAND_TRIP_CRITICAL}, "trip 1 critical");
      t.eq(z.trips[1].temp_mc, kCritMc, "trip 1 temp");
    }
    t.eq(z.zone_devs.size(), size_t{2}, "zone 0 lists its two devices");
    const std::string tz = real_path(z0 + "/thermal_zone");
    t.eq(z.get(COOLHAND_A_THERMAL_ID), std::atoi(tz.substr(tz.rfind("thermal_zone") + 12).c_str()),
         "zone 0 THERMAL_ID matches its thermal_zone link");
    t.eq(z.str.count(COOLHAND_A_SYSFS_PATH) ? "/sys" + z.str.at(COOLHAND_A_SYSFS_PATH) : "",
         real_path(z0), "zone 0 SYSFS_PATH");
  }
  rep.clear();
  t.eq(nl.request(COOLHAND_CMD_DEV_GET, true, nullptr, &rep), 0, "DEV_GET dump");
  if (t.eq(rep.size(), size_t{2}, "dump lists two devices")) {
    t.eq(rep[0].str.count(COOLHAND_A_DEV_NAME) ? rep[0].str.at(COOLHAND_A_DEV_NAME) : "",
         "emul_throttle0", "device 0 name");
    t.eq(rep[0].get(COOLHAND_A_MAX_LEVEL), kMaxLevel, "device 0 max level");
    t.eq(rep[0].get(COOLHAND_A_LEVEL), 0, "device 0 level");
    t.eq(rep[0].get(COOLHAND_A_POWER_MW), 3000, "device 0 power at level 0");
    t.eq(rep[1].str.count(COOLHAND_A_SYSFS_PATH) ? "/sys" + rep[1].str.at(COOLHAND_A_SYSFS_PATH)
                                                 : "",
         real_path(throttle(1)), "device 1 SYSFS_PATH");
  }
  rep.clear();
  t.eq(nl.request(
           COOLHAND_CMD_DEV_GET, false, [&](nl_msg* m) { nla_put_u32(m, COOLHAND_A_DEV_ID, 1); },
           &rep),
       0, "DEV_GET dev 1");
  t.eq(rep.size() == 1 ? rep[0].get(COOLHAND_A_DEV_ID) : -1, 1, "DEV_GET returns dev 1");
  rep.clear();
  t.eq(nl.request(
           COOLHAND_CMD_ZONE_GET, false,
           [&](nl_msg* m) { nla_put_u32(m, COOLHAND_A_ZONE_ID, 4242); }, &rep),
       -ENOENT, "ZONE_GET unknown zone -> ENOENT");

  // Sequence numbers: consecutive over everything received (no drops), and
  // timestamps are CLOCK_MONOTONIC and never go back.
  collect(nl, log);
  bool consecutive = !log.all.empty();
  bool monotonic = true;
  for (size_t i = 1; i < log.all.size(); ++i) {
    consecutive &= log.all[i].get(COOLHAND_A_SEQ) == log.all[i - 1].get(COOLHAND_A_SEQ) + 1;
    monotonic &=
        log.all[i].get(COOLHAND_A_TIMESTAMP_NS) >= log.all[i - 1].get(COOLHAND_A_TIMESTAMP_NS);
  }
  t.check(consecutive,
          "event sequence numbers are consecutive (" + std::to_string(log.all.size()) + " events)");
  t.check(monotonic, "event timestamps never go back");
  const int64_t last_ts = log.all.empty() ? 0 : log.all.back().get(COOLHAND_A_TIMESTAMP_NS);
  t.check(last_ts > 0 && last_ts <= monotonic_ns() && monotonic_ns() - last_ts < 60'000'000'000,
          "event timestamps are CLOCK_MONOTONIC");

  t.eq(set_steps(nl, zid, 1000, 1000), 0, "restore steps 1000/1000");
}

// ---------------------------------------------------------------- thermal

// Polls until pred() or the timeout; returns pred().
bool wait_for(const std::function<bool()>& pred, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

void suite_thermal(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const std::string tz0 = thermal_dir("thermal_zone", "emul_zone0");
  const std::string tz1 = thermal_dir("thermal_zone", "emul_zone1");
  const std::string cd0 = thermal_dir("cooling_device", "emul_throttle0");
  const std::string cd1 = thermal_dir("cooling_device", "emul_throttle1");
  if (!t.check(!tz0.empty() && !tz1.empty(), "thermal zones emul_zone0/1 in /sys/class/thermal"))
    return;
  if (!t.check(!cd0.empty() && !cd1.empty(),
               "cooling devices emul_throttle0/1 in /sys/class/thermal"))
    return;
  t.check(!thermal_dir("cooling_device", "Processor").empty(),
          "the guest's own Processor cooling device is still there");

  t.eq(real_path(z0 + "/thermal_zone"), real_path(tz0), "coolhand zone links its thermal zone");
  t.eq(read_file(tz0 + "/trip_point_0_type"), "passive", "trip 0 type");
  t.eq(read_int(tz0 + "/trip_point_0_temp"), kPassiveMc, "trip 0 temp");
  t.eq(read_int(tz0 + "/trip_point_0_hyst"), kPassiveHystMc, "trip 0 hyst");
  t.eq(read_file(tz0 + "/trip_point_1_type"), "critical", "trip 1 type");
  t.eq(read_int(tz0 + "/trip_point_1_temp"), kCritMc, "trip 1 temp");
  t.eq(read_int(cd0 + "/max_state"), kMaxLevel, "cooling device max_state");
  t.eq(read_int(tz0 + "/temp"), read_int(z0 + "/temp1_input"), "thermal temp == temp1_input");

  // Bound to the passive trip of both zones.
  bool bound0 = false, bound1 = false;
  for (const auto& l : list_dir(tz0, "cdev")) {
    if (l.find('_') != std::string::npos) continue;
    const std::string target = real_path(tz0 + "/" + l);
    bound0 |= target == real_path(cd0);
    bound1 |= target == real_path(cd1);
    t.eq(read_int(tz0 + "/" + l + "_trip_point"), 0, "binding " + l + " is on the passive trip");
  }
  t.check(bound0 && bound1, "both cooling devices bound to emul_zone0");

  // One level, two views.
  t.eq(write_file(throttle(0) + "/throttling", "4"), 0, "throttling 4");
  t.eq(read_int(cd0 + "/cur_state"), 4, "cur_state shows the throttling level");
  t.eq(write_file(cd0 + "/cur_state", "2"), 0, "cur_state 2");
  t.eq(read_int(throttle(0) + "/throttling"), 2, "throttling shows cur_state writes");
  t.eq(write_file(cd0 + "/cur_state", "11"), EINVAL, "cur_state above max -> EINVAL");
  t.eq(write_file(cd0 + "/cur_state", "0"), 0, "cur_state 0");
  t.eq(write_file(throttle(1) + "/throttling", "0"), 0, "throttle1 0");

  // step_wise: crossing the passive trip throttles, cooling releases.
  t.eq(write_file(tz0 + "/policy", "step_wise"), 0, "zone policy step_wise");
  t.eq(read_file(tz0 + "/policy"), "step_wise", "policy reads step_wise");
  t.eq(write_file(z0 + "/event_step", "1000 1000"), 0, "1000 m°C steps");
  t.eq(inject(0, 50000), 0, "50000: below the passive trip");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  t.eq(read_int(cd0 + "/cur_state"), 0, "no throttling below the trip");
  t.eq(inject(0, 65000), 0, "65000: above the passive trip");
  const bool up = wait_for([&] { return read_int(cd0 + "/cur_state").value_or(0) >= 1; }, 3000);
  t.check(up, "step_wise raised cooling_device cur_state",
          "cur_state " + std::to_string(read_int(cd0 + "/cur_state").value_or(-1)));
  t.check(read_int(throttle(0) + "/throttling").value_or(0) >= 1,
          "the governor's level is visible in throttling");
  t.check(read_int(cd1 + "/cur_state").value_or(0) >= 1, "the second device is throttled too");
  const long long first = read_int(cd0 + "/cur_state").value_or(0);
  t.eq(inject(0, 70000), 0, "70000: still rising");
  t.eq(inject(0, 75000), 0, "75000: still rising");
  t.check(wait_for([&] { return read_int(cd0 + "/cur_state").value_or(0) > first; }, 3000),
          "rising temperature throttles deeper");
  // Cool down in 1000 m°C steps: each falling sample releases one level.
  for (int temp = 55000; temp >= 35000; temp -= 1000) {
    inject(0, temp);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    if (read_int(cd0 + "/cur_state") == 0 && read_int(cd1 + "/cur_state") == 0) break;
  }
  t.check(wait_for([&] { return read_int(cd0 + "/cur_state") == 0; }, 2000),
          "cooling below the trip releases the device",
          "cur_state " + std::to_string(read_int(cd0 + "/cur_state").value_or(-1)));
  t.eq(read_int(throttle(0) + "/throttling"), 0, "throttling back to 0");

  // power_allocator on zone 1 drives the same devices through their power
  // ops (it ignores cooling devices without get_requested_power,
  // state2power and power2state). Zone 0 stays cool, so its step_wise
  // instances ask for nothing. With one passive trip (60 C, the control
  // temperature) and 4000 mW sustainable power the 6.1 PID gives a budget
  // of 4000 + 4000 * err / 60000 (err = 60000 - T): 2000 mW at 90 C, i.e.
  // 1000 mW = level 8 for each device (3000 mW - 250 mW per level), and
  // more than both devices' 6000 mW at 30 C, i.e. level 0.
  const std::string z1 = zone_dir("emul_zone1");
  t.eq(write_file(tz1 + "/sustainable_power", "4000"), 0, "zone1 sustainable_power 4000 mW");
  t.eq(write_file(tz1 + "/policy", "power_allocator"), 0, "zone1 policy power_allocator");
  t.eq(read_file(tz1 + "/policy"), "power_allocator", "policy reads power_allocator");
  t.eq(inject(1, 90000), 0, "zone1 at 90000: 30 C over the control temperature");
  t.check(wait_for([&] { return read_int(cd1 + "/cur_state").value_or(0) >= 7; }, 4000),
          "power_allocator throttles deeply through the power table",
          "cur_state " + std::to_string(read_int(cd1 + "/cur_state").value_or(-1)));
  t.eq(inject(1, 30000), 0, "zone1 at 30000: far below the control temperature");
  t.check(wait_for([&] { return read_int(cd1 + "/cur_state") == 0; }, 4000),
          "power_allocator grants full power again",
          "cur_state " + std::to_string(read_int(cd1 + "/cur_state").value_or(-1)));
  t.eq(write_file(tz1 + "/policy", "step_wise"), 0, "zone1 back to step_wise");
  t.eq(read_int(z1 + "/temp1_input"), 30000, "zone1 temp1_input after the governor test");

  // hwmon mirror of the thermal zone (CONFIG_THERMAL_HWMON).
  bool hwmon = false;
  for (const auto& h : list_dir("/sys/class/hwmon", "hwmon")) {
    hwmon |= read_file("/sys/class/hwmon/" + h + "/name") == "emul_zone0";
  }
  t.check(hwmon, "the thermal core made a hwmon mirror of the zone");
}

// ---------------------------------------------------------------- perm

void suite_perm(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const int zid = zone_id(z0);
  const auto window_before = read_file(z0 + "/event_window");
  const auto level_before = read_int(throttle(0) + "/throttling");

  const pid_t pid = ::fork();
  if (pid == 0) {
    // Child: an unprivileged sender (nobody), no capabilities.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) std::_Exit(90);
    Tap c("perm(uid 65534)");
    std::string why;
    auto nl = CoolhandNl::open(&why);
    if (!c.check(nl.has_value(), "family resolves for an unprivileged user", why)) std::_Exit(91);
    c.eq(::geteuid(), 65534u, "running as uid 65534");
    c.eq(set_steps(*nl, zid, 7, 7), -EPERM, "WINDOW_SET (steps) refused: EPERM");
    c.eq(set_window(*nl, zid, 1000, 2000), -EPERM, "WINDOW_SET (window) refused: EPERM");
    c.eq(set_level(*nl, 0, 5), -EPERM, "LEVEL_SET refused: EPERM");
    std::vector<NlMsg> rep;
    c.eq(nl->request(
             COOLHAND_CMD_TEMP_GET, false,
             [&](nl_msg* m) { nla_put_u32(m, COOLHAND_A_ZONE_ID, zid); }, &rep),
         0, "TEMP_GET allowed");
    rep.clear();
    c.eq(nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep), 0, "ZONE_GET dump allowed");
    c.eq(rep.size(), size_t{2}, "dump complete");
    c.eq(write_file(throttle(0) + "/throttling", "5"), EACCES, "sysfs throttling write: EACCES");
    c.eq(write_file(z0 + "/event_step", "7 7"), EACCES, "sysfs event_step write: EACCES");
    std::fflush(stdout);
    std::_Exit(c.failed() ? 1 : 0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  t.check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unprivileged child saw only refusals",
          "child status " + std::to_string(status));
  t.eq(read_file(z0 + "/event_window"), window_before, "event window unchanged");
  t.eq(read_int(throttle(0) + "/throttling"), level_before, "throttling level unchanged");

  // And root may: the same requests succeed.
  std::string why;
  auto nl = CoolhandNl::open(&why);
  if (!t.check(nl.has_value(), "root opens the family", why)) return;
  t.eq(set_steps(*nl, zid, 1000, 1000), 0, "root WINDOW_SET allowed");
  t.eq(set_level(*nl, 0, 0), 0, "root LEVEL_SET allowed");
}

// ---------------------------------------------------------------- nocrit

void suite_nocrit(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  if (!t.check(!z0.empty(), "zone emul_zone0 exists")) return;
  t.check(!exists(z0 + "/temp1_crit"), "no temp1_crit without a critical trip");
  t.check(!exists(z0 + "/temp1_crit_alarm"), "no temp1_crit_alarm without a critical trip");
  t.eq(read_int(z0 + "/temp1_passive"), kPassiveMc, "temp1_passive still there");
  const std::string tz0 = thermal_dir("thermal_zone", "emul_zone0");
  t.check(exists(tz0 + "/trip_point_0_type") && !exists(tz0 + "/trip_point_1_type"),
          "the thermal zone has exactly one trip");
}

// ---------------------------------------------------------------- stress

using Clock = std::chrono::steady_clock;

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

// ------------------------------------------------- for the daemon checks

// True on a 6.13+ kernel (thermal netlink family version 2 with user
// thresholds), from uname's release.
bool kernel_has_thresholds() {
  utsname u{};
  unsigned major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%u.%u", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 13);
}

// THRESHOLD_ADD (command 8 of the mainline "thermal" family, 6.13+; absent
// from Debian 12's header) on this kernel: the daemon assumes a family of
// version 1 has no thresholds and falls back to sampling events. On 6.13+
// (the 7.3 guest) the family is version 2 and the request succeeds.
void suite_thermal_thresholds(Tap& t) {
  const bool thresholds = kernel_has_thresholds();
  constexpr uint8_t kCmdThresholdAdd = 8;
  constexpr int kAttrThresholdTemp = 25;
  constexpr int kAttrThresholdDirection = 26;
  NlSockPtr s(nl_socket_alloc());
  if (!t.check(s && genl_connect(s.get()) == 0, "genl socket for the thermal family")) return;
  const int family = genl_ctrl_resolve(s.get(), THERMAL_GENL_FAMILY_NAME);
  if (!t.check(family > 0, "the thermal family resolves")) return;
  nl_cache* cache = nullptr;
  int version = -1;
  if (genl_ctrl_alloc_cache(s.get(), &cache) == 0) {
    if (genl_family* f = genl_ctrl_search_by_name(cache, THERMAL_GENL_FAMILY_NAME)) {
      version = genl_family_get_version(f);
      genl_family_put(f);
    }
    nl_cache_free(cache);
  }
  if (thresholds)
    t.eq(version, 2, "thermal family version 2 (thresholds, 6.13+)");
  else
    t.eq(version, 1, "thermal family version 1 (no thresholds)");
  const auto zones = list_dir("/sys/class/thermal", "thermal_zone");
  if (!t.check(!zones.empty(), "a thermal zone to aim at")) return;
  const auto tz_id = static_cast<uint32_t>(std::stoul(zones[0].substr(12)));
  NlMsgPtr m(nlmsg_alloc());
  genlmsg_put(m.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST | NLM_F_ACK,
              kCmdThresholdAdd, THERMAL_GENL_VERSION);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, tz_id);
  nla_put_u32(m.get(), kAttrThresholdTemp, 50000);
  nla_put_u32(m.get(), kAttrThresholdDirection, 1);
  int err = nl_send_auto(s.get(), m.get());
  if (err >= 0) err = nl_wait_for_ack(s.get());
  if (thresholds)
    t.eq(err, 0, "THRESHOLD_ADD accepted on this 6.13+ kernel");
  else
    t.eq(err, -NLE_OPNOTSUPP, "THRESHOLD_ADD answered 'not supported' on this kernel");
}

// Run PROG without CAP_SYS_ADMIN: dropped from the bounding set, so root's
// exec does not get it back (CAP_NET_ADMIN stays: the genl admin check
// passes and the module's own CAP_SYS_ADMIN check answers EPERM).
int exec_without_cap_sys_admin(char** argv) {
  if (::prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) != 0) {
    std::perror("PR_CAPBSET_DROP");
    return 1;
  }
  ::execv(argv[0], argv);
  std::perror(argv[0]);
  return 1;
}

}  // namespace
}  // namespace coolhand::vmtest

int main(int argc, char** argv) {
  using namespace coolhand::vmtest;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s abi|events|thermal|perm|nocrit|stress-*|*-unload [seconds]\n",
                 argv[0]);
    return 2;
  }
  const std::string suite = argv[1];
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 3;
  if (suite == "stress-throttle") return stress_throttle(seconds);
  if (suite == "stress-temp") return stress_temp(seconds);
  if (suite == "stress-netlink") return stress_netlink(seconds);
  if (suite == "without-cap-sys-admin" && argc > 2) return exec_without_cap_sys_admin(argv + 2);
  if (suite == "hammer-until-unload") return hammer_until_unload(seconds);

  const std::map<std::string, void (*)(Tap&)> suites = {
      {"abi", suite_abi},
      {"events", suite_events},
      {"thermal", suite_thermal},
      {"perm", suite_perm},
      {"nocrit", suite_nocrit},
      {"passive", suite_passive},
      {"thermal-thresholds", suite_thermal_thresholds},
      {"hold-across-unload", suite_hold_across_unload},
  };
  auto it = suites.find(suite);
  if (it == suites.end()) {
    std::fprintf(stderr, "unknown suite %s\n", suite.c_str());
    return 2;
  }
  Tap t(suite);
  it->second(t);
  std::printf("# %s: %d checks, %d failed\n", suite.c_str(), t.count(), t.failed());
  return std::min(t.failed(), 100);
}
