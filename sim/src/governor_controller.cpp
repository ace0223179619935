// The kernel thermal core (kernel_thermal.h) on the model's firmware zones,
// as a closed-loop controller.
#include <algorithm>
#include <cmath>

#include "coolhand/sim/runner.h"

namespace coolhand::sim {

namespace {

using policy::Time;

// Each zone is updated when its poll timer expires (the first update at
// t = 0, as thermal_zone_device_enable triggers one), reading the latest
// sample of its sensor. Before an update round the core is told each power
// actor's last load: the device's mean demand since the previous round, in
// its driver's unit (kernel_thermal.h, PowerActor), as cpufreq's get_load
// measures busy time since its previous request. Zones updated at the same
// instant share that load (the kernel would measure the second zone's over
// the microseconds between the two requests).
class GovernorController final : public Controller {
 public:
  GovernorController(const ModelSpec& model, Governor governor, KernelVersion kernel)
      : governor_(governor), core_(cooling_devices_for(model), kernel) {
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
    accumulate_demand(model);
    bool any = false;
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      if (!next_[i] || now < *next_[i]) continue;
      if (!any) {
        set_loads(model);
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
  // Adds the demand held since the previous call to each device's busy time.
  void accumulate_demand(const ThermalModel& model) {
    const Time now = model.now();
    const auto n = model.spec().devices.size();
    if (held_.empty()) {
      held_.assign(n, 0.0);
      busy_ms_.assign(n, 0.0);
      window_start_ = now;
    } else {
      const auto dt = static_cast<double>((now - last_call_).count());
      for (std::size_t d = 0; d < n; ++d) busy_ms_[d] += held_[d] * dt;
    }
    for (std::size_t d = 0; d < n; ++d) held_[d] = model.demand(d);
    last_call_ = now;
  }

  // Mean demand over the window since the previous round (the current
  // demand on the first round), in each actor's load unit; starts a new
  // window.
  void set_loads(const ThermalModel& model) {
    const auto window = static_cast<double>((model.now() - window_start_).count());
    for (std::size_t d = 0; d < held_.size(); ++d) {
      const double mean = window > 0 ? busy_ms_[d] / window : held_[d];
      const double scale = core_.actor(d) == PowerActor::devfreq ? 1024.0 : 100.0;
      core_.set_load(
          d, static_cast<std::uint32_t>(std::floor(std::clamp(mean, 0.0, 1.0) * scale + 1e-9)));
      busy_ms_[d] = 0.0;
    }
    window_start_ = model.now();
  }

  Governor governor_;
  KernelThermal core_;
  std::vector<std::size_t> zones_;
  std::vector<std::size_t> zone_sensor_;
  std::vector<std::optional<Time>> next_;
  std::uint64_t updates_ = 0;
  std::vector<double> held_;     // demand set at the previous call, per device
  std::vector<double> busy_ms_;  // sum of demand x ms since window_start_
  Time window_start_{};
  Time last_call_{};
};

}  // namespace

std::unique_ptr<Controller> make_governor_controller(const ModelSpec& model, Governor governor,
                                                     KernelVersion kernel) {
  return std::make_unique<GovernorController>(model, governor, kernel);
}

}  // namespace coolhand::sim
