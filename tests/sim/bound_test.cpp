// `coolhand-sim bound` (bound.h): on a one-node model whose optimum is
// worked out by hand, the LP gives it exactly, with levels relaxed to their
// convex hull; a limit below the lowest reachable skin is reported with that
// skin; and the bound is at least the performance of every bundled
// controller on every bundled workload at that run's own peak skin.
#include "coolhand/sim/bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <variant>

#include "coolhand/sim/compare.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim::bound_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;
const std::string kPolicy = COOLHAND_POLICY_DIR "/reference-umpc.yaml";

// One node of 10 J/K with 0.5 W/K to a 25 °C ambient, starting at the 35 °C
// limit; one device with the given levels, at full demand for 60 s.
ModelSpec one_node(const std::string& power, const std::string& performance) {
  auto r = parse_model(
      "name: one\nambient_c: 25\nskin: {nodes: [skin], limit_c: 35}\n"
      "nodes: [{name: skin, capacity_j_per_k: 10, to_ambient_w_per_k: 0.5, initial_c: 35}]\n"
      "links: []\n"
      "devices: [{name: cpu, power_w: " +
          power + ", performance: " + performance +
          ", heat: [{node: skin}]}]\n"
          "sensors: [{name: t, node: skin}]\n",
      "one.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<ModelSpec>(r);
}

Workload constant(const ModelSpec& spec, const std::string& ambient_c) {
  auto t =
      parse_csv("time_s,cpu,ambient_c\n0,1," + ambient_c + "\n60,1," + ambient_c + "\n", "w.csv");
  if (auto* e = std::get_if<config::ConfigError>(&t)) ADD_FAILURE() << e->to_string();
  auto w = Workload::bind(std::get<CsvTable>(t), spec);
  if (auto* e = std::get_if<config::ConfigError>(&w)) ADD_FAILURE() << e->to_string();
  return std::get<Workload>(w);
}

BoundResult bound(const ModelSpec& spec, const Workload& w, double limit_c, Millis step) {
  BoundOptions o;
  o.limit_c = limit_c;
  o.decision_step = step;
  auto r = compute_bound(spec, w, o);
  if (auto* e = std::get_if<std::string>(&r)) ADD_FAILURE() << *e;
  return std::get<BoundResult>(r);
}

// Holding the node at the limit takes P_s = 0.5 W/K x (35 - 25) K = 5 W
// (the exact discretisation keeps the continuous steady state). With
// e(k) = T(k) - 35 and T(k+1) = a T(k) + b P(k) + c, summing
// e(k+1) - a e(k) = b (P(k) - P_s) over k = 0..N-2 with e(0) = 0 and
// e(k) <= 0 for k >= 1 gives sum_{k<N-1} P(k) <= (N-1) P_s: no schedule
// averages more than 5 W over the first N-1 steps; the last step is never
// checked (the runner takes the max skin at the start of each step), so it
// runs flat out. The best performance at 5 W is the convex hull of the
// levels' (power, performance) points at 5 W, h; the optimum is
// ((N-1) h + 1) / N with N = 600 steps of 100 ms.
struct HullCase {
  const char* power;
  const char* performance;
  double hull_at_5w;
};

class BoundHandOptimum : public ::testing::TestWithParam<HullCase> {};

TEST_P(BoundHandOptimum, LpGivesItExactly) {
  const auto& c = GetParam();
  const ModelSpec spec = one_node(c.power, c.performance);
  const Workload w = constant(spec, "25");
  const double expected = (599.0 * c.hull_at_5w + 1.0) / 600.0;
  const BoundResult r = bound(spec, w, 35.0, Millis(100));
  ASSERT_TRUE(r.feasible);
  EXPECT_EQ(r.steps, 600U);
  EXPECT_EQ(r.decision_steps, 600U);
  EXPECT_NEAR(r.schedule_performance, expected, 1e-7);
  EXPECT_NEAR(r.performance_bound, expected, 1e-7);  // strong duality at the model step
  EXPECT_LE(r.schedule_peak_skin_c, 35.0 + 1e-7);
  // Coarser decision steps keep a valid bound, never below the optimum,
  // looser the coarser (here 0.5071, 0.5287, 0.6352 for the first case).
  double previous = r.performance_bound;
  for (const int ms : {500, 2000, 10000}) {
    const BoundResult coarse = bound(spec, w, 35.0, Millis(ms));
    EXPECT_GE(coarse.performance_bound, expected - 1e-9) << ms << " ms";
    EXPECT_GE(coarse.performance_bound, previous - 1e-9) << ms << " ms";
    previous = coarse.performance_bound;
  }
}

INSTANTIATE_TEST_SUITE_P(Hulls, BoundHandOptimum,
                         ::testing::Values(HullCase{"[10, 0]", "[1, 0]", 0.5},
                                           // (4, 0.7) lies above the chord: the hull at 5 W is
                                           // 0.7 + 0.3 / 6 between (4, 0.7) and (10, 1).
                                           HullCase{"[10, 4, 0]", "[1, 0.7, 0]", 0.75},
                                           // (5, 0.4) lies below the chord: never worth using.
                                           HullCase{"[10, 5, 0]", "[1, 0.4, 0]", 0.5}));

// Ambient 50 °C above a 45 °C limit: with the device off the node follows
// T(k) = 50 - 15 exp(-0.05 k dt) and peaks at the last checked step.
TEST(BoundTest, LimitBelowTheAmbientIsInfeasibleWithTheLowestSkin) {
  const ModelSpec spec = one_node("[10, 0]", "[1, 0]");
  const Workload w = constant(spec, "50");
  const BoundResult r = bound(spec, w, 45.0, Millis(100));
  EXPECT_FALSE(r.feasible);
  EXPECT_NEAR(r.lowest_peak_skin_c, 50.0 - 15.0 * std::exp(-0.05 * 59.9), 1e-9);
}

TEST(BoundTest, DecisionStepMustBeWholeModelSteps) {
  const ModelSpec spec = one_node("[10, 0]", "[1, 0]");
  BoundOptions o;
  o.limit_c = 35;
  o.decision_step = Millis(250);
  auto r = compute_bound(spec, constant(spec, "25"), o);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r),
            "the decision step must be a positive multiple of the model's 100 ms step, not 250 ms");
}

// Nothing binds (skin ~26 °C against 100 °C): the LP must deliver 1 at any
// decision step. With the objective divided by the run's total weighted
// demand (coefficients ~1e-6) GLPK stopped at 0.90 at 200 ms steps.
TEST(BoundTest, NothingBindingGivesFullPerformance) {
  auto m = load_model_file(kData + "/models/reference-umpc.yaml");
  ASSERT_TRUE(std::holds_alternative<ModelSpec>(m));
  const ModelSpec spec = std::get<ModelSpec>(m);
  auto t = parse_csv(
      "time_s,cpu,gpu,modem,backlight,charger,ambient_c\n0,0.5,0.5,0.1,0.8,0,25\n"
      "60,0.5,0.5,0.1,0.8,0,25\n",
      "cool.csv");
  ASSERT_TRUE(std::holds_alternative<CsvTable>(t));
  auto w = Workload::bind(std::get<CsvTable>(t), spec);
  ASSERT_TRUE(std::holds_alternative<Workload>(w));
  for (const int ms : {100, 200, 300, 1000}) {
    const BoundResult r = bound(spec, std::get<Workload>(w), 100.0, Millis(ms));
    EXPECT_NEAR(r.schedule_performance, 1.0, 1e-9) << ms << " ms";
    EXPECT_NEAR(r.performance_bound, 1.0, 1e-9) << ms << " ms";
  }
}

// compare --bound: each controller's performance as a fraction of its
// scenario's bound, and one line per scenario with the bound or why none.
TEST(BoundTest, CompareShowsTheFractionOfTheBound) {
  CompareResult r;
  r.skin_limit_c = 45;
  r.scenarios = {"a", "hot"};
  r.controllers = {"mine", "step_wise"};
  r.cells.assign(2, std::vector<CompareCell>(2));
  r.cells[0][0].metrics.performance = 0.6;
  r.cells[0][1].metrics.performance = 0.4;
  BoundResult a;
  a.feasible = true;
  a.limit_c = 45;
  a.performance_bound = 0.8;
  a.lowest_peak_skin_c = 30.5;
  BoundResult hot;
  hot.limit_c = 45;
  hot.lowest_peak_skin_c = 47.25;
  r.bounds = {a, hot};
  const std::string text = format_text(r);
  EXPECT_NE(text.find("of_bound\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0.6000       0.00    0.7500\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0.4000       0.00    0.5000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("bound a: 0.8000 with max skin <= 45.0 °C; lowest peak skin any schedule "
                      "reaches 30.50 °C\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bound hot: no schedule keeps max skin <= 45.0 °C; the lowest peak skin "
                      "any schedule reaches is 47.25 °C\n"),
            std::string::npos)
      << text;
  const std::string md = format_markdown(r);
  EXPECT_NE(md.find("| chg/min | of bound |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0.6000 | 0.00 | 0.7500 |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.0000 | 0.00 | - |\n"), std::string::npos) << md;  // hot: no bound
  // Without bounds the table has no such column.
  r.bounds = {std::nullopt, std::nullopt};
  EXPECT_EQ(format_text(r).find("of_bound"), std::string::npos);
  EXPECT_EQ(format_markdown(r).find("of bound"), std::string::npos);
}

// No controller beats the bound at its own peak skin (bound(L) covers every
// run with max skin <= L). A controller above it is a bug in one of them.
// A 30 s decision step keeps this quick; the bound stays valid (bound.h).
TEST(BoundTest, EveryBundledControllerIsAtOrBelowTheBound) {
  auto m = load_model_file(kData + "/models/reference-umpc.yaml");
  ASSERT_TRUE(std::holds_alternative<ModelSpec>(m));
  const ModelSpec spec = std::get<ModelSpec>(m);
  auto p = config::load_policy_file(kPolicy);
  ASSERT_TRUE(p.errors.empty());
  std::size_t checked = 0, workloads = 0;
  for (const auto& e : std::filesystem::directory_iterator(kData + "/workloads")) {
    if (e.path().extension() != ".csv") continue;
    auto t = load_csv_file(e.path().string());
    ASSERT_TRUE(std::holds_alternative<CsvTable>(t));
    auto bound_w = Workload::bind(std::get<CsvTable>(t), spec);
    ASSERT_TRUE(std::holds_alternative<Workload>(bound_w));
    const Workload& w = std::get<Workload>(bound_w);
    ++workloads;
    std::vector<std::unique_ptr<Controller>> controllers;
    auto made = make_policy_controller(spec, *p.document, "reference-umpc");
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<Controller>>(made));
    controllers.push_back(std::move(std::get<std::unique_ptr<Controller>>(made)));
    for (const auto g : {Governor::step_wise, Governor::bang_bang, Governor::fair_share,
                         Governor::power_allocator, Governor::none})
      controllers.push_back(make_governor_controller(spec, g));
    for (auto& c : controllers) {
      ThermalModel model(w.start(spec), 1);  // from the workload's initial state, as compare
      Workload wl = w;
      RunOptions o;
      o.record_trace = false;
      const Metrics run_m = run(model, wl, *c, o).metrics;
      // (1e-9 over the run's peak: the bound's own replay of the model may
      // differ from the simulator's in the last bits.)
      const double limit = std::max(spec.skin_limit_c, run_m.max_skin_c + 1e-9);
      const BoundResult b = bound(spec, w, limit, Millis(30000));
      ASSERT_TRUE(b.feasible) << w.name() << " / " << c->name();
      EXPECT_GE(b.performance_bound + 1e-9, run_m.performance)
          << w.name() << " / " << c->name() << " at " << limit << " °C";
      ++checked;
    }
  }
  EXPECT_GE(workloads, 7U);
  EXPECT_EQ(checked, workloads * 6);
}

}  // namespace
}  // namespace coolhand::sim::bound_test
