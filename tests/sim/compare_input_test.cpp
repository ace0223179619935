// `compare` input and memory honesty (issue 12): with no kernel baseline the
// report says the baseline targets were not checked, and each cell keeps a
// trace thinned to what the overlay plot draws, however long the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>

#include "coolhand/sim/compare.h"

namespace coolhand::sim::compare_input_test {
namespace {

CompareResult one_cell(const std::vector<std::string>& controllers) {
  CompareResult r;
  r.skin_limit_c = 45;
  r.scenarios = {"s"};
  r.controllers = controllers;
  r.cells.resize(1);
  r.cells[0].resize(controllers.size());
  for (auto& c : r.cells[0]) c.metrics.max_skin_c = 44;
  return r;
}

TEST(CompareInputTest, PolicyWithoutBaselineSaysTargetsWereNotCompared) {
  for (const auto& controllers :
       {std::vector<std::string>{"mine"}, std::vector<std::string>{"mine", "none"}}) {
    const auto r = one_cell(controllers);
    EXPECT_FALSE(has_kernel_baseline(r));
    const auto text = format_text(r);
    EXPECT_NE(text.find("targets: no kernel baseline to compare against (add e.g. -g step_wise -g "
                        "power_allocator); max skin <= limit + 0.5 °C holds\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("targets: all hold"), std::string::npos) << text;
    const auto md = format_markdown(r);
    EXPECT_NE(md.find("Targets: no kernel baseline to compare against (add e.g. -g step_wise -g "
                      "power_allocator); only max skin <= limit + 0.5 °C checked.\n"),
              std::string::npos)
        << md;
    EXPECT_EQ(md.find("all hold"), std::string::npos) << md;
  }
}

TEST(CompareInputTest, OverheatingWithoutBaselineStillFails) {
  auto r = one_cell({"mine"});
  r.cells[0][0].metrics.max_skin_c = 46;
  EXPECT_NE(format_text(r).find("max skin <= limit + 0.5 °C FAILED"), std::string::npos);
}

TEST(CompareInputTest, WithABaselineTheTargetsAreChecked) {
  const auto r = one_cell({"mine", "step_wise"});
  EXPECT_TRUE(has_kernel_baseline(r));
  EXPECT_NE(format_text(r).find("targets: all hold\n"), std::string::npos);
}

ModelSpec model() {
  auto r = parse_model(
      "name: m\nskin: {nodes: [skin], limit_c: 40}\n"
      "nodes:\n  - {name: die, capacity_j_per_k: 2}\n"
      "  - {name: skin, capacity_j_per_k: 40, to_ambient_w_per_k: 0.3}\n"
      "links: [{a: die, b: skin, w_per_k: 1}]\n"
      "devices:\n  - {name: cpu, power_w: [6, 3, 1], performance: [1, 0.6, 0.2], "
      "heat: [{node: die}]}\n"
      "sensors: [{name: t, node: die}]\n"
      "kernel_zones:\n  - name: z\n    sensor: t\n    polling_delay_ms: 1000\n"
      "    trips: [{name: p, type: passive, temp_c: 45}]\n"
      "    cooling: [{trip: p, device: cpu}]\n",
      "m.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get<ModelSpec>(r);
}

// Three simulated hours at 100 ms are 108 000 steps; the cell keeps at most
// the 1200 points the overlay plot draws, and the bucket maxima keep the
// run's hottest skin exactly.
TEST(CompareInputTest, CellTraceIsThinnedToThePlotAndKeepsThePeak) {
  const ModelSpec spec = model();
  std::string csv = "time_s,cpu,ambient_c\n";
  for (int t = 0; t <= 3 * 3600; t += 60)
    csv += std::to_string(t) + "," + ((t / 600) % 2 ? "1" : "0.2") + ",25\n";
  auto table = parse_csv(csv, "long.csv");
  ASSERT_TRUE(std::holds_alternative<CsvTable>(table));
  auto bound = Workload::bind(std::get<CsvTable>(table), spec);
  ASSERT_TRUE(std::holds_alternative<Workload>(bound));
  const std::vector<Workload> workloads{std::get<Workload>(bound)};
  const std::vector<ControllerChoice> choices{{"step_wise", Governor::step_wise, std::nullopt},
                                              {"none", Governor::none, std::nullopt}};
  auto res = run_compare(spec, workloads, choices, 1);
  ASSERT_TRUE(std::holds_alternative<CompareResult>(res));
  const auto& r = std::get<CompareResult>(res);
  for (const auto& cell : r.cells[0]) {
    EXPECT_EQ(cell.metrics.steps, 108000U);
    EXPECT_LE(cell.trace.time_s.size(), 1200U);
    EXPECT_GE(cell.trace.time_s.size(), 1000U);
    EXPECT_EQ(cell.trace.max_skin_c.size(), cell.trace.time_s.size());
    EXPECT_EQ(cell.trace.performance.size(), cell.trace.time_s.size());
    EXPECT_TRUE(cell.trace.node_c.empty());
    EXPECT_TRUE(cell.trace.level.empty());
    EXPECT_EQ(*std::max_element(cell.trace.max_skin_c.begin(), cell.trace.max_skin_c.end()),
              cell.metrics.max_skin_c);
  }
}

}  // namespace
}  // namespace coolhand::sim::compare_input_test
