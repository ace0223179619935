// Controllers, the third stage of a step: each turns its input's value into a
// requested level per bound device. Every controller's thresholds here are
// the effective ones (profile applied); "limit" is a device's effective
// limit_level, its deepest allowed level. A controller whose input is
// unknown requests its safe_level (default: each device's limit) and keeps
// its state, except pid and power_budget which reset. A disabled controller
// requests nothing and resets.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine_impl.h"

namespace coolhand::policy {
namespace {

using detail::BindingRt;
using detail::ControllerRt;
using detail::DeviceRt;
using CK = ControllerSpec::Kind;

void release(ControllerRt& c) {
  for (BindingRt& b : c.bindings) {
    b.request = 0;
    b.held = 0;
  }
  c.last_change.reset();
  c.row.reset();
  c.on = false;
  c.engaged = false;
  c.integral = 0.0;
  c.output = 0.0;
  c.last_update.reset();
}

// The earliest time a controller wants to be stepped again.
struct Next {
  std::optional<Time> at;
  void want(Time t) {
    if (!at || t < *at) at = t;
  }
};

double seconds(Millis d) {
  return static_cast<double>(d.count()) / 1000.0;
}

// step_wise, in the manner of the kernel's step_wise governor:
// - T >= threshold and not falling (trend >= 0): one level deeper per period;
// - T < threshold - hysteresis: one level shallower per period;
// - otherwise (inside the hysteresis band, or above the threshold but
//   falling): hold.
// A change is allowed when no change happened in the last `period`. While a
// further change is wanted the controller asks for a step when it is due.
void step_wise(ControllerRt& c, const ControllerSpec& spec, MilliC t, std::int32_t trend,
               const std::vector<DeviceRt>& devices, Time now, Next& next) {
  const bool deeper = t.mc() >= c.threshold_mc && trend >= 0;
  const bool shallower = t.mc() < c.threshold_mc - spec.hysteresis.mc();
  const auto wanted = [&] {
    for (const BindingRt& b : c.bindings) {
      if (deeper && b.held < devices[b.device].limit_level) return true;
      if (shallower && b.held > 0) return true;
    }
    return false;
  };
  for (BindingRt& b : c.bindings) b.request = b.held;
  if (!wanted()) return;
  if (c.last_change && now < *c.last_change + spec.period) {
    next.want(*c.last_change + spec.period);
    return;
  }
  for (BindingRt& b : c.bindings) {
    const std::uint32_t limit = devices[b.device].limit_level;
    if (deeper && b.held < limit) ++b.held;
    if (shallower && b.held > 0) b.held = std::min(b.held - 1, limit);
    b.request = b.held;
  }
  c.last_change = now;
  if (wanted()) next.want(now + spec.period);
}

// table: the current row is the highest whose `up` T has reached; once in a
// row, T must fall below that row's `down` to drop to the row beneath (which
// is then checked against its own `down`). Below the first row: level 0.
void table(ControllerRt& c, MilliC t) {
  std::optional<std::size_t> up;
  for (std::size_t j = c.rows.size(); j-- > 0;) {
    if (t >= c.rows[j].up) {
      up = j;
      break;
    }
  }
  if (up && (!c.row || *up > *c.row)) {
    c.row = up;
  } else {
    while (c.row && t < c.rows[*c.row].down) {
      c.row = *c.row == 0 ? std::nullopt : std::optional<std::size_t>(*c.row - 1);
    }
  }
  const std::uint32_t level = c.row ? c.rows[*c.row].level : 0;
  for (BindingRt& b : c.bindings) b.request = level;
}

// bang_bang: on at T >= threshold, off at T < threshold - hysteresis; on
// requests on_level (default: each device's limit), off requests 0.
void bang_bang(ControllerRt& c, const ControllerSpec& spec, MilliC t,
               const std::vector<DeviceRt>& devices) {
  if (t.mc() >= c.threshold_mc) {
    c.on = true;
  } else if (t.mc() < c.threshold_mc - spec.hysteresis.mc()) {
    c.on = false;
  }
  for (BindingRt& b : c.bindings) {
    b.request = c.on ? spec.on_level.value_or(devices[b.device].limit_level) : 0;
  }
}

// pid: engaged while T >= setpoint - engage_below; released and reset below.
// While engaged it updates once per period (the first update at engagement):
//   e = (T - setpoint) in °C, dt = time since the previous update in s,
//   u = kp*e + ki*I + kd*dT/dt (derivative on measurement: since e = T -
//   setpoint, de/dt = dT/dt and a rising T throttles harder; 0 at the first
//   update), where I += e*dt unless u would then exceed 1 with e > 0 or fall
//   below 0 with e < 0 (conditional-integration anti-windup); u is clamped
//   to [0, 1] and each device requests min_level + round(u * (limit -
//   min_level)). Between updates the output is held.
void pid(ControllerRt& c, const ControllerSpec& spec, MilliC t,
         const std::vector<DeviceRt>& devices, Time now, Next& next) {
  if (t.mc() < c.setpoint_mc - spec.engage_below.mc()) {
    release(c);
    return;
  }
  c.engaged = true;
  if (!c.last_update || now >= *c.last_update + spec.period) {
    const double e = (t.mc() - c.setpoint_mc) / 1000.0;
    const double dt = c.last_update ? seconds(now - *c.last_update) : 0.0;
    const double d =
        dt > 0.0 ? spec.kd * ((static_cast<double>(t.mc()) - c.last_mc) / 1000.0) / dt : 0.0;
    const double p = spec.kp * e;
    const double trial = c.integral + e * dt;
    const double u_trial = p + spec.ki * trial + d;
    const bool windup = (u_trial > 1.0 && e > 0.0) || (u_trial < 0.0 && e < 0.0);
    if (!windup) c.integral = trial;
    c.output = std::clamp(p + spec.ki * c.integral + d, 0.0, 1.0);
    c.last_update = now;
    c.last_mc = t.mc();
  }
  next.want(*c.last_update + spec.period);
  for (BindingRt& b : c.bindings) {
    const DeviceRt& dev = devices[b.device];
    const std::uint32_t lo = std::min(dev.min_level, dev.limit_level);
    const double span = static_cast<double>(dev.limit_level - lo);
    b.request = lo + static_cast<std::uint32_t>(std::lround(c.output * span));
  }
}

// power_budget, after the kernel's power_allocator: engaged while T >=
// switch_on; below, released and reset. Once per period while engaged:
//   e = setpoint - T (°C); P = (e < 0 ? kp_over : kp_under) * e;
//   I += ki * e * dt, clamped to ±(sum of the devices' level-0 power);
//   D = kd * de/dt; budget = sustainable + P + I + D, clamped to
//   [0, sum of level-0 powers].
// The budget is split by weight; a device whose share exceeds its level-0
// power gets that power and the surplus is split again among the others by
// weight, until no share exceeds its device's maximum. Each device then
// requests the shallowest allowed level whose power fits its share (its
// limit when none does).
void power_budget(ControllerRt& c, const ControllerSpec& spec, MilliC t,
                  const std::vector<DeviceRt>& devices, Time now, Next& next) {
  if (t.mc() < c.switch_on_mc) {
    release(c);
    return;
  }
  c.engaged = true;
  if (!c.last_update || now >= *c.last_update + spec.period) {
    double max_total = 0.0;
    for (const BindingRt& b : c.bindings) max_total += devices[b.device].power_mw[0];
    const std::int32_t e_mc = c.setpoint_mc - t.mc();
    const double e = e_mc / 1000.0;
    const double dt = c.last_update ? seconds(now - *c.last_update) : 0.0;
    const double p = (e < 0.0 ? spec.kp_over_mw : spec.kp_under_mw) * e;
    c.integral = std::clamp(c.integral + spec.ki_mw * e * dt, -max_total, max_total);
    const double d =
        dt > 0.0 ? spec.kd_mw * ((static_cast<double>(e_mc) - c.last_mc) / 1000.0) / dt : 0.0;
    const double budget =
        std::clamp(spec.sustainable_power_mw + p + c.integral + d, 0.0, max_total);
    c.last_update = now;
    c.last_mc = e_mc;

    for (BindingRt& b : c.bindings) b.capped = false;
    double remaining = budget;
    bool capped_any = true;
    while (capped_any) {
      capped_any = false;
      double weights = 0.0;
      for (const BindingRt& b : c.bindings) weights += b.capped ? 0.0 : b.weight;
      if (weights <= 0.0) break;
      const double share_per_weight = remaining / weights;
      for (BindingRt& b : c.bindings) {
        if (b.capped) continue;
        const double max_mw = devices[b.device].power_mw[0];
        b.grant_mw = share_per_weight * b.weight;
        if (b.grant_mw >= max_mw) {
          b.grant_mw = max_mw;
          b.capped = true;
          capped_any = true;
          remaining -= max_mw;
        }
      }
    }
    for (BindingRt& b : c.bindings) {
      const DeviceRt& dev = devices[b.device];
      const std::uint32_t lo = std::min(dev.min_level, dev.limit_level);
      b.request = dev.limit_level;
      for (std::uint32_t l = lo; l <= dev.limit_level; ++l) {
        if (dev.power_mw[l] <= b.grant_mw + 1e-9) {
          b.request = l;
          break;
        }
      }
    }
  }
  next.want(*c.last_update + spec.period);
}

}  // namespace

void Engine::Impl::eval_controllers(Time now) {
  Next next;
  for (std::size_t i = 0; i < controllers.size(); ++i) {
    ControllerRt& c = controllers[i];
    const ControllerSpec& cs = spec.controllers[i];
    if (!c.enabled) {
      release(c);
      c.safe = false;
      continue;
    }
    const SensorRt& in = sensors[c.input];
    if (!in.value) {
      c.safe = true;
      if (c.kind == CK::pid || c.kind == CK::power_budget) release(c);
      for (BindingRt& b : c.bindings) {
        b.request = c.safe_level.value_or(devices[b.device].limit_level);
      }
      continue;
    }
    // Back from the safe level, table and bang_bang recompute from T and
    // step_wise resumes from the levels it held before the input was lost.
    c.safe = false;
    switch (c.kind) {
      case CK::step_wise:
        step_wise(c, cs, *in.value, in.trend_mc, devices, now, next);
        break;
      case CK::table:
        table(c, *in.value);
        break;
      case CK::bang_bang:
        bang_bang(c, cs, *in.value, devices);
        break;
      case CK::pid:
        pid(c, cs, *in.value, devices, now, next);
        break;
      case CK::power_budget:
        power_budget(c, cs, *in.value, devices, now, next);
        break;
    }
  }
  if (next.at) want_step(*next.at);
}

}  // namespace coolhand::policy
