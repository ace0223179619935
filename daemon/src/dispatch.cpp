// Thermal events -> runtime inputs.
#include "dispatch.h"

namespace coolhand::daemon {

bool dispatch_thermal_event(Runtime& rt, const ThermalEvent& ev, policy::Time now) {
  using K = ThermalEvent::Kind;
  switch (ev.kind) {
    case K::sample:
    case K::trip_up:
    case K::trip_down:
    case K::threshold_up:
    case K::threshold_down:
      if (ev.tz_id && ev.temperature) rt.on_zone_temperature(*ev.tz_id, *ev.temperature, now);
      return false;
    case K::tz_delete:
      if (ev.tz_id) rt.on_zone_deleted(*ev.tz_id, now);
      return false;
    case K::tz_create:
    case K::tz_enable:
      return true;
    case K::cdev_update:
      rt.verify_devices();  // a kernel governor may have overwritten a cooling device
      return false;
    default:
      return false;
  }
}

}  // namespace coolhand::daemon
