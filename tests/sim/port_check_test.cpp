// The port chain's device check (coolhand/sim/port_check.h) against what it
// replaces: the script ran `coolhand-sim run --seed S --no-trace` once per
// (model, workload, seed) and reduced each metrics.json with awk. Here each
// of those runs is made separately through the runner, its metrics.json
// written and read back as the script read it, reduced and printed with C's
// printf as awk's printf did: the check's texts must be the same bytes.
// The thread count must not change them, and bad input is an error naming
// the file.
#include "coolhand/sim/port_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/sim/output.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim::port_check_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ModelSpec model_of(const std::string& text, const std::string& file) {
  auto r = parse_model(text, file);
  if (auto* e = std::get_if<config::ConfigError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<ModelSpec>(std::move(r));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The device: the bundled 10" tablet. The "fitted" model: the same with a
// back cover that sheds less heat, as a fit's error would make it.
ModelSpec tablet() {
  return model_of(read(kData + "/models/tablet-10.yaml"), "tablet-10.yaml");
}
ModelSpec fitted_tablet() {
  return model_of(replaced(read(kData + "/models/tablet-10.yaml"),
                           "name: back_skin, capacity_j_per_k: 125.0, to_ambient_w_per_k: 0.28",
                           "name: back_skin, capacity_j_per_k: 125.0, to_ambient_w_per_k: 0.26"),
                  "fitted.yaml");
}

// Two minutes of load from a warm start (the policy acts near the 41 °C
// limit); named by the file, as the script named the runs.
Workload workload_of(const std::string& file, double load, const ModelSpec& m) {
  std::string text = "# initial: 39\ntime_s,cpu,gpu,modem,backlight,charger,ambient_c\n";
  for (int t = 0; t <= 120; t += 30)
    text += std::to_string(t) + "," + std::to_string(load) + ",1.0,0.2,0.8,1.0,30\n";
  auto table = parse_csv(text, file);
  if (auto* e = std::get_if<config::ConfigError>(&table)) ADD_FAILURE() << e->to_string();
  auto w = Workload::bind(std::get<CsvTable>(std::move(table)), m);
  if (auto* e = std::get_if<config::ConfigError>(&w)) ADD_FAILURE() << e->to_string();
  return std::get<Workload>(std::move(w));
}

std::vector<Workload> suite(const ModelSpec& m) {
  return {workload_of("warm-hot.csv", 1.0, m), workload_of("warm.csv", 0.6, m)};
}

config::PolicyDocument tablet_policy() {
  auto r = config::load_policy_file(kData + "/policies/tablet-10.yaml");
  if (!r.errors.empty()) ADD_FAILURE() << r.errors.front().to_string();
  return *r.document;
}

struct Inputs {
  ModelSpec device = tablet(), fitted = fitted_tablet();
  std::vector<Workload> on_device = suite(device), on_fitted = suite(fitted);
  config::PolicyDocument policy = tablet_policy();

  PortCheckJob job(unsigned threads) const {
    PortCheckJob j;
    j.device = {&device, &on_device, "tablet-10.yaml"};
    j.fitted = {&fitted, &on_fitted, "fitted.yaml"};
    j.policy = &policy;
    j.policy_name = "tablet-10";
    j.policy_file = "tablet-10-policy.yaml";
    j.noise_seeds = 2;
    j.extra_seeds = 2;
    j.extra_seed0 = 101;
    j.threads = threads;
    return j;
  }
};

PortCheckResult checked(const PortCheckJob& job) {
  auto r = run_port_check(job);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<PortCheckResult>(std::move(r));
}

std::string refusal(const PortCheckJob& job) {
  auto r = run_port_check(job);
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  return "(no error)";
}

// One run as the script made it (`run -m M -p P -w W --seed S --no-trace`:
// main.cpp's cmd_run, spelled out), its metrics.json as the file holds it.
nlohmann::json metrics_of_run(const ModelSpec& spec, const Workload& w,
                              const config::PolicyDocument& policy, std::uint64_t seed) {
  auto made = make_policy_controller(spec, policy, "tablet-10");
  if (auto* e = std::get_if<std::string>(&made)) ADD_FAILURE() << *e;
  ThermalModel model(w.start(spec), seed);
  Workload copy = w;
  RunOptions options;
  options.record_trace = false;
  const auto r = run(model, copy, *std::get<std::unique_ptr<Controller>>(made), options);
  return nlohmann::json::parse(metrics_json(r.metrics));
}

std::string printf_line(const char* format, const std::string& a, const std::string& b, double x,
                        double y) {
  std::array<char, 256> buf{};
  std::snprintf(buf.data(), buf.size(), format, a.c_str(), b.c_str(), x, y);
  return buf.data();
}

TEST(PortCheckTest, EqualsTheSeparateRunsMetricsReducedAsTheScriptDid) {
  const Inputs in;
  const PortCheckResult r = checked(in.job(2));
  std::vector<std::string> peaks, performance;
  for (std::size_t w = 0; w < in.on_device.size(); ++w) {
    const std::string name = in.on_device[w].name();
    std::vector<nlohmann::json> device, fitted;  // device: seeds 1, 2, then 101, 102
    for (std::uint64_t s : {1, 2, 101, 102})
      device.push_back(metrics_of_run(in.device, in.on_device[w], in.policy, s));
    for (std::uint64_t s : {1, 2})
      fitted.push_back(metrics_of_run(in.fitted, in.on_fitted[w], in.policy, s));
    for (const std::string node : {"front_skin", "back_skin"}) {
      double d = -1e300, f = -1e300;
      for (const auto& m : device) d = std::max(d, m["max_skin_by_node_c"][node].get<double>());
      for (const auto& m : fitted) f = std::max(f, m["max_skin_by_node_c"][node].get<double>());
      peaks.push_back(printf_line("%s %s %.4f %.4f\n", name, node, f, d));
    }
    // Performance: seeds 1..K only, not the extra ones.
    const double d =
        std::min(device[0]["performance"].get<double>(), device[1]["performance"].get<double>());
    const double f =
        std::min(fitted[0]["performance"].get<double>(), fitted[1]["performance"].get<double>());
    std::array<char, 256> buf{};
    std::snprintf(buf.data(), buf.size(), "%s %.10f %.10f %+.10f\n", name.c_str(), f, d, d - f);
    performance.emplace_back(buf.data());
    EXPECT_EQ(r.performance.at(w).device, d) << name;
    EXPECT_EQ(r.performance.at(w).fitted, f) << name;
    EXPECT_EQ(r.skin_limit_c, device[0]["skin_limit_c"].get<double>()) << name;
  }
  std::sort(peaks.begin(), peaks.end());
  std::sort(performance.begin(), performance.end());
  std::string want_peaks, want_performance;
  for (const auto& l : peaks) want_peaks += l;
  for (const auto& l : performance) want_performance += l;
  EXPECT_EQ(port_check_peaks_text(r), want_peaks);
  EXPECT_EQ(port_check_performance_text(r), want_performance);
  EXPECT_EQ(r.runs, 2U * (2 + 2 + 2));
  EXPECT_DOUBLE_EQ(r.skin_limit_c, 41.0);
  // The fitted model's back cover runs hotter: the check sees a bias.
  EXPECT_NE(want_peaks.find("warm-hot back_skin"), std::string::npos);
}

TEST(PortCheckTest, TheThreadCountDoesNotChangeTheResult) {
  const Inputs in;
  const PortCheckResult one = checked(in.job(1));
  const PortCheckResult three = checked(in.job(3));
  EXPECT_EQ(port_check_peaks_text(one), port_check_peaks_text(three));
  EXPECT_EQ(port_check_performance_text(one), port_check_performance_text(three));
}

TEST(PortCheckTest, LinesAreInByteOrderAsSortWritesThem) {
  PortCheckResult r;
  r.peaks = {{"gaming-hot", "front_skin", 41.25, 41.5},
             {"gaming-hot", "back_skin", 40.00004, 39.99995},
             {"gaming", "front_skin", 1, 2},
             {"gaming", "back_skin", 3, 4}};
  r.performance = {{"gaming-hot", 0.9, 0.89999}, {"gaming", 1, 1}};
  EXPECT_EQ(port_check_peaks_text(r),
            "gaming back_skin 3.0000 4.0000\n"
            "gaming front_skin 1.0000 2.0000\n"
            "gaming-hot back_skin 40.0000 39.9999\n"  // %.4f: the binary value, rounded
            "gaming-hot front_skin 41.2500 41.5000\n");
  EXPECT_EQ(port_check_performance_text(r),
            "gaming 1.0000000000 1.0000000000 +0.0000000000\n"
            "gaming-hot 0.9000000000 0.8999900000 -0.0000100000\n");
}

TEST(PortCheckTest, BadInputIsRefusedNamingTheFile) {
  const Inputs in;
  {
    // A fitted model whose skin nodes are not the device's.
    const ModelSpec other =
        model_of(replaced(read(kData + "/models/tablet-10.yaml"), "nodes: [front_skin, back_skin]",
                          "nodes: [back_skin]"),
                 "fitted.yaml");
    const auto on_other = suite(other);
    PortCheckJob job = in.job(1);
    job.fitted = {&other, &on_other, "fitted.yaml"};
    EXPECT_EQ(refusal(job),
              "fitted.yaml: skin nodes (back_skin) other than the device model tablet-10.yaml's "
              "(front_skin back_skin)");
  }
  {
    // A policy for another device: it names what the model lacks.
    auto r = config::load_policy_file(kData + "/policies/gaming-7.yaml");
    ASSERT_TRUE(r.errors.empty());
    PortCheckJob job = in.job(1);
    job.policy = &*r.document;
    job.policy_file = "gaming-7.yaml";
    EXPECT_EQ(refusal(job).rfind("gaming-7.yaml on tablet-10.yaml: ", 0), 0U) << refusal(job);
  }
  PortCheckJob job = in.job(1);
  job.noise_seeds = 0;
  EXPECT_EQ(refusal(job), "no noise seeds: the check needs seeds 1..K, K >= 1");
  job = in.job(1);
  job.extra_seed0 = 2;
  EXPECT_EQ(refusal(job), "the extra seeds from 2 overlap seeds 1..2: start them above 2");
  const std::vector<Workload> twice = {in.on_device[0], in.on_device[0]};
  const std::vector<Workload> twice_fitted = {in.on_fitted[0], in.on_fitted[0]};
  job = in.job(1);
  job.device.workloads = &twice;
  job.fitted.workloads = &twice_fitted;
  EXPECT_EQ(refusal(job), "workload 'warm-hot' given twice (each workload once)");
  const std::vector<Workload> none;
  job = in.job(1);
  job.device.workloads = &none;
  job.fitted.workloads = &none;
  EXPECT_EQ(refusal(job), "no workload to check");
}

}  // namespace
}  // namespace coolhand::sim::port_check_test
