// Runtime: binding, sampling, stepping and actuation (rules in runtime.h).
#include "runtime.h"

#include <fmt/format.h>

#include <algorithm>

#include "parse.h"

namespace coolhand::daemon {

namespace {
constexpr policy::Millis kLostRetryCap{5000};
constexpr policy::Millis kMinWake{10};
constexpr int kMaxSettleSteps = 4;
}  // namespace

// Which kernel family pushes a sensor's temperature (rules in runtime.h).
enum class EventSource : std::uint8_t { none, thermal, module };

struct SensorSlot {
  std::string name;
  policy::SensorId id;
  config::SensorSource source;
  std::optional<SensorBinding> binding;  // none while absent
  EventSource events = EventSource::none;
  std::uint32_t failures = 0;  // consecutive
  bool lost = false;
  std::optional<Time> next_poll;
  std::optional<Time> last_sample;
  std::optional<policy::Window> sent_window;  // last window handed to on_window
};

struct DeviceSlot {
  std::string name;
  policy::DeviceId id;
  config::DeviceKnob knob;
  std::unique_ptr<Actuator> actuator;  // none while absent (or no hardware binding)
};

struct Runtime::Bound {
  config::PolicyDocument doc;
  std::unique_ptr<policy::Engine> engine;
  std::vector<SensorSlot> sensors;
  std::vector<DeviceSlot> devices;
  const policy::Decision* last = nullptr;  // valid until the next engine step
};

namespace {
EventSource event_source(const RuntimeOptions& o, const SensorBinding& b) {
  if (o.module_events_available && b.coolhand_zone_id) return EventSource::module;
  if (o.events_available && b.thermal_zone_id) return EventSource::thermal;
  return EventSource::none;
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

Runtime::Runtime(Sysfs& fs, Logger& log, RuntimeOptions opts)
    : fs_(fs),
      log_(log),
      opts_(opts),
      own_originals_(opts.originals ? nullptr : std::make_unique<OriginalStore>("", "", log)),
      originals_(opts.originals ? *opts.originals : *own_originals_) {}
Runtime::~Runtime() = default;

const policy::Engine& Runtime::engine() const {
  return *bound_->engine;
}

void Runtime::remember_originals(const Bound& b) {
  for (const auto& d : b.devices) {
    if (d.actuator) originals_.remember(d.actuator->binding());
  }
}

Result<std::unique_ptr<Runtime::Bound>, CreateError> Runtime::bind(config::PolicyDocument doc) {
  auto compiled = policy::Engine::compile(doc.spec);
  if (!compiled.engine) {
    std::string detail;
    for (const auto& e : compiled.errors) {
      detail += fmt::format("{}{}.{}: {}", detail.empty() ? "" : "; ", e.path, e.key, e.message);
    }
    return CreateError{{"compile", "policy", 0, detail}, CreateError::Reason::bad_policy};
  }
  auto b = std::make_unique<Bound>();
  b->engine = std::move(compiled.engine);
  std::vector<std::string> missing;

  for (const auto& s : doc.spec.sensors) {
    if (s.kind != policy::SensorSpec::Kind::physical) continue;
    SensorSlot slot;
    slot.name = s.name;
    slot.id = *b->engine->sensor_id(s.name);
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
    b->sensors.push_back(std::move(slot));
  }

  for (const auto& d : doc.spec.devices) {
    DeviceSlot slot;
    slot.name = d.name;
    slot.id = *b->engine->device_id(d.name);
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
  b->doc = std::move(doc);
  return b;
}

Result<std::unique_ptr<Runtime>, CreateError> Runtime::create(config::PolicyDocument doc, Sysfs& fs,
                                                              Logger& log, RuntimeOptions opts) {
  std::unique_ptr<Runtime> rt(new Runtime(fs, log, opts));
  auto b = rt->bind(std::move(doc));
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
  for (std::size_t i = 0; i < bound_->sensors.size(); ++i) sample(i, now);
  step(now);
}

// Read one sensor from sysfs and hand the value to the engine; apply the
// failure counting and lost/known transitions described in runtime.h.
void Runtime::sample(std::size_t i, Time now) {
  Bound& b = *bound_;
  SensorSlot& s = b.sensors[i];
  const auto& sampling = b.doc.spec.sampling;
  if (!s.binding || s.lost) {
    auto found = find_sensor(fs_, s.source);
    if (found) {
      s.binding = *found;
      s.events = event_source(opts_, *found);
    }
  }
  Result<MilliC> value = SysError{"read", s.name, 0, "sensor not present"};
  if (s.binding) {
    auto text = fs_.read(s.binding->path);
    value = text ? parse_temperature(*text, s.binding->scale_to_mc, s.binding->path)
                 : Result<MilliC>(text.error());
  }
  s.last_sample = now;
  if (value) {
    if (s.lost) {
      log_.info("sensor {}: readable again ({} m°C); control resumes", s.name, value->mc());
      s.lost = false;
    }
    s.failures = 0;
    b.engine->set_sensor(s.id, *value, now);
    ++counters_.samples;
    dirty_ = true;
    log_.debug("sample {} = {} m°C", s.name, value->mc());
    return;
  }
  ++counters_.read_failures;
  ++s.failures;
  log_.debug("sensor {}: {}", s.name, value.error().to_string());
  const std::uint32_t limit = std::max<std::uint32_t>(b.doc.daemon.lost_after_failures, 1);
  if (!s.lost && s.failures >= limit) {
    s.lost = true;
    ++counters_.sensors_lost;
    log_.warning(
        "sensor {}: lost after {} failed reads ({}); its controllers go to their safe level",
        s.name, s.failures, value.error().to_string());
    b.engine->set_sensor_unknown(s.id, now);
    dirty_ = true;
  }
  const policy::Millis retry =
      s.lost ? std::max(sampling.min_interval, std::min(sampling.max_interval, kLostRetryCap))
             : sampling.min_interval;
  s.next_poll = now + retry;
}

// The coolhand module's window mode takes "<low> <high>" with
// -273150 <= low < high <= 500000 (kmod/README 3.1).
void Runtime::write_event_window(const std::string& path, const policy::Window& w) {
  constexpr std::int64_t kLowest = -273150;
  constexpr std::int64_t kHighest = 500000;
  const std::int64_t low = std::clamp<std::int64_t>(w.low.mc(), kLowest, kHighest - 1);
  const std::int64_t high = std::clamp<std::int64_t>(w.high.mc(), low + 1, kHighest);
  if (opts_.dry_run) {
    log_.debug("dry-run: would write '{} {}' to {}", low, high, path);
    return;
  }
  if (auto st = fs_.write(path, fmt::format("{} {}", low, high)); !st) {
    log_.warning("{}", st.error().to_string());
  }
}

// Hand a changed window to the kernel: module-driven zones through
// WINDOW_SET with the event_window file as the fallback; thermal-driven
// ones to on_window (thresholds) plus the event_window of a coolhand zone.
// True when the kernel now watches exactly `w` for the zone (see recheck).
bool Runtime::send_window(const SensorSlot& s, const policy::Window& w) {
  const SensorBinding& b = *s.binding;
  if (s.events == EventSource::module) {
    if (program_module_window && !opts_.dry_run) {
      const Status st = program_module_window(*b.coolhand_zone_id, w);
      if (st) return false;
      log_.debug("sensor {}: {}; writing event_window", s.name, st.error().to_string());
    }
    if (b.event_window_path) write_event_window(*b.event_window_path, w);
    return false;
  }
  if (b.event_window_path) write_event_window(*b.event_window_path, w);
  return on_window && b.thermal_zone_id && on_window(*b.thermal_zone_id, w);
}

// A kernel that watches `w` reports only crossings, so a value that left
// `w` while the thresholds were being programmed would go unseen: read the
// zone once and hand the value on only when it is outside `w` (the kernel
// fires UP at >= high and DOWN at <= low). A failed read goes through
// sample() so failure counting and retries apply.
void Runtime::recheck(std::size_t i, const policy::Window& w, Time now) {
  Bound& b = *bound_;
  SensorSlot& s = b.sensors[i];
  auto text = fs_.read(s.binding->path);
  auto value = text ? parse_temperature(*text, s.binding->scale_to_mc, s.binding->path)
                    : Result<MilliC>(text.error());
  if (!value) {
    sample(i, now);
    return;
  }
  log_.debug("recheck {} = {} m°C", s.name, value->mc());
  if (*value > w.low && *value < w.high) return;
  b.engine->set_sensor(s.id, *value, now);
  s.last_sample = now;
  ++counters_.samples;
  dirty_ = true;
}

void Runtime::schedule_polls(Time now) {
  Bound& b = *bound_;
  const auto& sampling = b.doc.spec.sampling;
  const policy::Decision& d = *b.last;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    SensorSlot& s = b.sensors[i];
    const bool failing = !s.binding || s.failures > 0 || s.lost;
    if (failing) continue;  // sample() scheduled the retry
    if (s.events != EventSource::none) {
      s.next_poll.reset();
      const policy::Window& w = d.windows.at(s.id.index);
      const bool changed =
          !s.sent_window || s.sent_window->low != w.low || s.sent_window->high != w.high;
      if (changed) {
        const bool watched = send_window(s, w);
        s.sent_window = w;
        if (watched) recheck(i, w, now);
      }
      continue;
    }
    policy::Millis interval = sampling.max_interval;
    if (s.id.index < d.poll_intervals.size()) interval = d.poll_intervals[s.id.index];
    interval = std::clamp(interval, sampling.min_interval, sampling.max_interval);
    s.next_poll = s.last_sample.value_or(now) + interval;
  }
}

void Runtime::log_events(const policy::Decision& d) {
  const auto& spec = bound_->doc.spec;
  for (const auto& e : d.events) {
    using K = policy::Event::Kind;
    const std::string temp = e.temperature ? fmt::format(" at {} m°C", e.temperature->mc()) : "";
    switch (e.kind) {
      case K::trip_up:
      case K::trip_down: {
        const auto& z = spec.zones.at(e.index);
        log_.info("zone {}: trip {} {}{}", z.name, z.trips.at(e.detail).name,
                  e.kind == K::trip_up ? "reached" : "left", temp);
        break;
      }
      case K::severity_change:
        log_.info("zone {}: severity {}{}", spec.zones.at(e.index).name,
                  policy::to_string(static_cast<policy::Severity>(e.detail)), temp);
        break;
      case K::sensor_unknown:
      case K::sensor_known:
        log_.debug("engine: sensor {} {}", spec.sensors.at(e.index).name,
                   policy::to_string(e.kind));
        break;
      default:
        log_.info("engine: {} (index {}){}", policy::to_string(e.kind), e.index, temp);
        break;
    }
  }
}

// One engine evaluation and its effects: log events, write every device
// whose decided level differs from the applied one, fire actions, and
// reschedule polls and kernel windows from the new decision.
void Runtime::step(Time now) {
  Bound& b = *bound_;
  if (last_step_ && now < *last_step_) now = *last_step_;
  const policy::Decision& d = b.engine->step(now);
  b.last = &d;
  last_step_ = now;
  dirty_ = false;
  ++counters_.steps;
  log_events(d);
  for (DeviceSlot& dev : b.devices) {
    const policy::DeviceDecision& dd = d.devices.at(dev.id.index);
    const std::optional<std::uint32_t> applied =
        dev.actuator ? dev.actuator->level() : std::nullopt;
    if (dd.changed || (dev.actuator && applied != dd.level)) {
      if (dd.changed) {
        std::string cause = "released";
        if (dd.cause) cause = "by " + b.doc.spec.controllers.at(dd.cause->index).name;
        if (dd.forced) cause = "forced by a trip";
        log_.info("device {}: level {} ({})", dev.name, dd.level, cause);
      }
      if (dev.actuator) (void)dev.actuator->apply(dd.level);
    }
  }
  for (const auto& a : d.actions) {
    const std::string& zone = b.doc.spec.zones.at(a.zone.index).name;
    log_.error("zone {}: trip {} requests {}", zone,
               b.doc.spec.zones.at(a.zone.index).trips.at(a.trip).name,
               policy::to_string(a.action));
    if (on_action &&
        (a.action == policy::TripAction::shutdown || a.action == policy::TripAction::suspend)) {
      on_action(a.action, zone);
    }
  }
  schedule_polls(now);
}

std::optional<Time> Runtime::tick(Time now) {
  Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    const SensorSlot& s = b.sensors[i];
    if (s.next_poll && *s.next_poll <= now) sample(i, now);
  }
  const bool due = b.last && b.last->next_step && *b.last->next_step <= now;
  if (dirty_ || due || !b.last) step(now);
  // A recheck after new kernel thresholds may have found the value outside
  // them: settle now, but never loop unboundedly on a zone that keeps moving.
  for (int i = 1; dirty_ && i < kMaxSettleSteps; ++i) step(now);
  std::optional<Time> wake = b.last->next_step;
  if (dirty_ && (!wake || *wake > now + kMinWake)) wake = now + kMinWake;
  for (const SensorSlot& s : b.sensors) {
    if (s.next_poll && (!wake || *s.next_poll < *wake)) wake = s.next_poll;
  }
  // Never ask for a wake-up in the past: that would spin the event loop.
  if (wake && *wake <= now) wake = now + kMinWake;
  return wake;
}

void Runtime::on_zone_temperature(std::uint32_t tz_id, MilliC value, Time now) {
  for (SensorSlot& s : bound_->sensors) {
    if (s.events != EventSource::thermal || !s.binding || s.binding->thermal_zone_id != tz_id)
      continue;
    pushed_sample(s, value, now);
  }
}

void Runtime::on_module_zone_temperature(std::uint32_t zone_id, MilliC value, Time now) {
  for (SensorSlot& s : bound_->sensors) {
    if (s.events != EventSource::module || !s.binding || s.binding->coolhand_zone_id != zone_id)
      continue;
    pushed_sample(s, value, now);
  }
}

// A temperature the kernel pushed for an event-driven sensor.
void Runtime::pushed_sample(SensorSlot& s, MilliC value, Time now) {
  if (s.failures > 0 || s.lost) return;  // recovering through sysfs reads
  bound_->engine->set_sensor(s.id, value, now);
  s.last_sample = now;
  ++counters_.samples;
  ++counters_.pushed_samples;
  dirty_ = true;
  log_.debug("event {} = {} m°C", s.name, value.mc());
}

void Runtime::on_zone_deleted(std::uint32_t tz_id, Time now) {
  Bound& b = *bound_;
  for (SensorSlot& s : b.sensors) {
    if (!s.binding || s.binding->thermal_zone_id != tz_id) continue;
    log_.warning("sensor {}: thermal zone {} deleted; lost", s.name, tz_id);
    s.binding.reset();
    s.events = EventSource::none;
    s.lost = true;
    s.sent_window.reset();
    ++counters_.sensors_lost;
    b.engine->set_sensor_unknown(s.id, now);
    dirty_ = true;
    const auto& sampling = b.doc.spec.sampling;
    s.next_poll =
        now + std::max(sampling.min_interval, std::min(sampling.max_interval, kLostRetryCap));
  }
}

void Runtime::resync(Time now) {
  ++counters_.resyncs;
  Bound& b = *bound_;
  for (std::size_t i = 0; i < b.sensors.size(); ++i) {
    b.sensors[i].sent_window.reset();
    sample(i, now);
  }
  for (DeviceSlot& d : b.devices) {
    if (d.actuator || d.knob.kind == config::DeviceKnob::Kind::none) continue;
    const auto& spec = b.doc.spec.devices.at(d.id.index);
    auto found = find_knob(fs_, d.knob, spec.max_level,
                           [this](const KnobTarget& t) { return originals_.original_for(t); });
    if (!found) continue;
    log_.info("device {}: appeared ({})", d.name, found->description);
    d.actuator = std::make_unique<Actuator>(d.name, std::move(*found), fs_, log_, opts_.dry_run);
    remember_originals(b);
  }
  step(now);
}

void Runtime::verify_devices() {
  for (DeviceSlot& d : bound_->devices) {
    if (d.actuator) (void)d.actuator->verify();
  }
}

void Runtime::on_resume(Time now) {
  ++counters_.resumes;
  log_.info("resumed from suspend: re-applying device levels");
  for (DeviceSlot& d : bound_->devices) {
    if (d.actuator) (void)d.actuator->reapply();
  }
  resync(now);
}

Status Runtime::reload(config::PolicyDocument doc, Time now) {
  auto nb = bind(std::move(doc));
  if (!nb) {
    ++counters_.reload_failures;
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
    for (auto& old : bound_->devices) {
      if (old.name != d.name || !old.actuator || !d.actuator || !old.actuator->level()) continue;
      fresh.engine->set_device_level(d.id, *old.actuator->level(), now);
    }
  }
  bound_ = std::move(*nb);
  remember_originals(*bound_);
  ++counters_.reloads;
  log_.info("policy reloaded: {} sensors, {} devices", bound_->sensors.size(),
            bound_->devices.size());
  for (std::size_t i = 0; i < bound_->sensors.size(); ++i) sample(i, now);
  last_step_.reset();
  step(now);
  return Ok{};
}

void Runtime::restore_all() {
  for (auto& d : bound_->devices) {
    if (d.actuator) (void)d.actuator->restore();
  }
}

std::string Runtime::status_line() const {
  const policy::Decision* d = bound_->last;
  if (!d) return "starting";
  std::size_t throttled = 0;
  for (const auto& dd : d->devices) throttled += dd.level > 0 ? 1 : 0;
  std::size_t lost = 0;
  for (const auto& s : bound_->sensors) lost += s.lost ? 1 : 0;
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
  for (const auto& d : bound_->devices) {
    if (d.name == name) return d.actuator ? d.actuator->level() : std::nullopt;
  }
  return std::nullopt;
}

const policy::Decision* Runtime::last_decision() const {
  return bound_->last;
}

bool Runtime::set_profile(std::string_view name) {
  if (!bound_->engine->set_profile(name)) return false;
  log_.info("profile set to '{}'", name.empty() ? "(policy as written)" : name);
  dirty_ = true;
  return true;
}

bool Runtime::sensor_lost(std::string_view name) const {
  for (const auto& s : bound_->sensors) {
    if (s.name == name) return s.lost || !s.binding;
  }
  return false;
}

}  // namespace coolhand::daemon
