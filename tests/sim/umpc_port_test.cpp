// The 8" Intel UMPC's tuned policy (sim/data/policies/umpc-8-intel-tuned.yaml)
// throttles in the order the performance bound's schedule does, which is
// what lifted it to >= 0.97 of the bound (docs/results.md, "8" Intel UMPC"):
// the CPU keeps the cells under the JEITA threshold so charging is not
// halved; the backlight gives way before the GPU; the modem, navigation's
// link, comes back as soon as there is room in a hot car. Each check fails
// on the structure it guards (the tuned policy changed by hand, seed 1):
// without the battery PID the charger delivers 0.797 on gaming-charging;
// with the backlight only in the last resort it stays at 1.000 on
// gaming-hot; with the modem's first hysteresis, 0.5 °C, the modem delivers
// 0.793 on hot-car (0.821 as tuned). Three closed-loop runs, about 0.2 s.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim::umpc_port_test {
namespace {

const std::string kData = COOLHAND_SIM_DATA_DIR;

RunResult run_tuned(const std::string& workload) {
  const auto m = std::get<ModelSpec>(load_model_file(kData + "/models/umpc-8-intel.yaml"));
  auto table = load_csv_file(kData + "/workloads/" + workload + ".csv");
  Workload w = std::get<Workload>(Workload::bind(std::get<CsvTable>(table), m));
  auto policy = config::load_policy_file(kData + "/policies/umpc-8-intel-tuned.yaml");
  EXPECT_TRUE(policy.errors.empty());
  auto ctl = make_policy_controller(m, *policy.document, "umpc-8-intel-tuned");
  EXPECT_TRUE(std::holds_alternative<std::unique_ptr<Controller>>(ctl));
  ThermalModel model(w.start(m), 1);  // seed 1, from the workload's start, as compare
  RunOptions o;
  o.record_trace = false;
  return run(model, w, *std::get<std::unique_ptr<Controller>>(ctl), o);
}

TEST(UmpcPortTest, ChargingIsNotHalvedWhileTheCpuHasRoom) {
  const auto r = run_tuned("gaming-charging");
  EXPECT_LE(r.metrics.max_skin_c, 45.0);
  EXPECT_GE(r.metrics.performance_by_device.at("charger"), 0.99);
  EXPECT_LT(r.metrics.performance_by_device.at("cpu"), 0.9);  // the CPU paid instead
}

TEST(UmpcPortTest, TheBacklightGivesWayBeforeTheGpu) {
  const auto r = run_tuned("gaming-hot");
  EXPECT_LE(r.metrics.max_skin_c, 45.0);
  const double backlight = r.metrics.performance_by_device.at("backlight");
  EXPECT_LT(backlight, 0.95);
  EXPECT_GT(r.metrics.performance_by_device.at("gpu"), backlight);
}

TEST(UmpcPortTest, TheModemComesBackInAHotCar) {
  const auto r = run_tuned("hot-car");
  EXPECT_LE(r.metrics.max_skin_c, 45.5);
  EXPECT_GE(r.metrics.performance_by_device.at("modem"), 0.8);
}

}  // namespace
}  // namespace coolhand::sim::umpc_port_test
