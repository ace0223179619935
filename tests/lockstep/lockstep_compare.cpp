// The kernel in the loop (issue 14), host side: every run the lockstep
// guest printed (lockstep_trace.h) is repeated here with the simulator's
// own kernel baseline (sim::make_governor_controller: the same model, seed,
// workload and governor) and compared step by step. A run whose governor is
// "coolhandd" (the real daemon, guest/daemon_run.cpp) is repeated with the
// policy given by --policy through the simulator's shared loop
// (sim::make_policy_controller, every sensor pushed: what `coolhand-sim run
// --policy` does); its "updates" are the steps the guest woke the daemon
// on, against the simulator loop's engine steps (not compared).
//
//   lockstep_compare LOG MODEL WORKLOAD_DIR [--expect N] [--markdown FILE]
//                    [--policy FILE]
//
// A run agrees when at least 99 % of its steps have identical levels on
// every device, max skin differs by at most 0.1 °C and performance by at
// most 0.005 (issue 14). Exit status: 0 when all runs agree (and there are
// N of them with --expect), 1 otherwise, 2 for bad arguments or input.
// --markdown writes the faithfulness table (governor x workload x kernel)
// for docs/results.md.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "lockstep_trace.h"

namespace sim = coolhand::sim;
namespace ls = coolhand::lockstep;

namespace {

// The simulator's rules for the guest's `uname -r`: Debian 12's 6.1.x gets
// the 6.1 rules, 6.13 and later the 6.13+ ones (KernelVersion::v7_3,
// checked against linux-source-7.3 by sim_kernel_diff_7.3).
std::optional<sim::KernelVersion> simulator_rules(const std::string& uname) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(uname.c_str(), "%u.%u", &major, &minor) != 2) return std::nullopt;
  if (major == 6 && minor == 1) return sim::KernelVersion::v6_1;
  if (major > 6 || (major == 6 && minor >= 13)) return sim::KernelVersion::v7_3;
  return std::nullopt;
}

constexpr double kMinIdentical = 0.99;
constexpr double kMaxSkinDelta = 0.1;
constexpr double kMaxPerfDelta = 0.005;

struct Row {
  std::string kernel, governor, workload, seed;
  std::size_t steps = 0, identical = 0;
  std::uint64_t kernel_decisions = 0, sim_decisions = 0;
  double skin_kernel = 0, skin_sim = 0, perf_kernel = 0, perf_sim = 0;
  std::string first_difference;
  bool pass = false;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, sep)) out.push_back(part);
  return out;
}

std::string levels_text(const std::vector<std::uint32_t>& v) {
  std::string s;
  for (auto l : v) s += (s.empty() ? "" : ",") + std::to_string(l);
  return s;
}

// Label "<kernel>/<governor>/<workload>/<seed>" from the guest's init.sh.
std::string compare(const ls::RunTrace& k, const sim::ModelSpec& model,
                    const std::string& workload_dir,
                    const std::optional<coolhand::config::PolicyDocument>& policy, Row& row) {
  const auto parts = split(k.label, '/');
  if (parts.size() != 4) return "label " + k.label + " is not kernel/governor/workload/seed";
  row.kernel = parts[0];
  row.governor = parts[1];
  row.workload = parts[2];
  row.seed = parts[3];
  const bool daemon = row.governor == "coolhandd";
  const auto governor = sim::governor_from_string(row.governor);
  if (!governor && !daemon) return "unknown governor in " + k.label;
  if (daemon && !policy) return k.label + ": a coolhandd run needs --policy";
  auto table = sim::load_csv_file(workload_dir + "/" + row.workload + ".csv");
  if (auto* e = std::get_if<coolhand::config::ConfigError>(&table)) return e->to_string();
  auto bound = sim::Workload::bind(std::get<sim::CsvTable>(std::move(table)), model);
  if (auto* e = std::get_if<coolhand::config::ConfigError>(&bound)) return e->to_string();
  const auto rules = simulator_rules(row.kernel);
  if (!rules) return "kernel " + row.kernel + " in " + k.label + " is neither 6.1 nor 6.13+";
  std::unique_ptr<sim::Controller> controller;
  if (daemon) {
    auto made = sim::make_policy_controller(model, *policy, "coolhandd");
    if (auto* e = std::get_if<std::string>(&made)) return k.label + ": " + *e;
    controller = std::move(std::get<std::unique_ptr<sim::Controller>>(made));
  } else {
    controller = sim::make_governor_controller(model, *governor, *rules);
  }
  sim::ThermalModel m(model, std::stoull(row.seed));
  const auto s = ls::to_trace(k.label, sim::run(m, std::get<sim::Workload>(bound), *controller));
  if (s.level.size() != k.level.size())
    return k.label + ": " + std::to_string(k.level.size()) + " steps in the guest, " +
           std::to_string(s.level.size()) + " here";
  row.steps = s.level.size();
  for (std::size_t i = 0; i < row.steps; ++i) {
    if (s.level[i] == k.level[i]) {
      ++row.identical;
    } else if (row.first_difference.empty()) {
      const double t = static_cast<double>(i) * model.time_step.count() / 1000.0;
      char buf[200];
      std::snprintf(buf, sizeof(buf), "step %zu (t = %.1f s): kernel %s, simulator %s", i, t,
                    levels_text(k.level[i]).c_str(), levels_text(s.level[i]).c_str());
      row.first_difference = buf;
    }
  }
  row.kernel_decisions = k.decisions;
  row.sim_decisions = s.decisions;
  row.skin_kernel = k.max_skin_c;
  row.skin_sim = s.max_skin_c;
  row.perf_kernel = k.performance;
  row.perf_sim = s.performance;
  const double share =
      row.steps ? static_cast<double>(row.identical) / static_cast<double>(row.steps) : 0.0;
  row.pass = row.steps > 0 && share >= kMinIdentical &&
             std::abs(row.skin_kernel - row.skin_sim) <= kMaxSkinDelta &&
             std::abs(row.perf_kernel - row.perf_sim) <= kMaxPerfDelta;
  return "";
}

void write_markdown(std::ostream& out, const std::vector<Row>& rows) {
  out << "| kernel | governor | workload | identical steps | max skin kernel / sim (°C) | "
         "Δ max skin | performance kernel / sim | Δ perf | zone updates kernel / sim |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    char buf[400];
    std::snprintf(buf, sizeof(buf),
                  "| %s | %s | %s | %.2f %% | %.2f / %.2f | %.3f | %.4f / %.4f | %.4f | %llu / "
                  "%llu |\n",
                  r.kernel.c_str(), r.governor.c_str(), r.workload.c_str(),
                  100.0 * static_cast<double>(r.identical) / static_cast<double>(r.steps),
                  r.skin_kernel, r.skin_sim, std::abs(r.skin_kernel - r.skin_sim), r.perf_kernel,
                  r.perf_sim, std::abs(r.perf_kernel - r.perf_sim),
                  static_cast<unsigned long long>(r.kernel_decisions),
                  static_cast<unsigned long long>(r.sim_decisions));
    out << buf;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::size_t expect = 0;
  std::string markdown, policy_path;
  std::vector<std::string> pos;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--expect" && i + 1 < args.size())
      expect = std::stoul(args[++i]);
    else if (args[i] == "--markdown" && i + 1 < args.size())
      markdown = args[++i];
    else if (args[i] == "--policy" && i + 1 < args.size())
      policy_path = args[++i];
    else
      pos.push_back(args[i]);
  }
  if (pos.size() != 3) {
    std::cerr << "usage: lockstep_compare LOG MODEL WORKLOAD_DIR [--expect N] [--markdown FILE] "
                 "[--policy FILE]\n";
    return 2;
  }
  std::ifstream log(pos[0]);
  if (!log) {
    std::cerr << "lockstep_compare: cannot read " << pos[0] << "\n";
    return 2;
  }
  auto traces = ls::read_traces(log);
  if (auto* e = std::get_if<std::string>(&traces)) {
    std::cerr << "lockstep_compare: " << pos[0] << ": " << *e << "\n";
    return 2;
  }
  auto loaded = sim::load_model_file(pos[1]);
  if (auto* e = std::get_if<coolhand::config::ConfigError>(&loaded)) {
    std::cerr << "lockstep_compare: " << e->to_string() << "\n";
    return 2;
  }
  const auto& model = std::get<sim::ModelSpec>(loaded);
  std::optional<coolhand::config::PolicyDocument> policy;
  if (!policy_path.empty()) {
    auto r = coolhand::config::load_policy_file(policy_path);
    for (const auto& e : r.errors) std::cerr << "lockstep_compare: " << e.to_string() << "\n";
    if (!r.document) return 2;
    policy = std::move(r.document);
  }

  std::vector<Row> rows;
  int failed = 0;
  for (const auto& k : std::get<std::vector<ls::RunTrace>>(traces)) {
    Row row;
    if (auto err = compare(k, model, pos[2], policy, row); !err.empty()) {
      std::cerr << "lockstep_compare: " << err << "\n";
      return 2;
    }
    std::printf(
        "%s %s: identical %zu/%zu steps (%.2f %%), max skin %.3f/%.3f °C, performance "
        "%.4f/%.4f (kernel/simulator), updates %llu/%llu\n",
        row.pass ? "ok  " : "FAIL", k.label.c_str(), row.identical, row.steps,
        100.0 * static_cast<double>(row.identical) / static_cast<double>(row.steps),
        row.skin_kernel, row.skin_sim, row.perf_kernel, row.perf_sim,
        static_cast<unsigned long long>(row.kernel_decisions),
        static_cast<unsigned long long>(row.sim_decisions));
    if (!row.first_difference.empty())
      std::printf("     first difference at %s\n", row.first_difference.c_str());
    failed += row.pass ? 0 : 1;
    rows.push_back(std::move(row));
  }
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    write_markdown(md, rows);
  }
  if (expect && rows.size() != expect) {
    std::printf("lockstep_compare: %zu runs in the log, %zu expected\n", rows.size(), expect);
    return 1;
  }
  std::printf("lockstep_compare: %zu of %zu runs agree\n", rows.size() - failed, rows.size());
  return failed == 0 ? 0 : 1;
}
