// What the engine wants next, the last stage of a step: an event window and
// a poll interval per physical sensor, and the next time a step is needed
// without any new reading. docs/engine.md states the rules with examples.
//
// Limits. Every value at which some decision can change is a point x
// splitting a consumer sensor's values into (-inf, x) and [x, +inf): trip
// thresholds and their leave values (threshold - hysteresis), severity
// thresholds and leave values, controller thresholds and threshold -
// hysteresis, table rows' up and down, pid setpoint and setpoint -
// engage_below, power_budget setpoint and switch_on.
//
// Windows. For a physical sensor p with value v (offset included):
// - the half-width is fine_granularity when some consumer depending on p has
//   a point within near_distance of its value, else coarse_granularity;
// - for p's own points: high <= (nearest point above v) - 1 and low >=
//   (nearest point at or below v), so any crossing is outside the window;
// - for a virtual consumer s with gain G (|change of s| <= G * largest change
//   of its physical inputs) and room d = min(room above, room below): the
//   half-width is at most floor(d / G), so no combination of input changes
//   inside their windows moves s across a point.
// The window is reported in the adapter's units (offset removed). An unknown
// sensor gets the full range.
//
// Poll intervals (sensors that cannot send events). With dist the distance
// from p's value to the nearest point that concerns it (in p's units, as
// above), interval = min_interval + (max_interval - min_interval) *
// clamp((dist - fine) / (near_distance + coarse - fine), 0, 1); then no
// longer than the time the sensor needs to reach its window's nearer edge at
// its last rate of change, stale_after / 2, the period of a time-driven
// controller (step_wise, pid, power_budget) that is throttling from it, a quarter of a predictor's
// window, and min_interval while a trip action on it is debouncing; finally clamped to
// [min_interval, max_interval]. Unknown sensors get min_interval; virtual ones
// max_interval (the field is meaningful for physical sensors only).
//
// next_step. The earliest of: what controllers and arbitration asked for;
// when a physical reading turns stale; one min_interval ahead while a trip
// action is debouncing (the adapter should take fresh readings then); and,
// for a consumer whose drifting inputs (ema, fir, predictor, dequantise) could still move
// it further than its room to the nearest point (sum of gain * drift bound >
// room), the next time one of them changes by itself: a fir's held sample
// sliding past a tap, a predictor's sample leaving the window, or one
// min_interval ahead for a settling ema or a moving dequantise. With everything cool, or settled,
// or far from every limit, there is no next_step at all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine_impl.h"

namespace coolhand::policy {
namespace {

constexpr std::int64_t kFar = std::numeric_limits<std::int64_t>::max() / 4;

std::int32_t clamp32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(
      v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

void measure(detail::Consumer& c, std::int32_t v, std::int64_t near_distance) {
  const auto above = std::upper_bound(c.points.begin(), c.points.end(), v);
  c.d_above = above == c.points.end() ? kFar : std::int64_t{*above} - 1 - v;
  c.d_below = above == c.points.begin() ? kFar : std::int64_t{v} - *(above - 1);
  c.near = c.d_above + 1 <= near_distance || c.d_below <= near_distance;
}

}  // namespace

void Engine::Impl::compute_windows(Time now) {
  const SamplingSpec& sp = spec.sampling;
  const std::int64_t fine = sp.fine_granularity.mc();
  const std::int64_t coarse = sp.coarse_granularity.mc();

  for (Consumer& c : consumers) {
    const SensorRt& s = sensors[c.sensor];
    c.known = s.value.has_value();
    if (c.known) measure(c, s.value->mc(), sp.near_distance.mc());
  }

  // Steps needed with no new reading: a reading turning stale, and drifting
  // sensors that could carry a consumer across a limit.
  for (const SensorRt& s : sensors) {
    if (s.kind == SensorSpec::Kind::physical && s.next_change) want_step(*s.next_change);
  }
  for (const Consumer& c : consumers) {
    if (!c.known) continue;
    double drift = 0.0;
    std::optional<Time> when;
    for (const auto& [e, g] : sensors[c.sensor].drift_gains) {
      const SensorRt& d = sensors[e];
      if (!d.value || !(d.drift > 0.0)) continue;
      drift += g * d.drift;
      const Time t = d.kind == SensorSpec::Kind::ema || !d.next_change ? now + sp.min_interval
                                                                       : *d.next_change;
      if (!when || t < *when) when = t;
    }
    if (when && drift > static_cast<double>(std::min(c.d_above, c.d_below))) want_step(*when);
  }
  for (const ZoneRt& z : zones) {
    if (z.debouncing) want_step(now + sp.min_interval);
  }

  // Windows and the base poll interval.
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    SensorRt& p = sensors[i];
    decision.windows[i] = Window{};
    if (p.kind != SensorSpec::Kind::physical) {
      decision.poll_intervals[i] = sp.max_interval;
      continue;
    }
    decision.poll_intervals[i] = sp.min_interval;
    if (!p.value) continue;
    const std::int64_t v = p.value->mc();
    std::int64_t lo = std::numeric_limits<std::int64_t>::min() / 4;
    std::int64_t hi = std::numeric_limits<std::int64_t>::max() / 4;
    std::int64_t dist = kFar;
    bool near = false;
    for (std::uint16_t ci : consumers_of[i]) {
      const Consumer& c = consumers[ci];
      if (!c.known) continue;
      near = near || c.near;
      if (c.sensor == i) {
        hi = std::min(hi, v + c.d_above);
        lo = std::max(lo, v - c.d_below);
        dist = std::min({dist, c.d_above + 1, c.d_below});
      } else {
        const double g = sensors[c.sensor].gain;
        if (!(g > 0.0)) continue;
        const double room = static_cast<double>(std::min(c.d_above, c.d_below));
        const auto delta = static_cast<std::int64_t>(std::floor(room / g));
        hi = std::min(hi, v + delta);
        lo = std::max(lo, v - delta);
        dist = std::min(dist, delta);
      }
    }
    const std::int64_t half = near ? fine : coarse;
    const std::int64_t low = std::max(v - half, lo) - p.offset_mc;
    const std::int64_t high = std::min(v + half, hi) - p.offset_mc;
    decision.windows[i] = Window{MilliC(clamp32(low)), MilliC(clamp32(high))};

    const double span = static_cast<double>(sp.near_distance.mc() + coarse - fine);
    double ratio = 1.0;
    if (dist < kFar) {
      ratio = span > 0.0 ? std::clamp(static_cast<double>(dist - fine) / span, 0.0, 1.0)
                         : (dist > fine ? 1.0 : 0.0);
    }
    double interval_ms = static_cast<double>(sp.min_interval.count()) +
                         ratio * static_cast<double>((sp.max_interval - sp.min_interval).count());
    if (p.prev_reading && p.raw_mc && p.raw_at > p.prev_reading->t) {
      const double rate =
          std::abs(static_cast<double>(std::int64_t{*p.raw_mc} - p.prev_reading->mc)) /
          // In double: times from a recording may be any int64, and their
          // difference overflows (fuzz_sim_recording found it).
          (static_cast<double>(p.raw_at.count()) - static_cast<double>(p.prev_reading->t.count()));
      const std::int64_t raw = *p.raw_mc;
      const auto edge = static_cast<double>(std::min(high - raw, raw - low));
      if (rate > 0.0) interval_ms = std::min(interval_ms, std::max(edge, 0.0) / rate);
    }
    const Millis stale = spec.sensors[i].stale_after;
    if (stale > Millis{0}) {
      interval_ms = std::min(interval_ms, static_cast<double>(stale.count()) / 2.0);
    }
    decision.poll_intervals[i] = Millis(static_cast<std::int64_t>(interval_ms));
  }

  // Caps from elements that need regular readings.
  const auto cap = [&](std::uint16_t sensor, Millis limit) {
    for (std::uint16_t leaf : sensors[sensor].leaves) {
      if (sensors[leaf].value) {
        decision.poll_intervals[leaf] = std::min(decision.poll_intervals[leaf], limit);
      }
    }
  };
  for (std::size_t ci = 0; ci < controllers.size(); ++ci) {
    const ControllerRt& c = controllers[ci];
    if (c.kind == ControllerSpec::Kind::table || c.kind == ControllerSpec::Kind::bang_bang) {
      continue;
    }
    bool throttling = c.engaged;
    for (const detail::BindingRt& b : c.bindings) throttling = throttling || b.request > 0;
    if (throttling && !c.safe) cap(c.input, spec.controllers[ci].period);
  }
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    if (sensors[i].kind == SensorSpec::Kind::predictor) {
      cap(sensors[i].inputs[0], spec.sensors[i].window / 4);
    }
  }
  for (const ZoneRt& z : zones) {
    if (z.debouncing) cap(z.sensor, sp.min_interval);
  }
  for (Millis& m : decision.poll_intervals) m = std::clamp(m, sp.min_interval, sp.max_interval);
}

}  // namespace coolhand::policy
