// The passive suite: on 6.13+ the thermal core counts the passive trips a
// zone has crossed in the private tz->passive (thermal_trip_crossed() in
// drivers/thermal/thermal_core.c, linux-source-7.3) and exports no accessor,
// so coolhand.ko keeps a mirror of it (zone<N>/thermal_passive,
// coolhand_thermal_passive() in kmod/coolhand_thermal.c), which lock-step
// drivers schedule by. The mirror is checked against the kernel itself:
//
// - The kernel's count, seen from outside: every change of tz->passive
//   happens in thermal_trip_crossed(), which also sends the thermal
//   family's TZ_TRIP_UP / TZ_TRIP_DOWN event for that trip. So tz->passive
//   is the sum over the zone's passive trips of (ups - downs) on the
//   "event" multicast group.
// - That this is the count the core acts on: monitor_thermal_zone() polls
//   at passive_delay (250 ms here) while tz->passive > 0, else at the
//   polling delay, 0 for coolhand zones. So a zone sends SAMPLING_TEMP on
//   the "sampling" group while its count is non-zero, and not otherwise,
//   except once: when the count drops to 0, monitor_thermal_zone() re-arms
//   nothing but does not cancel the poll armed before, which still fires
//   (at most one passive delay later). The check listens 0.5 s for that
//   last poll to pass, then 0.8 s: at least two polls of each zone with a
//   non-zero count, none of the others.
// - The rule both are held to (thermal_zone_handle_trips()): a trip is
//   reached when T >= its temperature and left when T < temperature -
//   hysteresis. The scenario below has the expected count of every step.
// - step_wise (the zones' governor) throttles a device bound to the passive
//   trip from the crossing up to the crossing down, hysteresis included.
//
// Three zones with different trips and hystereses (see passive.hpp): zone 0
// has an alert trip (passive type, 50 C, 3 C hysteresis) below its passive
// trip (60 C, 2 C), zone 1 one passive trip (55 C, 5 C), zone 2 an alert
// trip (65 C, 1 C) and a passive trip without hysteresis (70 C). Each zone
// has its own device, bound to its passive trip. Every step writes one
// zone's temperature and raises the EC interrupt (sensor<i>/notify), so the
// core updates the zone at least once at that temperature (the write
// itself interrupts when it leaves the window, and a zone with a non-zero
// count is polled too); every step then checks all three zones, so a step
// of one zone must leave the others' counts alone.
// Nothing reads thermal_zone<N>/temp during the suite (such a read also
// advances the mirror, see coolhand_thermal.c).
#include "passive.hpp"

#include <linux/thermal.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coolhand_nl.hpp"

namespace coolhand::vmtest {
namespace {

// One message of the thermal family: its command and zone/trip ids (-1
// when absent).
struct ThermalMsg {
  uint8_t cmd = 0;
  int tz_id = -1;
  int trip_id = -1;
};

// A subscription to one multicast group of the "thermal" family. The
// "event" and "sampling" groups number their commands independently
// (TZ_CREATE and SAMPLING_TEMP are both 1), so each gets its own socket.
class ThermalGroup {
 public:
  static std::optional<ThermalGroup> open(const char* group, std::string* why) {
    ThermalGroup g;
    g.sock_.reset(nl_socket_alloc());
    if (!g.sock_ || genl_connect(g.sock_.get()) != 0) {
      *why = "genl_connect failed";
      return std::nullopt;
    }
    const int grp = genl_ctrl_resolve_grp(g.sock_.get(), THERMAL_GENL_FAMILY_NAME, group);
    if (grp < 0) {
      *why = std::string("no thermal multicast group ") + group;
      return std::nullopt;
    }
    nl_socket_disable_seq_check(g.sock_.get());
    nl_socket_set_buffer_size(g.sock_.get(), 1 << 20, 0);
    if (nl_socket_add_membership(g.sock_.get(), grp) != 0 ||
        nl_socket_set_nonblocking(g.sock_.get()) != 0) {
      *why = std::string("cannot join thermal group ") + group;
      return std::nullopt;
    }
    return g;
  }

  // Every message queued now or arriving within timeout_ms. Sets *overrun
  // when the kernel dropped messages or one could not be read.
  std::vector<ThermalMsg> drain(int timeout_ms, bool* overrun) {
    std::vector<ThermalMsg> out;
    nl_socket_modify_cb(sock_.get(), NL_CB_VALID, NL_CB_CUSTOM, &ThermalGroup::on_msg, &out);
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      pollfd p{nl_socket_get_fd(sock_.get()), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::max<long long>(left.count(), 0))) <= 0) break;
      const int err = nl_recvmsgs_default(sock_.get());
      if (err < 0 && err != -NLE_AGAIN) *overrun = true;
    }
    return out;
  }

 private:
  static int on_msg(nl_msg* msg, void* arg) {
    auto* out = static_cast<std::vector<ThermalMsg>*>(arg);
    nlattr* tb[THERMAL_GENL_ATTR_MAX + 1] = {};
    if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, THERMAL_GENL_ATTR_MAX, nullptr) != 0) return NL_SKIP;
    ThermalMsg m;
    m.cmd = genlmsg_hdr(nlmsg_hdr(msg))->cmd;
    if (tb[THERMAL_GENL_ATTR_TZ_ID])
      m.tz_id = static_cast<int>(nla_get_u32(tb[THERMAL_GENL_ATTR_TZ_ID]));
    if (tb[THERMAL_GENL_ATTR_TZ_TRIP_ID])
      m.trip_id = static_cast<int>(nla_get_u32(tb[THERMAL_GENL_ATTR_TZ_TRIP_ID]));
    out->push_back(m);
    return NL_OK;
  }

  NlSockPtr sock_;
};

constexpr int kZones = 3;

// One emulated zone as both the module and the thermal core see it.
struct Zone {
  std::string dir;            // /sys/class/coolhand/zoneN
  int tz_id = -1;             // N of /sys/class/thermal/thermal_zoneN
  std::vector<bool> passive;  // by trip id: a passive-type trip
  int kernel = 0;             // tz->passive from the trip events
  std::optional<long long> mirror() const { return read_int(dir + "/thermal_passive"); }
};

// One step of the scenario: zone `zone` goes to temp_mc; `want` is the
// count the rule gives it; `gov` is its device's expected step_wise state
// (0: released, 1: throttled, -1: not checked); `quiet`: then listen for
// the core's polling for a while.
struct Step {
  int zone;
  int temp_mc;
  int want;
  int gov;
  bool quiet;
  const char* why;
};

// clang-format off
constexpr std::array kScenario = {
    Step{0, 49000, 0, 0, false, "below the alert trip"},
    Step{0, 50000, 1, 0, true, "at the alert trip (T >= 50 C): reached"},
    Step{0, 47000, 1, -1, false, "at alert - hysteresis (47 C): still reached"},
    Step{0, 46999, 0, 0, false, "below alert - hysteresis: left"},
    Step{0, 48000, 0, -1, true, "into the alert band from below: not reached"},
    Step{1, 56000, 1, 1, false, "zone 1 over its passive trip; zone 0 untouched"},
    Step{0, 59999, 1, 0, false, "1 m°C below the passive trip: the alert only"},
    Step{0, 60000, 2, 1, false, "at the passive trip: both reached, step_wise throttles"},
    Step{0, 58000, 2, 1, false, "at passive - hysteresis: both, still throttled"},
    Step{0, 57999, 1, 0, false, "below passive - hysteresis: the alert only, released"},
    Step{1, 50000, 1, 1, true, "zone 1 at passive - hysteresis (5 C): still reached"},
    Step{1, 49999, 0, 0, false, "zone 1 below passive - hysteresis: left, released"},
    Step{1, 54000, 0, 0, false, "zone 1 into its band from below: not reached"},
    Step{0, 70000, 2, 1, false, "zone 0 up past the passive trip again"},
    Step{2, 70000, 2, 1, false, "zone 2 jumps over both trips in one update"},
    Step{2, 69999, 1, 0, false, "zone 2 1 m°C below a trip without hysteresis: left"},
    Step{2, 64000, 1, -1, false, "zone 2 at alert - hysteresis (1 C): still reached"},
    Step{2, 63999, 0, -1, false, "zone 2 below alert - hysteresis: left"},
    Step{0, 40000, 0, 0, false, "zone 0 drops below both trips in one update"},
    Step{0, 75000, 2, 1, false, "zone 0 jumps over both trips in one update"},
    Step{1, 55000, 1, 1, false, "zone 1 at its passive trip"},
    Step{0, 35000, 0, 0, false, "zone 0 back to its start"},
    Step{1, 35000, 0, 0, true, "zone 1 back to its start: no zone polled"},
};
// clang-format on

std::string tz_of(const std::string& coolhand_zone) {
  char buf[4096];
  const std::string link = coolhand_zone + "/thermal_zone";
  return ::realpath(link.c_str(), buf) ? std::string(buf) : std::string();
}

// Sets up the zones: thermal zone id and trip types from /sys/class/thermal.
bool find_zones(Tap& t, std::array<Zone, kZones>& zones) {
  constexpr std::array<int, kZones> kPassiveTrips = {2, 1, 2};
  for (int i = 0; i < kZones; ++i) {
    Zone& z = zones[static_cast<size_t>(i)];
    const std::string name = "emul_zone" + std::to_string(i);
    z.dir = zone_dir(name);
    const std::string tz = z.dir.empty() ? std::string() : tz_of(z.dir);
    const auto pos = tz.rfind("thermal_zone");
    if (!t.check(pos != std::string::npos, name + " is mirrored in /sys/class/thermal"))
      return false;
    z.tz_id = std::atoi(tz.c_str() + pos + 12);
    int n = 0;
    for (int trip = 0;; ++trip) {
      const auto type = read_file(tz + "/trip_point_" + std::to_string(trip) + "_type");
      if (!type) break;
      z.passive.push_back(*type == "passive");
      n += *type == "passive" ? 1 : 0;
    }
    if (!t.eq(n, kPassiveTrips[static_cast<size_t>(i)], name + ": passive-type trips"))
      return false;
    if (!t.eq(z.mirror(), 0LL, name + ": thermal_passive 0 at the start temperature")) return false;
  }
  return true;
}

int set_temp(int zone, int temp_mc) {
  const int err = write_file(sensor(zone) + "/temp", std::to_string(temp_mc));
  return err ? err : write_file(sensor(zone) + "/notify", "1");
}

bool wait_level(int dev, bool throttled) {
  for (int waited = 0;; waited += 20) {
    const auto level = read_int(throttle(dev) + "/throttling");
    if (level && (*level > 0) == throttled) return true;
    if (waited >= 1000) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string counts(const std::array<Zone, kZones>& zones) {
  std::string s;
  for (int i = 0; i < kZones; ++i) {
    const Zone& z = zones[static_cast<size_t>(i)];
    s += "zone" + std::to_string(i) + " kernel " + std::to_string(z.kernel) + " mirror " +
         std::to_string(z.mirror().value_or(-1)) + "; ";
  }
  return s;
}

}  // namespace

void suite_passive(Tap& t) {
  std::string why;
  auto events = ThermalGroup::open(THERMAL_GENL_EVENT_GROUP_NAME, &why);
  auto sampling = ThermalGroup::open(THERMAL_GENL_SAMPLING_GROUP_NAME, &why);
  if (!t.check(events && sampling, "subscribed to the thermal family's event and sampling groups",
               why))
    return;
  std::array<Zone, kZones> zones;
  if (!find_zones(t, zones)) return;
  bool overrun = false;
  events->drain(50, &overrun);

  int reached_two = 0, polled = 0, unpolled = 0;
  for (size_t s = 0; s < kScenario.size(); ++s) {
    const Step& step = kScenario[s];
    const std::string what = "step " + std::to_string(s + 1) + ", zone " +
                             std::to_string(step.zone) + " at " + std::to_string(step.temp_mc) +
                             " (" + step.why + ")";
    t.eq(set_temp(step.zone, step.temp_mc), 0, what + ": temperature written, EC interrupt");
    for (const ThermalMsg& m : events->drain(20, &overrun)) {
      if (m.cmd != THERMAL_GENL_EVENT_TZ_TRIP_UP && m.cmd != THERMAL_GENL_EVENT_TZ_TRIP_DOWN)
        continue;
      for (Zone& z : zones)
        if (m.tz_id == z.tz_id && m.trip_id >= 0 &&
            static_cast<size_t>(m.trip_id) < z.passive.size() &&
            z.passive[static_cast<size_t>(m.trip_id)])
          z.kernel += m.cmd == THERMAL_GENL_EVENT_TZ_TRIP_UP ? 1 : -1;
    }
    const Zone& z = zones[static_cast<size_t>(step.zone)];
    t.eq(z.kernel, step.want, what + ": the kernel's count (trip events) follows the 7.3 rule");
    bool mirrored = true;
    for (const Zone& other : zones) mirrored &= other.mirror() == other.kernel;
    t.check(mirrored, what + ": every zone's thermal_passive equals the kernel's count",
            counts(zones));
    reached_two += z.kernel == 2 ? 1 : 0;
    if (step.gov >= 0)
      t.check(wait_level(step.zone, step.gov == 1),
              what + (step.gov ? ": step_wise throttles" : ": step_wise releases"),
              "throttling " +
                  std::to_string(read_int(throttle(step.zone) + "/throttling").value_or(-1)));
    if (!step.quiet) continue;
    // The core polls (SAMPLING_TEMP every passive delay) exactly the zones
    // whose tz->passive is non-zero.
    sampling->drain(500, &overrun);
    std::array<int, kZones> samples{};
    for (const ThermalMsg& m : sampling->drain(800, &overrun))
      for (int i = 0; i < kZones; ++i)
        if (m.cmd == THERMAL_GENL_SAMPLING_TEMP && m.tz_id == zones[static_cast<size_t>(i)].tz_id)
          ++samples[static_cast<size_t>(i)];
    bool as_counted = true;
    std::string seen;
    for (int i = 0; i < kZones; ++i) {
      const int n = samples[static_cast<size_t>(i)];
      const bool active = zones[static_cast<size_t>(i)].kernel > 0;
      as_counted &= active ? n >= 2 : n == 0;
      (active ? polled : unpolled) += 1;
      seen += "zone" + std::to_string(i) + " " + std::to_string(n) + " samples; ";
    }
    t.check(as_counted, what + ": the core polls (250 ms) exactly the zones with a non-zero count",
            seen + counts(zones));
  }
  t.check(reached_two > 0 && polled > 0 && unpolled > 0,
          "positive control: counts of 2 reached, polled and unpolled zones both seen");
  t.check(!overrun, "no thermal netlink message lost");
}

}  // namespace coolhand::vmtest
