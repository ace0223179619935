// The events suite: the coolhand family's temperature, trip and level
// events and the per-zone event window and steps (WINDOW_SET, LEVEL_SET).
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "checks.hpp"
#include "coolhand_nl.hpp"
#include "suites.hpp"

namespace coolhand::vmtest {
namespace {

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

}  // namespace

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

}  // namespace coolhand::vmtest
