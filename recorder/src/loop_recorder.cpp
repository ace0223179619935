// LoopRecorder: the recording decorators around a ControlLoop's ports and
// observer (rules in loop_recorder.h).
#include "coolhand/recorder/loop_recorder.h"

#include <algorithm>

namespace coolhand::recorder {

using policy::MilliC;
using policy::Time;

namespace {

std::uint16_t u16(std::size_t v) {
  return static_cast<std::uint16_t>(v);
}

// Saturate a (possibly unbounded) window edge into an i32 field.
std::int32_t edge(MilliC v) {
  return v.mc();
}

}  // namespace

struct LoopRecorder::Taps final : policy::SensorPort,
                                  policy::KnobPort,
                                  policy::WindowPort,
                                  policy::LoopObserver {
  Taps(Ring& r, policy::LoopPorts inner_ports, std::size_t slots)
      : ring(r), inner(inner_ports), sensor_state(slots, kUnknownState) {}

  static constexpr std::uint32_t kUnknownState = 0xFFFFFFFFU;

  Ring& ring;
  policy::LoopPorts inner;
  const policy::Engine* engine = nullptr;
  // Last answers of present/delivery (per slot) and bound (per device);
  // mutable: the ports' const queries record changes.
  mutable std::vector<std::uint32_t> sensor_state;
  mutable std::vector<std::uint32_t> bound_state;
  std::vector<std::uint16_t> virtual_ids;

  void bind(const policy::Engine& e) {
    engine = &e;
    const policy::PolicySpec& spec = e.spec();
    bound_state.assign(spec.devices.size(), kUnknownState);
    for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
      if (spec.sensors[i].kind != policy::SensorSpec::Kind::physical) virtual_ids.push_back(u16(i));
    }
  }

  // -- SensorPort
  policy::SensorRead read(std::size_t slot, bool rebind) override {
    const policy::SensorRead r = inner.sensors.read(slot, rebind);
    const std::uint32_t flags = (rebind ? kReadRebind : 0U) | (r.value ? kReadOk : 0U);
    ring.put(Kind::port_read, u16(slot), flags, 0, r.value ? r.value->mc() : kNoValue);
    return r;
  }
  void note_state(std::size_t slot) const {
    const bool present = inner.sensors.present(slot);
    const bool pushed = inner.sensors.delivery(slot) == policy::Delivery::pushed;
    const std::uint32_t s = (present ? kStatePresent : 0U) | (pushed ? kStatePushed : 0U);
    if (sensor_state[slot] == s) return;
    sensor_state[slot] = s;
    ring.put(Kind::port_sensor_state, u16(slot), s);
  }
  [[nodiscard]] bool present(std::size_t slot) const override {
    note_state(slot);
    return (sensor_state[slot] & kStatePresent) != 0;
  }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    note_state(slot);
    return (sensor_state[slot] & kStatePushed) != 0 ? policy::Delivery::pushed
                                                    : policy::Delivery::polled;
  }

  // -- KnobPort
  [[nodiscard]] bool bound(std::size_t device) const override {
    const std::uint32_t b = inner.knobs.bound(device) ? 1 : 0;
    if (bound_state[device] != b) {
      bound_state[device] = b;
      ring.put(Kind::port_bound, u16(device), b);
    }
    return b != 0;
  }
  bool rebind(std::size_t device) override {
    const bool found = inner.knobs.rebind(device);
    ring.put(Kind::port_rebind, u16(device), found ? 1 : 0);
    return found;
  }
  bool apply(std::size_t device, std::uint32_t level) override {
    const bool ok = inner.knobs.apply(device, level);
    ring.put(Kind::port_apply, u16(device), level, 0, ok ? 1 : 0);
    return ok;
  }
  void verify(std::size_t device) override {
    ring.put(Kind::port_verify, u16(device));
    inner.knobs.verify(device);
  }
  void restore(std::size_t device) override {
    ring.put(Kind::port_restore, u16(device));
    inner.knobs.restore(device);
  }

  // -- WindowPort
  bool watch(std::size_t slot, const policy::Window& w) override {
    const bool ok = inner.windows.watch(slot, w);
    ring.put(Kind::port_watch, u16(slot), ok ? 1 : 0, 0, edge(w.low), edge(w.high));
    return ok;
  }

  // -- LoopObserver: recorded, then passed on to the caller's observer.
  void sampled(std::size_t slot, MilliC value, bool pushed, Time now) override {
    if (inner.observer) inner.observer->sampled(slot, value, pushed, now);
  }
  void rechecked(std::size_t slot, MilliC value, Time now) override {
    if (inner.observer) inner.observer->rechecked(slot, value, now);
  }
  void read_failed(std::size_t slot, std::string_view why, Time now) override {
    if (inner.observer) inner.observer->read_failed(slot, why, now);
  }
  void sensor_lost(std::size_t slot, std::uint32_t failures, std::string_view why,
                   Time now) override {
    ring.put(Kind::sensor_lost, u16(slot), failures);
    if (inner.observer) inner.observer->sensor_lost(slot, failures, why, now);
  }
  void sensor_recovered(std::size_t slot, MilliC value, Time now) override {
    ring.put(Kind::sensor_recovered, u16(slot), 0, 0, value.mc());
    if (inner.observer) inner.observer->sensor_recovered(slot, value, now);
  }
  void stepped(const policy::Decision& d, Time now) override {
    const std::int32_t next = d.next_step ? static_cast<std::int32_t>(std::clamp<std::int64_t>(
                                                (*d.next_step - d.at).count(), 0, 0x7FFFFFFF))
                                          : -1;
    ring.put(Kind::step, 0, static_cast<std::uint32_t>(d.severity), d.at.count(), next,
             static_cast<std::int32_t>(d.events.size()));
    for (std::size_t dev = 0; dev < d.devices.size(); ++dev) {
      const policy::DeviceDecision& dd = d.devices[dev];
      std::int32_t input = kNoValue;
      std::int32_t threshold = kNoValue;
      std::uint16_t cause = kNoIndex;
      if (dd.cause) {
        // The engine's own account (Engine::explain, the one coolhandctl
        // explain shows): the cause's input and the limit that decided,
        // with the active profile applied.
        cause = dd.cause->index;
        const policy::DeviceExplanation x = engine->explain(policy::DeviceId{u16(dev)});
        if (x.input_value) input = x.input_value->mc();
        if (x.limit) threshold = x.limit->mc();
      }
      const std::uint8_t flags =
          (dd.forced ? kDecisionForced : 0U) | (dd.changed ? kDecisionChanged : 0U);
      ring.put(Kind::device_decision, u16(dev), dd.level,
               pack_decision(u16(dd.requested), cause, flags), input, threshold);
    }
    for (const std::uint16_t id : virtual_ids) {
      const std::optional<MilliC> v = engine->sensor_value(policy::SensorId{id});
      ring.put(Kind::virtual_value, id, v ? 1 : 0, 0, v ? v->mc() : kNoValue);
    }
    for (const policy::Event& e : d.events) {
      ring.put(Kind::engine_event, e.index, static_cast<std::uint32_t>(e.kind), 0,
               e.temperature ? e.temperature->mc() : kNoValue, e.detail);
    }
    if (inner.observer) inner.observer->stepped(d, now);
  }
  void level_changed(std::size_t device, const policy::DeviceDecision& dd, Time now) override {
    if (inner.observer) inner.observer->level_changed(device, dd, now);
  }
  void action(const policy::ActionRequest& a, Time now) override {
    ring.put(Kind::action, a.zone.index, static_cast<std::uint32_t>(a.action), 0, a.trip);
    if (inner.observer) inner.observer->action(a, now);
  }
};

LoopRecorder::LoopRecorder(Ring& ring, std::uint64_t policy_hash,
                           std::unique_ptr<policy::Engine> engine,
                           const std::vector<policy::SensorId>& sensors, policy::LoopConfig config,
                           policy::LoopPorts ports, ClockNs clock)
    : ring_(ring), clock_(clock), taps_(std::make_unique<Taps>(ring, ports, sensors.size())) {
  if (clock_) ring_.set_time(clock_());
  const std::size_t devices = engine->spec().devices.size();
  ring_.put(Kind::loop_created, u16(sensors.size()), static_cast<std::uint32_t>(devices),
            static_cast<std::int64_t>(policy_hash),
            static_cast<std::int32_t>(config.lost_after_failures));
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    ring_.put(Kind::slot_map, u16(i), sensors[i].index);
  }
  loop_ = std::make_unique<policy::ControlLoop>(
      std::move(engine), sensors, config, policy::LoopPorts{*taps_, *taps_, *taps_, taps_.get()});
  taps_->bind(loop_->engine());

  header_ = CheckpointHeader{u16(sensors.size()), static_cast<std::uint32_t>(devices), policy_hash,
                             static_cast<std::int32_t>(config.lost_after_failures)};
  for (const policy::SensorId id : sensors) slot_map_.push_back(id.index);
  max_payload_ = checkpoint_head_size(sensors.size(), devices) + loop_->max_state_size();
  set_checkpoint_interval(default_checkpoint_interval(ring_.capacity(), max_payload_));
}

void LoopRecorder::set_checkpoint_interval(std::uint64_t records) {
  checkpoint_every_ = records;
  next_checkpoint_ = ring_.total() + records;
}

// The payload (checkpoint.h) into `out`, at least max_payload_ bytes:
// returns its size, 0 when the loop's state did not fit.
std::size_t LoopRecorder::encode_payload(std::span<std::byte> out) const {
  encode_checkpoint_head(out, slot_map_, taps_->sensor_state, taps_->bound_state);
  const std::size_t head = checkpoint_head_size(slot_map_.size(), taps_->bound_state.size());
  const std::size_t state = loop_->save_state(out.subspan(head));
  return state == 0 ? 0 : head + state;
}

std::span<const std::byte> LoopRecorder::state_payload() {
  payload_.resize(max_payload_);
  return std::span<const std::byte>(payload_).first(encode_payload(payload_));
}

bool LoopRecorder::checkpoint() {
  const std::span<std::byte> scratch = checkpoint_scratch(ring_, max_payload_);
  if (scratch.empty()) {
    // Cannot fit in the ring at all: skip this interval rather than retry
    // at every call. Otherwise it wraps: the next call tries again.
    if (checkpoint_records(max_payload_) > ring_.capacity()) {
      next_checkpoint_ = ring_.total() + checkpoint_every_;
    }
    return false;
  }
  const std::size_t bytes = encode_payload(scratch);
  if (bytes == 0) return false;
  put_checkpoint(ring_, header_, bytes);
  next_checkpoint_ = ring_.total() + checkpoint_every_;
  return true;
}

bool LoopRecorder::restore(const Checkpoint& cp) {
  if (cp.header.slots != slot_map_.size() || cp.header.devices != taps_->bound_state.size() ||
      cp.slot_map != slot_map_ || cp.payload.size() > max_payload_) {
    return false;
  }
  taps_->sensor_state = cp.sensor_state;
  taps_->bound_state = cp.bound_state;
  return loop_->restore_state(cp.loop_state());
}

LoopRecorder::~LoopRecorder() = default;

void LoopRecorder::stamp(Time now) {
  ring_.set_time(clock_ ? clock_()
                        : static_cast<std::uint64_t>(std::max<std::int64_t>(now.count(), 0)) *
                              1000000U);
}

void LoopRecorder::start(Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_start, 0, 0, now.count());
  loop_->start(now);
}

std::optional<Time> LoopRecorder::tick(Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_tick, 0, 0, now.count());
  return loop_->tick(now);
}

void LoopRecorder::push(std::size_t slot, MilliC value, Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_push, u16(slot), 0, now.count(), value.mc());
  loop_->push(slot, value, now);
}

void LoopRecorder::sensor_gone(std::size_t slot, Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_sensor_gone, u16(slot), 0, now.count());
  loop_->sensor_gone(slot, now);
}

void LoopRecorder::resync(Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_resync, 0, 0, now.count());
  loop_->resync(now);
}

void LoopRecorder::resume(Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_resume, 0, 0, now.count());
  loop_->resume(now);
}

void LoopRecorder::verify_devices() {
  if (clock_) ring_.set_time(clock_());
  checkpoint_if_due();
  ring_.put(Kind::call_verify, 0);
  loop_->verify_devices();
}

void LoopRecorder::restore_all() {
  if (clock_) ring_.set_time(clock_());
  checkpoint_if_due();
  ring_.put(Kind::call_restore_all, 0);
  loop_->restore_all();
}

void LoopRecorder::seed_level(std::size_t device, std::uint32_t level, Time now) {
  stamp(now);
  checkpoint_if_due();
  ring_.put(Kind::call_seed_level, u16(device), level, now.count());
  loop_->seed_level(device, level, now);
}

bool LoopRecorder::set_profile(std::string_view name) {
  if (clock_) ring_.set_time(clock_());
  checkpoint_if_due();
  std::uint16_t index = name.empty() ? kAsWritten : kNoIndex;
  const auto& profiles = loop_->engine().spec().profiles;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    if (profiles[i].name == name) index = u16(i);
  }
  const bool ok = loop_->set_profile(name);
  ring_.put(Kind::call_set_profile, index, ok ? 1 : 0);
  return ok;
}

}  // namespace coolhand::recorder
