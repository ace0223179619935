// The kernel thermal core (kernel_thermal.h) on the model's firmware zones,
// as a closed-loop controller.
#include <cmath>

#include "coolhand/sim/runner.h"

namespace coolhand::sim {

namespace {

using policy::Time;

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

}  // namespace

std::unique_ptr<Controller> make_governor_controller(const ModelSpec& model, Governor governor) {
  return std::make_unique<GovernorController>(model, governor);
}

}  // namespace coolhand::sim
