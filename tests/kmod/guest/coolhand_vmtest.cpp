// Guest-side tests of coolhand.ko, run by tests/kmod/guest/init.sh inside a
// qemu guest booted with Debian's kernel. Never run on the host: most suites
// expect the module loaded with the emulated platform, and all of them
// write to its sysfs files.
//
//   coolhand_vmtest abi|nocrit (abi.cpp), events (events.cpp),
//                   thermal|thermal-thresholds (thermal.cpp), perm (perm.cpp),
//                   passive (passive.cpp)
//   coolhand_vmtest stress-throttle|stress-temp|stress-netlink SECONDS
//                   (stress.cpp)
//   coolhand_vmtest hold-across-unload|hammer-until-unload SECONDS
//                   (unload.cpp)
// This file dispatches; checks.hpp holds what the suites share.
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
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "passive.hpp"
#include "suites.hpp"
#include "testlib.hpp"
#include "unload.hpp"

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
