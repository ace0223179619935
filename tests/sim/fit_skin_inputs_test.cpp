// The skin estimator's inputs (sim/src/fit_skin_inputs.h): the default
// reads the sensor of the node a device heats, which lets the estimate tell
// that heat from a warm ambient; a device whose heat no input sees is named.
#include "../../sim/src/fit_skin_inputs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <variant>

#include "coolhand/sim/fit.h"

namespace coolhand::sim::fit_skin_inputs_test {
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

TEST(SkinInputs, FastSensorsGetTheirNewestTapOnly) {
  // 10 Hz: 80 readings per 8 s tap, more than the engine's fir keeps.
  EXPECT_EQ(newest_tap_only_inputs(model(), {"cpu_therm", "board_therm"}, 8.0),
            (std::vector<std::string>{"cpu_therm"}));
  EXPECT_TRUE(newest_tap_only_inputs(model(), {"cpu_therm", "board_therm"}, 0.5).empty());
}

TEST(SkinInputs, EmaParsesAndNamesItsErrors) {
  std::string why;
  const auto e = parse_ema_input("soc_slow=cpu_therm:300", why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->name, "soc_slow");
  EXPECT_EQ(e->input, "cpu_therm");
  EXPECT_EQ(e->tau_s, 300.0);
  for (const char* bad :
       {"soc_slow=cpu_therm", "=cpu_therm:3", "soc_slow=:3", "a=b:0", "a=b:x", "a=b:3s"}) {
    EXPECT_FALSE(parse_ema_input(bad, why)) << bad;
    EXPECT_EQ(why, std::string("--ema ") + bad + ": expected NAME=INPUT:TAU (TAU in s, > 0)");
  }
  std::vector<FitSegment> data(1);
  data[0].name = "d";
  data[0].time_s = {0, 1};
  data[0].reading_c = {{20, 20}, {20, 20}, {20, 20}};
  const auto missing =
      add_ema_inputs(data, {"gpu_therm", "cpu_therm", "board_therm"}, {{"e", "soc_therm", 5}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->to_string(), "--ema e: 'soc_therm' is not a sensor of the model");
}

TEST(SkinInputs, EmaIsTheEnginesAverageFromTheFirstReading) {
  std::vector<FitSegment> data(1);
  data[0].step_s = 2.0;
  data[0].time_s = {0, 2, 4, 6};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  data[0].reading_c = {{nan, 30, nan, 40}};
  ASSERT_FALSE(add_ema_inputs(data, {"t"}, {{"t_avg", "t", 10}}));
  ASSERT_EQ(data[0].extra_names, (std::vector<std::string>{"t_avg"}));
  const auto& y = data[0].extra_c[0];
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_DOUBLE_EQ(y[1], 30);
  EXPECT_DOUBLE_EQ(y[2], 30);
  EXPECT_NEAR(y[3], 40 - 10 * std::exp(-0.2), 1e-12);
}

// Why: the glass over a session whose ambient and CPU load move
// independently (a car warming, a game started and stopped). From the
// board thermistor alone the fit confounds the two; with the SoC's sensor
// as the engine can take it (its averages over a minute and five, each on
// its newest tap) it separates them.
TEST(SkinInputs, TheHeatedNodesSensorSeparatesLoadFromAmbient) {
  ThermalModel m(model());
  FitSegment seg;
  seg.name = "session";
  seg.step_s = 2.0;
  std::vector<double> soc, board, glass;
  const std::vector<std::uint32_t> levels(2, 0);
  for (int k = 0; k < 5400; ++k) {  // 3 h at 2 s
    const double t = 2.0 * k;
    const int amb = (static_cast<int>(t) / 1700) % 3;
    m.set_ambient(amb == 0 ? 22.0 : amb == 1 ? 34.0 : 28.0);
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
  std::vector<FitSegment> data{seg};
  const std::vector<std::string> names = {"gpu_therm", "cpu_therm", "board_therm"};
  ASSERT_FALSE(
      add_ema_inputs(data, names, {{"soc_fast", "cpu_therm", 60}, {"soc_slow", "cpu_therm", 300}}));
  SkinFitOptions opt;
  opt.inputs = {"board_therm"};
  const auto alone = fit_skin(data, {"glass_c"}, names, opt);
  opt.inputs = {"board_therm", "soc_fast", "soc_slow"};
  opt.newest_tap_only = {"soc_fast", "soc_slow"};
  const auto with = fit_skin(data, {"glass_c"}, names, opt);
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(alone)));
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(with)));
  const auto& a = std::get<std::vector<SkinEstimator>>(alone).front();
  const auto& w = std::get<std::vector<SkinEstimator>>(with).front();
  EXPECT_GT(a.held_out.rms_c, 0.3);
  EXPECT_LT(w.held_out.rms_c, a.held_out.rms_c / 3) << a.held_out.rms_c;
  // The averages' older taps are written as 0 (the engine could not hold them).
  ASSERT_EQ(w.weights.size(), 3U);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_NE(w.weights[i][0], 0.0);
    for (std::size_t k = 1; k < w.weights[i].size(); ++k) EXPECT_EQ(w.weights[i][k], 0.0);
  }
}

// Every error of the skin fit names what it is about (an option as given,
// the data file, the estimator), never an empty subject that
// ConfigError::to_string would print as ": message".
TEST(SkinInputs, FitErrorsNameTheirSubject) {
  FitSegment seg;
  seg.name = "run.csv";
  seg.step_s = 2.0;
  for (int k = 0; k < 40; ++k) seg.time_s.push_back(2.0 * k);
  seg.reading_c = {std::vector<double>(40, 30.0)};
  seg.extra_names = {"glass_c"};
  seg.extra_c = {std::vector<double>(40, 35.0)};
  const std::vector<std::string> names = {"board_therm"};
  const auto error = [&](const std::vector<FitSegment>& data, const SkinFitOptions& opt,
                         const std::string& ref) {
    const auto r = fit_skin(data, {ref}, names, opt);
    EXPECT_TRUE(std::holds_alternative<config::ConfigError>(r));
    return std::holds_alternative<config::ConfigError>(r)
               ? std::get<config::ConfigError>(r).to_string()
               : std::string();
  };
  SkinFitOptions opt;
  opt.inputs = {"board_therm"};
  opt.taps = 2;
  opt.tap_period_s = 4;
  const std::vector<FitSegment> data{seg};
  EXPECT_EQ(error({}, opt, "glass_c"), "skin estimator: no data to fit");
  SkinFitOptions bad = opt;
  bad.taps = 0;
  EXPECT_EQ(error(data, bad, "glass_c"), "--taps 0: expected 1 to 1024");
  bad = opt;
  bad.tap_period_s = 3;
  EXPECT_EQ(error(data, bad, "glass_c"),
            "--tap-period 3: must be a whole multiple of the fit step, 2 s");
  bad = opt;
  bad.inputs.clear();
  EXPECT_EQ(error(data, bad, "glass_c"),
            "skin estimator: no input sensor (give --skin-inputs, or a model with sensors)");
  bad = opt;
  bad.inputs = {"lid_therm"};
  EXPECT_EQ(error(data, bad, "glass_c"),
            "run.csv: skin input 'lid_therm' is neither a sensor of the skeleton nor a "
            "brightness (--brightness)");
  EXPECT_EQ(error(data, opt, "lid_c"),
            "run.csv: no column 'lid_c' for the reference skin (the columns no sensor or device "
            "uses are the candidates)");
  bad = opt;
  bad.taps = 40;  // 41 coefficients, 30 rows fitted of 40 (a quarter held out)
  EXPECT_EQ(error(data, bad, "glass_c"),
            "skin estimator of 'glass_c': 30 samples for 41 coefficients: record longer");
  FitSegment unnamed = seg;
  unnamed.name.clear();
  bad = opt;
  bad.inputs = {"lid_therm"};
  EXPECT_TRUE(error({unnamed}, bad, "glass_c").starts_with("fit data: skin input"));

  std::vector<FitSegment> lit{seg};
  const auto no_device = add_brightness(lit, model(), {{"screen", "panel"}});
  ASSERT_TRUE(no_device.has_value());
  EXPECT_EQ(no_device->to_string(), "--brightness screen=panel: the model has no device 'panel'");
  const auto no_levels = add_brightness(lit, model(), {{"screen", "backlight"}});
  ASSERT_TRUE(no_levels.has_value());
  EXPECT_EQ(no_levels->to_string(), "run.csv: no levels for device backlight");
}

}  // namespace
}  // namespace coolhand::sim::fit_skin_inputs_test
