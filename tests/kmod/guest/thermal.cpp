// The thermal suite (coolhand zones and devices as seen by the kernel's
// thermal core) and the thermal-thresholds suite (the thermal family's
// THRESHOLD_ADD on this kernel, for the daemon's checks).
#include <linux/thermal.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/utsname.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "checks.hpp"
#include "coolhand_nl.hpp"
#include "suites.hpp"

namespace coolhand::vmtest {
namespace {

// Polls until pred() or the timeout; returns pred().
bool wait_for(const std::function<bool()>& pred, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

// True on a 6.13+ kernel (thermal netlink family version 2 with user
// thresholds), from uname's release.
bool kernel_has_thresholds() {
  utsname u{};
  unsigned major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%u.%u", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 13);
}

}  // namespace

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

}  // namespace coolhand::vmtest
