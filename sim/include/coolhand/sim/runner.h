// The closed loop: a model, a workload and a controller (the coolhand engine
// or a kernel governor) advanced together in simulated time, with metrics
// and an optional per-step trace.
//
// Order within one step of length dt at time t:
//   1. the workload's inputs in force at t are applied (demand, ambient);
//   2. the controller sees the sensor readings sampled at t and sets levels;
//   3. metrics and the trace record the state at t with those levels;
//   4. the model advances to t + dt with inputs held.
// The run covers [0, workload duration).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/policy/loop.h"
#include "coolhand/sim/kernel_thermal.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/policy_loop.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

// Decides device levels once per model step. Implementations keep their own
// timers (polling delays, engine next_step) against model.now().
class Controller {
 public:
  virtual ~Controller() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // `levels` holds the levels in force (one per model device) and is
  // updated in place.
  virtual void control(const ThermalModel& model, std::span<std::uint32_t> levels) = 0;
  // Engine steps (coolhand) or zone updates (kernel) so far.
  [[nodiscard]] virtual std::uint64_t decisions() const = 0;
};

// A kernel governor on every zone of the model's firmware description
// (Governor::none: no zone ever throttles), with `kernel`'s core and
// governor rules (kernel_thermal.h).
[[nodiscard]] std::unique_ptr<Controller> make_governor_controller(
    const ModelSpec& model, Governor governor, KernelVersion kernel = KernelVersion::v6_1);

// The coolhand policy through the shared control loop coolhandd runs
// (policy_loop.h), with the model's sensors reporting like the coolhand
// module's emulated EC (Delivery::pushed) or polled. Physical sensors and
// devices are matched to the model by name; an error (as text) names what
// does not match.
// `profile_switches` switch the policy's profile during the run, as a lab's
// script running `coolhandctl profile NAME` would (the port chain's
// excitation steps the devices' levels so: port_yaml.h, lab_copies): each at
// the first model step at or after its time, in time order; a profile the
// policy lacks is an error.
struct ProfileSwitch {
  policy::Time at{0};
  std::string profile;  // "" is the policy as written
};
[[nodiscard]] std::variant<std::unique_ptr<Controller>, std::string> make_policy_controller(
    const ModelSpec& model, const config::PolicyDocument& policy, std::string name,
    policy::Delivery delivery = policy::Delivery::pushed, const LoopRecording& record = {},
    std::vector<ProfileSwitch> profile_switches = {});

struct SensorStats {
  double max_c = 0;
  double mean_c = 0;
};

struct Metrics {
  std::string scenario;
  std::string controller;
  double duration_s = 0;
  double skin_limit_c = 0;
  double max_skin_c = 0;
  // Each skin node's own peak, named in skin_node_names (ModelSpec::skin_nodes
  // order; max_skin_c is the largest): tune judges each cover against its
  // own allowance, and the port chain's device check compares each cover's
  // peak on the device with the fitted model's.
  std::vector<std::string> skin_node_names;
  std::vector<double> max_skin_by_node_c;
  double seconds_over_limit = 0;
  double degree_seconds_over_limit = 0;
  double performance = 1.0;
  std::map<std::string, double> performance_by_device;
  std::uint64_t level_changes = 0;
  double level_changes_per_min = 0;
  std::map<std::string, SensorStats> sensors;
  std::uint64_t steps = 0;
  std::uint64_t decisions = 0;
  double energy_j = 0;
  double wall_s = 0;
  double steps_per_s = 0;
};

// Samples for the CSV and the plots: one row per step, or per bucket of
// consecutive steps when RunOptions::trace_max_rows thins it.
struct Trace {
  std::vector<std::string> nodes, sensors, devices;
  std::vector<double> time_s, ambient_c, max_skin_c, power_w, performance;
  std::vector<std::vector<double>> node_c;        // [node][step]
  std::vector<std::vector<double>> sensor_c;      // [sensor][step]
  std::vector<std::vector<std::uint32_t>> level;  // [device][step]
  std::vector<std::vector<double>> demand;        // [device][step]
};

struct RunOptions {
  bool record_trace = true;
  // Most rows the trace keeps; 0 keeps one per step. A longer run records
  // one row per bucket of ceil(steps / trace_max_rows) consecutive steps,
  // as it runs, so memory stays bounded however long the run: the row's
  // time is its first step's, performance is the bucket's lowest and every
  // other series its highest (hottest node, sensor and skin, most power,
  // deepest level, highest demand and ambient), the extremes a plot draws.
  // Metrics are computed on every step either way.
  std::size_t trace_max_rows = 0;
};

struct RunResult {
  Metrics metrics;
  Trace trace;
};

// Runs `controller` on `model` (fresh, at t = 0) for the workload's duration.
[[nodiscard]] RunResult run(ThermalModel& model, Workload& workload, Controller& controller,
                            const RunOptions& options = {});

// One run as `coolhand-sim run --seed SEED` makes it, and compare, tune's
// baselines and the port chain's device check: `controller` on a fresh
// ThermalModel of `model` at the workload's start state (Workload::start)
// with sensor-noise seed `seed`, over a copy of `workload`. It changes
// nothing it is given but `controller`, so runs with controllers of their
// own may share the rest across threads.
[[nodiscard]] RunResult run_from_start(const ModelSpec& model, const Workload& workload,
                                       Controller& controller, std::uint64_t seed,
                                       const RunOptions& options = {});

}  // namespace coolhand::sim
