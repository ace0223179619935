// ControlLoop: sampling, failure handling, scheduling, settling and
// actuation around the engine (rules in loop.h).
#include "coolhand/policy/loop.h"

#include <algorithm>

namespace coolhand::policy {

ControlLoop::ControlLoop(std::unique_ptr<Engine> engine, const std::vector<SensorId>& sensors,
                         LoopConfig config, LoopPorts ports)
    : engine_(std::move(engine)),
      config_(config),
      ports_(ports),
      applied_(engine_->spec().devices.size()) {
  slots_.reserve(sensors.size());
  for (const SensorId id : sensors) {
    Slot s;
    s.id = id;
    slots_.push_back(s);
  }
  config_.lost_after_failures = std::max<std::uint32_t>(config_.lost_after_failures, 1);
}

ControlLoop::~ControlLoop() = default;

Millis ControlLoop::lost_retry() const {
  return std::max(config_.sampling.min_interval,
                  std::min(config_.sampling.max_interval, kLostRetryCap));
}

bool ControlLoop::sensor_lost(std::size_t slot) const {
  const Slot& s = slots_[slot];
  return s.lost || !s.ever_read || !ports_.sensors.present(slot);
}

void ControlLoop::start(Time now) {
  for (std::size_t i = 0; i < slots_.size(); ++i) sample(i, now);
  step(now);
}

// A good reading: hand it to the engine and clear the failure state.
void ControlLoop::take(Slot& s, std::size_t slot, MilliC value, bool pushed, Time now) {
  if (s.lost) {
    s.lost = false;
    if (ports_.observer) ports_.observer->sensor_recovered(slot, value, now);
  }
  s.failures = 0;
  s.ever_read = true;
  s.last_sample = now;
  engine_->set_sensor(s.id, value, now);
  ++counters_.samples;
  if (pushed) ++counters_.pushed_samples;
  dirty_ = true;
  if (ports_.observer) ports_.observer->sampled(slot, value, pushed, now);
}

// Read one sensor through the port and apply the failure counting and
// lost/known transitions of loop.h.
void ControlLoop::sample(std::size_t slot, Time now) {
  Slot& s = slots_[slot];
  const bool rebind = s.lost || !ports_.sensors.present(slot);
  const SensorRead r = ports_.sensors.read(slot, rebind);
  if (r.value) {
    take(s, slot, *r.value, false, now);
    return;
  }
  s.last_sample = now;
  ++counters_.read_failures;
  ++s.failures;
  if (ports_.observer) ports_.observer->read_failed(slot, r.error, now);
  if (!s.lost && s.failures >= config_.lost_after_failures) {
    s.lost = true;
    ++counters_.sensors_lost;
    if (ports_.observer) ports_.observer->sensor_lost(slot, s.failures, r.error, now);
    engine_->set_sensor_unknown(s.id, now);
    dirty_ = true;
  }
  s.next_poll = now + (s.lost ? lost_retry() : config_.sampling.min_interval);
}

// The platform watches exactly `w` now: read the sensor once and hand the
// value on only when it is already outside `w` (platforms report at
// >= high and <= low). A failed read goes through sample() so failure
// counting and retries apply.
void ControlLoop::recheck(std::size_t slot, const Window& w, Time now) {
  const SensorRead r = ports_.sensors.read(slot, false);
  if (!r.value) {
    sample(slot, now);
    return;
  }
  if (ports_.observer) ports_.observer->rechecked(slot, *r.value, now);
  if (*r.value > w.low && *r.value < w.high) return;
  take(slots_[slot], slot, *r.value, false, now);
}

// From the last decision: send changed windows of pushed sensors and
// schedule the next read of polled ones.
void ControlLoop::schedule(Time now) {
  const SamplingSpec& sampling = config_.sampling;
  const Decision& d = *last_;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    const bool failing = !ports_.sensors.present(i) || s.failures > 0 || s.lost;
    if (failing) continue;  // sample() scheduled the retry
    if (ports_.sensors.delivery(i) == Delivery::pushed) {
      s.next_poll.reset();
      const Window& w = d.windows.at(s.id.index);
      const bool changed =
          !s.sent_window || s.sent_window->low != w.low || s.sent_window->high != w.high;
      if (changed) {
        s.sent_window = w;
        if (ports_.windows.watch(i, w)) recheck(i, w, now);
      }
      continue;
    }
    Millis interval = sampling.max_interval;
    if (s.id.index < d.poll_intervals.size()) interval = d.poll_intervals[s.id.index];
    interval = std::clamp(interval, sampling.min_interval, sampling.max_interval);
    s.next_poll = s.last_sample.value_or(now) + interval;
  }
}

// Write every bound device whose decided level differs from the applied
// one (or that the engine moved), then report actions.
void ControlLoop::apply(const Decision& d, Time now) {
  for (std::size_t dev = 0; dev < d.devices.size(); ++dev) {
    const DeviceDecision& dd = d.devices[dev];
    if (dd.changed && ports_.observer) ports_.observer->level_changed(dev, dd, now);
    if (!ports_.knobs.bound(dev)) continue;
    if (!dd.changed && applied_[dev] == dd.level) continue;
    const bool ok = ports_.knobs.apply(dev, dd.level);
    applied_[dev] = ok ? std::optional<std::uint32_t>(dd.level) : std::nullopt;
  }
  if (ports_.observer) {
    for (const ActionRequest& a : d.actions) ports_.observer->action(a, now);
  }
}

void ControlLoop::step(Time now) {
  if (last_step_ && now < *last_step_) now = *last_step_;
  const Decision& d = engine_->step(now);
  last_ = &d;
  last_step_ = now;
  dirty_ = false;
  ++counters_.steps;
  if (ports_.observer) ports_.observer->stepped(d, now);
  apply(d, now);
  schedule(now);
}

std::optional<Time> ControlLoop::tick(Time now) {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].next_poll && *slots_[i].next_poll <= now) sample(i, now);
  }
  const bool due = last_ && last_->next_step && *last_->next_step <= now;
  if (dirty_ || due || !last_) step(now);
  // A recheck after a new window may have found the value outside it:
  // settle now, but never loop unboundedly on a sensor that keeps moving.
  for (int i = 1; dirty_ && i < kMaxSettleSteps; ++i) step(now);
  std::optional<Time> wake = last_->next_step;
  if (dirty_ && (!wake || *wake > now + kMinWake)) wake = now + kMinWake;
  for (const Slot& s : slots_) {
    if (s.next_poll && (!wake || *s.next_poll < *wake)) wake = s.next_poll;
  }
  // Never ask for a wake-up in the past: that would spin the caller.
  if (wake && *wake <= now) wake = now + kMinWake;
  return wake;
}

void ControlLoop::push(std::size_t slot, MilliC value, Time now) {
  Slot& s = slots_[slot];
  if (s.failures > 0 || s.lost) return;  // recovering through reads
  take(s, slot, value, true, now);
}

void ControlLoop::sensor_gone(std::size_t slot, Time now) {
  Slot& s = slots_[slot];
  s.sent_window.reset();
  if (!s.lost) {
    s.lost = true;
    ++counters_.sensors_lost;
    if (ports_.observer) ports_.observer->sensor_lost(slot, s.failures, "hardware removed", now);
  }
  engine_->set_sensor_unknown(s.id, now);
  dirty_ = true;
  s.next_poll = now + lost_retry();
}

void ControlLoop::resync(Time now) {
  ++counters_.resyncs;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].sent_window.reset();
    sample(i, now);
  }
  for (std::size_t dev = 0; dev < applied_.size(); ++dev) {
    if (!ports_.knobs.bound(dev)) (void)ports_.knobs.rebind(dev);
  }
  step(now);
}

void ControlLoop::resume(Time now) {
  ++counters_.resumes;
  for (std::size_t dev = 0; dev < applied_.size(); ++dev) {
    if (!applied_[dev] || !ports_.knobs.bound(dev)) continue;
    if (!ports_.knobs.apply(dev, *applied_[dev])) applied_[dev].reset();
  }
  resync(now);
}

void ControlLoop::verify_devices() {
  for (std::size_t dev = 0; dev < applied_.size(); ++dev) {
    if (applied_[dev] && ports_.knobs.bound(dev)) ports_.knobs.verify(dev);
  }
}

void ControlLoop::restore_all() {
  for (std::size_t dev = 0; dev < applied_.size(); ++dev) {
    if (!ports_.knobs.bound(dev)) continue;
    ports_.knobs.restore(dev);
    applied_[dev].reset();
  }
}

void ControlLoop::seed_level(std::size_t device, std::uint32_t level, Time now) {
  engine_->set_device_level(DeviceId{static_cast<std::uint16_t>(device)}, level, now);
  applied_[device].reset();
}

bool ControlLoop::set_profile(std::string_view name) {
  if (!engine_->set_profile(name)) return false;
  dirty_ = true;
  return true;
}

}  // namespace coolhand::policy
