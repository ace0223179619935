// The bound's linear view of a model and a workload; see bound_linear.h.
#include "bound_linear.h"

namespace coolhand::sim::detail {

namespace {

Dynamics dynamics_of(const ModelSpec& spec) {
  const ThermalModel model(spec);
  const auto m = model.step_matrices();
  const auto n = static_cast<Eigen::Index>(m.nodes);
  Dynamics dyn{Eigen::MatrixXd(n, n), Eigen::VectorXd(n), {}, {}};
  Eigen::MatrixXd bp(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      dyn.ad(i, j) = m.ad[static_cast<std::size_t>(i * n + j)];
      bp(i, j) = m.bd[static_cast<std::size_t>(i * (n + 1) + j)];
    }
    dyn.ba(i) = m.bd[static_cast<std::size_t>(i * (n + 1) + n)];
  }
  dyn.h = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(spec.devices.size()));
  Eigen::VectorXd idle = Eigen::VectorXd::Zero(n);
  for (std::size_t d = 0; d < spec.devices.size(); ++d)
    for (const auto& share : spec.devices[d].heat) {
      const auto node = static_cast<Eigen::Index>(*model.node_index(share.node));
      dyn.h.col(static_cast<Eigen::Index>(d)) += share.share * bp.col(node);
      idle(node) += share.share * spec.devices[d].idle_w;
    }
  dyn.idle_in = bp * idle;
  return dyn;
}

}  // namespace

Linear linearise(const std::vector<ModelSpec>& specs) {
  const ModelSpec& spec = specs.front();
  const ThermalModel model(spec);
  Linear lin;
  lin.n = spec.nodes.size();
  lin.devices = spec.devices.size();
  for (const auto& s : specs) lin.dyn.push_back(dynamics_of(s));
  lin.t0.resize(static_cast<Eigen::Index>(lin.n));
  for (std::size_t i = 0; i < lin.n; ++i) lin.t0(static_cast<Eigen::Index>(i)) = model.node_c(i);
  for (const auto& dev : spec.devices) {
    lin.power_w.push_back(dev.power_w);
    lin.performance.push_back(dev.performance);
  }
  for (const auto& s : spec.skin_nodes) lin.skin.push_back(*model.node_index(s));
  return lin;
}

Inputs replay_inputs(const ModelSpec& spec, Workload workload) {
  Inputs in;
  const auto dt = spec.time_step.count();
  in.steps = static_cast<std::uint64_t>((workload.duration().count() + dt - 1) / dt);
  in.weight = workload.weights();
  double ambient = spec.ambient_c;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    if (!workload.seek(policy::Time(static_cast<std::int64_t>(k) * dt)) && k > 0) continue;
    if (const auto a = workload.ambient_c()) ambient = *a;
    in.first.push_back(k);
    in.demand.insert(in.demand.end(), workload.demand().begin(), workload.demand().end());
    in.ambient_c.push_back(ambient);
  }
  const std::size_t nd = in.weight.size();
  for (std::size_t s = 0; s < in.first.size(); ++s) {
    const std::uint64_t end = s + 1 < in.first.size() ? in.first[s + 1] : in.steps;
    for (std::size_t d = 0; d < nd; ++d)
      in.total_weighted_demand +=
          in.weight[d] * in.demand[s * nd + d] * static_cast<double>(end - in.first[s]);
  }
  return in;
}

}  // namespace coolhand::sim::detail
