// Linux 6.1's thermal core and governors, re-expressed (see kernel_thermal.h
// for what the core does around them). Integer arithmetic follows the
// kernel's, including power_allocator's fixed point with 10 fractional bits,
// so budgets match the kernel's to the milliwatt.
#include "coolhand/sim/kernel_thermal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace coolhand::sim {

namespace {

constexpr std::int32_t kTempInvalid = -274000;  // THERMAL_TEMP_INVALID
constexpr int kFracBits = 10;

std::int64_t int_to_frac(std::int64_t x) {
  return x * (std::int64_t{1} << kFracBits);
}
std::int64_t frac_to_int(std::int64_t x) {
  return x >> kFracBits;
}  // arithmetic, as in the kernel
std::int64_t mul_frac(std::int64_t x, std::int64_t y) {
  return (x * y) >> kFracBits;
}
std::int64_t div_frac(std::int64_t x, std::int64_t y) {
  return int_to_frac(x) / y;
}
std::uint64_t div_round_closest(std::uint64_t x, std::uint64_t d) {
  return (x + d / 2) / d;
}

// divvy_up_power: g_i = round(wr_i * budget / sum wr) capped at m_i; the
// capped surplus is shared out again in proportion to each actor's headroom
// m_i - g_i (bounded by the total headroom). A zero total request divides
// by 1.
void divvy_up_power(const std::vector<std::uint32_t>& weighted,
                    const std::vector<std::uint32_t>& max_power, std::uint32_t total_weighted,
                    std::uint32_t range, std::vector<std::uint32_t>& granted) {
  const std::size_t actors = weighted.size();
  std::vector<std::uint32_t> extra(actors);
  const std::uint64_t total_req = total_weighted == 0 ? 1 : total_weighted;
  std::uint32_t extra_power = 0;
  std::uint32_t capped_extra = 0;
  for (std::size_t k = 0; k < actors; ++k) {
    granted[k] = static_cast<std::uint32_t>(
        div_round_closest(static_cast<std::uint64_t>(weighted[k]) * range, total_req));
    if (granted[k] > max_power[k]) {
      extra_power += granted[k] - max_power[k];
      granted[k] = max_power[k];
    }
    extra[k] = max_power[k] - granted[k];
    capped_extra += extra[k];
  }
  if (extra_power == 0 || capped_extra == 0) return;
  extra_power = std::min(extra_power, capped_extra);
  for (std::size_t k = 0; k < actors; ++k)
    granted[k] += static_cast<std::uint32_t>(
        div_round_closest(static_cast<std::uint64_t>(extra[k]) * extra_power, capped_extra));
}

}  // namespace

std::string_view to_string(KernelVersion k) {
  return k == KernelVersion::v7_3 ? "7.3" : "6.1";
}

std::optional<KernelVersion> kernel_version_from_string(std::string_view s) {
  if (s == "6.1") return KernelVersion::v6_1;
  if (s == "7.3") return KernelVersion::v7_3;
  return std::nullopt;
}

std::string_view to_string(Governor g) {
  switch (g) {
    case Governor::none:
      return "none";
    case Governor::step_wise:
      return "step_wise";
    case Governor::bang_bang:
      return "bang_bang";
    case Governor::fair_share:
      return "fair_share";
    case Governor::power_allocator:
      return "power_allocator";
  }
  return "?";
}

std::optional<Governor> governor_from_string(std::string_view s) {
  for (auto g : {Governor::none, Governor::step_wise, Governor::bang_bang, Governor::fair_share,
                 Governor::power_allocator})
    if (to_string(g) == s) return g;
  return std::nullopt;
}

std::vector<CoolingDevice> cooling_devices_for(const ModelSpec& model) {
  std::vector<CoolingDevice> out;
  for (const auto& d : model.devices) {
    CoolingDevice c;
    c.name = d.name;
    c.max_state = d.max_level();
    if (d.energy_model) {
      for (double w : d.power_w)
        c.state_power_mw.push_back(static_cast<std::uint32_t>(std::lround(w * 1000.0)));
      c.actor = d.name == "cpu" ? PowerActor::cpufreq : PowerActor::devfreq;
    }
    out.push_back(std::move(c));
  }
  return out;
}

KernelThermal::KernelThermal(std::vector<CoolingDevice> cdevs, KernelVersion kernel)
    : kernel_(kernel),
      cdevs_(std::move(cdevs)),
      cur_state_(cdevs_.size(), 0),
      load_(cdevs_.size(), 0),
      dirty_(cdevs_.size(), false) {}

std::size_t KernelThermal::add_zone(const KernelZoneSpec& spec, Governor governor) {
  Zone z;
  z.spec = spec;
  z.governor = governor;
  z.temperature_mc = kTempInvalid;
  z.last_temperature_mc = kTempInvalid;
  z.reached.assign(spec.trips.size(), false);
  for (const auto& map : spec.cooling) {
    std::size_t trip = 0;
    while (trip < spec.trips.size() && spec.trips[trip].name != map.trip) ++trip;
    std::size_t cdev = 0;
    while (cdev < cdevs_.size() && cdevs_[cdev].name != map.device) ++cdev;
    if (trip == spec.trips.size() || cdev == cdevs_.size()) continue;
    if (governor == Governor::power_allocator && cdevs_[cdev].state_power_mw.empty()) continue;
    Instance in;
    in.trip = trip;
    in.cdev = cdev;
    in.lower = map.lower.value_or(0);
    in.upper = map.upper.value_or(cdevs_[cdev].max_state);
    in.weight = map.weight;
    z.instances.push_back(in);
  }
  if (governor == Governor::power_allocator) {
    // get_governor_trips: switch-on is the first passive trip, the control
    // ("maximum desired") trip the last; with a single passive trip it is
    // the control trip and the governor is always on. The scan stops at the
    // first trip that is neither passive nor active.
    std::optional<std::size_t> first_passive, last_passive, last_active;
    for (std::size_t i = 0; i < spec.trips.size(); ++i) {
      const auto t = spec.trips[i].type;
      if (t == KernelTripSpec::Type::passive) {
        if (!first_passive)
          first_passive = i;
        else
          last_passive = i;
      } else if (t == KernelTripSpec::Type::active) {
        last_active = i;
      } else if (kernel_ == KernelVersion::v6_1) {
        break;  // 6.13+'s get_governor_trips scans every trip
      }
    }
    if (last_passive) {
      z.trip_switch_on = first_passive;
      z.trip_max_desired = last_passive;
    } else if (first_passive) {
      z.trip_max_desired = first_passive;
    } else {
      z.trip_max_desired = last_active;
    }
    // power_allocator_bind estimates the constants from the firmware's
    // sustainable power (possibly 0, then re-estimated on the first pass).
    if (z.trip_max_desired)
      ipa_estimate_constants(z, spec.sustainable_power_mw.value_or(0),
                             spec.trips[*z.trip_max_desired].temp.mc());
    // Gains written through sysfs after the zone registered (a boot
    // script). 6.1 keeps them only until the first allocation: its
    // get_sustainable_power re-estimates all gains when the sustainable
    // power differs from the governor's copy, which starts at 0.
    // 6.13+'s power_allocator_bind copies a firmware sustainable power into
    // the governor's, so only an estimated one re-estimates the gains.
    if (kernel_ == KernelVersion::v7_3)
      z.params_sustainable = spec.sustainable_power_mw.value_or(0);
    if (spec.k_po) z.ipa.k_po = *spec.k_po;
    if (spec.k_pu) z.ipa.k_pu = *spec.k_pu;
    if (spec.k_i) z.ipa.k_i = *spec.k_i;
    if (spec.k_d) z.ipa.k_d = *spec.k_d;
  }
  zones_.push_back(std::move(z));
  return zones_.size() - 1;
}

void KernelThermal::set_load(std::size_t cdev, std::uint32_t load) {
  load_[cdev] = load;
}

std::uint32_t KernelThermal::requested_power_mw(std::size_t cdev) const {
  const auto& c = cdevs_[cdev];
  if (c.state_power_mw.empty()) return 0;
  const std::uint32_t full = c.state_power_mw[cur_state_[cdev]];
  switch (c.actor) {
    case PowerActor::none:
      return 0;
    case PowerActor::cpufreq:
      return full * load_[cdev] / 100;
    case PowerActor::devfreq:
      return (full * std::max<std::uint32_t>(load_[cdev], 1)) >> 10;
  }
  return 0;
}

// cpufreq_power2state / devfreq_cooling_power2state (6.1): normalise the
// grant to full load with the last load, then take the shallowest state
// whose power fits (the table is scanned from state 0; the deepest state is
// the fallback and is never compared).
std::uint32_t KernelThermal::power2state(std::size_t cdev, std::uint32_t granted_mw) const {
  const auto& c = cdevs_[cdev];
  std::uint32_t normalised = granted_mw;
  if (c.actor == PowerActor::cpufreq)
    normalised = granted_mw * 100 / (load_[cdev] != 0 ? load_[cdev] : 1);
  else if (c.actor == PowerActor::devfreq)
    normalised = static_cast<std::uint32_t>(
        static_cast<std::int32_t>(granted_mw << kFracBits) /
        static_cast<std::int32_t>(std::max<std::uint32_t>(load_[cdev], 1)));
  for (std::uint32_t s = 0; s < c.max_state; ++s)
    if (normalised >= c.state_power_mw[s]) return s;
  return c.max_state;
}

std::uint32_t KernelThermal::critical_crossings(std::size_t zone) const {
  return zones_[zone].critical_crossings;
}

const IpaSnapshot& KernelThermal::ipa(std::size_t zone) const {
  return zones_[zone].ipa;
}

std::optional<std::uint32_t> KernelThermal::instance_target(std::size_t zone,
                                                            std::size_t instance) const {
  return zones_[zone].instances[instance].target;
}

policy::Millis KernelThermal::next_delay(std::size_t zone) const {
  const auto& z = zones_[zone];
  return z.passive > 0 ? z.spec.passive_delay : z.spec.polling_delay;
}

void KernelThermal::update_zone(std::size_t zone, policy::MilliC temperature) {
  auto& z = zones_[zone];
  z.last_temperature_mc = z.temperature_mc;
  z.temperature_mc = temperature.mc();
  if (kernel_ == KernelVersion::v7_3) {
    update_zone_73(z);
    return;
  }
  for (std::size_t trip = 0; trip < z.spec.trips.size(); ++trip) run_trip(z, trip);
}

void KernelThermal::run_trip(Zone& z, std::size_t trip) {
  const auto type = z.spec.trips[trip].type;
  if (type == KernelTripSpec::Type::critical || type == KernelTripSpec::Type::hot) {
    if (z.spec.trips[trip].temp.mc() > 0 && z.temperature_mc >= z.spec.trips[trip].temp.mc() &&
        z.last_temperature_mc < z.spec.trips[trip].temp.mc())
      ++z.critical_crossings;
    return;
  }
  switch (z.governor) {
    case Governor::none:
      return;
    case Governor::step_wise:
      step_wise(z, trip);
      break;
    case Governor::bang_bang:
      bang_bang(z, trip);
      break;
    case Governor::fair_share:
      fair_share(z, trip);
      break;
    case Governor::power_allocator:
      power_allocator(z, trip);
      break;
  }
  update_cdevs();
}

// __thermal_cdev_update for every cooling device marked as needing it: the
// state becomes the deepest target among all instances, over all zones.
void KernelThermal::update_cdevs() {
  for (std::size_t c = 0; c < cdevs_.size(); ++c) {
    if (!dirty_[c]) continue;
    dirty_[c] = false;
    std::uint32_t target = 0;
    for (const auto& z : zones_)
      for (const auto& in : z.instances)
        if (in.cdev == c && in.target) target = std::max(target, *in.target);
    cur_state_[c] = std::min(target, cdevs_[c].max_state);
  }
}

// step_wise (gov_step_wise.c, 6.1). throttle = T >= trip temperature (no
// hysteresis in 6.1's step_wise); trend = sign of T - last T. From the
// cooling device's current state `cur`, for each instance on this trip:
//  - first pass (instance not initialised): throttle ? clamp(cur+1) : no target;
//  - rising: throttle ? clamp(cur+1) : keep;
//  - dropping: if cur <= lower: no target unless throttling (then keep);
//              else throttle ? keep : clamp(cur-1);
//  - stable: keep.
// clamp() is to the instance's [lower, upper]. An instance gaining a target
// on a passive trip increments the zone's `passive` count (fast polling), one
// losing it decrements it. A changed (or first) target marks the cooling
// device for update.
void KernelThermal::step_wise(Zone& z, std::size_t trip) {
  const std::int32_t trip_temp = z.spec.trips[trip].temp.mc();
  const bool throttle = z.temperature_mc >= trip_temp;
  const int trend = z.temperature_mc > z.last_temperature_mc   ? 1
                    : z.temperature_mc < z.last_temperature_mc ? -1
                                                               : 0;
  for (auto& in : z.instances) {
    if (in.trip != trip) continue;
    const std::uint32_t cur = cur_state_[in.cdev];
    const auto old = in.target;
    auto next = in.target;
    auto clamp = [&](std::uint32_t s) { return std::clamp(s, in.lower, in.upper); };
    if (!in.initialized) {
      next = throttle ? std::optional<std::uint32_t>(clamp(cur + 1)) : std::nullopt;
    } else if (trend > 0) {
      if (throttle) next = clamp(cur + 1);
    } else if (trend < 0) {
      if (cur <= in.lower) {
        if (!throttle) next = std::nullopt;
      } else if (!throttle) {
        next = clamp(cur - 1);
      }
    }
    in.target = next;
    if (in.initialized && old == in.target) continue;
    if (z.spec.trips[trip].type == KernelTripSpec::Type::passive) {
      if (!old && in.target)
        ++z.passive;
      else if (old && !in.target)
        --z.passive;
    }
    in.initialized = true;
    dirty_[in.cdev] = true;
  }
}

// bang_bang (gov_bang_bang.c, 6.1), meant for on/off fans: an instance with
// no target starts at 0; any target other than 0 or 1 is forced to 1. Then
// 0 -> 1 when T >= trip temperature, 1 -> 0 when T <= trip - hysteresis.
// Multi-state devices therefore only ever get state 0 or 1.
void KernelThermal::bang_bang(Zone& z, std::size_t trip) {
  const std::int32_t trip_temp = z.spec.trips[trip].temp.mc();
  const std::int32_t hyst = z.spec.trips[trip].hyst.mc();
  for (auto& in : z.instances) {
    if (in.trip != trip) continue;
    if (!in.target) in.target = 0;
    if (*in.target != 0 && *in.target != 1) in.target = 1;
    if (*in.target == 0 && z.temperature_mc >= trip_temp)
      in.target = 1;
    else if (*in.target == 1 && z.temperature_mc <= trip_temp - hyst)
      in.target = 0;
    dirty_[in.cdev] = true;
  }
}

// fair_share (gov_fair_share.c, 6.1). level = number of leading trips (in
// trip order, all types) whose temperature T has reached, stopping at the
// first it has not. For each instance on this trip:
//   percentage = total_weight ? weight * 100 / total_weight : 100 / instances
//   target = percentage * level * cdev max_state / (100 * num_trips)
// in integer arithmetic, over the instances bound to this trip; targets are
// not clamped to the instance's [lower, upper] (the 6.1 code does not).
void KernelThermal::fair_share(Zone& z, std::size_t trip) {
  long level = 0;
  while (static_cast<std::size_t>(level) < z.spec.trips.size() &&
         z.temperature_mc >= z.spec.trips[static_cast<std::size_t>(level)].temp.mc())
    ++level;
  int total_weight = 0;
  int total_instance = 0;
  for (const auto& in : z.instances)
    if (in.trip == trip) {
      total_weight += static_cast<int>(in.weight);
      ++total_instance;
    }
  if (total_instance == 0) return;
  const long num_trips = static_cast<long>(z.spec.trips.size());
  for (auto& in : z.instances) {
    if (in.trip != trip) continue;
    const long percentage = total_weight == 0 ? 100 / total_instance
                                              : static_cast<long>(in.weight) * 100 / total_weight;
    const long target =
        percentage * level * static_cast<long>(cdevs_[in.cdev].max_state) / (100 * num_trips);
    in.target = static_cast<std::uint32_t>(target);
    dirty_[in.cdev] = true;
  }
}

// power_allocator, estimate_pid_constants (6.1): with the switch-on trip's
// temperature (0 when there is none) and threshold = control - switch_on in
// m°C, k_po = sustainable << 10 / threshold, k_pu = 2 * sustainable << 10 /
// threshold, k_i = max(k_pu / 10, 1); k_d and integral_cutoff keep their
// values (default 0). Nothing changes when the threshold is 0. This
// overwrites k_po, k_pu and k_i written by user space (see add_zone).
void KernelThermal::ipa_estimate_constants(Zone& z, std::uint32_t sustainable,
                                           std::int32_t control_mc) {
  const std::int32_t switch_on_mc =
      z.trip_switch_on ? z.spec.trips[*z.trip_switch_on].temp.mc() : 0;
  const auto threshold = static_cast<std::uint32_t>(control_mc - switch_on_mc);
  if (threshold != 0) {
    z.ipa.k_po = static_cast<std::int32_t>((std::uint32_t{sustainable} << kFracBits) / threshold);
    z.ipa.k_pu =
        static_cast<std::int32_t>((2 * std::uint32_t{sustainable} << kFracBits) / threshold);
    const std::int32_t k_i = z.ipa.k_pu / 10;
    z.ipa.k_i = k_i > 0 ? k_i : 1;
  }
}

// pid_controller (6.1). err = (control - T) << 10.
//   P = (err < 0 ? k_po : k_pu) * err
//   I = k_i * err_integral; while err < integral_cutoff the error is added to
//       the integral, unless that would take |I| to the maximum power or
//       beyond
//   D = k_d * (err - prev_err) / passive_delay_ms
//   budget = clamp(sustainable + (P + I + D) >> 10, 0, max_allocatable)
// Sustainable power is the firmware's, or else the sum over the control
// trip's power actors of their power at their `upper` state; a change
// re-estimates the gains.
std::uint32_t KernelThermal::ipa_pid(Zone& z, std::int32_t control_mc,
                                     std::uint32_t max_allocatable) {
  const std::int64_t max_power_frac = int_to_frac(max_allocatable);
  std::uint32_t sustainable = z.spec.sustainable_power_mw.value_or(0);
  if (sustainable == 0) {
    for (const auto& in : z.instances)
      if (in.trip == *z.trip_max_desired) sustainable += cdevs_[in.cdev].state_power_mw[in.upper];
  }
  if (sustainable != z.params_sustainable) {
    ipa_estimate_constants(z, sustainable, control_mc);
    z.params_sustainable = sustainable;
  }
  z.ipa.sustainable_power_mw = sustainable;

  const auto err = static_cast<std::int32_t>(int_to_frac(control_mc - z.temperature_mc));
  const std::int64_t p = mul_frac(err < 0 ? z.ipa.k_po : z.ipa.k_pu, err);
  std::int64_t i = mul_frac(z.ipa.k_i, z.err_integral);
  if (err < int_to_frac(z.spec.integral_cutoff_mc)) {
    const std::int64_t i_next = i + mul_frac(z.ipa.k_i, err);
    if (std::llabs(i_next) < max_power_frac) {
      i = i_next;
      z.err_integral += err;
    }
  }
  std::int64_t d = mul_frac(z.ipa.k_d, static_cast<std::int64_t>(err) - z.prev_err);
  const auto passive_ms = z.spec.passive_delay.count();
  d = passive_ms > 0 ? div_frac(d, passive_ms) : 0;
  z.prev_err = err;
  std::int64_t range = static_cast<std::int64_t>(sustainable) + frac_to_int(p + i + d);
  range = std::clamp<std::int64_t>(range, 0, max_allocatable);
  return static_cast<std::uint32_t>(range);
}

// power_allocator (gov_power_allocator.c, 6.1). Acts once per update, on the
// control trip's call. Below the switch-on trip: passive = 0, PID reset, all
// actors' targets 0 (applied only if the previous reading was at or above
// switch-on). Otherwise passive = 1 and:
//  - for each actor bound to the control trip: requested power r_i (its
//    power now), max power m_i = state2power(lower), weighted request
//    w_i * r_i >> 10 with w_i = 1024 when all weights are 0;
//  - budget from the PID against the control temperature;
//  - divvy up: g_i = round(wr_i * budget / sum wr) capped at m_i; the capped
//    surplus is shared out again in proportion to each actor's headroom
//    m_i - g_i (bounded by the total headroom);
//  - target_i = clamp(power2state(g_i), lower, upper), power2state being
//    the actor's driver's: the grant is normalised by the last load first.
void KernelThermal::power_allocator(Zone& z, std::size_t trip) {
  if (!z.trip_max_desired || trip != *z.trip_max_desired) return;
  if (z.trip_switch_on && z.temperature_mc < z.spec.trips[*z.trip_switch_on].temp.mc()) {
    const bool update = z.last_temperature_mc >= z.spec.trips[*z.trip_switch_on].temp.mc();
    z.passive = 0;
    z.err_integral = 0;
    z.prev_err = 0;
    z.ipa.active = false;
    for (auto& in : z.instances) {
      if (in.trip != *z.trip_max_desired) continue;
      in.target = 0;
      if (update) dirty_[in.cdev] = true;
    }
    return;
  }
  z.passive = 1;
  allocate_power(z, false);
}

// allocate_power and divvy_up_power (both kernels). `zero_request_gets_max`:
// when no actor requests any power, 6.1 divides by 1 (every grant 0, the
// deepest states); 6.13+ gives every actor its maximum power (see
// power_allocator_73).
void KernelThermal::allocate_power(Zone& z, bool zero_request_gets_max) {
  z.ipa.active = true;
  const std::int32_t control_mc = z.spec.trips[*z.trip_max_desired].temp.mc();

  int total_weight = 0;
  std::size_t actors = 0;
  for (const auto& in : z.instances)
    if (in.trip == *z.trip_max_desired) {
      total_weight += static_cast<int>(in.weight);
      ++actors;
    }
  if (actors == 0) return;
  std::vector<std::uint32_t> weighted(actors), max_power(actors), granted(actors);
  std::uint32_t total_weighted = 0;
  std::uint32_t max_allocatable = 0;
  std::size_t a = 0;
  for (const auto& in : z.instances) {
    if (in.trip != *z.trip_max_desired) continue;
    const std::uint32_t req = requested_power_mw(in.cdev);
    const std::int64_t weight = total_weight == 0 ? (1 << kFracBits) : in.weight;
    weighted[a] = static_cast<std::uint32_t>(frac_to_int(weight * req));
    max_power[a] = cdevs_[in.cdev].state_power_mw[in.lower];
    max_allocatable += max_power[a];
    total_weighted += weighted[a];
    ++a;
  }
  const std::uint32_t range = ipa_pid(z, control_mc, max_allocatable);

  if (zero_request_gets_max && total_weighted == 0)
    granted = max_power;
  else
    divvy_up_power(weighted, max_power, total_weighted, range, granted);

  a = 0;
  for (auto& in : z.instances) {
    if (in.trip != *z.trip_max_desired) continue;
    in.target = std::clamp(power2state(in.cdev, granted[a]), in.lower, in.upper);
    dirty_[in.cdev] = true;
    ++a;
  }
  z.ipa.power_range_mw = range;
  z.ipa.granted_mw = granted;
}

}  // namespace coolhand::sim
