// RunOptions::trace_max_rows: the runner records a thinned trace as it runs
// (so compare's memory does not grow with run length) while the metrics
// stay those of every step. Checked against the full trace of the same run.
#include <gtest/gtest.h>

#include <algorithm>

#include "coolhand/sim/runner.h"

namespace coolhand::sim::trace_thinning_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;

struct Runs {
  RunResult full, thin;
};

Runs run_both(Governor governor, std::size_t max_rows) {
  auto m = load_model_file(kData + "/models/reference-umpc.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&m)) ADD_FAILURE() << e->to_string();
  const ModelSpec spec = std::get<ModelSpec>(m);
  auto t = load_csv_file(kData + "/workloads/gaming.csv");
  if (auto* e = std::get_if<config::ConfigError>(&t)) ADD_FAILURE() << e->to_string();
  auto w = Workload::bind(std::get<CsvTable>(t), spec);
  if (auto* e = std::get_if<config::ConfigError>(&w)) ADD_FAILURE() << e->to_string();
  Runs r;
  for (const std::size_t rows : {std::size_t{0}, max_rows}) {
    ThermalModel model(spec, 3);
    Workload wl = std::get<Workload>(w);
    auto ctl = make_governor_controller(spec, governor);
    RunOptions options;
    options.trace_max_rows = rows;
    (rows == 0 ? r.full : r.thin) = run(model, wl, *ctl, options);
  }
  return r;
}

// 30 minutes at 100 ms: 18,000 steps in 1200 rows of 15.
TEST(TraceThinningTest, RowsAreBucketExtremesOfTheFullTrace) {
  const Runs r = run_both(Governor::step_wise, 1200);
  const Trace& full = r.full.trace;
  const Trace& thin = r.thin.trace;
  ASSERT_EQ(full.time_s.size(), 18000U);
  ASSERT_EQ(thin.time_s.size(), 1200U);
  constexpr std::size_t kStride = 15;
  for (std::size_t row = 0; row < thin.time_s.size(); ++row) {
    const std::size_t a = row * kStride;
    const std::size_t b = a + kStride;
    const auto max_of = [&](const auto& v) {
      return *std::max_element(v.begin() + a, v.begin() + b);
    };
    EXPECT_EQ(thin.time_s[row], full.time_s[a]);
    EXPECT_EQ(thin.max_skin_c[row], max_of(full.max_skin_c));
    EXPECT_EQ(thin.power_w[row], max_of(full.power_w));
    EXPECT_EQ(thin.ambient_c[row], max_of(full.ambient_c));
    EXPECT_EQ(thin.performance[row],
              *std::min_element(full.performance.begin() + a, full.performance.begin() + b));
    for (std::size_t i = 0; i < full.node_c.size(); ++i)
      EXPECT_EQ(thin.node_c[i][row], max_of(full.node_c[i]));
    for (std::size_t s = 0; s < full.sensor_c.size(); ++s)
      EXPECT_EQ(thin.sensor_c[s][row], max_of(full.sensor_c[s]));
    for (std::size_t d = 0; d < full.level.size(); ++d) {
      EXPECT_EQ(thin.level[d][row], max_of(full.level[d]));
      EXPECT_EQ(thin.demand[d][row], max_of(full.demand[d]));
    }
  }
}

// The metrics come from every step, not from the stored rows: identical
// to the unthinned run's, however few rows are kept.
TEST(TraceThinningTest, MetricsAreComputedAtFullResolution) {
  const Runs r = run_both(Governor::power_allocator, 7);
  const Metrics& a = r.full.metrics;
  const Metrics& b = r.thin.metrics;
  EXPECT_LE(r.thin.trace.time_s.size(), 7U);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.max_skin_c, b.max_skin_c);
  EXPECT_EQ(a.seconds_over_limit, b.seconds_over_limit);
  EXPECT_EQ(a.degree_seconds_over_limit, b.degree_seconds_over_limit);
  EXPECT_EQ(a.performance, b.performance);
  EXPECT_EQ(a.level_changes, b.level_changes);
  EXPECT_EQ(a.energy_j, b.energy_j);
  EXPECT_EQ(a.performance_by_device, b.performance_by_device);
  // The run throttled at all, so the comparison compared something.
  EXPECT_GT(a.level_changes, 0U);
  EXPECT_LT(a.performance, 1.0);
}

}  // namespace
}  // namespace coolhand::sim::trace_thinning_test
