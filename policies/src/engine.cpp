// Engine construction and the public API: compile() validates a PolicySpec
// and lays out every runtime structure once (so that step() never allocates),
// profile switching, and the order of the stages of one step. The stages
// themselves live in sensors.cpp, zones.cpp, controllers.cpp,
// escalation.cpp, arbitration.cpp and windows.cpp.
#include "coolhand/policy/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "engine_impl.h"

namespace coolhand::policy {
namespace {

using detail::SensorRt;
using Kind = SensorSpec::Kind;

// Capacities of the per-sensor sample rings. A fir input keeps the times its
// value changed over the last (taps-1) tap periods; a predictor keeps its
// input's readings inside the regression window. When readings come faster
// than that, the oldest are dropped (the fir then holds the oldest kept value
// further back; the predictor regresses over a shorter span).
constexpr std::size_t kFirChangesPerTap = 8;
constexpr std::size_t kPredictorSamples = 64;

// Merge `from` scaled by `factor` into `into`: summed for linear
// combinations, maxed for max/min.
void merge_gains(std::vector<std::pair<std::uint16_t, double>>& into,
                 const std::vector<std::pair<std::uint16_t, double>>& from, double factor,
                 bool sum) {
  for (const auto& entry : from) {
    const std::uint16_t e = entry.first;
    const double g = entry.second;
    auto it = std::find_if(into.begin(), into.end(), [e](const auto& p) { return p.first == e; });
    if (it == into.end()) {
      into.emplace_back(e, g * factor);
    } else if (sum) {
      it->second += g * factor;
    } else {
      it->second = std::max(it->second, g * factor);
    }
  }
}

// SensorRt::may_be_absent, in evaluation order (inputs first).
void mark_may_be_absent(std::vector<SensorRt>& sensors, const std::vector<SensorSpec>& specs,
                        const std::vector<std::uint16_t>& order) {
  for (std::uint16_t i : order) {
    SensorRt& s = sensors[i];
    if (s.kind == Kind::physical) {
      s.may_be_absent = specs[i].optional;
      continue;
    }
    const auto absent = [&](std::uint16_t in) { return sensors[in].may_be_absent; };
    const bool falls_back =
        s.kind == Kind::weighted_sum || s.kind == Kind::max || s.kind == Kind::min;
    s.may_be_absent = falls_back ? std::all_of(s.inputs.begin(), s.inputs.end(), absent)
                                 : std::any_of(s.inputs.begin(), s.inputs.end(), absent);
  }
}

// The largest factor by which a weighted_sum's fallback can scale its
// weights (sensors.cpp): the sum of all weights over the smallest sum the
// inputs that cannot be absent leave (or, when all may be, the smallest
// single weight). 1 when no input may be absent. Weights are > 0 there
// (validation).
double renormalising_bound(const SensorRt& s, const std::vector<SensorRt>& sensors) {
  double all_w = 0.0;
  double fixed_w = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  bool droppable = false;
  for (std::size_t j = 0; j < s.inputs.size(); ++j) {
    all_w += s.weights[j];
    if (sensors[s.inputs[j]].may_be_absent) {
      droppable = true;
      smallest = std::min(smallest, s.weights[j]);
    } else {
      fixed_w += s.weights[j];
    }
  }
  if (!droppable) return 1.0;
  const double least = fixed_w > 0.0 ? fixed_w : smallest;
  return least > 0.0 ? all_w / least : 1.0;
}

// Sensitivities used by the event windows: see docs/engine.md, "Windows".
void derive_dependencies(std::vector<SensorRt>& sensors, const std::vector<SensorSpec>& specs,
                         const std::vector<std::uint16_t>& order) {
  for (std::uint16_t i : order) {
    SensorRt& s = sensors[i];
    const SensorSpec& spec = specs[i];
    if (s.kind == Kind::physical) {
      s.gain = 1.0;
      s.leaves = {i};
      continue;
    }
    double gain = 0.0;
    const bool sum = s.kind == Kind::weighted_sum || s.kind == Kind::fir;
    const double fallback = s.kind == Kind::weighted_sum ? renormalising_bound(s, sensors) : 1.0;
    for (std::size_t j = 0; j < s.inputs.size(); ++j) {
      const SensorRt& in = sensors[s.inputs[j]];
      double factor = 1.0;
      if (s.kind == Kind::weighted_sum) {
        factor = std::abs(s.weights[j]) * fallback;
      } else if (s.kind == Kind::fir) {
        factor = 0.0;
        for (std::uint32_t k = 0; k < spec.taps; ++k)
          factor += std::abs(s.weights[j * spec.taps + k]);
      } else if (s.kind == Kind::predictor) {
        factor = 1.0 + static_cast<double>(spec.horizon.count()) /
                           static_cast<double>(spec.window.count());
      }
      gain = sum ? gain + factor * in.gain : std::max(gain, factor * in.gain);
      // An input this sensor cannot move with (a fir row of zero weights,
      // e.g. a policy's input left for the fit to fill) is no dependency:
      // its changes neither narrow windows nor cap poll intervals, and its
      // drift (a settling ema) schedules no steps.
      if (factor > 0.0) {
        s.leaves.insert(s.leaves.end(), in.leaves.begin(), in.leaves.end());
        merge_gains(s.drift_gains, in.drift_gains, factor, sum);
      }
    }
    std::sort(s.leaves.begin(), s.leaves.end());
    s.leaves.erase(std::unique(s.leaves.begin(), s.leaves.end()), s.leaves.end());
    s.gain = gain;
    if (s.kind == Kind::ema || s.kind == Kind::fir || s.kind == Kind::predictor ||
        s.kind == Kind::dequantise) {
      s.drift_gains.emplace_back(i, 1.0);
    }
  }
}

// A fir reads the history of the first fir before it in evaluation order
// that has the same inputs (in the same order), taps and tap_period.
void share_fir_histories(std::vector<SensorRt>& sensors, const std::vector<SensorSpec>& specs,
                         const std::vector<std::uint16_t>& order) {
  for (std::size_t a = 0; a < order.size(); ++a) {
    const std::uint16_t i = order[a];
    if (sensors[i].kind != Kind::fir) continue;
    for (std::size_t b = 0; b < a; ++b) {
      const std::uint16_t j = order[b];
      if (sensors[j].kind == Kind::fir && !sensors[j].fir_source &&
          sensors[j].inputs == sensors[i].inputs && specs[j].taps == specs[i].taps &&
          specs[j].tap_period == specs[i].tap_period) {
        sensors[i].fir_source = j;
        break;
      }
    }
  }
  for (std::uint16_t i : order) {
    if (sensors[i].kind != Kind::fir) continue;
    SensorRt& owner = sensors[sensors[i].fir_source.value_or(i)];
    owner.tap_weighed.resize(sensors[i].weights.size(), 0);
    for (std::size_t k = 0; k < sensors[i].weights.size(); ++k)
      if (sensors[i].weights[k] != 0.0) owner.tap_weighed[k] = 1;
  }
}

// Quantised sensors: a physical sensor whose readings are rounded to a
// quantum q flips from k*q to (k+1)*q where the true value crosses
// (k + 1/2)*q (plus the sensor's offset). Within a quantum the reading, and
// so a controller's error, does not move: a setpoint inside a quantum lets
// the loop rest anywhere in it, up to q/2 above the setpoint written. A
// setpoint on a flip point makes the error +-q/2 around it and the loop
// holds the true value at the flip, where the sensor's noise dithers the
// reading. So a pid or power_budget setpoint on a quantised input is moved
// down to the nearest flip point at or below the setpoint written.
std::int32_t dither_aware(std::int32_t setpoint_mc, std::int32_t quantum_mc,
                          std::int32_t offset_mc) {
  if (quantum_mc <= 0) return setpoint_mc;
  const std::int64_t q = quantum_mc;
  const std::int64_t raw2 = 2 * (static_cast<std::int64_t>(setpoint_mc) - offset_mc) - q;
  // k = floor((2 * raw - q) / (2 q)), the last quantum whose upper flip is <= raw.
  const std::int64_t k = raw2 >= 0 ? raw2 / (2 * q) : -((-raw2 + 2 * q - 1) / (2 * q));
  return static_cast<std::int32_t>(k * q + q / 2 + offset_mc);
}

std::size_t points_of(const ControllerSpec& c) {
  return c.kind == ControllerSpec::Kind::table ? 2 * c.table.size() : 2;
}

}  // namespace

Engine::Engine() : impl_(std::make_unique<Impl>()) {}
Engine::~Engine() = default;

CompileResult Engine::compile(const PolicySpec& spec) {
  CompileResult result;
  std::vector<std::uint16_t> order;
  result.errors = detail::validate(spec, order);
  if (!result.errors.empty()) return result;

  std::unique_ptr<Engine> engine(new Engine());
  Impl& m = *engine->impl_;
  m.spec = spec;
  m.order = std::move(order);

  std::map<std::string_view, std::uint16_t, std::less<>> sensor_ix, zone_ix, device_ix;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    sensor_ix.emplace(spec.sensors[i].name, static_cast<std::uint16_t>(i));
  }
  for (std::size_t i = 0; i < spec.zones.size(); ++i) {
    zone_ix.emplace(spec.zones[i].name, static_cast<std::uint16_t>(i));
  }
  for (std::size_t i = 0; i < spec.devices.size(); ++i) {
    device_ix.emplace(spec.devices[i].name, static_cast<std::uint16_t>(i));
  }

  m.sensors.resize(spec.sensors.size());
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    const SensorSpec& s = spec.sensors[i];
    SensorRt& r = m.sensors[i];
    r.kind = s.kind;
    r.weights = s.weights;
    r.offset_mc = s.offset.mc();
    for (const std::string& in : s.inputs) r.inputs.push_back(sensor_ix.at(in));
    if (s.kind == Kind::fir) {
      r.history.resize(s.inputs.size());
      for (auto& h : r.history) h.reset(kFirChangesPerTap * s.taps + 2);
      r.tap_seq.assign(s.inputs.size() * s.taps, 0);
      r.tap_held.assign(s.inputs.size() * s.taps, 0.0);
      for (double w : r.weights) r.abs_weights.push_back(std::abs(w));
    }
    if (s.kind == Kind::predictor) r.samples.reset(kPredictorSamples);
    if (s.kind == Kind::dequantise) r.dq_quantum = spec.sensors[r.inputs[0]].quantum.mc();
  }
  mark_may_be_absent(m.sensors, spec.sensors, m.order);
  derive_dependencies(m.sensors, spec.sensors, m.order);
  share_fir_histories(m.sensors, spec.sensors, m.order);

  m.zones.resize(spec.zones.size());
  for (std::size_t i = 0; i < spec.zones.size(); ++i) {
    const ZoneSpec& z = spec.zones[i];
    detail::ZoneRt& r = m.zones[i];
    r.sensor = sensor_ix.at(z.sensor);
    r.trips = z.trips;
    r.severities = z.severities;
    r.debounce.assign(z.trips.size(), 0);
    r.force_devices.resize(z.trips.size());
    for (std::size_t j = 0; j < z.trips.size(); ++j) {
      for (const std::string& d : z.trips[j].devices) r.force_devices[j].push_back(device_ix.at(d));
    }
  }

  m.devices.resize(spec.devices.size());
  for (std::size_t i = 0; i < spec.devices.size(); ++i) {
    const DeviceSpec& d = spec.devices[i];
    detail::DeviceRt& r = m.devices[i];
    r.max_level = d.max_level;
    r.power_mw = d.power_mw;
    r.max_step_up = d.max_step_up;
    r.max_step_down = d.max_step_down;
    r.min_dwell = d.min_dwell;
    r.release_dwell = d.release_dwell;
  }

  m.controllers.resize(spec.controllers.size());
  for (std::size_t i = 0; i < spec.controllers.size(); ++i) {
    const ControllerSpec& c = spec.controllers[i];
    detail::ControllerRt& r = m.controllers[i];
    r.kind = c.kind;
    auto z = zone_ix.find(c.input);
    r.input = z != zone_ix.end() ? m.zones[z->second].sensor : sensor_ix.at(c.input);
    r.safe_level = c.safe_level;
    for (const DeviceBinding& b : c.devices) {
      r.bindings.push_back(detail::BindingRt{.device = device_ix.at(b.device), .weight = b.weight});
    }
    r.rows = c.table;
    for (std::size_t j = 0; j < r.bindings.size(); ++j) {
      m.devices[r.bindings[j].device].bound.emplace_back(static_cast<std::uint16_t>(i),
                                                         static_cast<std::uint16_t>(j));
    }
  }

  m.compile_last_resorts();

  // One consumer per sensor that some zone or controller watches, with room
  // for every limit it can ever have.
  m.consumer_of_sensor.assign(spec.sensors.size(), std::nullopt);
  std::vector<std::size_t> capacity(spec.sensors.size(), 0);
  for (const detail::ZoneRt& z : m.zones) {
    capacity[z.sensor] += 2 * z.trips.size() + 2 * z.severities.size() + 2;  // + last resort
    if (!m.consumer_of_sensor[z.sensor]) {
      m.consumer_of_sensor[z.sensor] = static_cast<std::uint16_t>(m.consumers.size());
      m.consumers.emplace_back().sensor = z.sensor;
    }
  }
  for (std::size_t i = 0; i < m.controllers.size(); ++i) {
    const std::uint16_t s = m.controllers[i].input;
    capacity[s] += points_of(spec.controllers[i]);
    if (!m.consumer_of_sensor[s]) {
      m.consumer_of_sensor[s] = static_cast<std::uint16_t>(m.consumers.size());
      m.consumers.emplace_back().sensor = s;
    }
  }
  m.consumers_of.resize(spec.sensors.size());
  for (std::size_t ci = 0; ci < m.consumers.size(); ++ci) {
    detail::Consumer& c = m.consumers[ci];
    c.points.reserve(capacity[c.sensor]);
    for (std::uint16_t leaf : m.sensors[c.sensor].leaves) {
      m.consumers_of[leaf].push_back(static_cast<std::uint16_t>(ci));
    }
  }

  Decision& d = m.decision;
  d.devices.resize(spec.devices.size());
  d.zones.resize(spec.zones.size());
  d.windows.resize(spec.sensors.size());
  d.poll_intervals.assign(spec.sensors.size(), spec.sampling.max_interval);
  std::size_t trips = 0;
  for (const ZoneSpec& z : spec.zones) trips += z.trips.size();
  d.events.reserve(spec.sensors.size() + 3 * trips + spec.zones.size() + 1);
  d.actions.reserve(trips);

  if (!spec.default_profile.empty()) {
    for (std::size_t i = 0; i < spec.profiles.size(); ++i) {
      if (spec.profiles[i].name == spec.default_profile) m.profile = i;
    }
  }
  m.pending_profile = m.profile;
  m.apply_profile();

  result.engine = std::move(engine);
  return result;
}

// Effective parameters under the active profile: a controller override
// replaces the written threshold/setpoint, then the profile's limit_offset
// shifts every controller limit (thresholds, setpoints, switch_on, table
// rows). Device overrides replace min_level/limit_level. Zone trips and
// severities are not shifted: they describe the hardware, not a preference.
void Engine::Impl::apply_profile() {
  const ProfileSpec* p = profile ? &spec.profiles[*profile] : nullptr;
  const std::int32_t offset = p ? p->limit_offset.mc() : 0;
  for (std::size_t i = 0; i < controllers.size(); ++i) {
    const ControllerSpec& c = spec.controllers[i];
    const ControllerOverride* o = nullptr;
    if (p) {
      for (const ControllerOverride& co : p->controllers) {
        if (co.controller == c.name) o = &co;
      }
    }
    ControllerRt& r = controllers[i];
    r.enabled = o && o->enabled ? *o->enabled : true;
    r.threshold_mc = (o && o->threshold ? *o->threshold : c.threshold).mc() + offset;
    r.setpoint_mc = (o && o->setpoint ? *o->setpoint : c.setpoint).mc() + offset;
    if (c.kind == ControllerSpec::Kind::pid || c.kind == ControllerSpec::Kind::power_budget) {
      const SensorSpec& in = spec.sensors[r.input];
      if (in.kind == Kind::physical) {
        r.setpoint_mc = dither_aware(r.setpoint_mc, in.quantum.mc(), in.offset.mc());
      }
    }
    r.switch_on_mc = c.switch_on.mc() + offset;
    for (std::size_t j = 0; j < c.table.size(); ++j) {
      r.rows[j].up = c.table[j].up + MilliC(offset);
      r.rows[j].down = c.table[j].down + MilliC(offset);
    }
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceSpec& d = spec.devices[i];
    const DeviceOverride* o = nullptr;
    if (p) {
      for (const DeviceOverride& dov : p->devices) {
        if (dov.device == d.name) o = &dov;
      }
    }
    devices[i].min_level = o && o->min_level ? *o->min_level : d.min_level;
    devices[i].limit_level =
        o && o->limit_level ? *o->limit_level : d.limit_level.value_or(d.max_level);
  }
  rebuild_points();
}

// The limits each consumer sensor is compared against; see docs/engine.md.
void Engine::Impl::rebuild_points() {
  using CK = ControllerSpec::Kind;
  for (Consumer& c : consumers) c.points.clear();
  const auto add = [&](std::uint16_t sensor, std::int32_t x) {
    consumers[*consumer_of_sensor[sensor]].points.push_back(x);
  };
  for (const ZoneRt& z : zones) {
    for (const TripSpec& t : z.trips) {
      add(z.sensor, t.threshold.mc());
      add(z.sensor, (t.threshold - t.hysteresis).mc());
    }
    for (const SeverityStepSpec& s : z.severities) {
      add(z.sensor, s.threshold.mc());
      add(z.sensor, (s.threshold - s.hysteresis).mc());
    }
  }
  for (const detail::LastResortRt& r : last_resorts) {
    add(zones[r.zone].sensor, r.limit_mc);
    add(zones[r.zone].sensor, r.release_mc);
  }
  for (std::size_t i = 0; i < controllers.size(); ++i) {
    const ControllerRt& c = controllers[i];
    if (!c.enabled) continue;
    const ControllerSpec& cs = spec.controllers[i];
    switch (c.kind) {
      case CK::step_wise:
      case CK::bang_bang:
        add(c.input, c.threshold_mc);
        add(c.input, c.threshold_mc - cs.hysteresis.mc());
        break;
      case CK::table:
        for (const TableRow& r : c.rows) {
          add(c.input, r.up.mc());
          add(c.input, r.down.mc());
        }
        break;
      case CK::pid:
        add(c.input, c.setpoint_mc);
        add(c.input, c.setpoint_mc - cs.engage_below.mc());
        break;
      case CK::power_budget:
        add(c.input, c.setpoint_mc);
        add(c.input, c.switch_on_mc);
        break;
    }
  }
  for (Consumer& c : consumers) {
    std::sort(c.points.begin(), c.points.end());
    c.points.erase(std::unique(c.points.begin(), c.points.end()), c.points.end());
  }
}

const Decision& Engine::step(Time now) {
  Impl& m = *impl_;
  now = std::max(now, m.last_step);
  m.last_step = now;
  Decision& d = m.decision;
  d.at = now;
  d.events.clear();
  d.actions.clear();
  d.next_step.reset();

  if (m.profile_pending) {
    m.profile_pending = false;
    if (m.pending_profile != m.profile) {
      m.profile = m.pending_profile;
      m.apply_profile();
      d.events.push_back(Event{
          .kind = Event::Kind::profile_change,
          .index = static_cast<std::uint16_t>(m.profile.value_or(m.spec.profiles.size())),
          .detail = 0,
          .temperature = std::nullopt,
      });
    }
  }
  m.eval_sensors(now);
  m.eval_zones(now);
  m.eval_controllers(now);
  m.eval_last_resorts(now);
  m.arbitrate(now);
  m.compute_windows(now);
  return d;
}

std::optional<SensorId> Engine::sensor_id(std::string_view name) const {
  for (std::size_t i = 0; i < impl_->spec.sensors.size(); ++i) {
    if (impl_->spec.sensors[i].name == name) return SensorId{static_cast<std::uint16_t>(i)};
  }
  return std::nullopt;
}
std::optional<ZoneId> Engine::zone_id(std::string_view name) const {
  for (std::size_t i = 0; i < impl_->spec.zones.size(); ++i) {
    if (impl_->spec.zones[i].name == name) return ZoneId{static_cast<std::uint16_t>(i)};
  }
  return std::nullopt;
}
std::optional<DeviceId> Engine::device_id(std::string_view name) const {
  for (std::size_t i = 0; i < impl_->spec.devices.size(); ++i) {
    if (impl_->spec.devices[i].name == name) return DeviceId{static_cast<std::uint16_t>(i)};
  }
  return std::nullopt;
}
std::optional<ControllerId> Engine::controller_id(std::string_view name) const {
  for (std::size_t i = 0; i < impl_->spec.controllers.size(); ++i) {
    if (impl_->spec.controllers[i].name == name) {
      return ControllerId{static_cast<std::uint16_t>(i)};
    }
  }
  return std::nullopt;
}
const PolicySpec& Engine::spec() const {
  return impl_->spec;
}

// Readings for unknown ids or virtual sensors are ignored: the engine has no
// way to report an error here and must not crash on an adapter's mistake.
void Engine::set_sensor(SensorId id, MilliC value, Time now) {
  if (id.index >= impl_->sensors.size()) return;
  detail::SensorRt& s = impl_->sensors[id.index];
  if (s.kind != Kind::physical) return;
  if (s.raw_mc) {
    s.prev_reading = detail::Sample{s.raw_at, *s.raw_mc};
  } else {
    s.prev_reading.reset();
  }
  s.raw_mc = value.mc();
  s.raw_at = now;
  s.new_reading = true;
}

void Engine::set_sensor_unknown(SensorId id, Time now) {
  if (id.index >= impl_->sensors.size()) return;
  detail::SensorRt& s = impl_->sensors[id.index];
  if (s.kind != Kind::physical) return;
  s.raw_mc.reset();
  s.prev_reading.reset();
  s.raw_at = now;
  s.new_reading = true;
}

std::optional<MilliC> Engine::sensor_value(SensorId id) const {
  if (id.index >= impl_->sensors.size()) return std::nullopt;
  return impl_->sensors[id.index].value;
}

bool Engine::set_profile(std::string_view name) {
  Impl& m = *impl_;
  if (name.empty()) {
    m.pending_profile.reset();
    m.profile_pending = true;
    return true;
  }
  for (std::size_t i = 0; i < m.spec.profiles.size(); ++i) {
    if (m.spec.profiles[i].name == name) {
      m.pending_profile = i;
      m.profile_pending = true;
      return true;
    }
  }
  return false;
}

std::string_view Engine::profile() const {
  const Impl& m = *impl_;
  const std::optional<std::size_t>& p = m.profile_pending ? m.pending_profile : m.profile;
  return p ? std::string_view(m.spec.profiles[*p].name) : std::string_view();
}

void Engine::set_device_level(DeviceId id, std::uint32_t level, Time now) {
  if (id.index >= impl_->devices.size()) return;
  detail::DeviceRt& d = impl_->devices[id.index];
  d.level = std::min(level, d.max_level);
  d.level_since = now;
  impl_->decision.devices[id.index].level = d.level;
}

}  // namespace coolhand::policy
