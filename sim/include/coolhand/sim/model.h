// The handheld thermal model: a lumped RC network of nodes (heat capacity,
// J/K) joined by conductances (W/K) to each other and to a time-varying
// ambient, heated by throttle devices and read by imperfect sensors.
//
// This header is the stable API other components reuse (the daemon's
// end-to-end test drives a ThermalModel and mirrors its sensors into a fake
// sysfs tree). It has no dependency on the policy engine.
//
// Physics. With T the vector of node temperatures (°C), C the diagonal of
// capacities, L the conductance Laplacian between nodes and g the vector of
// conductances to ambient:
//   C dT/dt = -(L + diag(g)) T + g * T_amb + P
// where P is the power (W) dissipated into each node. Written as
// dT/dt = A T + B u with u = [P; T_amb], the model is discretised exactly for
// inputs held constant over a step (zero-order hold):
//   T[k+1] = Ad T[k] + Bd u[k],  Ad = expm(A dt),  Bd = ∫0^dt expm(A s) ds B
// both taken from one matrix exponential of the augmented matrix [[A B][0 0]]
// (Van Loan). Ad and Bd are computed once per time step length, so a step is
// two small matrix-vector products and allocates nothing.
//
// Devices. Device d at level l with demand u in [0,1] dissipates
//   P_d = idle_w + u * power_w[l]
// split over its nodes by `heat` shares (which sum to 1). It delivers
// u * performance[l] units of work out of u demanded.
//
// Cooling devices (fans). A device with `cooling` entries adds, at level l,
// cooling[i].to_ambient_w_per_k[l] to the conductance to ambient of the
// entry's node, so g, A and B above depend on the levels of these devices.
// The levels are held over a step like every input, so each step is still
// the exact zero-order-hold step of a linear model: the one of the current
// fan configuration (the levels of every cooling device). Each
// configuration's Ad, Bd are computed the first time it is used and kept
// (at most kMaxFanConfigurations).
//
// Sensors. A sensor reads its node through a first-order lag (time constant
// lag, exact per step), adds its offset and seeded Gaussian noise (our own
// Box-Muller over std::mt19937_64, so values are identical on every platform),
// quantises to `quantum_c` and holds the value between samples taken every
// `period`. Readings are MilliC, like every sensor under /sys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/policy/units.h"

namespace coolhand::sim {

using policy::MilliC;
using policy::Millis;

// ------------------------------------------------------------------ spec --

struct NodeSpec {
  std::string name;
  double capacity_j_per_k = 0.0;    // > 0
  double to_ambient_w_per_k = 0.0;  // >= 0, conductance straight to ambient air
  std::optional<double> initial_c;  // default: the ambient at t = 0
};

struct LinkSpec {
  std::string a;
  std::string b;
  double w_per_k = 0.0;  // > 0
};

struct HeatShare {
  std::string node;
  double share = 1.0;  // > 0; a device's shares sum to 1
};

// A device level that changes a node's conductance to ambient (a fan: more
// airflow over a heatsink at deeper levels). The node's conductance to
// ambient at a level is its own to_ambient_w_per_k plus this list's entry.
struct CoolingEffect {
  std::string node;
  std::vector<double> to_ambient_w_per_k;  // per level (level 0 first), >= 0
};

struct DeviceModelSpec {
  std::string name;
  double idle_w = 0.0;                 // dissipated at any level while the device is on
  std::vector<double> power_w;         // power at full demand per level (level 0 first), >= 0
  std::vector<double> performance;     // work rate per level in [0,1], same length as power_w
  std::vector<HeatShare> heat;         // where the heat goes (empty: into the exhaust air)
  std::vector<CoolingEffect> cooling;  // conductances the level sets (fans); usually empty
  // Demand when a workload has no column for the device (a fan is always
  // "demanded": its noise cost counts at every step). Unset: a column is
  // required.
  std::optional<double> default_demand;
  double weight = 1.0;  // default weight in the performance metric (workloads may override)
  // The device's kernel cooling device implements the power-actor ops
  // (get_requested_power/state2power/power2state, i.e. it has an Energy
  // Model, as cpufreq and devfreq cooling do). Only power actors can be
  // bound to a power_allocator zone.
  bool energy_model = false;
  [[nodiscard]] std::uint32_t max_level() const {
    return static_cast<std::uint32_t>(power_w.size()) - 1;
  }
  // For a display backlight: the brightness it shows at `level` with
  // `demand`, as a fraction of full (0..1), what its sysfs actual_brightness
  // over max_brightness reads. Its heat is idle_w + demand * power_w[level]
  // with LED power following brightness, so this is demand * power_w[level] /
  // power_w[0] (0 for a device without power at level 0).
  [[nodiscard]] double brightness(std::uint32_t level, double demand) const {
    if (power_w.empty() || !(power_w[0] > 0.0)) return 0.0;
    const std::size_t l = std::min<std::size_t>(level, power_w.size() - 1);
    return std::clamp(demand * power_w[l] / power_w[0], 0.0, 1.0);
  }
};

struct SensorModelSpec {
  std::string name;
  std::string node;
  double offset_c = 0.0;
  double noise_c = 0.0;    // standard deviation of Gaussian noise, °C
  double quantum_c = 0.0;  // quantisation step, °C (0: m°C resolution)
  double lag_s = 0.0;      // first-order lag time constant (0: none)
  Millis period{1000};     // sampling period (> 0)
};

// Firmware's kernel thermal binding (what a device tree's thermal-zones node
// or ACPI tables would declare): zones over sensors, trips, cooling maps.
// Used by the kernel-governor baselines only.
struct KernelTripSpec {
  enum class Type : std::uint8_t { active, passive, hot, critical };
  std::string name;
  Type type = Type::passive;
  MilliC temp{0};
  MilliC hyst{0};
};

struct KernelCoolingMap {
  std::string trip;                    // name of a trip of the zone
  std::string device;                  // a model device (the cooling device)
  std::optional<std::uint32_t> lower;  // default 0 (THERMAL_NO_LIMIT)
  std::optional<std::uint32_t> upper;  // default max state (THERMAL_NO_LIMIT)
  std::uint32_t weight = 0;            // cdevN_weight; 0 = THERMAL_WEIGHT_DEFAULT
};

struct KernelZoneSpec {
  std::string name;
  std::string sensor;          // a model sensor
  Millis polling_delay{1000};  // 0: no polling (interrupt only, not modelled)
  Millis passive_delay{250};
  std::vector<KernelTripSpec> trips;  // in ascending temperature, as the core expects
  std::vector<KernelCoolingMap> cooling;
  // power_allocator parameters (thermal_zone_params), in the kernel's own
  // representation as sysfs shows them: gains are fixed point with 10
  // fractional bits, in mW per m°C (k_d: per m°C per ms). Unset ones are
  // estimated the way the 6.1 governor does it.
  std::optional<std::uint32_t> sustainable_power_mw;
  std::optional<std::int32_t> k_po;
  std::optional<std::int32_t> k_pu;
  std::optional<std::int32_t> k_i;
  std::optional<std::int32_t> k_d;
  std::int32_t integral_cutoff_mc = 0;
};

// Largest magnitude of a temperature (ambient, a node's initial, a sensor's
// offset, a trip's) or hysteresis, °C, in a model or a workload's ambient_c:
// the policy language's range (config's kMaxAbsCelsius), well inside
// MilliC's int32 m°C, whose conversion from a larger double is undefined (a
// sensor reads ambient, initial temperatures and offsets through it).
inline constexpr double kMaxAbsC = 1000.0;

struct ModelSpec {
  std::string name;
  Millis time_step{100};                // integration and control step
  double ambient_c = 25.0;              // default ambient (a workload may override it over time)
  std::vector<std::string> skin_nodes;  // comfort is judged on these nodes
  double skin_limit_c = 45.0;
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;
  std::vector<DeviceModelSpec> devices;
  std::vector<SensorModelSpec> sensors;
  std::vector<KernelZoneSpec> kernel_zones;
  std::string source;  // file the spec was read from ("" if built in code)
};

// Parse model YAML. `file` names the text in errors. Validates names,
// references and ranges; the first error found is returned.
[[nodiscard]] std::variant<ModelSpec, config::ConfigError> parse_model(std::string_view text,
                                                                       std::string_view file);
[[nodiscard]] std::variant<ModelSpec, config::ConfigError> load_model_file(const std::string& path);

// The index in spec.devices of the device named `name` (names are unique:
// parse_model checks), or nullopt. The one lookup of a model device by name.
[[nodiscard]] std::optional<std::size_t> device_index(const ModelSpec& spec, std::string_view name);

// Fan configurations (products of the cooling devices' level counts) a
// model may have; each keeps its own discretised step.
inline constexpr std::size_t kMaxFanConfigurations = 4096;

// ----------------------------------------------------------------- model --

// A running instance of a ModelSpec. Single-threaded. Indices are spec order.
class ThermalModel {
 public:
  // `spec` must have come from parse_model (or be equally valid).
  explicit ThermalModel(ModelSpec spec, std::uint64_t seed = 1);
  ~ThermalModel();
  ThermalModel(ThermalModel&&) noexcept;
  ThermalModel& operator=(ThermalModel&&) noexcept;

  // Convenience: load a YAML file and build the model.
  [[nodiscard]] static std::variant<ThermalModel, config::ConfigError> load(const std::string& path,
                                                                            std::uint64_t seed = 1);

  [[nodiscard]] const ModelSpec& spec() const;
  [[nodiscard]] Millis time_step() const;
  [[nodiscard]] policy::Time now() const;
  [[nodiscard]] std::optional<std::size_t> node_index(std::string_view name) const;
  [[nodiscard]] std::optional<std::size_t> device_index(std::string_view name) const;
  [[nodiscard]] std::optional<std::size_t> sensor_index(std::string_view name) const;

  // Inputs, held until changed. Levels are clamped to the device's range,
  // demand to [0,1].
  void set_ambient(double c);
  void set_level(std::size_t device, std::uint32_t level);
  void set_demand(std::size_t device, double demand);
  // All devices at once (spans sized to the device count): one power update.
  void set_inputs(std::span<const std::uint32_t> levels, std::span<const double> demand);

  // Advance by the spec's time step (the fast path), or by any `dt` > 0.
  // Sensors due at the new time are sampled. The span overloads set every
  // device's level and demand first (sizes must equal the device count).
  void step();
  void step(Millis dt);
  void step(Millis dt, std::span<const std::uint32_t> levels, std::span<const double> demand);

  [[nodiscard]] double node_c(std::size_t node) const;
  [[nodiscard]] double ambient_c() const;
  [[nodiscard]] double max_skin_c() const;
  [[nodiscard]] std::uint32_t level(std::size_t device) const;
  [[nodiscard]] double demand(std::size_t device) const;
  [[nodiscard]] double device_power_w(std::size_t device) const;

  // The last sampled reading, and whether the latest step took a new sample.
  [[nodiscard]] MilliC sensor(std::size_t sensor) const;
  [[nodiscard]] bool sensor_sampled(std::size_t sensor) const;
  // The same for every sensor at once, by sensor index, and every device's
  // power (W) by device index: views into the model, valid while it lives
  // and is not moved; per-step loops use these instead of a call per value.
  struct SensorOutput {
    MilliC reading{0};
    bool sampled = false;
  };
  [[nodiscard]] std::span<const SensorOutput> sensor_outputs() const;
  [[nodiscard]] std::span<const double> device_powers_w() const;

  // One step of the spec's time step as plain row-major matrices, for code
  // that reasons about the model offline (bound.h): the node temperatures
  // (°C) after a step are ad * T + bd * [node powers (W); ambient (°C)],
  // exactly the step step() takes at the current levels of the cooling
  // devices (at construction: level 0).
  struct StepMatrices {
    std::size_t nodes = 0;
    std::vector<double> ad;  // nodes x nodes
    std::vector<double> bd;  // nodes x (nodes + 1)
  };
  [[nodiscard]] StepMatrices step_matrices() const;

  // Energy accounting (for tests and sanity): heat stored relative to 0 °C,
  // J; and the totals since construction of electrical energy dissipated and
  // heat lost to ambient, J. Accumulated exactly over each held step when
  // enabled (costs one extra matrix-vector product per step).
  void enable_energy_accounting(bool on);
  [[nodiscard]] double stored_energy_j() const;
  [[nodiscard]] double energy_in_j() const;
  [[nodiscard]] double energy_to_ambient_j() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coolhand::sim
