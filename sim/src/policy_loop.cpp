// The simulator's ports for the shared control loop (rules in policy_loop.h)
// and the controller that runs it in the closed loop.
#include "coolhand/sim/policy_loop.h"

#include <algorithm>
#include <cmath>

#include "coolhand/sim/runner.h"

namespace coolhand::sim {

using policy::Time;
using policy::Window;

struct PolicyLoop::Ports final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  std::vector<policy::Delivery> feed;          // by slot
  std::vector<std::size_t> sensor_of_slot;     // slot -> model sensor (or device, see next)
  std::vector<bool> brightness_slot;           // slot reads a model device's brightness
  std::vector<std::size_t> device_of_engine;   // engine device -> model device
  std::vector<std::optional<Window>> windows;  // by slot: the window the platform watches
  std::span<const SensorOutput> outputs;       // this model step's samples
  std::span<std::uint32_t> levels;             // this model step's levels, by model device
  std::span<const double> brightness;          // this model step's brightness, by model device
  recorder::Ring* ring = nullptr;              // recording: knob writes go here too

  policy::SensorRead read(std::size_t slot, bool /*rebind*/) override {
    if (!brightness_slot[slot]) return {outputs[sensor_of_slot[slot]].reading, {}};
    if (sensor_of_slot[slot] >= brightness.size()) return {std::nullopt, "no brightness given"};
    const double b = brightness[sensor_of_slot[slot]];
    return {policy::MilliC(static_cast<std::int32_t>(std::lround(b * 1000.0))), {}};
  }
  [[nodiscard]] bool present(std::size_t /*slot*/) const override { return true; }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override { return feed[slot]; }

  [[nodiscard]] bool bound(std::size_t /*device*/) const override { return true; }
  bool rebind(std::size_t /*device*/) override { return false; }
  bool apply(std::size_t device, std::uint32_t level) override {
    levels[device_of_engine[device]] = level;
    if (ring) {  // as coolhandd's actuator records the sysfs write and its read-back
      const auto v = static_cast<std::int32_t>(level);
      ring->put(recorder::Kind::knob_write, static_cast<std::uint16_t>(device), level, 0, v, v);
    }
    return true;
  }
  void verify(std::size_t /*device*/) override {}
  void restore(std::size_t device) override {
    levels[device_of_engine[device]] = 0;
    if (ring) ring->put(recorder::Kind::knob_write, static_cast<std::uint16_t>(device), 0, 0, 0, 0);
  }

  // The EC takes the window as WINDOW_SET does, without a read back.
  bool watch(std::size_t slot, const Window& w) override {
    windows[slot] = w;
    return false;
  }
};

PolicyLoop::~PolicyLoop() = default;

std::variant<std::unique_ptr<PolicyLoop>, std::string> PolicyLoop::create(
    const config::PolicyDocument& policy, const std::vector<std::string>& sensors,
    const std::vector<std::pair<std::string, std::uint32_t>>& devices, const Feed& feed,
    const LoopRecording& record) {
  auto compiled = policy::Engine::compile(policy.spec);
  if (!compiled.errors.empty()) {
    const auto& e = compiled.errors.front();
    return "policy does not compile: " + e.path + "." + e.key + ": " + e.message;
  }
  const auto& spec = compiled.engine->spec();
  auto ports = std::make_unique<Ports>();
  const auto model_device = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t m = 0; m < devices.size(); ++m)
      if (devices[m].first == name) return m;
    return std::nullopt;
  };
  std::vector<policy::SensorId> slots;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    if (spec.sensors[i].kind != policy::SensorSpec::Kind::physical) continue;
    if (spec.sensors[i].quantity == policy::SensorSpec::Quantity::brightness) {
      const auto src = policy.sources.find(spec.sensors[i].name);
      const std::string device = src != policy.sources.end() ? src->second.name : "";
      const auto dev = model_device(device);
      if (!dev)
        return "policy brightness sensor '" + spec.sensors[i].name + "' reads backlight '" +
               device + "', but the model has no device of that name";
      slots.push_back(policy::SensorId{static_cast<std::uint16_t>(i)});
      ports->sensor_of_slot.push_back(*dev);
      ports->brightness_slot.push_back(true);
      ports->feed.push_back(policy::Delivery::polled);
      continue;
    }
    std::optional<std::size_t> found;
    for (std::size_t s = 0; s < sensors.size(); ++s)
      if (sensors[s] == spec.sensors[i].name) found = s;
    if (!found)
      return "policy sensor '" + spec.sensors[i].name + "' has no sensor of that name in the model";
    slots.push_back(policy::SensorId{static_cast<std::uint16_t>(i)});
    ports->sensor_of_slot.push_back(*found);
    ports->brightness_slot.push_back(false);
    const auto named = feed.per_sensor.find(spec.sensors[i].name);
    ports->feed.push_back(named != feed.per_sensor.end() ? named->second : feed.delivery);
  }
  for (const auto& d : spec.devices) {
    const auto found = model_device(d.name);
    if (!found) return "policy device '" + d.name + "' has no device of that name in the model";
    if (d.max_level != devices[*found].second)
      return "policy device '" + d.name + "' has max_level " + std::to_string(d.max_level) +
             " but the model's has " + std::to_string(devices[*found].second);
    ports->device_of_engine.push_back(*found);
  }
  ports->windows.assign(slots.size(), std::nullopt);
  const policy::LoopConfig config{policy.spec.sampling, policy.daemon.lost_after_failures};
  std::unique_ptr<PolicyLoop> out(new PolicyLoop());
  Ports& p = *ports;
  out->ports_ = std::move(ports);
  if (record.ring) {
    p.ring = record.ring;
    out->recorder_ = std::make_unique<recorder::LoopRecorder>(
        *record.ring, record.policy_hash, std::move(compiled.engine), slots, config,
        policy::LoopPorts{p, p, p, nullptr});
  } else {
    out->loop_ = std::make_unique<policy::ControlLoop>(std::move(compiled.engine), std::move(slots),
                                                       config, policy::LoopPorts{p, p, p, nullptr});
  }
  return out;
}

std::variant<std::unique_ptr<PolicyLoop>, std::string> PolicyLoop::create(
    const config::PolicyDocument& policy, const ModelSpec& model, const Feed& feed,
    const LoopRecording& record) {
  std::vector<std::string> sensors;
  for (const auto& s : model.sensors) sensors.push_back(s.name);
  std::vector<std::pair<std::string, std::uint32_t>> devices;
  for (const auto& d : model.devices) devices.emplace_back(d.name, d.max_level());
  auto made = create(policy, sensors, devices, feed, record);
  if (auto* err = std::get_if<std::string>(&made)) *err += " '" + model.name + "'";
  return made;
}

bool PolicyLoop::reads_brightness() const {
  const auto& b = ports_->brightness_slot;
  return std::find(b.begin(), b.end(), true) != b.end();
}

void PolicyLoop::advance(Time now, std::span<const SensorOutput> outputs,
                         std::span<std::uint32_t> levels, std::span<const double> brightness) {
  Ports& p = *ports_;
  p.outputs = outputs;
  p.levels = levels;
  p.brightness = brightness;
  if (p.ring && p.ring->size() >= p.ring->capacity() / 4 * 3 &&
      p.ring->capacity() < recorder::Ring::kMaxCapacity)
    p.ring->resize(p.ring->capacity() * 2);  // between calls: nothing is lost
  if (!started_) {
    started_ = true;
    start(now);
    wake_ = tick(now);
    return;
  }
  bool pushed = false;
  for (std::size_t slot = 0; slot < p.sensor_of_slot.size(); ++slot) {
    if (p.feed[slot] != policy::Delivery::pushed) continue;
    const SensorOutput& o = outputs[p.sensor_of_slot[slot]];
    const auto& w = p.windows[slot];
    if (!o.sampled || !w || (o.reading > w->low && o.reading < w->high)) continue;
    if (recorder_)
      recorder_->push(slot, o.reading, now);
    else
      loop_->push(slot, o.reading, now);
    pushed = true;
  }
  if (pushed || profile_switched_ || (wake_ && now >= *wake_)) wake_ = tick(now);
  profile_switched_ = false;
}

bool PolicyLoop::set_profile(std::string_view name) {
  const bool ok = recorder_ ? recorder_->set_profile(name) : loop_->set_profile(name);
  profile_switched_ = profile_switched_ || ok;
  return ok;
}

void PolicyLoop::start(Time now) {
  if (recorder_)
    recorder_->start(now);
  else
    loop_->start(now);
}

std::optional<Time> PolicyLoop::tick(Time now) {
  return recorder_ ? recorder_->tick(now) : loop_->tick(now);
}

namespace {

class LoopController final : public Controller {
 public:
  LoopController(std::unique_ptr<PolicyLoop> loop, std::string name,
                 std::vector<ProfileSwitch> switches)
      : loop_(std::move(loop)),
        reads_brightness_(loop_->reads_brightness()),
        name_(std::move(name)),
        switches_(std::move(switches)) {}
  std::string name() const override { return name_; }
  std::uint64_t decisions() const override { return loop_->steps(); }
  // The devices' brightness is worked out each model step only for a policy
  // that reads one (as advance() documents: empty otherwise).
  void control(const ThermalModel& model, std::span<std::uint32_t> levels) override {
    if (reads_brightness_) {
      const auto& devices = model.spec().devices;
      brightness_.resize(devices.size());
      for (std::size_t d = 0; d < devices.size(); ++d)
        brightness_[d] = devices[d].brightness(model.level(d), model.demand(d));
    }
    loop_->advance(model.now(), model.sensor_outputs(), levels, brightness_);
    // The profile switches due by now, in order, after this step's tick (as
    // a D-Bus call lands between two of coolhandd's ticks): each takes
    // effect at the next step, the loop ticked for it. Each name was checked
    // against the policy's profiles when the controller was made.
    while (next_switch_ < switches_.size() && switches_[next_switch_].at <= model.now())
      (void)loop_->set_profile(switches_[next_switch_++].profile);
  }

 private:
  std::unique_ptr<PolicyLoop> loop_;
  bool reads_brightness_;
  std::vector<double> brightness_;  // by model device, this step's
  std::string name_;
  std::vector<ProfileSwitch> switches_;  // by time
  std::size_t next_switch_ = 0;
};

}  // namespace

std::variant<std::unique_ptr<Controller>, std::string> make_policy_controller(
    const ModelSpec& model, const config::PolicyDocument& policy, std::string name,
    policy::Delivery delivery, const LoopRecording& record,
    std::vector<ProfileSwitch> profile_switches) {
  for (const auto& s : profile_switches) {
    const auto& profiles = policy.spec.profiles;
    if (!s.profile.empty() &&
        std::none_of(profiles.begin(), profiles.end(),
                     [&s](const policy::ProfileSpec& p) { return p.name == s.profile; }))
      return "no profile '" + s.profile + "' in the policy (a switch at " +
             std::to_string(s.at.count()) + " ms)";
  }
  std::stable_sort(profile_switches.begin(), profile_switches.end(),
                   [](const ProfileSwitch& a, const ProfileSwitch& b) { return a.at < b.at; });
  auto made = PolicyLoop::create(policy, model, Feed{delivery, {}}, record);
  if (auto* err = std::get_if<std::string>(&made)) return std::move(*err);
  return std::unique_ptr<Controller>(
      std::make_unique<LoopController>(std::move(std::get<std::unique_ptr<PolicyLoop>>(made)),
                                       std::move(name), std::move(profile_switches)));
}

}  // namespace coolhand::sim
