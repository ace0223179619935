// `coolhand-sim tune` (tune.h): a tiny tune finds a known better point than
// a deliberately bad start; results do not depend on the thread count; a
// run split into 3 shards and merged writes the same policy as one machine;
// bad --param arguments and bad `tune:` blocks are positioned errors; the
// tuned text keeps everything but the tuned scalars; the daemon's loader
// accepts a policy with a `tune:` block.
#include "coolhand/sim/tune.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim::tune_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;
const std::string kPolicyPath = COOLHAND_POLICY_DIR "/reference-umpc.yaml";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TuneProblem problem_of(const std::string& text, const std::vector<std::string>& params) {
  auto r = make_tune_problem(text, "p.yaml", params);
  if (auto* e = std::get_if<std::vector<config::ConfigError>>(&r)) {
    for (const auto& err : *e) ADD_FAILURE() << err.to_string();
    return {};
  }
  return std::get<TuneProblem>(r);
}

// The first error's text for `text` with `params`.
std::string first_error(const std::string& text, const std::vector<std::string>& params) {
  auto r = make_tune_problem(text, "p.yaml", params);
  if (auto* e = std::get_if<std::vector<config::ConfigError>>(&r)) return e->front().to_string();
  return "no error";
}

struct Fixture {
  ModelSpec model;
  std::vector<Workload> workloads;
  Fixture() {
    auto m = load_model_file(kData + "/models/reference-umpc.yaml");
    model = std::get<ModelSpec>(m);
    auto t = load_csv_file(kData + "/workloads/gaming.csv");
    workloads.push_back(std::get<Workload>(Workload::bind(std::get<CsvTable>(t), model)));
  }
};

// The reference policy with the CPU PID's setpoint 3 °C under the limit:
// it throttles far more than the limit needs.
std::string bad_start_policy() {
  const std::string text = replaced(read(kPolicyPath), "setpoint_c: skin - 0.15\n    kp: 0.8",
                                    "setpoint_c: skin - 3\n    kp: 0.8");
  return text.substr(0, text.find("\ntune:\n") + 1);  // the block's own ranges do not fit
}

const std::vector<std::string> kTwoParams = {"controllers.skin_pid_cpu.setpoint_c=-3..0",
                                             "controllers.skin_pid_cpu.kp=0.2..2"};

TuneSettings small_settings(unsigned threads) {
  TuneSettings s;
  s.seed = 7;
  s.global_candidates = 8;
  s.local_evaluations = 8;
  s.threads = threads;
  return s;
}

TEST(TuneTest, FindsBetterPointThanBadStartAndHoldsTheLimit) {
  Fixture f;
  const TuneProblem problem = problem_of(bad_start_policy(), kTwoParams);
  ASSERT_EQ(problem.params.size(), 2U);
  EXPECT_EQ(problem.params[0].kind, TuneParam::Kind::limit_offset);
  EXPECT_DOUBLE_EQ(problem.params[0].start, -3.0);
  const TuneJob job{&f.model, &f.workloads, &problem};
  const TuneSettings s = small_settings(2);
  auto out = finish_tune(job, s, run_global_stage(job, s, 1, 1));
  ASSERT_TRUE(std::holds_alternative<TuneOutcome>(out)) << std::get<std::string>(out);
  const auto& o = std::get<TuneOutcome>(out);
  const TuneEval& start = *o.global.evals.front();
  ASSERT_TRUE(start.error.empty()) << start.error;
  EXPECT_DOUBLE_EQ(start.x[0], -3.0);
  // The start holds the limit with a wide margin and gives performance away.
  EXPECT_LT(start.max_skin_c[0], 44.0);
  EXPECT_EQ(o.best.violation_c, 0.0);
  EXPECT_LE(o.best.max_skin_c[0], 45.5);
  EXPECT_GT(o.best.suite_performance, start.suite_performance + 0.02);
  EXPECT_GT(o.best.x[0], -2.0);  // the setpoint moved toward the limit
  EXPECT_EQ(o.local.size(), 8U);
  // The best is a real run: the tuned text, run again, gives its metrics.
  auto doc = config::parse_policy(substitute(problem, o.best.x), "tuned.yaml");
  ASSERT_TRUE(doc.errors.empty());
  auto ctl = make_policy_controller(f.model, *doc.document, "tuned");
  ThermalModel m(f.model, s.seed);
  Workload w = f.workloads[0];
  RunOptions ro;
  ro.record_trace = false;
  const auto r = run(m, w, *std::get<std::unique_ptr<Controller>>(ctl), ro);
  EXPECT_EQ(r.metrics.performance, o.best.performance[0]);
  EXPECT_EQ(r.metrics.max_skin_c, o.best.max_skin_c[0]);
}

std::string tuned_text(const TuneJob& job, const TuneSettings& s, const TuneOutcome& o) {
  return tuned_policy_text(
      job, s, o,
      TuneReportInputs{"reference-umpc", {"gaming"}, {}, {}, {"front_skin", "back_skin"}, {}});
}

TEST(TuneTest, ResultsDoNotDependOnTheThreadCount) {
  Fixture f;
  const TuneProblem problem = problem_of(bad_start_policy(), kTwoParams);
  const TuneJob job{&f.model, &f.workloads, &problem};
  std::vector<std::string> texts;
  for (unsigned threads : {1U, 3U}) {
    const TuneSettings s = small_settings(threads);
    auto out = finish_tune(job, s, run_global_stage(job, s, 1, 1));
    ASSERT_TRUE(std::holds_alternative<TuneOutcome>(out));
    const auto& o = std::get<TuneOutcome>(out);
    std::string all = tuned_text(job, s, o);
    for (const auto& e : o.global.evals)
      for (double v : e->performance) all += std::to_string(v) + "\n";
    for (const auto& e : o.local)
      for (double v : e.max_skin_c) all += std::to_string(v) + "\n";
    texts.push_back(all);
  }
  EXPECT_EQ(texts[0], texts[1]);
}

TEST(TuneTest, ThreeShardsMergedEqualOneMachine) {
  Fixture f;
  const TuneProblem problem = problem_of(bad_start_policy(), kTwoParams);
  const TuneJob job{&f.model, &f.workloads, &problem};
  const TuneSettings s = small_settings(2);
  const std::string id = R"({"run": "test"})";
  auto one = finish_tune(job, s, run_global_stage(job, s, 1, 1));
  ASSERT_TRUE(std::holds_alternative<TuneOutcome>(one));
  std::vector<std::string> files, names;
  for (std::size_t k = 1; k <= 3; ++k) {
    files.push_back(tune_shard_json(id, k, 3, run_global_stage(job, s, k, 3)));
    names.push_back("shard" + std::to_string(k));
  }
  auto merged = merge_tune_shards(files, names, id);
  ASSERT_TRUE(std::holds_alternative<MergedTuneShards>(merged)) << std::get<std::string>(merged);
  auto three = finish_tune(job, s, std::get<MergedTuneShards>(merged).global);
  ASSERT_TRUE(std::holds_alternative<TuneOutcome>(three));
  EXPECT_EQ(tuned_text(job, s, std::get<TuneOutcome>(one)),
            tuned_text(job, s, std::get<TuneOutcome>(three)));

  // A set that is not one whole run is refused, naming the file.
  auto missing = merge_tune_shards({files[0], files[2]}, {"a", "c"}, id);
  EXPECT_EQ(std::get<std::string>(missing), "shards 2 of 3 are missing");
  auto twice = merge_tune_shards({files[0], files[0], files[2]}, {"a", "b", "c"}, id);
  EXPECT_EQ(std::get<std::string>(twice), "b: shard 1 of 3 given twice");
  auto other = merge_tune_shards(files, names, R"({"run": "other"})");
  EXPECT_EQ(std::get<std::string>(other),
            "the shards are from another run than this command's (model, workloads, policy, "
            "parameters or settings differ: run)");
  auto garbage = merge_tune_shards({"{"}, {"x.json"}, id);
  EXPECT_NE(std::get<std::string>(garbage).find("x.json: not a valid tune shard file"),
            std::string::npos);
}

const char* kSmall =
    "version: 1\n"
    "limits: {skin_c: 45}\n"
    "controllers:\n"
    "  skin_pid: {kind: pid, input: skin, devices: [cpu], setpoint_c: skin - 0.5, kp: 0.8, "
    "period: 2s}\n"
    "  table: {kind: table, table: [{up_c: skin, level: 1}]}\n";

TEST(TuneTest, BadParamArgumentsArePositionedErrors) {
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pdi.kp=0..1"}),
            "--param controllers.skin_pdi.kp=0..1: character 13: no key 'skin_pdi' under "
            "'controllers' (did you mean 'skin_pid'?)");
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pid.kp"}),
            "--param controllers.skin_pid.kp: expected PATH=LO..HI (e.g. "
            "controllers.skin_pid.kp=0.2..2)");
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pid.kp=1..0.5"}),
            "--param controllers.skin_pid.kp=1..0.5: empty range: 1 is not below 0.5");
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pid.kp=1..2"}),
            "--param controllers.skin_pid.kp=1..2: the policy's value 0.8 (0.8) is outside the "
            "range [1, 2]");
  EXPECT_EQ(
      first_error(kSmall, {"controllers.table.table[3].up_c=-1..0"}),
      "--param controllers.table.table[3].up_c=-1..0: character 24: 'controllers.table.table' "
      "has 1 entries; [3] is past its end");
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pid.devices=0..1"}),
            "--param controllers.skin_pid.devices=0..1: 'controllers.skin_pid.devices' is a list; "
            "a tunable parameter is a single value");
  EXPECT_EQ(first_error(kSmall, {"controllers.skin_pid.input=0..1"}),
            "--param controllers.skin_pid.input=0..1: 'controllers.skin_pid.input' = 'skin' is "
            "not a number, a duration or a limit expression (`skin - 0.5`)");
  EXPECT_EQ(first_error(kSmall, {"controllers..kp=0..1"}),
            "--param controllers..kp=0..1: character 13: expected a key name");
  EXPECT_EQ(first_error(kSmall, {}),
            "p.yaml: nothing to tune: give --param PATH=LO..HI or a `tune: {params: {PATH: [LO, "
            "HI]}}` block");
}

TEST(TuneTest, BadTuneBlocksArePositionedErrors) {
  const std::string base = kSmall;
  EXPECT_EQ(first_error(base + "tune:\n  parms: {}\n", {}),
            "p.yaml:7:3: tune: unknown key 'parms' (did you mean 'params'?)");
  EXPECT_EQ(first_error(base + "tune:\n  params:\n    controllers.skin_pid.kp: 0.5\n", {}),
            "p.yaml:8:30: tune.params.controllers.skin_pid.kp: expected a range [LO, HI]");
  EXPECT_EQ(first_error(base + "tune:\n  params:\n    controllers.skin_pid.kq: [0, 1]\n", {}),
            "p.yaml:8:5: tune.params.controllers.skin_pid.kq: character 22: no key 'kq' under "
            "'controllers.skin_pid' (did you mean 'kp'?)");
  EXPECT_EQ(first_error(base + "tune: [1]\n", {}),
            "p.yaml:6:7: tune: expected a mapping: tune: {params: {PATH: [LO, HI]}}");
  // --param replaces the block's entry for the same path.
  const auto p = problem_of(base + "tune:\n  params:\n    controllers.skin_pid.kp: [0.5, 1]\n",
                            {"controllers.skin_pid.kp=0.1..0.9"});
  ASSERT_EQ(p.params.size(), 1U);
  EXPECT_EQ(p.params[0].lo, 0.1);
}

TEST(TuneTest, SubstitutionRewritesOnlyTheTunedScalars) {
  const auto p = problem_of(
      kSmall, {"controllers.skin_pid.setpoint_c=-2..0", "controllers.skin_pid.kp=0..2",
               "controllers.skin_pid.period=1..4", "controllers.table.table[0].up_c=-1..1"});
  ASSERT_EQ(p.params.size(), 4U);
  EXPECT_EQ(p.params[2].kind, TuneParam::Kind::duration_s);
  const std::vector<double> x = {-0.25, 1.234567, 3.5, 0.5};
  EXPECT_EQ(substitute(p, x),
            "version: 1\n"
            "limits: {skin_c: 45}\n"
            "controllers:\n"
            "  skin_pid: {kind: pid, input: skin, devices: [cpu], setpoint_c: skin - 0.25, kp: "
            "1.2346, period: 3.5s}\n"
            "  table: {kind: table, table: [{up_c: skin + 0.5, level: 1}]}\n");
}

TEST(TuneTest, DaemonLoaderAcceptsThePolicyWithItsTuneBlock) {
  const std::string text = read(kPolicyPath);
  ASSERT_NE(text.find("\ntune:\n"), std::string::npos);
  EXPECT_TRUE(config::parse_policy(text, kPolicyPath).errors.empty());
  // And the block's parameters all resolve against the policy.
  EXPECT_EQ(problem_of(text, {}).params.size(), 8U);
}

}  // namespace
}  // namespace coolhand::sim::tune_test
