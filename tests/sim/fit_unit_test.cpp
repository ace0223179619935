// Model identification (fit.h) on small cases with known answers: the
// skeleton's free numbers, the model writer read back, and a one-node fit
// that must recover its capacity, conductance and powers from noise-free
// data. The end-to-end fit of a realistic model is tests/sim/fit_test.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>

#include "coolhand/sim/fit.h"

namespace coolhand::sim::fit_unit_test {
namespace {

constexpr const char* kSkeleton =
    "name: one\nskin: {nodes: [a], limit_c: 45}\n"
    "nodes: [{name: a, capacity_j_per_k: free, to_ambient_w_per_k: free}]\n"
    "devices:\n"
    "  - {name: cpu, idle_w: 0.5, power_w: [free, free], performance: [1, 0.5], "
    "heat: [{node: a}]}\n"
    "sensors: [{name: s, node: a}]\n";

FitSkeleton skeleton() {
  auto r = parse_skeleton(kSkeleton, "one.yaml");
  EXPECT_TRUE(std::holds_alternative<FitSkeleton>(r))
      << std::get<config::ConfigError>(r).to_string();
  return std::get<FitSkeleton>(r);
}

TEST(FitSkeletonTest, NamesEveryFreeNumberInFileOrder) {
  const auto sk = skeleton();
  ASSERT_EQ(sk.free.size(), 4U);
  EXPECT_EQ(sk.free[0].name, "a.capacity_j_per_k");
  EXPECT_EQ(sk.free[1].name, "a.to_ambient_w_per_k");
  EXPECT_EQ(sk.free[2].name, "cpu.power_w[0]");
  EXPECT_EQ(sk.free[3].name, "cpu.power_w[1]");
  EXPECT_DOUBLE_EQ(sk.spec.devices[0].idle_w, 0.5);  // a number is held
}

TEST(FitSkeletonTest, FreeWhereNothingIsFittedIsAnErrorAtIt) {
  std::string text = kSkeleton;
  text.replace(text.find("{name: s, node: a}"), 18, "{name: s, node: a, lag_s: free}");
  auto r = parse_skeleton(text, "one.yaml");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  const auto& e = std::get<config::ConfigError>(r);
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.column, 37);
  EXPECT_NE(e.message.find("only capacity_j_per_k"), std::string::npos);
}

// The skeleton is parsed once and its `free` words set to a number in that
// tree: a misspelt key beside a `free` is the model loader's error, at the
// file's own line and column, and a `free` used as a key is refused there.
TEST(FitSkeletonTest, ModelErrorsNextToFreeKeepTheFilesPositions) {
  std::string text = kSkeleton;
  text.replace(text.find("to_ambient_w_per_k"), 18, "to_ambient_w_per_kk");
  auto r = parse_skeleton(text, "one.yaml");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  const auto& e = std::get<config::ConfigError>(r);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.column, 43);
  EXPECT_NE(e.message.find("unknown key 'to_ambient_w_per_kk'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("did you mean 'to_ambient_w_per_k'"), std::string::npos) << e.message;

  text = kSkeleton;
  text.replace(text.find("{name: s, node: a}"), 18, "{name: s, node: a, free: 1}");
  r = parse_skeleton(text, "one.yaml");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).line, 6);
  EXPECT_EQ(std::get<config::ConfigError>(r).column, 30);
}

TEST(ModelWriterTest, WrittenModelReadsBackWithTheSameNumbers) {
  auto spec =
      std::get<ModelSpec>(load_model_file(COOLHAND_SIM_DATA_DIR "/models/reference-umpc.yaml"));
  auto back = parse_model(model_yaml(spec, "header\nline two"), "written.yaml");
  ASSERT_TRUE(std::holds_alternative<ModelSpec>(back))
      << std::get<config::ConfigError>(back).to_string();
  const auto& b = std::get<ModelSpec>(back);
  ASSERT_EQ(b.nodes.size(), spec.nodes.size());
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    EXPECT_EQ(b.nodes[i].name, spec.nodes[i].name);
    EXPECT_NEAR(b.nodes[i].capacity_j_per_k, spec.nodes[i].capacity_j_per_k, 1e-9);
    EXPECT_NEAR(b.nodes[i].to_ambient_w_per_k, spec.nodes[i].to_ambient_w_per_k, 1e-9);
  }
  ASSERT_EQ(b.links.size(), spec.links.size());
  ASSERT_EQ(b.devices.size(), spec.devices.size());
  EXPECT_EQ(b.devices[4].heat.size(), 2U);
  EXPECT_EQ(b.sensors.size(), spec.sensors.size());
  EXPECT_EQ(b.kernel_zones.size(), spec.kernel_zones.size());
  EXPECT_EQ(b.kernel_zones[1].cooling.size(), spec.kernel_zones[1].cooling.size());
}

// The one-node device the tests fit: C = 12 J/K, g = 0.3 W/K, 3 W at level
// 0 and 1.2 W at level 1 (the skeleton's other values as they are).
ModelSpec truth_of(const FitSkeleton& sk) {
  ModelSpec truth = sk.spec;
  truth.nodes[0].capacity_j_per_k = 12.0;
  truth.nodes[0].to_ambient_w_per_k = 0.3;
  truth.devices[0].power_w = {3.0, 1.2};
  return truth;
}

// One node, C = 12 J/K, g = 0.3 W/K, idle 0.5 W, 3 W at level 0 and 1.2 W
// at level 1, driven through both levels and off; readings are the exact
// simulation, the total power is measured. The fit must recover all four.
TEST(FitModelTest, RecoversAOneNodeModelFromExactData) {
  auto sk = skeleton();
  const ModelSpec truth = truth_of(sk);
  FitSegment seg;
  seg.name = "exact";
  const std::size_t n = 900;
  seg.load.assign(1, std::vector<std::vector<double>>(2, std::vector<double>(n, 0.0)));
  for (std::size_t k = 0; k < n; ++k) {
    seg.time_s.push_back(static_cast<double>(k));
    seg.ambient_c.push_back(k < 600 ? 25.0 : 30.0);
    if (k < 300) seg.load[0][0][k] = 1.0;
    if (k >= 450 && k < 750) seg.load[0][1][k] = 1.0;
    seg.total_power_w.push_back(0.5 + 3.0 * seg.load[0][0][k] + 1.2 * seg.load[0][1][k]);
  }
  seg.reading_c.assign(1, std::vector<double>(n, 25.0));
  seg.reading_c[0] = predict_nodes(truth, seg)[0];
  FitOptions opt;
  opt.holdout = 0.2;
  auto r = fit_model(sk, {seg}, opt);
  ASSERT_TRUE(std::holds_alternative<FitResult>(r));
  const auto& f = std::get<FitResult>(r);
  EXPECT_NEAR(f.values[0], 12.0, 12.0 * 1e-3);
  EXPECT_NEAR(f.values[1], 0.3, 0.3 * 1e-3);
  EXPECT_NEAR(f.values[2], 3.0, 3.0 * 1e-3);
  EXPECT_NEAR(f.values[3], 1.2, 1.2 * 1e-3);
  EXPECT_TRUE(f.unidentifiable.empty());
  ASSERT_EQ(f.held_out.size(), 1U);
  EXPECT_LT(f.held_out[0].rms_c, 1e-3);
}

// Errors name their subject: the option as given, never a bare ": ".
TEST(FitModelTest, ErrorsNameTheirSubject) {
  auto sk = skeleton();
  FitOptions opt;
  opt.holdout = 0.95;
  FitSegment seg;
  seg.name = "one";
  auto r = fit_model(sk, {seg}, opt);
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).to_string(),
            "--holdout 0.95: expected a fraction in [0, 0.9)");
  auto none = fit_model(sk, {}, FitOptions{});
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(none));
  EXPECT_EQ(std::get<config::ConfigError>(none).to_string(), "model fit: no data to fit");
}

// The same data without the measured power: the common scale of C, g and
// the powers is not determined, and the fit says so.
TEST(FitModelTest, NamesTheCommonScaleWithoutMeasuredPower) {
  auto sk = skeleton();
  sk.spec.devices[0].idle_w = 0.0;  // a held idle power would pin the scale
  const ModelSpec truth = truth_of(sk);
  FitSegment seg;
  const std::size_t n = 600;
  seg.load.assign(1, std::vector<std::vector<double>>(2, std::vector<double>(n, 0.0)));
  for (std::size_t k = 0; k < n; ++k) {
    seg.time_s.push_back(static_cast<double>(k));
    seg.ambient_c.push_back(25.0);
    if (k < 300) seg.load[0][0][k] = 1.0;
    if (k >= 400) seg.load[0][1][k] = 1.0;
  }
  seg.reading_c.assign(1, std::vector<double>(n, 25.0));
  seg.reading_c[0] = predict_nodes(truth, seg)[0];
  auto r = fit_model(sk, {seg}, FitOptions{});
  ASSERT_TRUE(std::holds_alternative<FitResult>(r));
  const auto& f = std::get<FitResult>(r);
  ASSERT_FALSE(f.unidentifiable.empty());
  bool scale = false;
  for (const auto& w : f.unidentifiable)
    scale = scale || w.why.find("common scale") != std::string::npos;
  EXPECT_TRUE(scale);
}

// A level the data never use takes its power from the used level's FITTED
// power scaled by performance (fill_unused_levels), not from the fit's 1 W
// start: the cpu runs at level 0 only, 3 W, no power measured (the held
// idle power pins the scale), so level 1 (performance 0.5) is 1.5 W, named
// as not identifiable.
TEST(FitModelTest, ScalesAnUnusedLevelFromTheFittedPower) {
  auto sk = skeleton();
  const ModelSpec truth = truth_of(sk);
  FitSegment seg;
  const std::size_t n = 900;
  seg.load.assign(1, std::vector<std::vector<double>>(2, std::vector<double>(n, 0.0)));
  for (std::size_t k = 0; k < n; ++k) {
    seg.time_s.push_back(static_cast<double>(k));
    seg.ambient_c.push_back(k < 600 ? 25.0 : 30.0);
    if (k < 300 || (k >= 450 && k < 750)) seg.load[0][0][k] = 1.0;
  }
  seg.reading_c.assign(1, std::vector<double>(n, 25.0));
  seg.reading_c[0] = predict_nodes(truth, seg)[0];
  auto r = fit_model(sk, {seg}, FitOptions{});
  ASSERT_TRUE(std::holds_alternative<FitResult>(r));
  const auto& f = std::get<FitResult>(r);
  EXPECT_NEAR(f.values[2], 3.0, 3.0 * 1e-2);
  EXPECT_NEAR(f.values[3], f.values[2] * 0.5, 1e-9);
  EXPECT_NEAR(f.model.devices[0].power_w[1], f.values[3], 1e-9);
  bool named = false;
  for (const auto& w : f.unidentifiable)
    for (const auto& p : w.params) named = named || p == "cpu.power_w[1]";
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace coolhand::sim::fit_unit_test
