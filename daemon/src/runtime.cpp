// Runtime: binding, and the shared control loop's ports over sysfs and the
// netlink families (rules in runtime.h and coolhand/policy/loop.h).
#include "runtime.h"

#include <fmt/format.h>

#include <algorithm>

#include "coolhand.h"  // kmod/include/uapi: COOLHAND_TEMP_MIN_MC, COOLHAND_TEMP_MAX_MC
#include "parse.h"

namespace coolhand::daemon {

// Which kernel family pushes a sensor's temperature (rules in runtime.h).
enum class EventSource : std::uint8_t { none, thermal, module };

namespace {

struct SensorSlot {
  std::string name;
  policy::SensorId id;
  config::SensorSource source;
  std::optional<SensorBinding> binding;  // none while absent
  EventSource events = EventSource::none;
};

struct DeviceSlot {
  std::string name;
  policy::DeviceId id;
  config::DeviceKnob knob;
  std::unique_ptr<Actuator> actuator;  // none while absent (or no hardware binding)
};

EventSource event_source(const RuntimeOptions& o, const SensorBinding& b) {
  if (o.module_events_available && b.coolhand_zone_id) return EventSource::module;
  if (o.events_available && zone_sends_events(b)) return EventSource::thermal;
  return EventSource::none;
}

void add_counters(policy::LoopCounters& into, const policy::LoopCounters& c) {
  into.samples += c.samples;
  into.pushed_samples += c.pushed_samples;
  into.read_failures += c.read_failures;
  into.sensors_lost += c.sensors_lost;
  into.steps += c.steps;
  into.resyncs += c.resyncs;
  into.resumes += c.resumes;
}

const char* describe(EventSource e) {
  switch (e) {
    case EventSource::module:
      return ", event-driven (coolhand netlink)";
    case EventSource::thermal:
      return ", event-driven (thermal netlink)";
    default:
      return ", polled";
  }
}

}  // namespace

// A compiled policy bound to hardware: the loop and its ports. The ports'
// slots are the loop's: sensors[i] is slot i, devices[d] is DeviceId d.
struct Runtime::Bound final : policy::SensorPort,
                              policy::KnobPort,
                              policy::WindowPort,
                              policy::LoopObserver {
  explicit Bound(Runtime& owner) : rt(owner) {}

  Runtime& rt;
  config::PolicyDocument doc;
  std::vector<SensorSlot> sensors;
  std::vector<DeviceSlot> devices;
  std::unique_ptr<recorder::LoopRecorder> loop;  // the shared loop, recorded
  std::string read_error;  // the last failed read's reason (SensorRead::error)

  void rebind_sensor(SensorSlot& s) {
    auto found = find_sensor(rt.fs_, s.source);
    if (!found) return;
    s.binding = *found;
    s.events = event_source(rt.opts_, *found);
  }

  // -- SensorPort
  policy::SensorRead read(std::size_t slot, bool rebind) override {
    SensorSlot& s = sensors[slot];
    if (rebind) rebind_sensor(s);
    if (!s.binding) {
      read_error = "sensor not present";
      return {std::nullopt, read_error};
    }
    auto text = rt.fs_.read(s.binding->path);
    auto value = !text ? Result<MilliC>(text.error())
                 : s.binding->max_brightness
                     ? parse_brightness(*text, *s.binding->max_brightness, s.binding->path)
                     : parse_temperature(*text, s.binding->scale_to_mc, s.binding->path);
    if (value) return {*value, {}};
    read_error = value.error().to_string();
    return {std::nullopt, read_error};
  }
  [[nodiscard]] bool present(std::size_t slot) const override {
    return sensors[slot].binding.has_value();
  }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    return sensors[slot].events == EventSource::none ? policy::Delivery::polled
                                                     : policy::Delivery::pushed;
  }

  // -- KnobPort
  [[nodiscard]] bool bound(std::size_t device) const override {
    return devices[device].actuator != nullptr;
  }
  bool rebind(std::size_t device) override {
    DeviceSlot& d = devices[device];
    if (d.actuator || d.knob.kind == config::DeviceKnob::Kind::none) return false;
    const auto& spec = doc.spec.devices.at(d.id.index);
    auto found = find_knob(rt.fs_, d.knob, spec.max_level,
                           [this](const KnobTarget& t) { return rt.originals_.original_for(t); });
    if (!found) return false;
    rt.log_.info("device {}: appeared ({})", d.name, found->description);
    d.actuator =
        std::make_unique<Actuator>(d.name, std::move(*found), rt.fs_, rt.log_, rt.opts_.dry_run);
    d.actuator->record_into(rt.ring_, static_cast<std::uint16_t>(d.id.index));
    rt.remember_originals(*this);
    return true;
  }
  bool apply(std::size_t device, std::uint32_t level) override {
    return static_cast<bool>(devices[device].actuator->apply(level));
  }
  void verify(std::size_t device) override { (void)devices[device].actuator->verify(); }
  void restore(std::size_t device) override { (void)devices[device].actuator->restore(); }

  // -- WindowPort: module-driven zones through WINDOW_SET with the
  // event_window file as the fallback; thermal-driven ones to the kernel's
  // user thresholds plus the event_window of a coolhand zone. True (the
  // loop reads the zone once) when the kernel took the thresholds.
  bool watch(std::size_t slot, const policy::Window& w) override {
    const SensorSlot& s = sensors[slot];
    const SensorBinding& b = *s.binding;
    if (s.events == EventSource::module) {
      if (!rt.opts_.dry_run) {
        const Status st = rt.hooks_.set_module_window(*b.coolhand_zone_id, w);
        if (st) return false;
        rt.log_.debug("sensor {}: {}; writing event_window", s.name, st.error().to_string());
      }
      if (b.event_window_path) write_event_window(*b.event_window_path, w);
      return false;
    }
    if (b.event_window_path) write_event_window(*b.event_window_path, w);
    return b.thermal_zone_id && rt.hooks_.set_thresholds(*b.thermal_zone_id, w);
  }

  // The coolhand module's window mode takes "<low> <high>" with
  // COOLHAND_TEMP_MIN_MC <= low < high <= COOLHAND_TEMP_MAX_MC (kmod/README 3.1).
  void write_event_window(const std::string& path, const policy::Window& w) {
    const std::int64_t low =
        std::clamp<std::int64_t>(w.low.mc(), COOLHAND_TEMP_MIN_MC, COOLHAND_TEMP_MAX_MC - 1);
    const std::int64_t high = std::clamp<std::int64_t>(w.high.mc(), low + 1, COOLHAND_TEMP_MAX_MC);
    if (rt.opts_.dry_run) {
      rt.log_.debug("dry-run: would write '{} {}' to {}", low, high, path);
      return;
    }
    if (auto st = rt.fs_.write(path, fmt::format("{} {}", low, high)); !st) {
      rt.log_.warning("{}", st.error().to_string());
    }
  }

  // -- LoopObserver: log lines, and trip actions to the session.
  void sampled(std::size_t slot, MilliC value, bool pushed, Time /*now*/) override {
    rt.log_.debug("{} {} = {} m°C", pushed ? "event" : "sample", sensors[slot].name, value.mc());
  }
  void rechecked(std::size_t slot, MilliC value, Time /*now*/) override {
    rt.log_.debug("recheck {} = {} m°C", sensors[slot].name, value.mc());
  }
  void read_failed(std::size_t slot, std::string_view why, Time /*now*/) override {
    rt.log_.debug("sensor {}: {}", sensors[slot].name, why);
  }
  void sensor_lost(std::size_t slot, std::uint32_t failures, std::string_view why,
                   Time /*now*/) override {
    if (failures == 0) {
      rt.log_.warning("sensor {}: lost ({}); its controllers go to their safe level",
                      sensors[slot].name, why);
      return;
    }
    rt.log_.warning(
        "sensor {}: lost after {} failed reads ({}); its controllers go to their safe level",
        sensors[slot].name, failures, why);
  }
  void sensor_recovered(std::size_t slot, MilliC value, Time /*now*/) override {
    rt.log_.info("sensor {}: readable again ({} m°C); control resumes", sensors[slot].name,
                 value.mc());
  }
  void stepped(const policy::Decision& d, Time now) override;
  void level_changed(std::size_t device, const policy::DeviceDecision& dd, Time now) override;
  void action(const policy::ActionRequest& a, Time now) override;
};

void Runtime::Bound::stepped(const policy::Decision& d, Time /*now*/) {
  const auto& spec = doc.spec;
  for (const auto& e : d.events) {
    using K = policy::Event::Kind;
    const std::string temp = e.temperature ? fmt::format(" at {} m°C", e.temperature->mc()) : "";
    switch (e.kind) {
      case K::trip_up:
      case K::trip_down: {
        const auto& z = spec.zones.at(e.index);
        rt.log_.info("zone {}: trip {} {}{}", z.name, z.trips.at(e.detail).name,
                     e.kind == K::trip_up ? "reached" : "left", temp);
        break;
      }
      case K::severity_change:
        rt.log_.info("zone {}: severity {}{}", spec.zones.at(e.index).name,
                     policy::to_string(static_cast<policy::Severity>(e.detail)), temp);
        break;
      case K::sensor_unknown:
      case K::sensor_known:
        rt.log_.debug("engine: sensor {} {}", spec.sensors.at(e.index).name,
                      policy::to_string(e.kind));
        break;
      default:
        rt.log_.info("engine: {} (index {}){}", policy::to_string(e.kind), e.index, temp);
        break;
    }
  }
}

void Runtime::Bound::level_changed(std::size_t device, const policy::DeviceDecision& dd,
                                   Time /*now*/) {
  std::string cause = "released";
  if (dd.cause) cause = "by " + doc.spec.controllers.at(dd.cause->index).name;
  if (dd.forced) cause = "forced by a trip";
  rt.log_.info("device {}: level {} ({})", devices.at(device).name, dd.level, cause);
}

void Runtime::Bound::action(const policy::ActionRequest& a, Time /*now*/) {
  const auto& zone = doc.spec.zones.at(a.zone.index);
  rt.log_.error("zone {}: trip {} requests {}", zone.name, zone.trips.at(a.trip).name,
                policy::to_string(a.action));
  if (a.action == policy::TripAction::shutdown || a.action == policy::TripAction::suspend ||
      a.action == policy::TripAction::force_deepest) {
    rt.hooks_.request_action(a.action, zone.name);
  }
}

namespace {
KernelHooks& default_hooks() {
  static KernelHooks hooks;
  return hooks;
}
}  // namespace

Runtime::Runtime(Sysfs& fs, Logger& log, RuntimeOptions opts, KernelHooks& hooks)
    : fs_(fs),
      log_(log),
      opts_(opts),
      hooks_(hooks),
      own_originals_(opts.originals ? nullptr : std::make_unique<OriginalStore>("", "", log)),
      originals_(opts.originals ? *opts.originals : *own_originals_),
      own_ring_(opts.ring ? nullptr
                          : std::make_unique<recorder::Ring>(recorder::Ring::kMinCapacity)),
      ring_(opts.ring ? *opts.ring : *own_ring_) {}
Runtime::~Runtime() = default;

const policy::Engine& Runtime::engine() const {
  return bound_->loop->loop().engine();
}

void Runtime::remember_originals(const Bound& b) {
  for (const auto& d : b.devices) {
    if (d.actuator) originals_.remember(d.actuator->binding());
  }
}

Result<std::unique_ptr<Runtime::Bound>, CreateError> Runtime::bind(config::PolicyDocument doc,
                                                                   std::uint64_t policy_hash) {
  auto compiled = policy::Engine::compile(doc.spec);
  if (!compiled.engine) {
    std::string detail;
    for (const auto& e : compiled.errors) {
      detail += fmt::format("{}{}.{}: {}", detail.empty() ? "" : "; ", e.path, e.key, e.message);
    }
    return CreateError{{"compile", "policy", 0, detail}, CreateError::Reason::bad_policy};
  }
  auto b = std::make_unique<Bound>(*this);
  std::vector<std::string> missing;
  std::vector<policy::SensorId> slots;

  for (const auto& s : doc.spec.sensors) {
    if (s.kind != policy::SensorSpec::Kind::physical) continue;
    SensorSlot slot;
    slot.name = s.name;
    slot.id = *compiled.engine->sensor_id(s.name);
    auto src = doc.sources.find(s.name);
    if (src != doc.sources.end()) slot.source = src->second;
    auto found = find_sensor(fs_, slot.source);
    if (found) {
      slot.binding = *found;
      slot.events = event_source(opts_, *found);
    } else if (slot.source.required) {
      missing.push_back(fmt::format("sensor {}: {}", s.name, found.error().to_string()));
    } else {
      log_.warning("sensor {}: not present yet ({}); controllers using it stay at their safe level",
                   s.name, found.error().to_string());
    }
    slots.push_back(slot.id);
    b->sensors.push_back(std::move(slot));
  }

  for (const auto& d : doc.spec.devices) {
    DeviceSlot slot;
    slot.name = d.name;
    slot.id = *compiled.engine->device_id(d.name);
    auto k = doc.knobs.find(d.name);
    if (k != doc.knobs.end()) slot.knob = k->second;
    if (slot.knob.kind == config::DeviceKnob::Kind::none) {
      log_.info("device {}: no hardware binding; levels are decided but not written", d.name);
    } else {
      auto found = find_knob(fs_, slot.knob, d.max_level,
                             [this](const KnobTarget& t) { return originals_.original_for(t); });
      if (found) {
        slot.actuator =
            std::make_unique<Actuator>(d.name, std::move(*found), fs_, log_, opts_.dry_run);
        slot.actuator->record_into(ring_, static_cast<std::uint16_t>(slot.id.index));
      } else if (slot.knob.required) {
        missing.push_back(fmt::format("device {}: {}", d.name, found.error().to_string()));
      } else {
        log_.warning("device {}: not bound ({})", d.name, found.error().to_string());
      }
    }
    b->devices.push_back(std::move(slot));
  }

  if (!missing.empty()) {
    std::string detail;
    for (const auto& m : missing) detail += (detail.empty() ? "" : "; ") + m;
    return CreateError{{"bind", "policy", 0, "required hardware not found: " + detail},
                       CreateError::Reason::missing_hardware};
  }
  const policy::LoopConfig config{doc.spec.sampling, doc.daemon.lost_after_failures};
  b->doc = std::move(doc);
  b->loop = std::make_unique<recorder::LoopRecorder>(
      ring_, policy_hash, std::move(compiled.engine), slots, config,
      policy::LoopPorts{*b, *b, *b, b.get()}, opts_.clock);
  return b;
}

Result<std::unique_ptr<Runtime>, CreateError> Runtime::create(config::PolicyDocument doc, Sysfs& fs,
                                                              Logger& log, RuntimeOptions opts,
                                                              KernelHooks* hooks) {
  std::unique_ptr<Runtime> rt(new Runtime(fs, log, opts, hooks ? *hooks : default_hooks()));
  auto b = rt->bind(std::move(doc), opts.policy_hash);
  if (!b) return b.error();
  rt->bound_ = std::move(*b);
  rt->remember_originals(*rt->bound_);
  for (const auto& s : rt->bound_->sensors) {
    if (s.binding) {
      log.info("sensor {}: {}{}", s.name, s.binding->description, describe(s.events));
    }
  }
  for (const auto& d : rt->bound_->devices) {
    if (d.actuator) log.info("device {}: {}", d.name, d.actuator->binding().description);
  }
  return rt;
}

void Runtime::start(Time now) {
  bound_->loop->start(now);
}

std::optional<Time> Runtime::tick(Time now) {
  return bound_->loop->tick(now);
}

void Runtime::on_zone_temperature(std::uint32_t tz_id, MilliC value, Time now) {
  Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    const SensorSlot& s = b.sensors[i];
    if (s.events != EventSource::thermal || !s.binding || s.binding->thermal_zone_id != tz_id)
      continue;
    b.loop->push(i, value, now);
  }
}

void Runtime::on_module_zone_temperature(std::uint32_t zone_id, MilliC value, Time now) {
  Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    const SensorSlot& s = b.sensors[i];
    if (s.events != EventSource::module || !s.binding || s.binding->coolhand_zone_id != zone_id)
      continue;
    b.loop->push(i, value, now);
  }
}

void Runtime::on_zone_deleted(std::uint32_t tz_id, Time now) {
  Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    SensorSlot& s = b.sensors[i];
    if (!s.binding || s.binding->thermal_zone_id != tz_id) continue;
    log_.warning("sensor {}: thermal zone {} deleted; lost", s.name, tz_id);
    s.binding.reset();
    s.events = EventSource::none;
    b.loop->sensor_gone(i, now);
  }
}

void Runtime::resync(Time now) {
  bound_->loop->resync(now);
}

void Runtime::verify_devices() {
  bound_->loop->verify_devices();
}

void Runtime::on_resume(Time now) {
  log_.info("resumed from suspend: re-applying device levels");
  bound_->loop->resume(now);
}

Status Runtime::reload(config::PolicyDocument doc, Time now, std::uint64_t policy_hash) {
  auto nb = bind(std::move(doc), policy_hash);
  if (!nb) {
    ++past_.reload_failures;
    return SysError(nb.error());
  }
  Bound& fresh = **nb;
  // Devices the new policy no longer drives get their original values back.
  std::map<std::string, bool> kept_paths;
  for (const auto& d : fresh.devices) {
    if (!d.actuator) continue;
    for (const auto& t : d.actuator->binding().targets) kept_paths[t.path] = true;
  }
  for (auto& d : bound_->devices) {
    if (!d.actuator) continue;
    bool dropped = false;
    for (const auto& t : d.actuator->binding().targets) dropped |= !kept_paths.count(t.path);
    if (!dropped) continue;
    log_.info("device {}: dropped by the new policy; restoring its original value", d.name);
    (void)d.actuator->restore();
    for (const auto& t : d.actuator->binding().targets) {
      if (!kept_paths.count(t.path)) originals_.forget(t.path);
    }
  }
  // Devices kept by name start from the level they have now.
  for (auto& d : fresh.devices) {
    for (std::size_t i = 0; i < bound_->devices.size(); ++i) {
      const DeviceSlot& old = bound_->devices[i];
      const auto level = bound_->loop->loop().applied_level(i);
      if (old.name != d.name || !old.actuator || !d.actuator || !level) continue;
      fresh.loop->seed_level(d.id.index, *level, now);
    }
  }
  // Keep the counters of the policy being replaced.
  add_counters(past_, bound_->loop->loop().counters());
  bound_ = std::move(*nb);
  remember_originals(*bound_);
  ++past_.reloads;
  log_.info("policy reloaded: {} sensors, {} devices", bound_->sensors.size(),
            bound_->devices.size());
  bound_->loop->start(now);
  return Ok{};
}

void Runtime::restore_all() {
  bound_->loop->restore_all();
}

RuntimeCounters Runtime::counters() const {
  RuntimeCounters out = past_;
  add_counters(out, bound_->loop->loop().counters());
  return out;
}

std::string Runtime::status_line() const {
  const policy::Decision* d = bound_->loop->loop().last_decision();
  if (!d) return "starting";
  std::size_t throttled = 0;
  for (const auto& dd : d->devices) throttled += dd.level > 0 ? 1 : 0;
  std::size_t lost = 0;
  for (std::size_t i = 0; i < bound_->sensors.size(); ++i)
    lost += bound_->loop->loop().sensor_lost(i);
  return fmt::format("severity {}; {} of {} devices throttled; {} sensors lost",
                     policy::to_string(d->severity), throttled, d->devices.size(), lost);
}

std::vector<std::uint32_t> Runtime::event_zones() const {
  std::vector<std::uint32_t> out;
  for (const auto& s : bound_->sensors) {
    if (s.events == EventSource::thermal && s.binding) out.push_back(*s.binding->thermal_zone_id);
  }
  return out;
}

std::vector<std::uint32_t> Runtime::module_event_zones() const {
  std::vector<std::uint32_t> out;
  for (const auto& s : bound_->sensors) {
    if (s.events == EventSource::module && s.binding) out.push_back(*s.binding->coolhand_zone_id);
  }
  return out;
}

std::optional<std::uint32_t> Runtime::device_level(std::string_view name) const {
  const Bound& b = *bound_;
  for (std::size_t i = 0; i < b.devices.size(); ++i) {
    if (b.devices[i].name == name) return b.loop->loop().applied_level(i);
  }
  return std::nullopt;
}

const policy::Decision* Runtime::last_decision() const {
  return bound_->loop->loop().last_decision();
}

void Runtime::record(recorder::Kind kind, std::uint16_t index, std::uint32_t a, std::int64_t b,
                     std::int32_t c, Time now) {
  ring_.set_time(opts_.clock ? opts_.clock()
                             : static_cast<std::uint64_t>(std::max<std::int64_t>(now.count(), 0)) *
                                   1000000U);
  ring_.put(kind, index, a, b, c);
}

bool Runtime::set_profile(std::string_view name) {
  if (!bound_->loop->set_profile(name)) return false;
  log_.info("profile set to '{}'", name.empty() ? "(policy as written)" : name);
  return true;
}

bool Runtime::sensor_lost(std::string_view name) const {
  const Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    if (b.sensors[i].name == name) return b.loop->loop().sensor_lost(i);
  }
  return false;
}

}  // namespace coolhand::daemon
