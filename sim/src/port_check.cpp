// The port chain's device check: its runs and their reduction (the rules are
// in coolhand/sim/port_check.h).
#include "coolhand/sim/port_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <set>

#include "coolhand/sim/output.h"
#include "coolhand/sim/runner.h"
#include "parallel.h"

namespace coolhand::sim {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

// What the job's inputs must satisfy before anything runs; empty: they do.
std::string refusal(const PortCheckJob& job) {
  const auto& dw = *job.device.workloads;
  const auto& fw = *job.fitted.workloads;
  if (job.noise_seeds == 0) return "no noise seeds: the check needs seeds 1..K, K >= 1";
  if (job.extra_seeds > 0 && job.extra_seed0 <= job.noise_seeds)
    return fmt::format("the extra seeds from {} overlap seeds 1..{}: start them above {}",
                       job.extra_seed0, job.noise_seeds, job.noise_seeds);
  if (job.extra_seeds > std::numeric_limits<std::uint64_t>::max() - job.extra_seed0 + 1)
    return fmt::format("{} extra seeds from {} run past the largest seed", job.extra_seeds,
                       job.extra_seed0);
  if (dw.empty()) return "no workload to check";
  if (dw.size() != fw.size()) return "the suite differs between the models";
  std::set<std::string> seen;
  for (std::size_t w = 0; w < dw.size(); ++w) {
    if (dw[w].name() != fw[w].name()) return "the suite differs between the models";
    if (!seen.insert(dw[w].name()).second)
      return fmt::format("workload '{}' given twice (each workload once)", dw[w].name());
  }
  if (job.device.spec->skin_nodes != job.fitted.spec->skin_nodes)
    return fmt::format("{}: skin nodes ({}) other than the device model {}'s ({})", job.fitted.file,
                       joined(job.fitted.spec->skin_nodes), job.device.file,
                       joined(job.device.spec->skin_nodes));
  for (const PortCheckModel* m : {&job.device, &job.fitted}) {
    auto made = make_policy_controller(*m->spec, *job.policy, job.policy_name);
    if (auto* e = std::get_if<std::string>(&made))
      return fmt::format("{} on {}: {}", job.policy_file, m->file, *e);
  }
  return {};
}

// One run's figures as the check reads them.
struct RunFigures {
  std::vector<double> node_peak_c;  // metrics_rounded, model skin-node order
  double performance = 0;
};

}  // namespace

std::variant<PortCheckResult, std::string> run_port_check(const PortCheckJob& job) {
  if (std::string why = refusal(job); !why.empty()) return why;
  const std::size_t nw = job.device.workloads->size();
  const std::size_t k = job.noise_seeds, e = job.extra_seeds;
  // Per workload: the device's seeds 1..K, its extra seeds, the fitted
  // model's seeds 1..K, in that order.
  const std::size_t per = k + e + k;
  std::vector<RunFigures> runs(nw * per);
  parallel_for(runs.size(), job.threads, [&](std::size_t task) {
    const std::size_t w = task / per, i = task % per;
    const bool device = i < k + e;
    const PortCheckModel& m = device ? job.device : job.fitted;
    std::uint64_t seed = i + 1;                              // the device's 1..K
    if (device && i >= k) seed = job.extra_seed0 + (i - k);  // its extra seeds
    if (!device) seed = i - (k + e) + 1;                     // the fitted model's 1..K
    auto made = make_policy_controller(*m.spec, *job.policy, job.policy_name);
    auto& ctl = *std::get<std::unique_ptr<Controller>>(made);  // refusal() made one
    RunOptions options;
    options.record_trace = false;
    const Metrics r = run_from_start(*m.spec, (*m.workloads)[w], ctl, seed, options).metrics;
    RunFigures& f = runs[task];
    for (double c : r.max_skin_by_node_c) f.node_peak_c.push_back(metrics_rounded(c));
    f.performance = r.performance;
  });

  PortCheckResult out;
  out.skin_limit_c = metrics_rounded(job.device.spec->skin_limit_c);
  out.runs = runs.size();
  const auto& nodes = job.device.spec->skin_nodes;
  for (std::size_t w = 0; w < nw; ++w) {
    const RunFigures* first = &runs[w * per];
    const std::string& name = (*job.device.workloads)[w].name();
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      PortCheckResult::Peak p{name, nodes[n], first[k + e].node_peak_c.at(n),
                              first[0].node_peak_c.at(n)};
      for (std::size_t i = 0; i < k + e; ++i)
        p.device_c = std::max(p.device_c, first[i].node_peak_c.at(n));
      for (std::size_t i = k + e; i < per; ++i)
        p.fitted_c = std::max(p.fitted_c, first[i].node_peak_c.at(n));
      out.peaks.push_back(std::move(p));
    }
    PortCheckResult::Performance p{name, first[k + e].performance, first[0].performance};
    for (std::size_t i = 0; i < k; ++i) p.device = std::min(p.device, first[i].performance);
    for (std::size_t i = k + e; i < per; ++i) p.fitted = std::min(p.fitted, first[i].performance);
    out.performance.push_back(std::move(p));
  }
  return out;
}

namespace {

// The lines in byte order (std::string compares bytes as unsigned char, as
// `sort` does in the C locale), each ended by a newline.
std::string sorted_lines(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace

std::string port_check_peaks_text(const PortCheckResult& r) {
  std::vector<std::string> lines;
  for (const auto& p : r.peaks)
    lines.push_back(fmt::format("{} {} {:.4f} {:.4f}", p.workload, p.node, p.fitted_c, p.device_c));
  return sorted_lines(std::move(lines));
}

std::string port_check_performance_text(const PortCheckResult& r) {
  std::vector<std::string> lines;
  for (const auto& p : r.performance)
    lines.push_back(fmt::format("{} {:.10f} {:.10f} {:+.10f}", p.workload, p.fitted, p.device,
                                p.device - p.fitted));
  return sorted_lines(std::move(lines));
}

}  // namespace coolhand::sim
