// The skin estimator's inputs (sim/src/fit_skin_inputs.h): the default
// reads the sensor of the node a device heats, which lets the estimate tell
// that heat from a warm ambient; a device whose heat no input sees is named.
#include "../../sim/src/fit_skin_inputs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <variant>

#include "coolhand/sim/fit.h"

namespace coolhand::sim {
namespace {

using std::chrono::milliseconds;

SensorModelSpec sensor(const std::string& name, const std::string& node, double quantum,
                       int period_ms) {
  SensorModelSpec s;
  s.name = name;
  s.node = node;
  s.quantum_c = quantum;
  s.period = milliseconds(period_ms);
  return s;
}

// A SoC heated by the CPU on a board, and a glass on the board heated by a
// backlight; the glass loses most of its heat to the air, the board little,
// so the two weigh the ambient and the CPU's heat differently. Two 10 Hz
// sensors on the SoC (the finer one 0.125 °C), a 1 s thermistor on the board.
ModelSpec model() {
  ModelSpec m;
  m.name = "inputs";
  m.ambient_c = 25.0;
  m.nodes = {NodeSpec{"soc", 5.0, 0.0, {}}, NodeSpec{"board", 40.0, 0.1, {}},
             NodeSpec{"glass", 30.0, 0.5, {}}, NodeSpec{"display", 40.0, 0.0, {}}};
  m.links = {LinkSpec{"soc", "board", 1.0}, LinkSpec{"board", "glass", 0.4},
             LinkSpec{"display", "glass", 1.5}};
  DeviceModelSpec cpu;
  cpu.name = "cpu";
  cpu.power_w = {6.0};
  cpu.performance = {1.0};
  cpu.heat = {HeatShare{"soc", 1.0}};
  DeviceModelSpec bl;
  bl.name = "backlight";
  bl.power_w = {1.5};
  bl.performance = {1.0};
  bl.heat = {HeatShare{"display", 1.0}};
  m.devices = {cpu, bl};
  m.sensors = {sensor("gpu_therm", "soc", 1.0, 100), sensor("cpu_therm", "soc", 0.125, 100),
               sensor("board_therm", "board", 0.1, 1000)};
  m.skin_nodes = {"glass"};
  return m;
}

TEST(SkinInputs, DefaultReadsTheFinestSensorOfEachNodeAtAnyPeriod) {
  // Before: every sensor sampled at 1 s or slower, i.e. board_therm alone.
  EXPECT_EQ(default_skin_inputs(model()), (std::vector<std::string>{"cpu_therm", "board_therm"}));
}

TEST(SkinInputs, NamesTheHeatNoInputSees) {
  const auto unseen = unseen_heat(model(), {"board_therm"}, {});
  ASSERT_EQ(unseen.size(), 2U);
  EXPECT_EQ(unseen[0].node, "soc");
  EXPECT_EQ(unseen[0].devices, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(unseen[0].sensors, (std::vector<std::string>{"gpu_therm", "cpu_therm"}));
  EXPECT_EQ(unseen_heat_warning(unseen[0]),
            "skin estimator inputs: none sees the heat of cpu (node soc; gpu_therm, cpu_therm "
            "read it): the estimate cannot tell that heat from a warm ambient "
            "(docs/simulator.md, \"Learning a device\")");
  EXPECT_EQ(unseen[1].node, "display");
  EXPECT_TRUE(unseen[1].sensors.empty());
  EXPECT_NE(unseen_heat_warning(unseen[1]).find(
                "(node display; no sensor reads it, a brightness input would: --brightness)"),
            std::string::npos);
  // The backlight as a brightness input, the SoC's sensor among the inputs:
  // nothing unseen.
  EXPECT_TRUE(unseen_heat(model(), {"cpu_therm", "board_therm"}, {"backlight"}).empty());
}

// Why: the glass over a session whose ambient and CPU load move
// independently (a car warming, a game started and stopped). From the
// board thermistor alone the fit confounds the two; with the default
// inputs (the SoC's sensor too) it separates them.
TEST(SkinInputs, TheHeatedNodesSensorSeparatesLoadFromAmbient) {
  ThermalModel m(model());
  FitSegment seg;
  seg.name = "session";
  seg.step_s = 2.0;
  std::vector<double> soc, board, glass;
  const std::vector<std::uint32_t> levels(2, 0);
  for (int k = 0; k < 5400; ++k) {  // 3 h at 2 s
    const double t = 2.0 * k;
    m.set_ambient((static_cast<int>(t) / 1700) % 3 == 0   ? 22.0
                  : (static_cast<int>(t) / 1700) % 3 == 1 ? 34.0
                                                          : 28.0);
    const std::vector<double> demand = {(static_cast<int>(t) / 1100) % 2 == 0 ? 1.0 : 0.15, 0.8};
    m.set_inputs(levels, demand);
    for (int s = 0; s < 20; ++s) m.step();
    seg.time_s.push_back(t);
    soc.push_back(m.node_c(0));
    board.push_back(m.node_c(1));
    glass.push_back(m.node_c(2));
  }
  // reading_c follows the model's sensors: gpu_therm, cpu_therm, board_therm.
  seg.reading_c = {soc, soc, board};
  seg.extra_names = {"glass_c"};
  seg.extra_c = {glass};
  const std::vector<std::string> names = {"gpu_therm", "cpu_therm", "board_therm"};
  SkinFitOptions opt;
  opt.inputs = {"board_therm"};
  const auto alone = fit_skin({seg}, {"glass_c"}, names, opt);
  opt.inputs = default_skin_inputs(model());
  const auto with = fit_skin({seg}, {"glass_c"}, names, opt);
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(alone)));
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(with)));
  const auto& a = std::get<std::vector<SkinEstimator>>(alone).front();
  const auto& w = std::get<std::vector<SkinEstimator>>(with).front();
  EXPECT_GT(a.held_out.rms_c, 0.3);
  EXPECT_LT(w.held_out.rms_c, a.held_out.rms_c / 3) << a.held_out.rms_c;
}

}  // namespace
}  // namespace coolhand::sim
