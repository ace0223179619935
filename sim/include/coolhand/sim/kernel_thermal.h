// Baselines: Linux 6.1's thermal core and its governors (step_wise,
// bang_bang, fair_share, power_allocator) re-expressed from the 6.1 sources
// (drivers/thermal/thermal_core.c, thermal_helpers.c, gov_*.c), plus "none";
// with KernelVersion::v7_3 the core and governors introduced by 6.13, as
// 7.3 has them, instead (kernel_thermal_73.cpp, which lists what differs).
//
// What is modelled, as 6.1 does it:
//  - A zone update (thermal_zone_device_update) reads the zone's sensor,
//    remembers the previous reading as last_temperature and calls the
//    zone's governor once per trip, in trip order; critical/hot trips are
//    counted, not acted on. After every governor call each cooling device
//    takes the deepest target of all its instances (__thermal_cdev_update);
//    an instance with no target (THERMAL_NO_TARGET) does not count.
//  - Zones are polled: the next update comes passive_delay after this one
//    while the zone's `passive` count is non-zero, else polling_delay. Only
//    step_wise and power_allocator touch `passive`; a bang_bang or
//    fair_share zone always polls at polling_delay. Interrupt-driven updates
//    (set_trips) are not modelled.
//  - Trends are the default ones (no get_trend op): the sign of
//    T - last_temperature. THERMAL_TREND_RAISE_FULL/DROP_FULL only come from
//    a driver's get_trend, so they never occur here.
// The per-governor rules are written above each governor in
// kernel_thermal.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/policy/units.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim {

enum class Governor : std::uint8_t { none, step_wise, bang_bang, fair_share, power_allocator };
[[nodiscard]] std::string_view to_string(Governor g);
[[nodiscard]] std::optional<Governor> governor_from_string(std::string_view s);
// The kernel whose thermal core and governors are re-expressed. v6_1 is
// Debian 12's 6.1 (the rules in kernel_thermal.cpp); v7_3 the core and
// governors introduced by 6.13, verified against 7.3 (kernel_thermal_73.cpp,
// `--kernel 7.3`): trips crossed with hysteresis thresholds, `passive`
// counted by the core, governors' manage() run once per update after the
// crossings.
enum class KernelVersion : std::uint8_t { v6_1, v7_3 };
[[nodiscard]] std::string_view to_string(KernelVersion k);
[[nodiscard]] std::optional<KernelVersion> kernel_version_from_string(std::string_view s);

inline constexpr Governor kKernelGovernors[] = {Governor::step_wise, Governor::bang_bang,
                                                Governor::fair_share, Governor::power_allocator};

// The 6.1 cooling driver behind a power actor. It fixes the unit of the
// actor's load and how load enters get_requested_power and power2state:
//  - cpufreq (drivers/thermal/cpufreq_cooling.c), a one-CPU policy: load in
//    percent (get_load: 100 * busy / elapsed since the last request, floor);
//    requested = state2power(cur) * load / 100; power2state compares
//    granted * 100 / (load ?: 1) with the table;
//  - devfreq (drivers/thermal/devfreq_cooling.c, Energy Model, no
//    get_real_power): load is busy_time normalised to 1024 (_normalize_load,
//    at least 1); requested = state2power(cur) * busy >> 10; power2state
//    compares (granted << 10) / busy with the table.
// Either way power2state picks the shallowest state whose full-load power is
// at most the normalised grant, else the deepest state.
enum class PowerActor : std::uint8_t { none, cpufreq, devfreq };

// A cooling device as the core sees it.
struct CoolingDevice {
  std::string name;
  std::uint32_t max_state = 0;
  // Power-actor ops (empty when the device has no Energy Model):
  // state2power, mW at full load per state.
  std::vector<std::uint32_t> state_power_mw;
  PowerActor actor = PowerActor::none;
};

// Diagnostics of a power_allocator zone's last allocation, for tests.
struct IpaSnapshot {
  std::uint32_t sustainable_power_mw = 0;
  std::int32_t k_po = 0, k_pu = 0, k_i = 0, k_d = 0;  // fixed point, 10 fractional bits
  std::uint32_t power_range_mw = 0;                   // budget from the PID
  std::vector<std::uint32_t> granted_mw;              // per actor, in binding order
  bool active = false;                                // above switch_on at the last update
};

class KernelThermal {
 public:
  explicit KernelThermal(std::vector<CoolingDevice> cdevs,
                         KernelVersion kernel = KernelVersion::v6_1);

  // Registers a zone from firmware's description, with cooling maps
  // resolved against the cooling devices by name; all zones run `governor`.
  // For power_allocator only maps to power actors are bound (6.1's
  // check_power_actors refuses a zone with any other cooling device, so
  // firmware targeting IPA binds power actors only). Returns the zone index.
  std::size_t add_zone(const KernelZoneSpec& spec, Governor governor);

  // One thermal_zone_device_update of `zone` with a fresh reading.
  void update_zone(std::size_t zone, policy::MilliC temperature);
  // Delay until the zone's next poll, as monitor_thermal_zone would arm it
  // (zero means no polling).
  [[nodiscard]] policy::Millis next_delay(std::size_t zone) const;

  // The power actor's last load, in its driver's unit (see PowerActor:
  // percent for cpufreq, busy/1024 for devfreq), as get_requested_power
  // measures it; used for requested power and by power2state.
  void set_load(std::size_t cdev, std::uint32_t load);
  // get_requested_power from the current state and the last load, mW.
  [[nodiscard]] std::uint32_t requested_power_mw(std::size_t cdev) const;
  // power2state of the actor's driver at its last load.
  [[nodiscard]] std::uint32_t power2state(std::size_t cdev, std::uint32_t granted_mw) const;

  [[nodiscard]] std::size_t cdev_count() const { return cdevs_.size(); }
  [[nodiscard]] PowerActor actor(std::size_t cdev) const { return cdevs_[cdev].actor; }
  [[nodiscard]] std::uint32_t cur_state(std::size_t cdev) const { return cur_state_[cdev]; }
  [[nodiscard]] std::uint32_t critical_crossings(std::size_t zone) const;
  [[nodiscard]] const IpaSnapshot& ipa(std::size_t zone) const;
  // Target of the zone's i-th bound instance (nullopt: THERMAL_NO_TARGET).
  [[nodiscard]] std::optional<std::uint32_t> instance_target(std::size_t zone,
                                                             std::size_t instance) const;

 private:
  struct Instance {
    std::size_t trip = 0;
    std::size_t cdev = 0;
    std::uint32_t lower = 0;
    std::uint32_t upper = 0;
    std::uint32_t weight = 0;
    std::optional<std::uint32_t> target;  // nullopt: THERMAL_NO_TARGET
    bool initialized = false;
  };
  struct Zone {
    KernelZoneSpec spec;
    Governor governor = Governor::none;
    std::vector<Instance> instances;
    std::int32_t temperature_mc = 0;
    std::int32_t last_temperature_mc = 0;
    int passive = 0;
    std::uint32_t critical_crossings = 0;
    // power_allocator state
    std::optional<std::size_t> trip_switch_on;
    std::optional<std::size_t> trip_max_desired;
    std::int64_t err_integral = 0;
    std::int32_t prev_err = 0;
    std::uint32_t params_sustainable = 0;
    IpaSnapshot ipa;
    // 7.3: per trip, whether it is on the core's trips_reached list (its
    // threshold is then temperature - hysteresis, else temperature).
    std::vector<bool> reached;
    bool pa_update_cdevs = false;   // power_allocator_params.update_cdevs
    bool bang_bang_walked = false;  // tz->governor_data of bang_bang_manage
  };

  void run_trip(Zone& z, std::size_t trip);
  void step_wise(Zone& z, std::size_t trip);
  void bang_bang(Zone& z, std::size_t trip);
  void fair_share(Zone& z, std::size_t trip);
  void power_allocator(Zone& z, std::size_t trip);
  void ipa_estimate_constants(Zone& z, std::uint32_t sustainable, std::int32_t control_mc);
  std::uint32_t ipa_pid(Zone& z, std::int32_t control_mc, std::uint32_t max_allocatable);
  void update_cdevs();
  // 7.3 (kernel_thermal_73.cpp).
  void update_zone_73(Zone& z);
  void trip_crossed_73(Zone& z, std::size_t trip, bool upward);
  [[nodiscard]] std::int32_t threshold_73(const Zone& z, std::size_t trip) const;
  void step_wise_73(Zone& z);
  void bang_bang_set_73(Instance& in, bool on);
  void bang_bang_73(Zone& z);
  void fair_share_73(Zone& z);
  void power_allocator_73(Zone& z);
  void allocate_power(Zone& z, bool zero_request_gets_max);
  void cdev_update_nocheck(std::size_t cdev);
  KernelVersion kernel_ = KernelVersion::v6_1;

  std::vector<CoolingDevice> cdevs_;
  std::vector<std::uint32_t> cur_state_;
  std::vector<std::uint32_t> load_;
  std::vector<bool> dirty_;  // cooling device needs __thermal_cdev_update (!cdev->updated)
  std::vector<Zone> zones_;
};

// Builds the cooling devices for a model: one per device, max_state =
// max_level, state power = power_w (dynamic power at full load) for devices
// with an Energy Model. The Energy-Model device named "cpu" is a cpufreq
// cooling device (one CPU cluster as a one-CPU policy); every other one is
// a devfreq cooling device (a GPU's), see docs/simulator.md.
[[nodiscard]] std::vector<CoolingDevice> cooling_devices_for(const ModelSpec& model);

}  // namespace coolhand::sim
