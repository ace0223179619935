// Engine::compile validation: one row per rule, each breaking a valid spec in
// one place and expecting an error with the exact path and key config/ maps
// back to file:line:column.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "rig.h"

namespace coolhand::policy::testing::validate_test {
namespace {

using SK = SensorSpec::Kind;
using CK = ControllerSpec::Kind;

// Uses every kind of element, so each rule has something to break.
PolicySpec valid_spec() {
  PolicySpec spec;
  SensorSpec ema = virtual_sensor("soc_avg", SK::ema, {"soc"});
  ema.time_constant = Millis(30000);
  SensorSpec fir = virtual_sensor("skin_est", SK::fir, {"soc", "batt"}, {0.3, 0.2, 0.3, 0.2});
  fir.taps = 2;
  fir.tap_period = Millis(1000);
  SensorSpec pred = virtual_sensor("skin_pred", SK::predictor, {"skin"});
  pred.horizon = Millis(30000);
  pred.window = Millis(10000);
  spec.sensors = {physical("soc"),
                  physical("batt"),
                  virtual_sensor("skin", SK::weighted_sum, {"soc", "batt"}, {0.4, 0.6}),
                  virtual_sensor("hottest", SK::max, {"soc", "batt"}),
                  ema,
                  fir,
                  pred};

  ZoneSpec z;
  z.name = "skin_zone";
  z.sensor = "skin";
  TripSpec passive;
  passive.name = "passive";
  passive.threshold = mc(42000);
  passive.hysteresis = mc(1000);
  TripSpec crit;
  crit.name = "crit";
  crit.type = TripSpec::Type::critical;
  crit.threshold = mc(55000);
  crit.action = TripAction::force_deepest;
  crit.devices = {"cpu"};
  crit.debounce_samples = 3;
  z.trips = {passive, crit};
  z.severities = {{Severity::light, mc(40000), mc(1000)}, {Severity::severe, mc(50000), mc(1000)}};
  spec.zones = {z};

  DeviceSpec cpu = device("cpu", 3);
  cpu.power_mw = {3000, 2000, 1000, 500};
  cpu.performance = {1.0, 0.7, 0.4, 0.2};
  DeviceSpec gpu = device("gpu", 2);
  gpu.power_mw = {2000, 1000, 400};
  spec.devices = {cpu, gpu, device("backlight", 10)};

  ControllerSpec sw = controller("sw", CK::step_wise, "skin_zone", {"cpu"});
  sw.threshold = mc(43000);
  sw.hysteresis = mc(2000);
  ControllerSpec tab = controller("tab", CK::table, "skin", {"backlight"});
  tab.table = {{mc(40000), mc(39000), 2}, {mc(45000), mc(44000), 5}};
  ControllerSpec pid = controller("pid", CK::pid, "skin_est", {"gpu"});
  pid.setpoint = mc(45000);
  pid.kp = 0.2;
  ControllerSpec pa = controller("pa", CK::power_budget, "skin_pred", {"cpu", "gpu"});
  pa.setpoint = mc(45000);
  pa.switch_on = mc(40000);
  pa.sustainable_power_mw = 2500;
  pa.kp_over_mw = 300;
  pa.kp_under_mw = 100;
  ControllerSpec bb = controller("bb", CK::bang_bang, "hottest", {"backlight"});
  bb.threshold = mc(60000);
  bb.on_level = 8;
  spec.controllers = {sw, tab, pid, pa, bb};

  ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = mc(-2000);
  quiet.controllers = {{"sw", mc(41000), std::nullopt, std::nullopt}};
  quiet.devices = {{"cpu", 1, std::nullopt}};
  ProfileSpec perf;
  perf.name = "performance";
  spec.profiles = {quiet, perf};
  spec.default_profile = "performance";
  return spec;
}

TEST(Validate, TheReferenceSpecCompiles) {
  const CompileResult r = Engine::compile(valid_spec());
  EXPECT_TRUE(r.errors.empty()) << describe(r.errors);
  EXPECT_NE(r.engine, nullptr);
}

TEST(Validate, AnEmptySpecCompiles) {
  const CompileResult r = Engine::compile(PolicySpec{});
  EXPECT_TRUE(r.errors.empty()) << describe(r.errors);
}

struct Rule {
  const char* name;
  std::function<void(PolicySpec&)> breaks;
  std::string path;
  std::string key;
};

void PrintTo(const Rule& r, std::ostream* os) {
  *os << r.name;
}

class Rules : public ::testing::TestWithParam<Rule> {};

TEST_P(Rules, ProducesAnErrorWithPathAndKey) {
  PolicySpec spec = valid_spec();
  GetParam().breaks(spec);
  const CompileResult r = Engine::compile(spec);
  EXPECT_EQ(r.engine, nullptr);
  const bool found = std::any_of(r.errors.begin(), r.errors.end(), [&](const SpecError& e) {
    return e.path == GetParam().path && e.key == GetParam().key && !e.message.empty();
  });
  EXPECT_TRUE(found) << "wanted " << GetParam().path << " / " << GetParam().key << ", got:\n"
                     << describe(r.errors);
}

std::string rule_name(const ::testing::TestParamInfo<Rule>& info) {
  return info.param.name;
}

// clang-format off
const Rule kRules[] = {
  // Names.
  {"SensorNameEmpty", [](PolicySpec& s) { s.sensors[1].name = ""; }, "sensors[1]", "name"},
  {"SensorNameDuplicate", [](PolicySpec& s) { s.sensors[3].name = "skin"; }, "sensors[3]", "name"},
  {"ZoneNameDuplicate", [](PolicySpec& s) { s.zones.push_back(s.zones[0]); }, "zones[1]", "name"},
  {"ZoneNameIsASensor", [](PolicySpec& s) { s.zones[0].name = "soc"; }, "zones[0]", "name"},
  {"DeviceNameDuplicate", [](PolicySpec& s) { s.devices[2].name = "gpu"; }, "devices[2]", "name"},
  {"ControllerNameDuplicate", [](PolicySpec& s) { s.controllers[4].name = "sw"; }, "controllers[4]", "name"},
  {"ProfileNameDuplicate", [](PolicySpec& s) { s.profiles[1].name = "quiet"; }, "profiles[1]", "name"},
  {"TripNameDuplicate", [](PolicySpec& s) { s.zones[0].trips[1].name = "passive"; }, "zones[0].trips[1]", "name"},
  {"TripNameEmpty", [](PolicySpec& s) { s.zones[0].trips[0].name = ""; }, "zones[0].trips[0]", "name"},
  // Sensors.
  {"PhysicalWithInputs", [](PolicySpec& s) { s.sensors[0].inputs = {"batt"}; }, "sensors[0]", "inputs"},
  {"PhysicalWithWeights", [](PolicySpec& s) { s.sensors[0].weights = {1.0}; }, "sensors[0]", "weights"},
  {"NegativeStaleAfter", [](PolicySpec& s) { s.sensors[0].stale_after = Millis(-1); }, "sensors[0]", "stale_after"},
  {"VirtualWithoutInputs", [](PolicySpec& s) { s.sensors[3].inputs.clear(); }, "sensors[3]", "inputs"},
  {"UnknownInput", [](PolicySpec& s) { s.sensors[3].inputs[1] = "nope"; }, "sensors[3]", "inputs"},
  {"WeightCountMismatch", [](PolicySpec& s) { s.sensors[2].weights.pop_back(); }, "sensors[2]", "weights"},
  {"WeightNotFinite", [](PolicySpec& s) { s.sensors[2].weights[0] = std::numeric_limits<double>::quiet_NaN(); }, "sensors[2]", "weights"},
  {"MaxWithWeights", [](PolicySpec& s) { s.sensors[3].weights = {1, 1}; }, "sensors[3]", "weights"},
  {"EmaTwoInputs", [](PolicySpec& s) { s.sensors[4].inputs.push_back("batt"); }, "sensors[4]", "inputs"},
  {"EmaTimeConstantZero", [](PolicySpec& s) { s.sensors[4].time_constant = Millis(0); }, "sensors[4]", "time_constant"},
  {"FirTapsZero", [](PolicySpec& s) { s.sensors[5].taps = 0; }, "sensors[5]", "taps"},
  {"FirTooManyTaps", [](PolicySpec& s) {
     s.sensors[5].taps = 1025;
     s.sensors[5].weights.assign(2 * 1025, 0.001);
   }, "sensors[5]", "taps"},
  {"FirTapPeriodZero", [](PolicySpec& s) { s.sensors[5].tap_period = Millis(0); }, "sensors[5]", "tap_period"},
  {"FirWeightsNotInputsTimesTaps", [](PolicySpec& s) { s.sensors[5].weights.push_back(0.1); }, "sensors[5]", "weights"},
  {"PredictorHorizonZero", [](PolicySpec& s) { s.sensors[6].horizon = Millis(0); }, "sensors[6]", "horizon"},
  {"PredictorWindowNegative", [](PolicySpec& s) { s.sensors[6].window = Millis(-5); }, "sensors[6]", "window"},
  {"SelfCycle", [](PolicySpec& s) { s.sensors[3].inputs.push_back("hottest"); }, "sensors[3]", "inputs"},
  {"TwoSensorCycle", [](PolicySpec& s) {
     s.sensors[2].inputs[1] = "hottest";
     s.sensors[3].inputs[1] = "skin";
   }, "sensors[2]", "inputs"},
  // Zones.
  {"ZoneUnknownSensor", [](PolicySpec& s) { s.zones[0].sensor = "nope"; }, "zones[0]", "sensor"},
  {"TripNegativeHysteresis", [](PolicySpec& s) { s.zones[0].trips[0].hysteresis = mc(-1); }, "zones[0].trips[0]", "hysteresis"},
  {"TripDebounceZero", [](PolicySpec& s) { s.zones[0].trips[1].debounce_samples = 0; }, "zones[0].trips[1]", "debounce_samples"},
  {"ForceDeepestUnknownDevice", [](PolicySpec& s) { s.zones[0].trips[1].devices = {"cpu", "fan"}; }, "zones[0].trips[1]", "devices"},
  {"ForceDeepestNoDevices", [](PolicySpec& s) { s.zones[0].trips[1].devices.clear(); }, "zones[0].trips[1]", "devices"},
  {"DevicesWithoutForceDeepest", [](PolicySpec& s) { s.zones[0].trips[0].devices = {"cpu"}; }, "zones[0].trips[0]", "devices"},
  {"TooManyTrips", [](PolicySpec& s) {
     for (int i = 0; i < 31; ++i) {
       s.zones[0].trips.push_back(s.zones[0].trips[0]);
       s.zones[0].trips.back().name = "t" + std::to_string(i);
     }
   }, "zones[0]", "trips"},
  {"SeverityLevelNone", [](PolicySpec& s) { s.zones[0].severities[0].level = Severity::none; }, "zones[0].severities[0]", "level"},
  {"SeverityLevelNotIncreasing", [](PolicySpec& s) { s.zones[0].severities[1].level = Severity::light; }, "zones[0].severities[1]", "level"},
  {"SeverityThresholdNotIncreasing", [](PolicySpec& s) { s.zones[0].severities[1].threshold = mc(40000); }, "zones[0].severities[1]", "threshold"},
  {"SeverityNegativeHysteresis", [](PolicySpec& s) { s.zones[0].severities[1].hysteresis = mc(-1); }, "zones[0].severities[1]", "hysteresis"},
  // Devices.
  {"MaxLevelZero", [](PolicySpec& s) { s.devices[2].max_level = 0; }, "devices[2]", "max_level"},
  {"MaxLevelHuge", [](PolicySpec& s) { s.devices[2].max_level = 70000; }, "devices[2]", "max_level"},
  {"PowerTableSize", [](PolicySpec& s) { s.devices[0].power_mw.pop_back(); }, "devices[0]", "power_mw"},
  {"PowerTableIncreasing", [](PolicySpec& s) { s.devices[0].power_mw[2] = 2500; }, "devices[0]", "power_mw"},
  {"PerformanceSize", [](PolicySpec& s) { s.devices[0].performance.push_back(0.1); }, "devices[0]", "performance"},
  {"PerformanceOutOfRange", [](PolicySpec& s) { s.devices[0].performance[0] = 1.5; }, "devices[0]", "performance"},
  {"PerformanceIncreasing", [](PolicySpec& s) { s.devices[0].performance[3] = 0.5; }, "devices[0]", "performance"},
  {"MinLevelAboveMax", [](PolicySpec& s) { s.devices[2].min_level = 11; }, "devices[2]", "min_level"},
  {"LimitLevelAboveMax", [](PolicySpec& s) { s.devices[2].limit_level = 11; }, "devices[2]", "limit_level"},
  {"MinLevelAboveLimit", [](PolicySpec& s) {
     s.devices[2].min_level = 5;
     s.devices[2].limit_level = 4;
   }, "devices[2]", "min_level"},
  {"NegativeDwell", [](PolicySpec& s) { s.devices[1].min_dwell = Millis(-1); }, "devices[1]", "min_dwell"},
  {"NegativeReleaseDwell", [](PolicySpec& s) { s.devices[1].release_dwell = Millis(-1); }, "devices[1]", "release_dwell"},
  // Controllers.
  {"UnknownInputName", [](PolicySpec& s) { s.controllers[0].input = "nope"; }, "controllers[0]", "input"},
  {"NoDevices", [](PolicySpec& s) { s.controllers[1].devices.clear(); }, "controllers[1]", "devices"},
  {"UnknownDevice", [](PolicySpec& s) { s.controllers[3].devices[1].device = "fan"; }, "controllers[3].devices[1]", "device"},
  {"DeviceBoundTwice", [](PolicySpec& s) { s.controllers[3].devices[1].device = "cpu"; }, "controllers[3].devices[1]", "device"},
  {"WeightZero", [](PolicySpec& s) { s.controllers[3].devices[0].weight = 0.0; }, "controllers[3].devices[0]", "weight"},
  {"SafeLevelAboveMax", [](PolicySpec& s) { s.controllers[2].safe_level = 3; }, "controllers[2]", "safe_level"},
  {"StepWiseNegativeHysteresis", [](PolicySpec& s) { s.controllers[0].hysteresis = mc(-1); }, "controllers[0]", "hysteresis"},
  {"StepWisePeriodZero", [](PolicySpec& s) { s.controllers[0].period = Millis(0); }, "controllers[0]", "period"},
  {"PidPeriodNegative", [](PolicySpec& s) { s.controllers[2].period = Millis(-1); }, "controllers[2]", "period"},
  {"BangBangOnLevelAboveMax", [](PolicySpec& s) { s.controllers[4].on_level = 11; }, "controllers[4]", "on_level"},
  {"BangBangOnLevelZero", [](PolicySpec& s) { s.controllers[4].on_level = 0; }, "controllers[4]", "on_level"},
  {"BangBangNegativeHysteresis", [](PolicySpec& s) { s.controllers[4].hysteresis = mc(-5); }, "controllers[4]", "hysteresis"},
  {"TableEmpty", [](PolicySpec& s) { s.controllers[1].table.clear(); }, "controllers[1]", "table"},
  {"TableDownAboveUp", [](PolicySpec& s) { s.controllers[1].table[0].down = mc(40001); }, "controllers[1].table[0]", "down"},
  {"TableUpNotIncreasing", [](PolicySpec& s) { s.controllers[1].table[1].up = mc(40000); }, "controllers[1].table[1]", "up"},
  {"TableLevelNotIncreasing", [](PolicySpec& s) { s.controllers[1].table[1].level = 2; }, "controllers[1].table[1]", "level"},
  {"TableLevelAboveMax", [](PolicySpec& s) { s.controllers[1].table[1].level = 11; }, "controllers[1].table[1]", "level"},
  {"PidNegativeGain", [](PolicySpec& s) { s.controllers[2].ki = -0.1; }, "controllers[2]", "ki"},
  {"PidAllGainsZero", [](PolicySpec& s) { s.controllers[2].kp = 0; }, "controllers[2]", "kp"},
  {"PidNegativeEngageBelow", [](PolicySpec& s) { s.controllers[2].engage_below = mc(-1); }, "controllers[2]", "engage_below"},
  {"PowerBudgetDeviceWithoutPowerTable", [](PolicySpec& s) {
     s.controllers[3].devices[1].device = "backlight";
   }, "controllers[3].devices[1]", "device"},
  {"PowerBudgetGainNotFinite", [](PolicySpec& s) { s.controllers[3].kd_mw = std::numeric_limits<double>::infinity(); }, "controllers[3]", "kd_mw"},
  // Profiles.
  {"OverrideUnknownController", [](PolicySpec& s) { s.profiles[0].controllers[0].controller = "nope"; }, "profiles[0].controllers[0]", "controller"},
  {"OverrideThresholdOnPid", [](PolicySpec& s) { s.profiles[0].controllers[0].controller = "pid"; }, "profiles[0].controllers[0]", "threshold"},
  {"OverrideSetpointOnTable", [](PolicySpec& s) {
     s.profiles[0].controllers.push_back({"tab", std::nullopt, mc(1), std::nullopt});
   }, "profiles[0].controllers[1]", "setpoint"},
  {"OverrideControllerTwice", [](PolicySpec& s) {
     s.profiles[0].controllers.push_back(s.profiles[0].controllers[0]);
   }, "profiles[0].controllers[1]", "controller"},
  {"OverrideUnknownDevice", [](PolicySpec& s) { s.profiles[0].devices[0].device = "fan"; }, "profiles[0].devices[0]", "device"},
  {"OverrideMinAboveMax", [](PolicySpec& s) { s.profiles[0].devices[0].min_level = 4; }, "profiles[0].devices[0]", "min_level"},
  {"OverrideLimitAboveMax", [](PolicySpec& s) { s.profiles[0].devices[0].limit_level = 4; }, "profiles[0].devices[0]", "limit_level"},
  {"OverrideMinAboveLimit", [](PolicySpec& s) { s.profiles[0].devices[0].limit_level = 0; }, "profiles[0].devices[0]", "limit_level"},
  {"DefaultProfileUnknown", [](PolicySpec& s) { s.default_profile = "turbo"; }, "", "default_profile"},
  // Magnitudes that would overflow the engine's arithmetic.
  {"TripThresholdHuge", [](PolicySpec& s) { s.zones[0].trips[0].threshold = MilliC::max(); }, "zones[0].trips[0]", "threshold"},
  {"SensorOffsetHuge", [](PolicySpec& s) { s.sensors[0].offset = MilliC::min(); }, "sensors[0]", "offset"},
  {"TableRowHuge", [](PolicySpec& s) { s.controllers[1].table[1].up = mc(200'000'000); }, "controllers[1].table[1]", "up"},
  {"LimitOffsetHuge", [](PolicySpec& s) { s.profiles[0].limit_offset = mc(-150'000'000); }, "profiles[0]", "limit_offset"},
  {"PeriodHuge", [](PolicySpec& s) { s.controllers[2].period = Millis(std::numeric_limits<std::int64_t>::max()); }, "controllers[2]", "period"},
  {"ReleaseDwellHuge", [](PolicySpec& s) { s.devices[0].release_dwell = Millis(std::numeric_limits<std::int64_t>::max()); }, "devices[0]", "release_dwell"},
  {"StaleAfterHuge", [](PolicySpec& s) { s.sensors[1].stale_after = Millis(std::numeric_limits<std::int64_t>::max()); }, "sensors[1]", "stale_after"},
  {"WeightHuge", [](PolicySpec& s) { s.sensors[2].weights[1] = 1e300; }, "sensors[2]", "weights"},
  {"GainHuge", [](PolicySpec& s) { s.controllers[3].kp_over_mw = 1e12; }, "controllers[3]", "kp_over_mw"},
  // Sampling.
  {"FineZero", [](PolicySpec& s) { s.sampling.fine_granularity = mc(0); }, "sampling", "fine_granularity"},
  {"CoarseBelowFine", [](PolicySpec& s) { s.sampling.coarse_granularity = mc(100); }, "sampling", "coarse_granularity"},
  {"NearNegative", [](PolicySpec& s) { s.sampling.near_distance = mc(-1); }, "sampling", "near_distance"},
  {"MinIntervalZero", [](PolicySpec& s) { s.sampling.min_interval = Millis(0); }, "sampling", "min_interval"},
  {"MaxBelowMin", [](PolicySpec& s) { s.sampling.max_interval = Millis(100); }, "sampling", "max_interval"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(EachRule, Rules, ::testing::ValuesIn(kRules), rule_name);

TEST(Validate, ExtremeReadingsAreHandled) {
  CompileResult r = Engine::compile(valid_spec());
  ASSERT_NE(r.engine, nullptr);
  Engine& e = *r.engine;
  const std::int32_t extremes[] = {std::numeric_limits<std::int32_t>::max(),
                                   std::numeric_limits<std::int32_t>::min(), 0, -273150};
  std::int64_t t = 0;
  for (std::int32_t a : extremes) {
    for (std::int32_t b : extremes) {
      e.set_sensor(*e.sensor_id("soc"), MilliC(a), Time(t));
      e.set_sensor(*e.sensor_id("batt"), MilliC(b), Time(t));
      const Decision& d = e.step(Time(t));
      for (const Window& w : d.windows) EXPECT_LE(w.low, w.high);
      t += 700;
    }
  }
  // Clamped to a million degrees, not wrapped around.
  e.set_sensor(*e.sensor_id("soc"), MilliC::max(), Time(t));
  e.step(Time(t));
  EXPECT_EQ(e.sensor_value(*e.sensor_id("soc")), MilliC(1'000'000'000));
}

TEST(Validate, CollectsEveryError) {
  PolicySpec spec = valid_spec();
  spec.sensors[3].inputs[1] = "nope";
  spec.devices[0].power_mw[2] = 2500;
  spec.controllers[1].table[0].down = mc(40001);
  spec.sampling.min_interval = Millis(0);
  const CompileResult r = Engine::compile(spec);
  EXPECT_EQ(r.errors.size(), 4U) << describe(r.errors);
}

TEST(Validate, MessagesNameTheCulprit) {
  PolicySpec spec = valid_spec();
  spec.sensors[3].inputs[1] = "nope";
  spec.sensors[2].inputs[1] = "hottest";
  spec.sensors[3].inputs[0] = "skin";
  const CompileResult r = Engine::compile(spec);
  ASSERT_FALSE(r.errors.empty());
  std::string all = describe(r.errors);
  EXPECT_THAT(all, ::testing::HasSubstr("inputs[1]: unknown sensor \"nope\""));
  EXPECT_THAT(all, ::testing::HasSubstr("cycle: "));
  EXPECT_THAT(all, ::testing::HasSubstr("skin"));
  EXPECT_THAT(all, ::testing::HasSubstr("hottest"));
}

TEST(Validate, LookupsByName) {
  CompileResult r = Engine::compile(valid_spec());
  ASSERT_NE(r.engine, nullptr);
  const Engine& e = *r.engine;
  EXPECT_EQ(e.sensor_id("skin"), SensorId{2});
  EXPECT_EQ(e.zone_id("skin_zone"), ZoneId{0});
  EXPECT_EQ(e.device_id("backlight"), DeviceId{2});
  EXPECT_EQ(e.controller_id("bb"), ControllerId{4});
  EXPECT_FALSE(e.sensor_id("nope").has_value());
  EXPECT_FALSE(e.zone_id("skin").has_value());
  EXPECT_FALSE(e.device_id("").has_value());
  EXPECT_FALSE(e.controller_id("x").has_value());
  EXPECT_EQ(e.profile(), "performance");
  EXPECT_EQ(e.spec().controllers.size(), 5U);
}

}  // namespace
}  // namespace coolhand::policy::testing::validate_test
