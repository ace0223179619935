// The thermal core and governors of `--kernel 7.3` (KernelVersion::v7_3):
// the rules introduced after 6.12 (6.13's trip-list rework and a late-2024
// power_allocator change, dated below), verified against Debian's
// linux-source-7.3 (7.3.4) by sim_kernel_diff_7.3 and a 7.3 guest by
// lockstep_vm_7.3. Re-expressed from linux-source-6.12 (6.12.117) and
// linux-source-7.3, whose governors (drivers/thermal/gov_*.c) and cooling
// drivers have the same rules, listed below; where the two differ, the 7.3
// rule is used and dated. The value is named after the kernel the rules
// are checked against; Debian's archive no longer holds 6.16's sources
// (docs/simulator.md, "Kernel baselines").
//
// The core (thermal_core.c, __thermal_zone_device_update and
// thermal_zone_handle_trips): every trip has a threshold, its temperature
// while not reached and temperature - hysteresis once reached. An update
//  1. takes the reading (last_temperature keeps the previous one);
//  2. crosses down every reached trip whose threshold is now above T
//     (highest threshold first), then crosses up every other trip whose
//     threshold is at or below T (lowest first). Crossing a passive trip up
//     or down adds one to or takes one from the zone's `passive` count
//     (thermal_trip_crossed), which alone picks the passive polling delay;
//     a critical or hot trip crossed up is counted. The governor's
//     trip_crossed op runs for every other crossing (bang_bang's);
//  3. runs the governor's manage op once (all but bang_bang's work).
// The order of step 2 (downward crossings before upward ones, from trip
// lists kept sorted by threshold) is 7.3's and came with the trip-list
// rework of 6.13; 6.12 handles upward crossings first. Only a cooling
// device bound to two trips of a bang_bang zone crossing in opposite
// directions in one update could tell them apart; the state is then the
// deepest target either way.
#include <algorithm>

#include "coolhand/sim/kernel_thermal.h"

namespace coolhand::sim {

namespace {

bool governed(KernelTripSpec::Type t) {
  return t != KernelTripSpec::Type::critical && t != KernelTripSpec::Type::hot;
}

}  // namespace

std::int32_t KernelThermal::threshold_73(const Zone& z, std::size_t trip) const {
  const auto& t = z.spec.trips[trip];
  return z.reached[trip] ? t.temp.mc() - t.hyst.mc() : t.temp.mc();
}

void KernelThermal::update_zone_73(Zone& z) {
  const std::size_t n = z.spec.trips.size();
  std::vector<std::size_t> down;
  std::vector<std::size_t> up;
  for (std::size_t t = 0; t < n; ++t) {
    if (z.reached[t] && threshold_73(z, t) > z.temperature_mc) down.push_back(t);
    if (!z.reached[t] && threshold_73(z, t) <= z.temperature_mc) up.push_back(t);
  }
  std::stable_sort(down.begin(), down.end(), [&](std::size_t a, std::size_t b) {
    return threshold_73(z, a) > threshold_73(z, b);
  });
  std::stable_sort(up.begin(), up.end(), [&](std::size_t a, std::size_t b) {
    return threshold_73(z, a) < threshold_73(z, b);
  });
  for (const std::size_t t : down) {
    z.reached[t] = false;
    trip_crossed_73(z, t, false);
  }
  for (const std::size_t t : up) {
    z.reached[t] = true;
    trip_crossed_73(z, t, true);
  }
  switch (z.governor) {
    case Governor::none:
      break;
    case Governor::step_wise:
      step_wise_73(z);
      break;
    case Governor::bang_bang:
      bang_bang_73(z);
      break;
    case Governor::fair_share:
      fair_share_73(z);
      break;
    case Governor::power_allocator:
      power_allocator_73(z);
      break;
  }
  update_cdevs();
}

void KernelThermal::trip_crossed_73(Zone& z, std::size_t trip, bool upward) {
  const auto type = z.spec.trips[trip].type;
  if (type == KernelTripSpec::Type::passive) z.passive += upward ? 1 : -1;
  if (!governed(type)) {
    if (upward) ++z.critical_crossings;
    return;
  }
  // bang_bang_trip_crossed: the instances on the trip go to 1 on the way up
  // and to 0 on the way down (thermal_cdev_update_nocheck: applied at once;
  // bang_bang never reads the state, so applying at the end of the update
  // is the same).
  if (z.governor != Governor::bang_bang) return;
  for (auto& in : z.instances)
    if (in.trip == trip) bang_bang_set_73(in, upward);
}

void KernelThermal::bang_bang_set_73(Instance& in, bool on) {
  in.target = on ? 1U : 0U;
  in.initialized = true;
  dirty_[in.cdev] = true;
}

// bang_bang_manage (gov_bang_bang.c): once after binding (tz->governor_data
// set), every instance no crossing has initialised yet gets 1 if T is at or
// above its trip's threshold, else 0. Unlike 6.1 nothing happens on later
// updates without a crossing, and a multi-state device's target is exactly
// 0 or 1.
void KernelThermal::bang_bang_73(Zone& z) {
  if (z.bang_bang_walked) return;
  for (std::size_t t = 0; t < z.spec.trips.size(); ++t) {
    if (!governed(z.spec.trips[t].type)) continue;
    const bool on = z.temperature_mc >= threshold_73(z, t);
    for (auto& in : z.instances)
      if (in.trip == t && !in.initialized) bang_bang_set_73(in, on);
  }
  z.bang_bang_walked = true;
}

// step_wise_manage (gov_step_wise.c): for each governed trip, throttle =
// T >= the trip's threshold (hysteresis now counts: a reached trip throttles
// down to temperature - hysteresis); trend = sign of T - last T
// (get_tz_trend without a get_trend op). get_target_state, from the cooling
// device's state `cur` before this update (the devices are updated only
// after every trip, thermal_cdev_update in step_wise_manage's second loop):
//  - not initialised: throttle ? clamp(cur+1) : no target;
//  - throttle, rising: clamp(cur+1);
//  - throttle, dropping: clamp(cur-1) into [min(lower+1, upper), upper]
//    (cur is unsigned long: cur = 0 wraps to the maximum, hence upper);
//  - not throttling, dropping: no target (6.1 stepped down one state at a
//    time while above `lower`);
//  - otherwise: keep the target.
// The simplification is "thermal: gov_step_wise: Simplify get_target_state()"
// and its follow-ups (6.8-6.10). `passive` is the core's now (above).
void KernelThermal::step_wise_73(Zone& z) {
  const int trend = z.temperature_mc > z.last_temperature_mc   ? 1
                    : z.temperature_mc < z.last_temperature_mc ? -1
                                                               : 0;
  for (std::size_t t = 0; t < z.spec.trips.size(); ++t) {
    if (!governed(z.spec.trips[t].type)) continue;
    const bool throttle = z.temperature_mc >= threshold_73(z, t);
    for (auto& in : z.instances) {
      if (in.trip != t) continue;
      const std::uint64_t cur = cur_state_[in.cdev];
      auto clamp = [](std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
        return static_cast<std::uint32_t>(std::clamp(v, lo, hi));
      };
      const auto old = in.target;
      std::optional<std::uint32_t> next = in.target;
      if (!in.initialized) {
        next = throttle ? std::optional<std::uint32_t>(clamp(cur + 1, in.lower, in.upper))
                        : std::nullopt;
      } else if (throttle && trend > 0) {
        next = clamp(cur + 1, in.lower, in.upper);
      } else if (throttle && trend < 0) {
        next = clamp(cur - 1, std::min(in.lower + 1, in.upper), in.upper);
      } else if (!throttle && trend < 0) {
        next = std::nullopt;
      }
      in.target = next;
      if (in.initialized && old == in.target) continue;
      in.initialized = true;
      dirty_[in.cdev] = true;
    }
  }
}

// fair_share_manage (gov_fair_share.c): level = (number of trips, of every
// type, whose threshold is at or below T) - 1, or 0 when there is none
// (get_trip_level counts from -1; 6.1 counted from 0 and stopped at the
// first trip not reached). Then for every governed trip, each of its
// instances gets
//   level * max_state * weight / (num_trips * total_weight), or
//   level * max_state / (num_trips * instances) when all weights are 0,
// in one 64-bit division (6.1 rounded a percentage first); no clamping.
void KernelThermal::fair_share_73(Zone& z) {
  std::uint64_t level = 0;
  int reached = 0;
  for (std::size_t t = 0; t < z.spec.trips.size(); ++t)
    if (threshold_73(z, t) <= z.temperature_mc) ++reached;
  if (reached > 0) level = static_cast<std::uint64_t>(reached - 1);
  const std::uint64_t num_trips = z.spec.trips.size();
  for (std::size_t t = 0; t < z.spec.trips.size(); ++t) {
    if (!governed(z.spec.trips[t].type)) continue;
    std::uint64_t total_weight = 0;
    std::uint64_t instances = 0;
    for (const auto& in : z.instances)
      if (in.trip == t) {
        total_weight += in.weight;
        ++instances;
      }
    for (auto& in : z.instances) {
      if (in.trip != t) continue;
      std::uint64_t dividend = level * cdevs_[in.cdev].max_state;
      std::uint64_t divisor = num_trips;
      if (total_weight != 0) {
        dividend *= in.weight;
        divisor *= total_weight;
      } else {
        divisor *= instances;
      }
      in.target = static_cast<std::uint32_t>(dividend / divisor);
      dirty_[in.cdev] = true;
    }
  }
}

// power_allocator_manage (gov_power_allocator.c). Below the switch-on trip's
// temperature: PID reset and every actor's target 0
// (allow_maximum_power), applied only if the previous update allocated
// (params->update_cdevs). Otherwise allocate_power as in 6.1, except that
// when no actor requests any power divvy_up_power grants every actor its
// maximum power ("thermal: gov_power_allocator: Granted power set to max
// when nobody request power", posted to linux-pm on 24 Oct 2024; in 7.3.4,
// not in 6.12.117; dated to 6.13/6.14, before 6.16). The governor no longer
// sets `passive`; sustainable power and gains: see add_zone.
void KernelThermal::power_allocator_73(Zone& z) {
  if (z.trip_switch_on && z.temperature_mc < z.spec.trips[*z.trip_switch_on].temp.mc()) {
    z.err_integral = 0;
    z.prev_err = 0;
    z.ipa.active = false;
    for (auto& in : z.instances) {
      if (!z.trip_max_desired || in.trip != *z.trip_max_desired) continue;
      in.target = 0;
      if (z.pa_update_cdevs) dirty_[in.cdev] = true;
    }
    z.pa_update_cdevs = false;
    return;
  }
  if (!z.trip_max_desired) return;
  allocate_power(z, true);
  z.pa_update_cdevs = true;
}

}  // namespace coolhand::sim
