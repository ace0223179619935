// The closed-loop runner and the two controller adapters: the kernel thermal
// core (kernel_thermal.h) on the model's firmware zones, and the coolhand
// engine driven the way the daemon drives it.
#include "coolhand/sim/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "coolhand/policy/engine.h"

namespace coolhand::sim {

namespace {

using policy::Time;

// ------------------------------------------------------- kernel governors --

// Each zone is updated when its poll timer expires (the first update at
// t = 0, as thermal_zone_device_enable triggers one), reading the latest
// sample of its sensor. Before an update the core is told each power
// actor's requested power: its dynamic power now (demand x full-load power
// at its current state), as cpufreq/devfreq cooling compute it from load.
class GovernorController final : public Controller {
 public:
  GovernorController(const ModelSpec& model, Governor governor)
      : governor_(governor), core_(cooling_devices_for(model)) {
    for (const auto& z : model.kernel_zones) {
      zones_.push_back(core_.add_zone(z, governor));
      std::size_t s = 0;
      while (model.sensors[s].name != z.sensor) ++s;
      zone_sensor_.push_back(s);
      next_.push_back(Time(0));
    }
  }

  std::string name() const override { return std::string(to_string(governor_)); }
  std::uint64_t decisions() const override { return updates_; }

  void control(const ThermalModel& model, std::span<std::uint32_t> levels) override {
    if (governor_ == Governor::none) return;
    const Time now = model.now();
    bool any = false;
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      if (!next_[i] || now < *next_[i]) continue;
      if (!any) {
        const auto& devices = model.spec().devices;
        for (std::size_t d = 0; d < devices.size(); ++d)
          core_.set_requested_power_mw(
              d, static_cast<std::uint32_t>(
                     std::lround(model.demand(d) * devices[d].power_w[levels[d]] * 1000.0)));
        any = true;
      }
      core_.update_zone(zones_[i], model.sensor(zone_sensor_[i]));
      ++updates_;
      const auto delay = core_.next_delay(zones_[i]);
      if (delay.count() > 0)
        next_[i] = now + delay;
      else
        next_[i].reset();
    }
    if (any)
      for (std::size_t d = 0; d < levels.size(); ++d) levels[d] = core_.cur_state(d);
  }

 private:
  Governor governor_;
  KernelThermal core_;
  std::vector<std::size_t> zones_;
  std::vector<std::size_t> zone_sensor_;
  std::vector<std::optional<Time>> next_;
  std::uint64_t updates_ = 0;
};

// --------------------------------------------------------- coolhand engine --

// The daemon's loop over the model's sensors:
//  - every model sensor is event-capable in the Cool Hand sense (the EC or
//    the coolhand module reports a reading when it leaves the window the
//    policy set): a fresh sample outside the engine's window for that
//    sensor is fed to the engine and triggers a step;
//  - a sensor not fed for its poll interval (Decision::poll_intervals) is
//    fed its latest sample, as the daemon's adaptive poll would;
//  - at Decision::next_step the daemon steps the engine, first re-reading
//    every sensor (reads are cheap), so time-driven controllers work on
//    fresh values;
//  - changed levels are applied at once.
// Steps are therefore far fewer than model steps when temperatures are
// settled.
class PolicyController final : public Controller {
 public:
  PolicyController(std::unique_ptr<policy::Engine> engine, std::string name,
                   std::vector<std::pair<policy::SensorId, std::size_t>> sensors,
                   std::vector<std::pair<std::size_t, std::size_t>> devices)
      : engine_(std::move(engine)),
        name_(std::move(name)),
        sensors_(std::move(sensors)),
        devices_(std::move(devices)),
        last_fed_(sensors_.size(), Time(0)) {}

  std::string name() const override { return name_; }
  std::uint64_t decisions() const override { return steps_; }

  void control(const ThermalModel& model, std::span<std::uint32_t> levels) override {
    const Time now = model.now();
    const auto outputs = model.sensor_outputs();
    bool need = !started_ || (next_step_ && now >= *next_step_);
    const bool feed_all = need;
    for (std::size_t i = 0; i < sensors_.size(); ++i) {
      const auto [id, s] = sensors_[i];
      const policy::MilliC r = outputs[s].reading;
      bool feed = feed_all;
      if (!feed && outputs[s].sampled) {
        const auto& w = windows_[id.index];
        feed = r < w.low || r > w.high || now - last_fed_[i] >= polls_[id.index];
      }
      if (feed) {
        engine_->set_sensor(id, r, now);
        last_fed_[i] = now;
        need = true;
      }
    }
    if (!need) return;
    const policy::Decision& d = engine_->step(now);
    ++steps_;
    started_ = true;
    next_step_ = d.next_step;
    windows_ = d.windows;  // same size every step: no allocation after the first
    polls_ = d.poll_intervals;
    for (const auto& [engine_dev, model_dev] : devices_)
      levels[model_dev] = d.devices[engine_dev].level;
  }

 private:
  std::unique_ptr<policy::Engine> engine_;
  std::string name_;
  std::vector<std::pair<policy::SensorId, std::size_t>> sensors_;
  std::vector<std::pair<std::size_t, std::size_t>> devices_;  // engine device -> model device
  std::vector<Time> last_fed_;
  std::vector<policy::Window> windows_;
  std::vector<policy::Millis> polls_;
  std::optional<Time> next_step_;
  bool started_ = false;
  std::uint64_t steps_ = 0;
};

}  // namespace

std::unique_ptr<Controller> make_governor_controller(const ModelSpec& model, Governor governor) {
  return std::make_unique<GovernorController>(model, governor);
}

std::variant<std::unique_ptr<Controller>, std::string> make_policy_controller(
    const ModelSpec& model, const config::PolicyDocument& policy, std::string name) {
  auto compiled = policy::Engine::compile(policy.spec);
  if (!compiled.errors.empty()) {
    const auto& e = compiled.errors.front();
    return "policy does not compile: " + e.path + "." + e.key + ": " + e.message;
  }
  const auto& spec = compiled.engine->spec();
  std::vector<std::pair<policy::SensorId, std::size_t>> sensors;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    if (spec.sensors[i].kind != policy::SensorSpec::Kind::physical) continue;
    std::optional<std::size_t> found;
    for (std::size_t s = 0; s < model.sensors.size(); ++s)
      if (model.sensors[s].name == spec.sensors[i].name) found = s;
    if (!found)
      return "policy sensor '" + spec.sensors[i].name + "' has no sensor of that name in model '" +
             model.name + "'";
    sensors.emplace_back(policy::SensorId{static_cast<std::uint16_t>(i)}, *found);
  }
  std::vector<std::pair<std::size_t, std::size_t>> devices;
  for (std::size_t i = 0; i < spec.devices.size(); ++i) {
    std::optional<std::size_t> found;
    for (std::size_t d = 0; d < model.devices.size(); ++d)
      if (model.devices[d].name == spec.devices[i].name) found = d;
    if (!found)
      return "policy device '" + spec.devices[i].name + "' has no device of that name in model '" +
             model.name + "'";
    if (spec.devices[i].max_level != model.devices[*found].max_level())
      return "policy device '" + spec.devices[i].name + "' has max_level " +
             std::to_string(spec.devices[i].max_level) + " but the model's has " +
             std::to_string(model.devices[*found].max_level());
    devices.emplace_back(i, *found);
  }
  return std::unique_ptr<Controller>(std::make_unique<PolicyController>(
      std::move(compiled.engine), std::move(name), std::move(sensors), std::move(devices)));
}

RunResult run(ThermalModel& model, Workload& workload, Controller& controller,
              const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ModelSpec& spec = model.spec();
  const std::size_t nd = spec.devices.size();
  const std::size_t ns = spec.sensors.size();
  const double dt_s = model.time_step().count() / 1000.0;
  const auto steps = static_cast<std::uint64_t>(
      (workload.duration().count() + model.time_step().count() - 1) / model.time_step().count());

  RunResult result;
  Metrics& m = result.metrics;
  m.scenario = workload.name();
  m.controller = controller.name();
  m.skin_limit_c = spec.skin_limit_c;
  m.max_skin_c = -1e300;
  Trace& tr = result.trace;
  if (options.record_trace) {
    for (const auto& n : spec.nodes) tr.nodes.push_back(n.name);
    for (const auto& s : spec.sensors) tr.sensors.push_back(s.name);
    for (const auto& d : spec.devices) tr.devices.push_back(d.name);
    for (auto* v : {&tr.time_s, &tr.ambient_c, &tr.max_skin_c, &tr.power_w, &tr.performance})
      v->reserve(steps);
    tr.node_c.assign(spec.nodes.size(), {});
    tr.sensor_c.assign(ns, {});
    tr.level.assign(nd, {});
    tr.demand.assign(nd, {});
    for (auto& v : tr.node_c) v.reserve(steps);
    for (auto& v : tr.sensor_c) v.reserve(steps);
    for (auto& v : tr.level) v.reserve(steps);
    for (auto& v : tr.demand) v.reserve(steps);
  }

  std::vector<std::uint32_t> max_levels;
  std::vector<const double*> performance;
  for (const auto& d : spec.devices) {
    max_levels.push_back(d.max_level());
    performance.push_back(d.performance.data());
  }
  const auto outputs = model.sensor_outputs();
  const auto device_power = model.device_powers_w();
  std::vector<std::uint32_t> levels(nd, 0);
  std::vector<std::uint32_t> previous(nd, 0);
  std::vector<double> delivered(nd, 0.0), demanded(nd, 0.0);
  std::vector<double> sensor_max(ns, -1e300), sensor_sum(ns, 0.0);
  std::vector<std::uint64_t> sensor_n(ns, 0);
  const auto& weights = workload.weights();

  for (std::uint64_t k = 0; k < steps; ++k) {
    // The model holds its inputs, so they are set at the first step, when
    // the workload moved to a new row (before the controller, which may
    // read demand), and when the controller changed a level.
    const Time now = model.now();
    const auto& demand = workload.demand();
    if (workload.seek(now) || k == 0) {
      if (const auto amb = workload.ambient_c()) model.set_ambient(*amb);
      model.set_inputs(levels, demand);
    }

    controller.control(model, levels);
    bool changed = false;
    for (std::size_t d = 0; d < nd; ++d) {
      levels[d] = std::min(levels[d], max_levels[d]);
      if (levels[d] != previous[d]) {
        changed = true;
        if (k > 0) ++m.level_changes;
      }
      previous[d] = levels[d];
      delivered[d] += demand[d] * performance[d][levels[d]] * dt_s;
      demanded[d] += demand[d] * dt_s;
    }
    if (changed) model.set_inputs(levels, demand);

    const double skin = model.max_skin_c();
    m.max_skin_c = std::max(m.max_skin_c, skin);
    if (skin > spec.skin_limit_c) {
      m.seconds_over_limit += dt_s;
      m.degree_seconds_over_limit += (skin - spec.skin_limit_c) * dt_s;
    }
    double power = 0;
    for (std::size_t d = 0; d < nd; ++d) power += device_power[d];
    m.energy_j += power * dt_s;
    for (std::size_t s = 0; s < ns; ++s) {
      if (!outputs[s].sampled) continue;
      const double c = outputs[s].reading.celsius();
      sensor_max[s] = std::max(sensor_max[s], c);
      sensor_sum[s] += c;
      ++sensor_n[s];
    }

    if (options.record_trace) {
      tr.time_s.push_back(now.count() / 1000.0);
      tr.ambient_c.push_back(model.ambient_c());
      tr.max_skin_c.push_back(skin);
      tr.power_w.push_back(power);
      double want = 0, got = 0;
      for (std::size_t d = 0; d < nd; ++d) {
        want += weights[d] * demand[d];
        got += weights[d] * demand[d] * spec.devices[d].performance[levels[d]];
      }
      tr.performance.push_back(want > 0 ? got / want : 1.0);
      for (std::size_t i = 0; i < spec.nodes.size(); ++i) tr.node_c[i].push_back(model.node_c(i));
      for (std::size_t s = 0; s < ns; ++s) tr.sensor_c[s].push_back(outputs[s].reading.celsius());
      for (std::size_t d = 0; d < nd; ++d) {
        tr.level[d].push_back(levels[d]);
        tr.demand[d].push_back(demand[d]);
      }
    }
    model.step();
  }

  m.steps = steps;
  m.duration_s = static_cast<double>(steps) * dt_s;
  m.decisions = controller.decisions();
  double want = 0, got = 0;
  for (std::size_t d = 0; d < nd; ++d) {
    m.performance_by_device[spec.devices[d].name] =
        demanded[d] > 0 ? delivered[d] / demanded[d] : 1.0;
    want += weights[d] * demanded[d];
    got += weights[d] * delivered[d];
  }
  m.performance = want > 0 ? got / want : 1.0;
  m.level_changes_per_min = m.duration_s > 0 ? m.level_changes / (m.duration_s / 60.0) : 0.0;
  for (std::size_t s = 0; s < ns; ++s)
    m.sensors[spec.sensors[s].name] =
        SensorStats{sensor_n[s] ? sensor_max[s] : 0.0,
                    sensor_n[s] ? sensor_sum[s] / static_cast<double>(sensor_n[s]) : 0.0};
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  m.steps_per_s = m.wall_s > 0 ? static_cast<double>(steps) / m.wall_s : 0.0;
  return result;
}

}  // namespace coolhand::sim
