// The guest suites of coolhand_vmtest (each in its own file; passive.hpp
// and unload.hpp declare the rest). What each expects loaded is in
// coolhand_vmtest.cpp's header.
#pragma once

#include "testlib.hpp"

namespace coolhand::vmtest {

void suite_abi(Tap& t);                 // abi.cpp
void suite_nocrit(Tap& t);              // abi.cpp
void suite_events(Tap& t);              // events.cpp
void suite_thermal(Tap& t);             // thermal.cpp
void suite_thermal_thresholds(Tap& t);  // thermal.cpp
void suite_perm(Tap& t);                // perm.cpp

// perm.cpp: exec argv[0] with CAP_SYS_ADMIN dropped from the bounding set;
// returns only on failure.
int exec_without_cap_sys_admin(char** argv);

// stress.cpp: `seconds` of writes or dumps; 0 when every answer was as
// expected.
int stress_throttle(int seconds);
int stress_temp(int seconds);
int stress_netlink(int seconds);

}  // namespace coolhand::vmtest
