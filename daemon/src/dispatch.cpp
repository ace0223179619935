// Thermal and coolhand events -> runtime inputs.
#include "dispatch.h"

namespace coolhand::daemon {

namespace {

// The flight recorder's netlink record (docs/recording-format.md): family 1
// is the thermal family (its multicast events carry no sequence number of
// their own: seq 0), 2 the coolhand module's.
constexpr std::uint16_t kFamilyThermal = 1;
constexpr std::uint16_t kFamilyCoolhand = 2;

void record(Runtime& rt, std::uint16_t family, std::uint8_t kind,
            const std::optional<std::uint32_t>& zone, const std::optional<policy::MilliC>& t,
            std::uint32_t seq, policy::Time now) {
  const std::uint32_t a = family | (static_cast<std::uint32_t>(kind) << 16U);
  rt.record(recorder::Kind::netlink, zone ? static_cast<std::uint16_t>(*zone) : recorder::kNoIndex,
            a, seq, t ? t->mc() : recorder::kNoValue, now);
}

}  // namespace

bool dispatch_thermal_event(Runtime& rt, const ThermalEvent& ev, policy::Time now) {
  using K = ThermalEvent::Kind;
  record(rt, kFamilyThermal, static_cast<std::uint8_t>(ev.kind), ev.tz_id, ev.temperature, 0, now);
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
  record(rt, kFamilyCoolhand, static_cast<std::uint8_t>(ev.kind),
         ev.kind == CoolhandEvent::Kind::throttle ? ev.dev_id : ev.zone_id, ev.temperature, ev.seq,
         now);
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
