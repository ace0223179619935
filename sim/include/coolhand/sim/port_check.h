// The port chain's device check (scripts/port-device.sh, step 5;
// docs/simulator.md, "The port chain"): a policy run on the device's model
// and on the fitted model over the tune's suite and noise seeds, reduced to
// what the check judges. `coolhand-sim port check` (sim/src/cmd_port.cpp)
// writes it as the script's peaks.txt and performance.txt.
//
// The runs. Per workload, the policy on the device's model with the noise
// seeds 1..K and the extra seeds S0..S0+E-1 (the device alone: the device's
// peaks count noise the tune never ran), and on the fitted model with seeds
// 1..K, each run exactly as `coolhand-sim run -m MODEL -p POLICY -w W
// --seed S` makes it (run_from_start, runner.h). They run in parallel
// (parallel.h), each writing its own slot, so the result does not depend on
// the thread count.
//
// The reduction, as the script's awk did it from each run's metrics.json:
//   peak of (workload, skin node) on a model  the highest of that node's
//       peak over the model's seeds, each as metrics.json writes it
//       (max_skin_by_node_c, 4 decimals: metrics_rounded, output.h);
//   performance of a workload on a model      the lowest over seeds 1..K
//       only (metrics.json's `performance`, unrounded);
//   the limit                                 the device model's skin limit
//       as metrics.json writes it (skin_limit_c).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

// One model the check runs the policy on, with the suite bound to it.
struct PortCheckModel {
  const ModelSpec* spec = nullptr;
  // The suite, bound to *spec; the same files in the same order on both
  // models (Workload::name(), the file's stem, names each workload).
  const std::vector<Workload>* workloads = nullptr;
  std::string file;  // the model's file, for messages
};

struct PortCheckJob {
  PortCheckModel device, fitted;
  const config::PolicyDocument* policy = nullptr;
  std::string policy_name;           // the controller's name in the runs (`run`: the file's stem)
  std::string policy_file;           // for messages
  std::uint64_t noise_seeds = 4;     // K: seeds 1..K on both models
  std::uint64_t extra_seeds = 0;     // E: more seeds on the device alone ...
  std::uint64_t extra_seed0 = 1001;  // ... S0..S0+E-1, above K (disjoint from 1..K)
  unsigned threads = 0;              // 0: every core
};

struct PortCheckResult {
  double skin_limit_c = 0;  // the device's, as metrics.json writes it
  struct Peak {
    std::string workload, node;
    double fitted_c = 0, device_c = 0;  // each model's highest over its seeds
  };
  std::vector<Peak> peaks;  // workload by workload (suite order), nodes in model order
  struct Performance {
    std::string workload;
    double fitted = 0, device = 0;  // each model's lowest over seeds 1..K
  };
  std::vector<Performance> performance;  // suite order
  std::size_t runs = 0;
};

// Every run of `job` and their reduction. An error (as text, naming the
// file) when the seeds are none or overlap, the suite is empty or differs
// between the models, a workload's name repeats, the models' skin nodes
// differ, or the policy does not match a model.
[[nodiscard]] std::variant<PortCheckResult, std::string> run_port_check(const PortCheckJob& job);

// The script's files, byte for byte: one line per (workload, node),
// "WORKLOAD NODE FITTED DEVICE" (%.4f), and one per workload, "WORKLOAD
// FITTED DEVICE BIAS" (%.10f %.10f %+.10f, BIAS = device - fitted); lines in
// byte order, as `sort` orders them in the C locale.
[[nodiscard]] std::string port_check_peaks_text(const PortCheckResult& r);
[[nodiscard]] std::string port_check_performance_text(const PortCheckResult& r);

}  // namespace coolhand::sim
