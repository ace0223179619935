// Thermal and coolhand events -> runtime inputs.
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

void dispatch_coolhand_event(Runtime& rt, const CoolhandEvent& ev, policy::Time now) {
  switch (ev.kind) {
    case CoolhandEvent::Kind::temp:
    case CoolhandEvent::Kind::trip:
      if (ev.zone_id && ev.temperature)
        rt.on_module_zone_temperature(*ev.zone_id, *ev.temperature, now);
      return;
    case CoolhandEvent::Kind::throttle:
      rt.verify_devices();  // another writer may have changed a level the daemon drives
      return;
  }
}

}  // namespace coolhand::daemon
