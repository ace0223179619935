// Engine::explain: why a device is at its level, read from the last step's
// decision and the controllers' effective parameters (engine.h).
//
// Rules: the cause is the controller that won arbitration for the device in
// the last step (Decision::devices[i].cause). Its limit is the parameter its
// rule compares the input against, with the active profile applied:
// step_wise and bang_bang: the threshold; pid and power_budget: the setpoint;
// table: the `up` of the row it is on (none when it is on no row). A forced
// device and a released one have no cause and so no input or limit.
#include "coolhand/policy/engine.h"
#include "engine_impl.h"

namespace coolhand::policy {

DeviceExplanation Engine::explain(DeviceId id) const {
  const Impl& m = *impl_;
  DeviceExplanation x;
  if (id.index >= m.devices.size() || id.index >= m.decision.devices.size()) return x;
  const DeviceDecision& dd = m.decision.devices[id.index];
  x.level = dd.level;
  x.forced = dd.forced;
  x.since = m.devices[id.index].level_since;
  if (dd.forced || !dd.cause || dd.cause->index >= m.controllers.size()) return x;
  x.cause = dd.cause;
  const detail::ControllerRt& c = m.controllers[dd.cause->index];
  x.safe = c.safe;
  x.input = SensorId{c.input};
  x.input_value = m.sensors[c.input].value;
  using K = ControllerSpec::Kind;
  switch (c.kind) {
    case K::step_wise:
    case K::bang_bang:
      x.limit_kind = "threshold";
      x.limit = MilliC(c.threshold_mc);
      break;
    case K::pid:
    case K::power_budget:
      x.limit_kind = "setpoint";
      x.limit = MilliC(c.setpoint_mc);
      break;
    case K::table:
      x.limit_kind = "table row";
      if (c.row && *c.row < c.rows.size()) x.limit = c.rows[*c.row].up;
      break;
  }
  return x;
}

}  // namespace coolhand::policy
