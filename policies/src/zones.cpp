// Zones, the second stage of a step: trips, critical actions and the
// severity ladder of each zone, from the zone sensor's value.
//
// Rules, with T the zone sensor's value:
// - A trip is reached when T >= threshold and left when T < threshold -
//   hysteresis; in between it keeps its state. trip_up/trip_down events mark
//   the changes.
// - A trip with an action counts consecutive fresh readings with T >=
//   threshold (a reading below the threshold restarts the count). When the
//   count reaches debounce_samples the action fires: one ActionRequest and
//   one action_fired event. It fires once per excursion: not again until the
//   trip has been left. A fired force_deepest holds its devices at their
//   deepest allowed level until the trip is left.
// - Severity: the ladder climbs to the highest step whose threshold T has
//   reached; it descends one rung at a time while T < threshold - hysteresis
//   of the current rung. The zone's severity is its rung's level (none below
//   the first), the decision's the maximum over zones.
// - While the zone sensor is unknown, trip and severity states are kept as
//   they were (fired force_deepest actions keep holding) and debounce counts
//   restart.
#include <algorithm>
#include <cstdint>

#include "engine_impl.h"

namespace coolhand::policy {
namespace {

// The highest rung T has reached, else the current rung kept by hysteresis.
std::optional<std::size_t> next_rung(const std::vector<SeverityStepSpec>& steps,
                                     std::optional<std::size_t> rung, MilliC t) {
  std::optional<std::size_t> up;
  for (std::size_t j = steps.size(); j-- > 0;) {
    if (t >= steps[j].threshold) {
      up = j;
      break;
    }
  }
  if (up && (!rung || *up > *rung)) return up;
  while (rung && t < steps[*rung].threshold - steps[*rung].hysteresis) {
    rung = *rung == 0 ? std::nullopt : std::optional<std::size_t>(*rung - 1);
  }
  return rung;
}

}  // namespace

void Engine::Impl::eval_zones(Time /*now*/) {
  for (DeviceRt& d : devices) d.forced = false;
  decision.severity = Severity::none;
  for (std::size_t zi = 0; zi < zones.size(); ++zi) {
    ZoneRt& z = zones[zi];
    const SensorRt& s = sensors[z.sensor];
    const auto zone_index = static_cast<std::uint16_t>(zi);
    z.debouncing = false;
    if (s.value) {
      const MilliC t = *s.value;
      for (std::size_t j = 0; j < z.trips.size(); ++j) {
        const TripSpec& trip = z.trips[j];
        const std::uint32_t bit = 1U << j;
        if ((z.reached & bit) != 0 && t < trip.threshold - trip.hysteresis) {
          z.reached &= ~bit;
          z.fired &= ~bit;
          decision.events.push_back(Event{.kind = Event::Kind::trip_down,
                                          .index = zone_index,
                                          .detail = static_cast<std::uint16_t>(j),
                                          .temperature = t});
        } else if ((z.reached & bit) == 0 && t >= trip.threshold) {
          z.reached |= bit;
          decision.events.push_back(Event{.kind = Event::Kind::trip_up,
                                          .index = zone_index,
                                          .detail = static_cast<std::uint16_t>(j),
                                          .temperature = t});
        }
        if (t < trip.threshold) {
          z.debounce[j] = 0;
        } else if (s.fresh && z.debounce[j] < trip.debounce_samples) {
          ++z.debounce[j];
        }
        if (trip.action == TripAction::none || (z.fired & bit) != 0) continue;
        if (z.debounce[j] >= trip.debounce_samples) {
          z.fired |= bit;
          decision.actions.push_back(ActionRequest{.zone = ZoneId{zone_index},
                                                   .trip = static_cast<std::uint16_t>(j),
                                                   .action = trip.action});
          decision.events.push_back(Event{.kind = Event::Kind::action_fired,
                                          .index = zone_index,
                                          .detail = static_cast<std::uint16_t>(j),
                                          .temperature = t});
        } else if (z.debounce[j] > 0) {
          z.debouncing = true;
        }
      }
      const std::optional<std::size_t> rung = next_rung(z.severities, z.severity_step, t);
      if (rung != z.severity_step) {
        z.severity_step = rung;
        const Severity level = rung ? z.severities[*rung].level : Severity::none;
        decision.events.push_back(Event{.kind = Event::Kind::severity_change,
                                        .index = zone_index,
                                        .detail = static_cast<std::uint16_t>(level),
                                        .temperature = t});
      }
    } else {
      std::fill(z.debounce.begin(), z.debounce.end(), 0);
    }
    for (std::size_t j = 0; j < z.trips.size(); ++j) {
      if ((z.fired & (1U << j)) != 0 && z.trips[j].action == TripAction::force_deepest) {
        for (std::uint16_t d : z.force_devices[j]) devices[d].forced = true;
      }
    }
    ZoneState& out = decision.zones[zi];
    out.temperature = s.value;
    out.trips_reached = z.reached;
    out.severity = z.severity_step ? z.severities[*z.severity_step].level : Severity::none;
    decision.severity = std::max(decision.severity, out.severity);
  }
}

}  // namespace coolhand::policy
