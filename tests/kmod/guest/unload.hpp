// Guest checks that unloading coolhand_emul.ko is safe while user space
// still holds what it exposed (see unload.cpp and init.sh section 2b).
#pragma once

#include "testlib.hpp"

namespace coolhand::vmtest {

// Opens the zone's, the emulated EC's, the throttle's and the thermal
// mirrors' files and a subscribed netlink socket, prints "# holding", waits
// (up to 30 s) until coolhand_emul.ko is unloaded, then checks that every
// held file fails with ENODEV and that the core, still loaded, answers
// netlink with no zones, no devices and ENOENT for the old ids.
void suite_hold_across_unload(Tap& t);

// Writes temperatures and levels, reads zone files and dumps over netlink
// in a loop until 200 ms after coolhand_emul.ko is gone (at most
// `seconds`). Fails on any error other than the ENOENT/ENODEV of vanishing
// files and ids, if the platform never went away, or if the loop did not
// see both sides of the unload (accepted requests before, refused after).
// Exit status 0 or 1.
int hammer_until_unload(int seconds);

}  // namespace coolhand::vmtest
