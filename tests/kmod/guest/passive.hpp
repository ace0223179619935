// The passive suite (passive.cpp): coolhand.ko's mirror of the 6.13+
// thermal core's private passive-trip count (zone<N>/thermal_passive),
// checked against the kernel's own trip crossings.
#pragma once

#include "testlib.hpp"

namespace coolhand::vmtest {

// Expects a fresh
//   insmod coolhand.ko critical_report_only=1
//   insmod coolhand_emul.ko emul_zones=3 emul_devices=3 emul_kind=cpu,skin,component
//       emul_passive_mc=60000,55000,70000 emul_passive_hyst_mc=2000,5000,0
//       emul_alert_mc=50000,0,65000 emul_alert_hyst_mc=3000,0,1000
//       emul_binding=0:0,1:1,2:2 emul_governor=step_wise
// on a 6.13+ kernel (on 6.1 thermal_passive is the core's own tz->passive).
void suite_passive(Tap& t);

}  // namespace coolhand::vmtest
