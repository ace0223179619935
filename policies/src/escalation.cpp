// Last resort, between the controllers and arbitration: a zone whose
// controllers have run out of throttle takes the zone's other devices too.
//
// Rules, for each zone with a last resort, T the zone sensor's value:
// - The zone's controllers are those whose input is the zone's sensor or a
//   virtual sensor computed from it. The devices they drive, leaving out the
//   last resort's own devices, are "saturated" when each is at its deepest
//   allowed level (its effective limit_level) as last applied. A disabled
//   controller drives nothing; with no driven device the zone is saturated.
// - Escalate: while T >= limit and the driven devices are saturated, one
//   more level is taken every `hold` (the first after the condition has held
//   for `hold`). The level taken is, over the last resort's devices not yet
//   at their deepest allowed level, the next one that loses the least
//   performance per mW saved ((performance[l] - performance[l+1]) /
//   (power_mw[l] - power_mw[l+1]); a level that saves no power comes last;
//   ties go to the device listed first).
// - Release: while levels are taken and T < limit - hysteresis, or T < limit
//   and some driven device is shallower than its deepest (the controllers
//   have headroom again), the level taken last is given back every `hold`.
//   Between the two conditions (the hysteresis band, or T >= limit with
//   unsaturated controllers) the levels are kept and the clock restarts.
// - While T is unknown, levels are kept and the clock restarts.
// - Each device's last-resort level is a floor in arbitration, like a
//   controller's request (rate limits and dwell apply); the decision marks
//   a device `escalated` while that floor is deeper than every controller's
//   request. The engine asks for a step when the pending condition's `hold`
//   ends, and the limit and limit - hysteresis are window points of the zone
//   sensor, so a sleeping daemon wakes when T crosses them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "engine_impl.h"

namespace coolhand::policy {
namespace detail {

void validate_last_resorts(const PolicySpec& spec, std::vector<SpecError>& errors) {
  constexpr std::int64_t kMaxMc = 100'000'000;  // ±100000 °C, as for every temperature
  constexpr std::int64_t kMaxMs = 1'000'000'000'000;
  for (std::size_t i = 0; i < spec.zones.size(); ++i) {
    if (!spec.zones[i].last_resort) continue;
    const LastResortSpec& r = *spec.zones[i].last_resort;
    const std::string path = "zones[" + std::to_string(i) + "].last_resort";
    const auto error = [&](std::string key, std::string message) {
      errors.push_back(SpecError{path, std::move(key), std::move(message)});
    };
    if (r.hysteresis < MilliC{0}) error("hysteresis", "must be >= 0");
    if (r.hold <= Millis{0}) error("hold", "must be > 0");
    if (r.hold.count() > kMaxMs) error("hold", "must be at most 1000000000000 ms");
    if (std::abs(static_cast<std::int64_t>(r.limit.mc())) > kMaxMc) {
      error("limit", "must be within ±100000 °C");
    }
    if (std::abs(static_cast<std::int64_t>(r.hysteresis.mc())) > kMaxMc) {
      error("hysteresis", "must be within ±100000 °C");
    }
    if (r.devices.empty()) error("devices", "a last resort needs at least one device");
    for (std::size_t k = 0; k < r.devices.size(); ++k) {
      const std::string item = "devices[" + std::to_string(k) + "]: ";
      const auto d = std::find_if(spec.devices.begin(), spec.devices.end(),
                                  [&](const DeviceSpec& x) { return x.name == r.devices[k]; });
      if (d == spec.devices.end()) {
        error("devices", item + "unknown device \"" + r.devices[k] + "\"");
        continue;
      }
      if (std::find(r.devices.begin(), r.devices.begin() + static_cast<std::ptrdiff_t>(k),
                    r.devices[k]) != r.devices.begin() + static_cast<std::ptrdiff_t>(k)) {
        error("devices", item + "device \"" + r.devices[k] + "\" is listed twice");
        continue;
      }
      if (d->power_mw.empty() || d->performance.empty()) {
        error("devices", item + "device \"" + r.devices[k] +
                             "\" needs power_mw and performance tables (the last resort "
                             "orders its levels by performance lost per watt saved)");
      }
    }
  }
}

}  // namespace detail

void Engine::Impl::compile_last_resorts() {
  for (std::size_t zi = 0; zi < spec.zones.size(); ++zi) {
    if (!spec.zones[zi].last_resort) continue;
    const LastResortSpec& s = *spec.zones[zi].last_resort;
    detail::LastResortRt r;
    r.zone = static_cast<std::uint16_t>(zi);
    r.limit_mc = s.limit.mc();
    r.release_mc = (s.limit - s.hysteresis).mc();
    r.hold = s.hold;
    // Sensors computed from the zone's sensor (inputs come first in `order`).
    std::vector<bool> from_zone(sensors.size(), false);
    for (const std::uint16_t i : order) {
      from_zone[i] = i == zones[zi].sensor;
      for (const std::uint16_t in : sensors[i].inputs) from_zone[i] = from_zone[i] || from_zone[in];
    }
    for (std::size_t ci = 0; ci < controllers.size(); ++ci) {
      if (from_zone[controllers[ci].input]) r.controllers.push_back(static_cast<std::uint16_t>(ci));
    }
    std::size_t total_levels = 0;
    for (const std::string& name : s.devices) {
      for (std::size_t di = 0; di < spec.devices.size(); ++di) {
        if (spec.devices[di].name != name) continue;
        const DeviceSpec& d = spec.devices[di];
        r.candidates.push_back(static_cast<std::uint16_t>(di));
        r.cost_at.push_back(r.cost.size());
        for (std::uint32_t l = 0; l < d.max_level; ++l) {
          const double lost = d.performance[l] - d.performance[l + 1];
          const double saved_mw =
              static_cast<double>(d.power_mw[l]) - static_cast<double>(d.power_mw[l + 1]);
          r.cost.push_back(saved_mw > 0 ? lost / saved_mw
                                        : std::numeric_limits<double>::infinity());
        }
        total_levels += d.max_level;
      }
    }
    r.levels.assign(r.candidates.size(), 0);
    r.taken.reserve(total_levels);
    last_resorts.push_back(std::move(r));
  }
}

namespace {

// The driven devices are all at their deepest allowed level.
bool saturated(const detail::LastResortRt& r, const std::vector<detail::ControllerRt>& controllers,
               const std::vector<detail::DeviceRt>& devices) {
  for (const std::uint16_t ci : r.controllers) {
    if (!controllers[ci].enabled) continue;
    for (const detail::BindingRt& b : controllers[ci].bindings) {
      if (std::find(r.candidates.begin(), r.candidates.end(), b.device) != r.candidates.end()) {
        continue;
      }
      if (devices[b.device].level < devices[b.device].limit_level) return false;
    }
  }
  return true;
}

// The candidate whose next level costs the least performance per mW saved,
// if any can go deeper.
std::optional<std::size_t> cheapest_next(const detail::LastResortRt& r,
                                         const std::vector<detail::DeviceRt>& devices) {
  std::optional<std::size_t> best;
  double best_cost = 0.0;
  for (std::size_t c = 0; c < r.candidates.size(); ++c) {
    const std::uint32_t l = r.levels[c];
    if (l >= devices[r.candidates[c]].limit_level) continue;
    const double cost = r.cost[r.cost_at[c] + l];
    if (!best || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace

void Engine::Impl::eval_last_resorts(Time now) {
  for (DeviceRt& d : devices) d.escalated = 0;
  for (detail::LastResortRt& r : last_resorts) {
    const SensorRt& s = sensors[zones[r.zone].sensor];
    int want = 0;
    std::optional<std::size_t> next;
    if (s.value) {
      const std::int32_t t = s.value->mc();
      const bool full = saturated(r, controllers, devices);
      if (t >= r.limit_mc && full) {
        next = cheapest_next(r, devices);
        if (next) want = 1;
      } else if (!r.taken.empty() && (t < r.release_mc || (!full && t < r.limit_mc))) {
        want = -1;
      }
    }
    if (want != r.pending) {
      r.pending = want;
      r.since = now;
    }
    if (want != 0 && now >= r.since + r.hold) {
      if (want > 0) {
        ++r.levels[*next];
        r.taken.push_back(static_cast<std::uint16_t>(*next));
      } else {
        --r.levels[r.taken.back()];
        r.taken.pop_back();
        if (r.taken.empty()) r.pending = 0;
      }
      r.since = now;
    }
    if (r.pending != 0) want_step(r.since + r.hold);
    for (std::size_t c = 0; c < r.candidates.size(); ++c) {
      DeviceRt& d = devices[r.candidates[c]];
      d.escalated = std::max(d.escalated, r.levels[c]);
    }
    decision.zones[r.zone].last_resort_levels = static_cast<std::uint32_t>(r.taken.size());
  }
}

}  // namespace coolhand::policy
