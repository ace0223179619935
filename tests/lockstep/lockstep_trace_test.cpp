// The host-side pieces of the lockstep stage without a guest: the module
// parameters a model's firmware zones become, what they refuse, and the
// trace format's round trip and its errors.
#include "lockstep_trace.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace sim = coolhand::sim;
namespace ls = coolhand::lockstep;

namespace {

sim::ModelSpec reference_model() {
  auto m = sim::load_model_file(COOLHAND_SIM_DATA_DIR "/models/reference-umpc.yaml");
  EXPECT_TRUE(std::holds_alternative<sim::ModelSpec>(m));
  return std::get<sim::ModelSpec>(m);
}

std::string params(const sim::ModelSpec& m, sim::Governor g) {
  auto p = ls::emul_params(m, g);
  if (auto* e = std::get_if<std::string>(&p)) return "error: " + *e;
  return std::get<ls::EmulParams>(p).args;
}

TEST(LockstepParams, ReferenceModelStepWise) {
  EXPECT_EQ(params(reference_model(), sim::Governor::step_wise),
            "emul_zones=3 emul_devices=5 emul_max_level=7,7,3,4,4 "
            "emul_power_mw=6000:4800:3800:3000:2300:1700:1200:800,"
            "7000:5600:4400:3400:2600:1900:1300:900,2200:1500:1000:600,"
            "1600:1280:1000:740:510,2600:1800:1100:700:350 "
            "emul_load_scale=100,1024,0,0,0 emul_passive_mc=95000,50000,43000 "
            "emul_passive_hyst_mc=2000,1000,1000 emul_crit_mc=105000,70000,60000 "
            "emul_alert_mc=85000,47000,40000 emul_alert_hyst_mc=2000,1000,1000 "
            "emul_governor=user_space emul_lockstep=1 "
            "emul_binding=0:0,0:1,1:0,1:1,1:2,1:3,1:4,2:4");
}

TEST(LockstepParams, PowerAllocatorBindsEnergyModelDevicesOnly) {
  const auto p = params(reference_model(), sim::Governor::power_allocator);
  EXPECT_EQ(p.substr(p.rfind(' ') + 1), "emul_binding=0:0,0:1,1:0,1:1");
}

TEST(LockstepParams, RefusesWhatTheModuleCannotExpress) {
  auto m = reference_model();
  m.kernel_zones[0].cooling[0].trip = "soc-alert";
  EXPECT_EQ(params(m, sim::Governor::step_wise).rfind("error: kernel zone soc-thermal: ", 0), 0U);
  m = reference_model();
  m.kernel_zones[1].trips[2].type = sim::KernelTripSpec::Type::hot;
  EXPECT_EQ(params(m, sim::Governor::step_wise).rfind("error: kernel zone skin-thermal: ", 0), 0U);
  m = reference_model();
  m.kernel_zones[2].cooling[0].weight = 2;
  EXPECT_EQ(params(m, sim::Governor::fair_share).rfind("error: kernel zone battery: ", 0), 0U);
}

TEST(LockstepTrace, RoundTrip) {
  auto m = reference_model();
  auto table = sim::load_csv_file(COOLHAND_SIM_DATA_DIR "/workloads/gaming.csv");
  ASSERT_TRUE(std::holds_alternative<sim::CsvTable>(table));
  auto w = sim::Workload::bind(std::get<sim::CsvTable>(std::move(table)), m);
  ASSERT_TRUE(std::holds_alternative<sim::Workload>(w));
  auto c = sim::make_governor_controller(m, sim::Governor::step_wise);
  sim::ThermalModel model(m, 1);
  const auto result = sim::run(model, std::get<sim::Workload>(w), *c);
  std::stringstream s;
  s << "boot noise\n\x1b[2J";  // console escapes before the first line
  ls::write_trace(s, "6.1/step_wise/gaming/1", result);
  auto back = ls::read_traces(s);
  ASSERT_TRUE(std::holds_alternative<std::vector<ls::RunTrace>>(back))
      << std::get<std::string>(back);
  const auto& runs = std::get<std::vector<ls::RunTrace>>(back);
  ASSERT_EQ(runs.size(), 1U);
  const auto want = ls::to_trace("6.1/step_wise/gaming/1", result);
  EXPECT_EQ(runs[0].level, want.level);
  EXPECT_EQ(runs[0].decisions, want.decisions);
  EXPECT_NEAR(runs[0].max_skin_c, want.max_skin_c, 1e-6);
  EXPECT_NEAR(runs[0].performance, want.performance, 1e-6);
}

std::string trace_error(const std::string& text) {
  std::istringstream in(text);
  auto r = ls::read_traces(in);
  if (auto* e = std::get_if<std::string>(&r)) return *e;
  return "";
}

TEST(LockstepTrace, Errors) {
  EXPECT_EQ(trace_error("LOCKSTEP-L 0 1 2\n"), "line 1: LOCKSTEP-L outside a run");
  EXPECT_EQ(trace_error("LOCKSTEP-BEGIN a devices=2 steps=3\nLOCKSTEP-L 0 1 1\n"),
            "run a has no LOCKSTEP-END (guest stopped?)");
  EXPECT_EQ(trace_error("LOCKSTEP-BEGIN a devices=2 steps=3\nLOCKSTEP-L 1 1 1\n"),
            "line 2: a run's trace must start at step 0");
  EXPECT_EQ(trace_error("LOCKSTEP-BEGIN a devices=2 steps=3\nLOCKSTEP-L 0 1 1\n"
                        "LOCKSTEP-L 3 1 1\n"),
            "line 3: malformed LOCKSTEP-L");
  EXPECT_EQ(trace_error("LOCKSTEP-BEGIN a devices=2 steps=3\nLOCKSTEP-L 0 1 1\n"
                        "LOCKSTEP-END b decisions=1 max_skin_c=1 performance=1\n"),
            "line 3: malformed LOCKSTEP-END");
  EXPECT_EQ(trace_error("LOCKSTEP-BEGIN a devices=x steps=3\n"),
            "line 1: malformed LOCKSTEP-BEGIN");
}

}  // namespace
