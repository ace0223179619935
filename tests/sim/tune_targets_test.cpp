// tune's targets (tune.h, tune_targets.cpp) are compare's: where the bound
// says no schedule holds the limit the allowed skin is its lowest peak +
// tolerance; the kernel baselines set the °C·s and performance to meet; a
// candidate's misses add up to its violation; and what the search accepts,
// compare's check_targets passes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/tune.h"

namespace coolhand::sim::tune_targets_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;
const std::string kPolicyPath = COOLHAND_POLICY_DIR "/reference-umpc.yaml";

struct Fixture {
  ModelSpec model;
  std::vector<Workload> workloads;
  Fixture() {
    model = std::get<ModelSpec>(load_model_file(kData + "/models/reference-umpc.yaml"));
    auto t = load_csv_file(kData + "/workloads/gaming.csv");
    workloads.push_back(std::get<Workload>(Workload::bind(std::get<CsvTable>(t), model)));
  }
};

Metrics run_governor(const Fixture& f, Governor g, std::uint64_t seed) {
  auto ctl = make_governor_controller(f.model, g);
  ThermalModel m(f.workloads[0].start(f.model), seed);
  Workload w = f.workloads[0];
  RunOptions o;
  o.record_trace = false;
  return run(m, w, *ctl, o).metrics;
}

TEST(TuneTargetsTest, MissesAddUpToTheViolation) {
  TuneSettings s;
  s.limit_c = 41;
  s.tolerance_c = {0.5};
  TuneEval e;
  e.max_skin_c = {43.0};
  e.node_max_skin_c = {{42.0, 43.0}};
  e.degree_seconds = {30.0};
  e.performance = {0.89};
  // Without targets: only limit + tolerance, the other parts always met.
  auto m = target_misses(s, e, 0);
  EXPECT_DOUBLE_EQ(m[0], 1.5);
  EXPECT_LT(m[1], 0);
  EXPECT_LT(m[2], 0);
  // An infeasible start's floor 42.93 + 0.5, 0 °C·s and 0.9 to meet.
  s.targets = {TuneTarget{42.93, 0.0, 0.9, "step_wise", std::nullopt}};
  m = target_misses(s, e, 0);
  EXPECT_NEAR(m[0], -0.43, 1e-12);
  // °C·s and performance with compare's slack (check_targets).
  EXPECT_NEAR(m[1], (30.0 - kCompareSlack) / kDegreeSecondsPerC, 1e-12);
  EXPECT_NEAR(m[2], (0.9 - 0.89 - kCompareSlack) / kPerformancePerC, 1e-12);
}

TEST(TuneTargetsTest, TargetsComeFromTheBaselinesAndTheBoundsFloor) {
  Fixture f;
  const Metrics sw = run_governor(f, Governor::step_wise, 3);
  const Metrics pa = run_governor(f, Governor::power_allocator, 3);
  BoundResult infeasible;
  infeasible.feasible = false;
  infeasible.lowest_peak_skin_c = 46.2;
  const std::vector<Governor> govs = {Governor::step_wise, Governor::power_allocator,
                                      Governor::none};
  for (const auto& bound : {std::optional<BoundResult>{}, std::optional<BoundResult>{infeasible}}) {
    const auto t =
        tune_targets(f.model, f.workloads, govs, KernelVersion::v6_1, {bound}, 45.0, 3, 2);
    ASSERT_EQ(t.size(), 1U);
    EXPECT_DOUBLE_EQ(t[0].skin_floor_c, bound ? 46.2 : 45.0);
    ASSERT_TRUE(t[0].allowed_degree_seconds.has_value());
    // `none` is no kernel baseline: it never throttles and would set no bar.
    EXPECT_DOUBLE_EQ(*t[0].allowed_degree_seconds,
                     std::min(sw.degree_seconds_over_limit, pa.degree_seconds_over_limit));
    std::optional<double> best;
    for (const Metrics* b : {&sw, &pa})
      if (b->max_skin_c <= 45.0 && (!best || b->performance > *best)) best = b->performance;
    EXPECT_EQ(t[0].baseline_performance, best);
  }
}

// The tuned result, put beside the same baselines in a CompareResult, passes
// every check_targets check tune models (all but step_wise's change rate).
TEST(TuneTargetsTest, WhatTuneAcceptsComparePasses) {
  Fixture f;
  std::string text;
  {
    std::ifstream in(kPolicyPath);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  text = text.substr(0, text.find("\ntune:\n") + 1);
  auto made = make_tune_problem(text, "p.yaml",
                                {"controllers.skin_pid_cpu.setpoint_c=-1..0.5",
                                 "controllers.skin_pid_gpu.setpoint_c=-1..0.5"});
  ASSERT_TRUE(std::holds_alternative<TuneProblem>(made));
  const TuneProblem problem = std::get<TuneProblem>(made);
  TuneSettings s;
  s.seed = 5;
  s.global_candidates = 8;
  s.local_evaluations = 8;
  s.threads = 2;
  const std::vector<Governor> govs = {Governor::step_wise, Governor::bang_bang};
  s.targets = tune_targets(f.model, f.workloads, govs, KernelVersion::v6_1, {std::nullopt}, 45.0,
                           s.seed, 2);
  const TuneJob job{&f.model, &f.workloads, &problem};
  auto out = finish_tune(job, s, run_global_stage(job, s, 1, 1));
  ASSERT_TRUE(std::holds_alternative<TuneOutcome>(out)) << std::get<std::string>(out);
  const TuneEval& best = std::get<TuneOutcome>(out).best;
  ASSERT_EQ(best.violation_c, 0.0);
  // An evaluation with setpoints 0.5 °C over the limit spends the tolerance
  // and more °C·s than a baseline that holds the limit would allow: a miss.
  const auto over = evaluate_candidates(job, s, {{0.5, 0.5}}).front();
  EXPECT_GT(over.violation_c, 0.0);

  CompareResult r;
  r.skin_limit_c = 45.0;
  r.scenarios = {"gaming"};
  r.controllers = {"tuned", "step_wise", "bang_bang"};
  r.cells.resize(1);
  Metrics mine;
  mine.max_skin_c = best.max_skin_c[0];
  mine.degree_seconds_over_limit = best.degree_seconds[0];
  mine.performance = best.performance[0];
  r.cells[0].push_back(CompareCell{mine, {}});
  for (Governor g : govs) r.cells[0].push_back(CompareCell{run_governor(f, g, s.seed), {}});
  EXPECT_TRUE(check_targets(r).empty()) << check_targets(r).front();
}

// With --noise-seeds K a candidate counts its worst run over the seeds
// seed..seed+K-1: the hottest peak, the most °C·s, the least performance.
TEST(TuneTargetsTest, NoiseSeedsCountTheWorstRun) {
  Fixture f;
  std::ifstream in(kPolicyPath);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str().substr(0, ss.str().find("\ntune:\n") + 1);
  auto made = make_tune_problem(text, "p.yaml", {"controllers.skin_pid_cpu.kp=0.2..2"});
  ASSERT_TRUE(std::holds_alternative<TuneProblem>(made));
  const TuneProblem problem = std::get<TuneProblem>(made);
  const TuneJob job{&f.model, &f.workloads, &problem};
  TuneSettings s;
  s.threads = 2;
  std::vector<TuneEval> single;
  for (std::uint64_t seed : {11U, 12U}) {
    s.seed = seed;
    single.push_back(evaluate_candidates(job, s, {{0.8}}).front());
  }
  s.seed = 11;
  s.noise_seeds = 2;
  const TuneEval both = evaluate_candidates(job, s, {{0.8}}).front();
  ASSERT_TRUE(both.error.empty()) << both.error;
  // The seeds differ, or the test shows nothing.
  EXPECT_NE(single[0].max_skin_c[0], single[1].max_skin_c[0]);
  EXPECT_EQ(both.max_skin_c[0], std::max(single[0].max_skin_c[0], single[1].max_skin_c[0]));
  EXPECT_EQ(both.performance[0], std::min(single[0].performance[0], single[1].performance[0]));
  EXPECT_EQ(both.degree_seconds[0],
            std::max(single[0].degree_seconds[0], single[1].degree_seconds[0]));
}

// The shipped ports' `tune:` blocks resolve against their policies, and the
// tuned policies beside them load in the daemon's loader (which ignores the
// block) and hold gaming within the limit + 0.5 °C on their models.
TEST(TuneTargetsTest, ShippedTunedPoliciesLoadAndRun) {
  for (const std::string name : {"tablet-10", "gaming-7", "umpc-8-intel"}) {
    SCOPED_TRACE(name);
    for (const std::string& file : {name, name + "-tuned"}) {
      std::ifstream in(kData + "/policies/" + file + ".yaml");
      std::stringstream ss;
      ss << in.rdbuf();
      auto problem = make_tune_problem(ss.str(), file, {});
      ASSERT_TRUE(std::holds_alternative<TuneProblem>(problem)) << file;
      EXPECT_GE(std::get<TuneProblem>(problem).params.size(), 10U);
    }
    const auto m = std::get<ModelSpec>(load_model_file(kData + "/models/" + name + ".yaml"));
    auto t = load_csv_file(kData + "/workloads/gaming.csv");
    Workload w = std::get<Workload>(Workload::bind(std::get<CsvTable>(t), m));
    auto policy = config::load_policy_file(kData + "/policies/" + name + "-tuned.yaml");
    ASSERT_TRUE(policy.errors.empty()) << policy.errors.front().to_string();
    auto ctl = make_policy_controller(m, *policy.document, name);
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<Controller>>(ctl));
    ThermalModel model(w.start(m), 1);
    RunOptions o;
    o.record_trace = false;
    const auto r = run(model, w, *std::get<std::unique_ptr<Controller>>(ctl), o);
    EXPECT_LE(r.metrics.max_skin_c, m.skin_limit_c + 0.5);
  }
}

}  // namespace
}  // namespace coolhand::sim::tune_targets_test
