// Glue between the thermal netlink handler and the runtime: what each kernel
// event means for the policy. Shared by main and the handler benchmark so
// both measure and run the same path.
#pragma once

#include "runtime.h"
#include "thermal_netlink.h"

namespace coolhand::daemon {

// Apply one validated event. Returns true when the event means sysfs must be
// re-read (a zone was created or re-enabled).
bool dispatch_thermal_event(Runtime& rt, const ThermalEvent& ev, policy::Time now);

}  // namespace coolhand::daemon
