// The closed-loop runner: a model, a workload and a controller advanced
// together in simulated time (see runner.h). The controllers are in
// governor_controller.cpp (the kernel's thermal core) and policy_loop.cpp
// (coolhand's shared control loop).
#include "coolhand/sim/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace coolhand::sim {

using policy::Time;

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
  std::vector<std::size_t> skin_nodes;  // node indices, in spec.skin_nodes order
  for (const auto& name : spec.skin_nodes)
    if (auto i = model.node_index(name)) {
      skin_nodes.push_back(*i);
      m.skin_node_names.push_back(name);
    }
  m.max_skin_by_node_c.assign(skin_nodes.size(), -1e300);
  Trace& tr = result.trace;
  const std::uint64_t stride =
      options.trace_max_rows == 0
          ? 1
          : std::max<std::uint64_t>(1,
                                    (steps + options.trace_max_rows - 1) / options.trace_max_rows);
  const std::uint64_t rows = (steps + stride - 1) / stride;
  if (options.record_trace) {
    for (const auto& n : spec.nodes) tr.nodes.push_back(n.name);
    for (const auto& s : spec.sensors) tr.sensors.push_back(s.name);
    for (const auto& d : spec.devices) tr.devices.push_back(d.name);
    for (auto* v : {&tr.time_s, &tr.ambient_c, &tr.max_skin_c, &tr.power_w, &tr.performance})
      v->reserve(rows);
    tr.node_c.assign(spec.nodes.size(), {});
    tr.sensor_c.assign(ns, {});
    tr.level.assign(nd, {});
    tr.demand.assign(nd, {});
    for (auto& v : tr.node_c) v.reserve(rows);
    for (auto& v : tr.sensor_c) v.reserve(rows);
    for (auto& v : tr.level) v.reserve(rows);
    for (auto& v : tr.demand) v.reserve(rows);
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

    // The skin is the hottest skin node (ThermalModel::max_skin_c), taken
    // from the same per-node readings that keep each node's own peak.
    double skin = -1e300;
    for (std::size_t j = 0; j < skin_nodes.size(); ++j) {
      const double node = model.node_c(skin_nodes[j]);
      skin = std::max(skin, node);
      m.max_skin_by_node_c[j] = std::max(m.max_skin_by_node_c[j], node);
    }
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
      // A new row at the first step of each bucket; later steps of the
      // bucket fold into it (see RunOptions::trace_max_rows).
      const bool first = k % stride == 0;
      const auto keep_max = [first](auto& series, auto value) {
        if (first)
          series.push_back(value);
        else
          series.back() = std::max(series.back(), value);
      };
      double want = 0, got = 0;
      for (std::size_t d = 0; d < nd; ++d) {
        want += weights[d] * demand[d];
        got += weights[d] * demand[d] * spec.devices[d].performance[levels[d]];
      }
      const double perf = want > 0 ? got / want : 1.0;
      if (first) {
        tr.time_s.push_back(now.count() / 1000.0);
        tr.performance.push_back(perf);
      } else {
        tr.performance.back() = std::min(tr.performance.back(), perf);
      }
      keep_max(tr.ambient_c, model.ambient_c());
      keep_max(tr.max_skin_c, skin);
      keep_max(tr.power_w, power);
      for (std::size_t i = 0; i < spec.nodes.size(); ++i) keep_max(tr.node_c[i], model.node_c(i));
      for (std::size_t s = 0; s < ns; ++s) keep_max(tr.sensor_c[s], outputs[s].reading.celsius());
      for (std::size_t d = 0; d < nd; ++d) {
        keep_max(tr.level[d], levels[d]);
        keep_max(tr.demand[d], demand[d]);
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

RunResult run_from_start(const ModelSpec& model, const Workload& workload, Controller& controller,
                         std::uint64_t seed, const RunOptions& options) {
  ThermalModel m(workload.start(model), seed);
  Workload w = workload;
  return run(m, w, controller, options);
}

}  // namespace coolhand::sim
