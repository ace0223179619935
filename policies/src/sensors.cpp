// Sensor evaluation, the first stage of a step. Sensors are evaluated in
// topological order so every virtual sensor sees its inputs' values of this
// step.
//
// Rules:
// - A physical sensor is known when it has a reading, the adapter has not
//   declared it lost, and (with stale_after > 0) the reading is no older than
//   stale_after. Its value is the reading plus `offset`.
// - A virtual sensor is unknown when any of its inputs is; time-dependent
//   state (ema, fir history, predictor samples) is reset then, and starts
//   again from the first known value.
// - The fallback for optional sensors (SensorSpec::optional, the policy's
//   `required: false`): a weighted_sum, max or min leaves out an unknown
//   input that may be absent for good (SensorRt::may_be_absent) and is
//   computed from the others, as long as one of them is known and every
//   input left out may be absent. A weighted_sum renormalises: the known
//   inputs' weights are scaled by (sum of all weights) / (sum of the known
//   ones), so the estimate keeps its total weight (validation makes every
//   weight of such a sum > 0). ema, fir and predictor have no fallback: they
//   are unknown with their input.
// - A sensor is "fresh" in a step when a new reading reached it (for ema, fir
//   and predictor also when their value moved with time). Freshness counts
//   samples for trip debounce; `trend` is the value change between the last
//   two fresh steps (step_wise uses it).
// - weighted_sum: sum(w_i * x_i) + offset; max/min: max/min(x_i) + offset.
// - ema: y += (x - y) * (1 - exp(-dt / tau)), with x taken as constant since
//   the previous step; y snaps to x once within 0.5 m°C so it settles.
// - fir: sum over inputs i and taps k of w[i*taps+k] * x_i(now - k*tap_period),
//   where x_i(t) is the value x_i had at the last step at or before t (held).
// - predictor: x + slope * horizon, the slope (m°C/ms) a least-squares fit
//   over the readings of x in (now - window, now]; zero with fewer than two.
//   Readings are thinned to about one per window/16 (a newer reading
//   replaces the newest sample when it is that close to the one before).
// - dequantise (input: a physical sensor with quantum q): a reading that
//   moves by exactly one quantum is a flip, and at that moment the true
//   value is where the two readings meet (halfway). Two flips in a row in
//   the same direction give the rate: (distance between them) / (time
//   between them); a flip against the previous direction (the value turned,
//   or noise dithers it across the flip point) gives rate 0. The value is
//   the last flip point moved on at that rate since the flip, but never
//   past the next flip point (the reading would have flipped): within q/2
//   of the reading. As time passes without a further
//   flip the true value is ever less likely to sit near the flip point
//   (noise would dither it across), so the value then relaxes towards the
//   reading: value = reading + (that point - reading) * exp(-t / tau), t the
//   time since the flip, tau the sensor's time_constant. A move of several
//   quanta at once, or the first reading, carries no flip: the value is the
//   reading. Plus offset.
// Each transition between known and unknown produces one sensor_known or
// sensor_unknown event. Sensors start out as known, so a sensor that has no
// reading at the first step is announced as unknown.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine_impl.h"

namespace coolhand::policy {
namespace {

using detail::SampleRing;
using detail::SensorRt;
using Kind = SensorSpec::Kind;

// The predictor keeps at most about this many samples per window.
constexpr std::int64_t kPredictorBuckets = 16;

// Every sensor value is clamped to ±kMaxValueMc (a million °C), so the sums
// and differences later stages form with validated spec values stay well
// inside 32 bits; NaN (from absurd but finite weights) reads as 0.
constexpr std::int32_t kMaxValueMc = 1'000'000'000;

std::int32_t to_mc(double v) {
  if (std::isnan(v)) return 0;
  return static_cast<std::int32_t>(
      std::clamp(std::round(v), -double{kMaxValueMc}, double{kMaxValueMc}));
}

std::int32_t to_mc(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, -kMaxValueMc, kMaxValueMc));
}

// Least-squares slope (m°C per ms) of the samples (0 with fewer than two),
// and the largest change of that slope as the oldest samples leave one by
// one. Sums run from the newest sample back, so every suffix's fit comes out
// of one pass; times are relative to the newest sample.
struct SlopeFit {
  double slope = 0.0;
  double drift = 0.0;
};

SlopeFit fit_slopes(const SampleRing& w) {
  SlopeFit fit;
  const std::size_t n = w.size();
  if (n < 2) return fit;
  const auto t_newest = static_cast<double>(w.back().t.count());
  double st = 0.0, sv = 0.0, stt = 0.0, stv = 0.0;
  double lo = 0.0, hi = 0.0;  // range of the suffix slopes (the last suffix has slope 0)
  for (std::size_t i = n; i-- > 0;) {
    const double t = static_cast<double>(w[i].t.count()) - t_newest;
    const double v = w[i].mc;
    st += t;
    sv += v;
    stt += t * t;
    stv += t * v;
    const auto m = static_cast<double>(n - i);
    const double den = m * stt - st * st;
    const double slope = den > 0.0 ? (m * stv - st * sv) / den : 0.0;
    if (i == 0) {
      fit.slope = slope;
    } else {
      lo = std::min(lo, slope);
      hi = std::max(hi, slope);
    }
  }
  fit.drift = std::max(std::abs(hi - fit.slope), std::abs(fit.slope - lo));
  return fit;
}

// A fir's history and taps at `now` (the inputs are known): each input's
// value is recorded when it changed, changes no tap can reach any more are
// dropped, and each tap's held value is the newest change at or before its
// time (the oldest kept change when none is). Tap times only move forward,
// so each tap resumes from the change it held at the last step (or the
// oldest kept one, if that has gone) and moves forward over the changes it
// has since passed. The change after the held one is when the tap's value
// next changes by itself (tap 0 follows the input); only taps some fir
// reading this history weighs count (SensorRt::tap_weighed).
void update_fir_taps(SensorRt& s, const std::vector<SensorRt>& sensors, const SensorSpec& spec,
                     Time now) {
  const std::uint32_t taps = spec.taps;
  const Millis period = spec.tap_period;
  const Time horizon = now - period * static_cast<std::int64_t>(taps - 1);
  std::optional<Time> next_change;
  for (std::size_t j = 0; j < s.inputs.size(); ++j) {
    SampleRing& h = s.history[j];
    const std::int32_t xj = sensors[s.inputs[j]].value->mc();
    if (h.empty() || h.back().mc != xj) h.push({now, xj});
    while (h.size() >= 2 && h[1].t <= horizon) h.pop_front();
    const std::uint64_t oldest = h.seq_front();
    const std::uint64_t newest = h.seq_back();
    std::uint64_t* held_seq = s.tap_seq.data() + j * taps;
    double* held = s.tap_held.data() + j * taps;
    for (std::uint32_t k = 0; k < taps; ++k) {
      const Time at = now - period * k;
      std::uint64_t seq = std::max(held_seq[k], oldest);
      while (seq < newest && h.at_seq(seq + 1).t <= at) ++seq;
      held_seq[k] = seq;
      held[k] = h.at_seq(seq).mc;
      if (k > 0 && seq < newest && s.tap_weighed[j * taps + k]) {
        const Time t = h.at_seq(seq + 1).t + period * k;
        if (!next_change || t < *next_change) next_change = t;
      }
    }
  }
  s.taps_next_change = next_change;
}

void reset_time_state(SensorRt& s) {
  s.slope = 0.0;
  s.drift = 0.0;
  s.slope_drift = 0.0;
  s.ema_valid = false;
  for (SampleRing& h : s.history) h.clear();
  s.samples.clear();
  s.next_change.reset();
  s.dq_input.reset();
  s.dq_dir = 0;
}

// dequantise at `now` with the input's value x (see the rules above).
double dequantise(SensorRt& s, const SensorSpec& spec, std::int32_t x, Time now) {
  const std::int32_t q = s.dq_quantum;
  if (s.dq_input && *s.dq_input != x) {
    const std::int64_t step = std::int64_t{x} - *s.dq_input;
    if (step == q || step == -q) {
      const int dir = step > 0 ? 1 : -1;
      const double at = (static_cast<double>(x) + *s.dq_input) / 2.0;
      s.slope = s.dq_dir == dir && now > s.dq_flip_at
                    ? (at - s.dq_flip_mc) / static_cast<double>((now - s.dq_flip_at).count())
                    : 0.0;
      s.dq_dir = dir;
      s.dq_flip_mc = at;
      s.dq_flip_at = now;
    } else {
      s.dq_dir = 0;
      s.slope = 0.0;
    }
  }
  s.dq_input = x;
  s.next_change.reset();
  s.drift = 0.0;
  if (s.dq_dir == 0) return x;
  // Moving at the rate inside the reading's quantum, and relaxing towards
  // the reading.
  const auto since = static_cast<double>((now - s.dq_flip_at).count());
  const double half = q / 2.0;
  const double moved = std::clamp(s.dq_flip_mc + s.slope * since, x - half, x + half);
  const double tau = static_cast<double>(spec.time_constant.count());
  const double v = x + (moved - x) * std::exp(-since / tau);
  // How far it can still move with no new reading: at rate 0 it only
  // approaches the reading; moving, anywhere in the reading's quantum.
  s.drift = s.slope == 0.0 ? std::abs(x - v) : std::max(x + half - v, v - (x - half));
  if (s.drift < 0.5) s.drift = 0.0;
  return v;
}

}  // namespace

void Engine::Impl::eval_sensors(Time now) {
  for (std::uint16_t i : order) {
    SensorRt& s = sensors[i];
    const SensorSpec& spec_s = spec.sensors[i];
    const std::optional<MilliC> before = s.value;
    bool fresh = false;
    std::optional<std::int32_t> v;

    if (s.kind == Kind::physical) {
      const bool stale =
          s.raw_mc && spec_s.stale_after > Millis{0} && now - s.raw_at > spec_s.stale_after;
      if (s.raw_mc && !stale) {
        v = to_mc(std::int64_t{*s.raw_mc} + s.offset_mc);
        fresh = s.new_reading;
        s.next_change.reset();
        if (spec_s.stale_after > Millis{0})
          s.next_change = s.raw_at + spec_s.stale_after + Millis{1};
      } else {
        s.next_change.reset();
      }
      s.new_reading = false;
    } else {
      const bool falls_back =
          s.kind == Kind::weighted_sum || s.kind == Kind::max || s.kind == Kind::min;
      bool known = true;
      bool any_known = false;
      for (std::uint16_t in : s.inputs) {
        const bool k = sensors[in].value.has_value();
        any_known = any_known || k;
        known = known && (k || (falls_back && sensors[in].may_be_absent));
        fresh = fresh || sensors[in].fresh;
      }
      known = known && any_known;
      if (!known) {
        reset_time_state(s);
        fresh = false;
      } else {
        const auto x = [&](std::size_t j) { return sensors[s.inputs[j]].value->mc(); };
        const auto has = [&](std::size_t j) { return sensors[s.inputs[j]].value.has_value(); };
        switch (s.kind) {
          case Kind::physical:
            break;
          case Kind::weighted_sum: {
            double sum = 0.0;
            double all_w = 0.0;
            double known_w = 0.0;
            for (std::size_t j = 0; j < s.inputs.size(); ++j) {
              all_w += s.weights[j];
              if (!has(j)) continue;
              known_w += s.weights[j];
              sum += s.weights[j] * x(j);
            }
            if (known_w != all_w) sum *= all_w / known_w;  // the fallback: renormalised
            v = to_mc(sum + s.offset_mc);
            break;
          }
          case Kind::max:
          case Kind::min: {
            std::optional<std::int32_t> r;
            for (std::size_t j = 0; j < s.inputs.size(); ++j) {
              if (!has(j)) continue;
              r = !r ? x(j) : s.kind == Kind::max ? std::max(*r, x(j)) : std::min(*r, x(j));
            }
            v = to_mc(static_cast<double>(r.value_or(0)) + s.offset_mc);
            break;
          }
          case Kind::ema: {
            const double in = x(0);
            if (!s.ema_valid) {
              s.ema_mc = in;
              s.ema_valid = true;
            } else if (now > s.ema_at) {
              const double dt = static_cast<double>((now - s.ema_at).count());
              const double tau = static_cast<double>(spec_s.time_constant.count());
              s.ema_mc += (in - s.ema_mc) * (1.0 - std::exp(-dt / tau));
            }
            if (std::abs(in - s.ema_mc) < 0.5) s.ema_mc = in;
            s.ema_at = now;
            s.drift = std::abs(in - s.ema_mc);
            v = to_mc(s.ema_mc + s.offset_mc);
            break;
          }
          case Kind::fir: {
            if (!s.fir_source) update_fir_taps(s, sensors, spec_s, now);
            const SensorRt& src = s.fir_source ? sensors[*s.fir_source] : s;
            const std::uint32_t taps = spec_s.taps;
            const double* w = s.weights.data();
            const double* abs_w = s.abs_weights.data();
            const double* held = src.tap_held.data();
            // Values are whole m°C within ±1e9, so held values and their
            // differences are exact as doubles: the same terms as in int32.
            double sum = 0.0;
            double drift = 0.0;
            for (std::size_t j = 0; j < s.inputs.size(); ++j) {
              const double xj = x(j);
#pragma GCC unroll 4
              for (std::uint32_t k = 0; k < taps; ++k, ++w, ++abs_w, ++held) {
                sum += *w * *held;
                drift += *abs_w * std::abs(xj - *held);
              }
            }
            s.drift = drift;
            s.next_change = src.taps_next_change;
            v = to_mc(sum + s.offset_mc);
            break;
          }
          case Kind::dequantise:
            v = to_mc(dequantise(s, spec_s, x(0), now) + s.offset_mc);
            break;
          case Kind::predictor: {
            SampleRing& w = s.samples;
            bool changed = false;
            if (sensors[s.inputs[0]].fresh || w.empty()) {
              // Readings closer than window/kPredictorBuckets to the one
              // before the newest replace the newest, so the regression
              // keeps a bounded number of samples spread over the window.
              const Millis bucket = spec_s.window / kPredictorBuckets;
              if (w.size() >= 2 && now - w[w.size() - 2].t < bucket) w.pop_back();
              w.push({now, x(0)});
              changed = true;
            }
            while (w.size() > 1 && w[0].t <= now - spec_s.window) {
              w.pop_front();
              changed = true;
            }
            if (changed) {
              const SlopeFit fit = fit_slopes(w);
              s.slope = fit.slope;
              s.slope_drift = fit.drift;
            }
            s.drift = s.slope_drift * static_cast<double>(spec_s.horizon.count());
            if (w.size() >= 2) {
              s.next_change = w[0].t + spec_s.window;
            } else {
              s.next_change.reset();
            }
            v = to_mc(x(0) + s.slope * static_cast<double>(spec_s.horizon.count()) + s.offset_mc);
            break;
          }
        }
        if (s.kind == Kind::ema || s.kind == Kind::fir || s.kind == Kind::predictor ||
            s.kind == Kind::dequantise) {
          fresh = fresh || !before || before->mc() != *v;
        }
      }
    }

    s.value = v ? std::optional<MilliC>(MilliC(*v)) : std::nullopt;
    s.fresh = fresh;
    if (fresh && v) {
      s.trend_mc = s.prev_fresh_mc ? *v - *s.prev_fresh_mc : 0;  // |values| <= 1e9
      s.prev_fresh_mc = v;
    }
    if (!v) {
      s.prev_fresh_mc.reset();
      s.trend_mc = 0;
    }
    const bool known = v.has_value();
    if (known != s.reported_known) {
      s.reported_known = known;
      decision.events.push_back(Event{
          .kind = known ? Event::Kind::sensor_known : Event::Kind::sensor_unknown,
          .index = i,
          .detail = 0,
          .temperature = s.value,
      });
    }
  }
}

}  // namespace coolhand::policy
