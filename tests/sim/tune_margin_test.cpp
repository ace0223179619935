// tune's skin margin per skin node (tune.h, TuneSettings::tolerance_c): each
// node's peak is judged against the floor + its own tolerance, so a cover
// within its own allowance passes even where another cover's would fail it,
// and a cover over its own fails even where another's would pass it; the
// runner keeps each node's peak; `--tolerance` strings resolve per node or
// fail with a clear message; shard files carry each node's peak and a
// version-1 file is refused; --limit-margin moves where °C·s are counted from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/tune.h"

namespace coolhand::sim {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;

// One workload, two skin nodes (front, back) with these peaks.
TuneEval eval_with(double front_c, double back_c) {
  TuneEval e;
  e.x = {0.5};
  e.max_skin_c = {std::max(front_c, back_c)};
  e.node_max_skin_c = {{front_c, back_c}};
  e.performance = {0.95};
  e.degree_seconds = {0.0};
  return e;
}

TEST(TuneMarginTest, EachNodeIsJudgedAgainstItsOwnAllowance) {
  TuneSettings s;
  s.limit_c = 45.0;
  s.tolerance_c = {0.09, 0.316};  // front glass (large fit error), back cover (small)
  // The back at 45.30: over the front's allowance (45.09) but within its own
  // (45.316); the front at 44.5. Passes.
  EXPECT_NEAR(target_misses(s, eval_with(44.5, 45.30), 0)[0], 45.30 - 45.316, 1e-12);
  EXPECT_LE(target_misses(s, eval_with(44.5, 45.30), 0)[0], 0.0);
  // The front at 45.20: within the back's allowance but over its own. Fails
  // by its own 0.11, though the back (the hottest node elsewhere) is cooler.
  EXPECT_NEAR(target_misses(s, eval_with(45.20, 45.10), 0)[0], 45.20 - 45.09, 1e-12);
  // Both over: the worse miss is the skin's.
  EXPECT_NEAR(target_misses(s, eval_with(45.15, 45.40), 0)[0], 45.40 - 45.316, 1e-12);
  // One tolerance for every node (the old rule): the back's 45.30 fails.
  s.tolerance_c = {0.09};
  EXPECT_NEAR(target_misses(s, eval_with(44.5, 45.30), 0)[0], 45.30 - 45.09, 1e-12);
}

TEST(TuneMarginTest, TheBoundsFloorLiftsEveryNodesAllowance) {
  TuneSettings s;
  s.limit_c = 45.0;
  s.tolerance_c = {0.1, 0.3};
  // Where no schedule holds the limit the floor is the lowest peak; each
  // node may reach it + its own tolerance.
  s.targets = {TuneTarget{46.2, std::nullopt, std::nullopt, "", std::nullopt}};
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 0, 0), 46.3);
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 0, 1), 46.5);
  EXPECT_NEAR(target_misses(s, eval_with(46.25, 46.45), 0)[0], 46.45 - 46.5, 1e-12);
  EXPECT_NEAR(target_misses(s, eval_with(46.35, 46.0), 0)[0], 46.35 - 46.3, 1e-12);
  // A feasible workload keeps the limit as its floor.
  s.targets = {TuneTarget{45.0, std::nullopt, std::nullopt, "", std::nullopt}};
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 0, 1), 45.3);
}

// The search's own evaluations and violation use the per-node judgement: a
// candidate within the back's tolerance but over a single tight one meets
// its targets only with the per-node tolerances.
// The reference UMPC on gaming, the CPU PID's setpoint the one parameter.
struct GamingJob {
  ModelSpec model;
  std::vector<Workload> workloads;
  TuneProblem problem;
  TuneJob job() const { return TuneJob{&model, &workloads, &problem}; }
};

GamingJob gaming_job() {
  GamingJob g;
  g.model = std::get<ModelSpec>(load_model_file(kData + "/models/reference-umpc.yaml"));
  auto t = load_csv_file(kData + "/workloads/gaming.csv");
  g.workloads = {std::get<Workload>(Workload::bind(std::get<CsvTable>(t), g.model))};
  std::ifstream in(COOLHAND_POLICY_DIR "/reference-umpc.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str().substr(0, ss.str().find("\ntune:\n") + 1);
  g.problem = std::get<TuneProblem>(
      make_tune_problem(text, "p.yaml", {"controllers.skin_pid_cpu.setpoint_c=-1..0.5"}));
  return g;
}

TEST(TuneMarginTest, EvaluationsKeepEachNodesPeak) {
  const GamingJob g = gaming_job();
  const auto& model = g.model;
  const auto& workloads = g.workloads;
  const auto& problem = g.problem;
  const TuneJob job = g.job();
  TuneSettings s;
  s.threads = 2;
  s.limit_c = 45.0;
  const TuneEval e = evaluate_candidates(job, s, {{0.0}}).front();
  ASSERT_TRUE(e.error.empty()) << e.error;
  ASSERT_EQ(model.skin_nodes.size(), 2U);
  ASSERT_EQ(e.node_max_skin_c.at(0).size(), 2U);
  EXPECT_EQ(e.max_skin_c[0], std::max(e.node_max_skin_c[0][0], e.node_max_skin_c[0][1]));
  // The two covers peak apart, or the per-node rule shows nothing here.
  const double front = e.node_max_skin_c[0][0], back = e.node_max_skin_c[0][1];
  ASSERT_GT(std::abs(front - back), 0.5);
  const std::size_t hot = back > front ? 1 : 0;
  // Each node's allowance 0.01 °C over its own peak's distance to the limit
  // (any sign): every node just holds; then the hottest one's allowance
  // 0.01 °C short of it: the candidate misses by 0.01 °C.
  s.tolerance_c = {front - 45.0 + 0.01, back - 45.0 + 0.01};
  EXPECT_EQ(evaluate_candidates(job, s, {{0.0}}).front().violation_c, 0.0);
  s.tolerance_c[hot] -= 0.02;
  EXPECT_NEAR(evaluate_candidates(job, s, {{0.0}}).front().violation_c, 0.01, 1e-9);
  // The runner's metrics say the same.
  ThermalModel m(workloads[0].start(model), s.seed);
  Workload w = workloads[0];
  auto doc = config::parse_policy(substitute(problem, std::vector<double>{0.0}), "p.yaml");
  ASSERT_TRUE(doc.errors.empty());
  auto ctl = make_policy_controller(model, *doc.document, "c");
  RunOptions o;
  o.record_trace = false;
  const auto r = run(m, w, *std::get<std::unique_ptr<Controller>>(ctl), o);
  EXPECT_EQ(r.metrics.max_skin_by_node_c, e.node_max_skin_c[0]);
}

// --limit-margin X: the candidates' °C·s are counted from the limit - X,
// exactly what the runner counts on the model with that limit; the peaks
// and the performance do not move.
TEST(TuneMarginTest, LimitMarginCountsDegreeSecondsFromBelowTheLimit) {
  const GamingJob g = gaming_job();
  TuneSettings s;
  s.threads = 2;
  s.limit_c = 45.0;
  const TuneEval at = evaluate_candidates(g.job(), s, {{0.5}}).front();
  s.limit_margin_c = 1.5;
  const TuneEval below = evaluate_candidates(g.job(), s, {{0.5}}).front();
  ASSERT_TRUE(at.error.empty() && below.error.empty()) << at.error << below.error;
  EXPECT_EQ(below.node_max_skin_c, at.node_max_skin_c);
  EXPECT_EQ(below.performance, at.performance);
  // The peak is within 1.5 °C of the limit, so the count grows.
  ASSERT_GT(at.max_skin_c[0], 45.0 - 1.5);
  EXPECT_GT(below.degree_seconds[0], at.degree_seconds[0]);
  ModelSpec lowered = g.workloads[0].start(g.model);
  lowered.skin_limit_c = 45.0 - 1.5;
  ThermalModel m(lowered, s.seed);
  Workload w = g.workloads[0];
  auto doc = config::parse_policy(substitute(g.problem, std::vector<double>{0.5}), "p.yaml");
  ASSERT_TRUE(doc.errors.empty());
  auto ctl = make_policy_controller(g.model, *doc.document, "c");
  RunOptions o;
  o.record_trace = false;
  const auto r = run(m, w, *std::get<std::unique_ptr<Controller>>(ctl), o);
  EXPECT_EQ(below.degree_seconds[0], r.metrics.degree_seconds_over_limit);
}

TEST(TuneMarginTest, ToleranceArgumentsResolvePerNode) {
  const std::vector<std::string> nodes = {"front_skin", "back_skin"};
  const std::vector<std::string> workloads = {"gaming", "hot-car"};
  const auto ok = [&](const std::vector<std::string>& args) {
    auto r = parse_tolerances(args, nodes, workloads, 0.5);
    if (auto* e = std::get_if<std::string>(&r)) {
      ADD_FAILURE() << *e;
      return std::vector<double>{};
    }
    EXPECT_TRUE(std::get<TuneTolerances>(r).workload_node_c.empty());
    return std::get<TuneTolerances>(r).node_c;
  };
  const auto err = [&](const std::vector<std::string>& args) {
    auto r = parse_tolerances(args, nodes, workloads, 0.5);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "no error";
  };
  EXPECT_EQ(ok({}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(ok({"0.09"}), (std::vector<double>{0.09, 0.09}));
  EXPECT_EQ(ok({"back_skin=0.316"}), (std::vector<double>{0.5, 0.316}));
  // A node's own wins over the plain value, in either order.
  EXPECT_EQ(ok({"back_skin=0.316", "0.09"}), (std::vector<double>{0.09, 0.316}));
  EXPECT_EQ(ok({"front_skin=-0.1"}), (std::vector<double>{-0.1, 0.5}));
  EXPECT_EQ(err({"side_skin=0.1"}),
            "--tolerance 'side_skin=0.1': no skin node 'side_skin' in the model (its skin nodes: "
            "front_skin, back_skin)");
  EXPECT_EQ(err({"back_skin=0.1", "back_skin=0.2"}),
            "--tolerance 'back_skin=0.2': back_skin's tolerance given twice");
  EXPECT_EQ(err({"0.1", "0.2"}), "--tolerance '0.2': every node's tolerance given twice");
  for (const std::string bad : {"", "x", "0.1.2", "back_skin=", "=0.1", "inf", "nan", "0.1 "})
    EXPECT_EQ(err({bad}),
              "--tolerance '" + bad + "': " +
                  (bad == "=0.1" ? "no skin node '' in the model (its skin nodes: front_skin, "
                                   "back_skin)"
                                 : "expected °C (a number), NODE=°C or WORKLOAD:NODE=°C"))
        << bad;
}

// `--tolerance WORKLOAD:NODE=T`: one constraint's own tolerance (the port
// chain's device check gives each constraint it measured close to binding
// its own), winning on that workload over NODE=T and T, nowhere else.
TEST(TuneMarginTest, AWorkloadsOwnToleranceWinsThereOnly) {
  const std::vector<std::string> nodes = {"front_skin", "back_skin"};
  const std::vector<std::string> workloads = {"gaming-hot", "hot-car"};
  auto r = parse_tolerances({"back_skin=0.404", "hot-car:back_skin=0.551", "0.3"}, nodes, workloads,
                            0.5);
  ASSERT_TRUE(std::holds_alternative<TuneTolerances>(r)) << std::get<std::string>(r);
  const auto& t = std::get<TuneTolerances>(r);
  EXPECT_EQ(t.node_c, (std::vector<double>{0.3, 0.404}));
  ASSERT_EQ(t.workload_node_c.size(), 2U);
  EXPECT_FALSE(t.workload_node_c[0][0] || t.workload_node_c[0][1] || t.workload_node_c[1][0]);
  ASSERT_TRUE(t.workload_node_c[1][1]);
  EXPECT_DOUBLE_EQ(*t.workload_node_c[1][1], 0.551);

  TuneSettings s;
  s.limit_c = 45.0;
  s.tolerance_c = t.node_c;
  s.workload_tolerance_c = t.workload_node_c;
  s.targets.assign(2, TuneTarget{45.0, std::nullopt, std::nullopt, "", std::nullopt});
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 0, 1), 45.404);  // gaming-hot's back: the node's
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 1, 1), 45.551);  // hot-car's back: its own
  EXPECT_DOUBLE_EQ(skin_allowed_c(s, 1, 0), 45.3);    // hot-car's front: the plain T
  // A back at 45.47 on both workloads fails gaming-hot's allowance and
  // passes hot-car's.
  TuneEval both = eval_with(44.0, 45.47);
  both.max_skin_c.push_back(45.47);
  both.node_max_skin_c.push_back({44.0, 45.47});
  both.performance.push_back(0.95);
  both.degree_seconds.push_back(0.0);
  EXPECT_NEAR(target_misses(s, both, 0)[0], 45.47 - 45.404, 1e-12);
  EXPECT_NEAR(target_misses(s, both, 1)[0], 45.47 - 45.551, 1e-12);

  const auto err = [&](const std::vector<std::string>& args) {
    auto e = parse_tolerances(args, nodes, workloads, 0.5);
    return std::holds_alternative<std::string>(e) ? std::get<std::string>(e) : "no error";
  };
  EXPECT_EQ(err({"web:back_skin=0.1"}),
            "--tolerance 'web:back_skin=0.1': no workload 'web' in the suite (its workloads: "
            "gaming-hot, hot-car)");
  EXPECT_EQ(err({"hot-car:side_skin=0.1"}),
            "--tolerance 'hot-car:side_skin=0.1': no skin node 'side_skin' in the model (its skin "
            "nodes: front_skin, back_skin)");
  EXPECT_EQ(err({"hot-car:back_skin=0.1", "hot-car:back_skin=0.2"}),
            "--tolerance 'hot-car:back_skin=0.2': back_skin's tolerance on hot-car given twice");
  EXPECT_EQ(err({"hot-car:back_skin=x"}),
            "--tolerance 'hot-car:back_skin=x': expected °C (a number), NODE=°C or "
            "WORKLOAD:NODE=°C");
  EXPECT_EQ(err({":back_skin=0.1"}),
            "--tolerance ':back_skin=0.1': no workload '' in the suite (its workloads: "
            "gaming-hot, hot-car)");
}

TEST(TuneMarginTest, ShardFilesCarryEachNodesPeak) {
  GlobalStage stage;
  stage.candidates = 2;
  stage.evals = {eval_with(44.1, 45.3), eval_with(45.05, 44.9)};
  stage.evals[1]->objective = 0.9123;  // and the objective (version 3)
  const std::string id = R"({"run": "margin"})";
  const std::string file = tune_shard_json(id, 1, 1, stage);
  auto merged = merge_tune_shards({file}, {"s.json"}, id);
  ASSERT_TRUE(std::holds_alternative<MergedTuneShards>(merged)) << std::get<std::string>(merged);
  const auto& g = std::get<MergedTuneShards>(merged).global;
  ASSERT_EQ(g.evals.size(), 2U);
  EXPECT_EQ(g.evals[0]->node_max_skin_c, stage.evals[0]->node_max_skin_c);
  EXPECT_EQ(g.evals[1]->node_max_skin_c, stage.evals[1]->node_max_skin_c);
  EXPECT_EQ(g.evals[1]->objective, stage.evals[1]->objective);

  // A version-1 file (no node peaks) is refused with what to do.
  auto doc = nlohmann::json::parse(file);
  doc["version"] = 1;
  for (auto& e : doc["body"]["evaluations"]) e.erase("node_max_skin_c");
  auto old = merge_tune_shards({doc.dump()}, {"old.json"}, id);
  ASSERT_TRUE(std::holds_alternative<std::string>(old));
  EXPECT_EQ(std::get<std::string>(old),
            "old.json: tune shard format version 1 (this coolhand-sim reads 4: the objective's "
            "bound share is of compare's bound, fan_bound); run its shards again with this "
            "build");
  // Node peaks that do not match the workloads or each other are refused.
  doc = nlohmann::json::parse(file);
  doc["body"]["evaluations"][1]["node_max_skin_c"] = {{45.0}};
  auto bad = merge_tune_shards({doc.dump()}, {"bad.json"}, id);
  ASSERT_TRUE(std::holds_alternative<std::string>(bad));
  EXPECT_EQ(std::get<std::string>(bad),
            "bad.json: candidate 1: its skin nodes' peaks differ in count");
  doc["body"]["evaluations"][1].erase("node_max_skin_c");
  bad = merge_tune_shards({doc.dump()}, {"bad.json"}, id);
  ASSERT_TRUE(std::holds_alternative<std::string>(bad));
  EXPECT_NE(std::get<std::string>(bad).find("bad.json: not a valid tune shard file"),
            std::string::npos);
}

}  // namespace
}  // namespace coolhand::sim
