// Glue between the netlink handlers (mainline thermal family, coolhand
// module family) and the runtime: what each kernel event means for the
// policy. Shared by main and the handler benchmark so
// both measure and run the same path.
#pragma once

#include "coolhand_netlink.h"
#include "runtime.h"
#include "thermal_netlink.h"

namespace coolhand::daemon {

// Apply one validated event. Returns true when the event means sysfs must be
// re-read (a zone was created or re-enabled).
bool dispatch_thermal_event(Runtime& rt, const ThermalEvent& ev, policy::Time now);

// Apply one validated coolhand module event: EVENT_TEMP and EVENT_TRIP carry
// a zone's temperature; EVENT_THROTTLE (a level changed, possibly by someone
// else) makes the runtime check its knobs, like CDEV_STATE_UPDATE.
void dispatch_coolhand_event(Runtime& rt, const CoolhandEvent& ev, policy::Time now);

}  // namespace coolhand::daemon
