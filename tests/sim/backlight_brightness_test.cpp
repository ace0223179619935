// The simulated backlight brightness (DeviceModelSpec::brightness): a policy
// sensor with source {kind: backlight} reads the model device's demand x
// its level's share of full power, in thousandths, through the shared loop;
// a recording carries its readings, fit --recording sees them as a column,
// and add_brightness computes the same series from levels and demand, which
// fit_skin then takes as an estimator input.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/file.h"
#include "coolhand/sim/fit.h"
#include "coolhand/sim/fit_recording.h"
#include "coolhand/sim/policy_loop.h"

namespace coolhand::sim::backlight_brightness_test {
namespace {

// A board heated by the CPU, and a front glass heated by the backlight
// (2 W at full, 1 W at level 1) that no sensor reads.
ModelSpec model() {
  ModelSpec m;
  m.name = "glass";
  m.ambient_c = 25.0;
  m.nodes = {NodeSpec{"board", 30.0, 0.3, {}}, NodeSpec{"glass", 40.0, 0.4, {}}};
  m.links = {LinkSpec{"board", "glass", 0.5}};
  DeviceModelSpec cpu;
  cpu.name = "cpu";
  cpu.power_w = {3.0};
  cpu.performance = {1.0};
  cpu.heat = {HeatShare{"board", 1.0}};
  DeviceModelSpec bl;
  bl.name = "backlight";
  bl.idle_w = 0.1;
  bl.power_w = {2.0, 1.0};
  bl.performance = {1.0, 0.7};
  bl.heat = {HeatShare{"glass", 1.0}};
  m.devices = {cpu, bl};
  SensorModelSpec t;
  t.name = "board_therm";
  t.node = "board";
  m.sensors = {t};
  m.skin_nodes = {"glass"};
  return m;
}

constexpr const char* kPolicy = R"(
version: 1
sensors:
  board_therm: {}
  screen:
    source: {kind: backlight, name: backlight}
  front:
    kind: fir
    inputs: [board_therm, screen]
    weights: [[1.0], [3.0]]
    tap_period: 1s
devices:
  backlight: {max_level: 1}
controllers:
  dim:
    kind: table
    input: front
    devices: [backlight]
    table:
      - {up_c: 33, down_c: 32, level: 1}
)";

DeviceModelSpec dev(double p0, double p1) {
  DeviceModelSpec d;
  d.power_w = {p0, p1};
  return d;
}

TEST(Brightness, IsDemandTimesTheLevelsShareOfFullPower) {
  EXPECT_DOUBLE_EQ(dev(2.0, 1.0).brightness(0, 0.8), 0.8);
  EXPECT_DOUBLE_EQ(dev(2.0, 1.0).brightness(1, 0.8), 0.4);
  EXPECT_DOUBLE_EQ(dev(2.0, 1.0).brightness(7, 1.0), 0.5);  // clamped to max level
  EXPECT_DOUBLE_EQ(dev(0.0, 0.0).brightness(0, 1.0), 0.0);
}

struct LoopRun {
  std::vector<double> time_s, brightness, screen_reading, level;
  recorder::Recording recording;
};

// 200 s: full demand, then 0.5 from t = 100 s; the loop records into a ring.
LoopRun run(const config::PolicyDocument& doc) {
  ThermalModel m(model());
  recorder::Ring ring(1 << 16);
  auto made =
      PolicyLoop::create(doc, m.spec(), {}, LoopRecording{&ring, recorder::policy_hash(kPolicy)});
  EXPECT_TRUE(std::holds_alternative<std::unique_ptr<PolicyLoop>>(made))
      << std::get<std::string>(made);
  auto& loop = *std::get<std::unique_ptr<PolicyLoop>>(made);
  const auto& engine = loop.loop().engine();
  const auto screen = *engine.sensor_id("screen");
  std::vector<std::uint32_t> levels(2, 0);
  std::vector<double> demand = {1.0, 1.0};
  std::vector<double> bright(2, 0.0);
  LoopRun out;
  for (int k = 0; k < 2000; ++k) {
    demand[1] = k < 1000 ? 1.0 : 0.5;
    m.set_inputs(levels, demand);
    m.step();
    for (std::size_t d = 0; d < 2; ++d)
      bright[d] = m.spec().devices[d].brightness(m.level(d), m.demand(d));
    loop.advance(m.now(), m.sensor_outputs(), levels, bright);
    out.time_s.push_back(static_cast<double>(m.now().count()) / 1000.0);
    out.brightness.push_back(bright[1]);
    const auto v = engine.sensor_value(screen);
    out.screen_reading.push_back(v ? v->mc() / 1000.0 : NAN);
    out.level.push_back(levels[1]);
  }
  ring.put(recorder::Kind::dump, 0);
  recorder::Metadata meta;
  meta.policy_text = kPolicy;
  recorder::set_names(meta, doc.spec);
  recorder::StringSink sink;
  EXPECT_TRUE(recorder::write_recording(ring, meta, sink));
  auto read = recorder::read_recording(sink.out);
  EXPECT_FALSE(read.error) << read.error->to_string();
  out.recording = std::move(*read.recording);
  return out;
}

config::PolicyDocument policy() {
  auto r = config::parse_policy(kPolicy, "p.yaml");
  EXPECT_TRUE(r.document) << (r.errors.empty() ? "" : r.errors.front().to_string());
  return std::move(*r.document);
}

TEST(Brightness, TheLoopReadsTheDevicesBrightnessAndTheEstimateActsOnIt) {
  const LoopRun r = run(policy());
  // The loop polls the brightness (at 1 s or less near the table's rows):
  // its value trails the model's by at most the poll interval.
  bool dimmed = false;
  for (std::size_t k = 100; k < r.time_s.size(); ++k) {
    dimmed = dimmed || r.level[k] == 1;
    bool seen = false;
    for (std::size_t j = k >= 200 ? k - 200 : 0; j <= k; ++j)
      seen = seen || std::abs(r.screen_reading[k] - r.brightness[j]) <= 0.0005;
    ASSERT_TRUE(seen) << "t = " << r.time_s[k] << " s: read " << r.screen_reading[k]
                      << ", the model shows " << r.brightness[k];
  }
  EXPECT_TRUE(dimmed);  // 3 °C at full brightness on the board's ~32 °C
  EXPECT_DOUBLE_EQ(r.brightness.back(), r.level.back() == 1 ? 0.25 : 0.5);
}

TEST(Brightness, ABacklightTheModelLacksIsAnError) {
  std::string text = kPolicy;
  const std::string from = "name: backlight}";
  text.replace(text.find(from), from.size(), "name: display}");
  auto r = config::parse_policy(text, "p.yaml");
  ASSERT_TRUE(r.document);
  auto made = PolicyLoop::create(*r.document, model());
  ASSERT_TRUE(std::holds_alternative<std::string>(made));
  EXPECT_EQ(std::get<std::string>(made),
            "policy brightness sensor 'screen' reads backlight 'display', but the model has no "
            "device of that name 'glass'");
}

TEST(Brightness, TheRecordingCarriesItAndTheFitComputesTheSameSeries) {
  const LoopRun r = run(policy());
  ModelSpec skel = model();  // the policy's devices only: the recording has no cpu
  skel.devices.erase(skel.devices.begin());
  RecordingFitOptions opt;
  opt.ambient_c = 25.0;
  CsvTable wl;
  wl.columns = {"time_s", "backlight"};
  wl.times_s = {0.0, 100.0, 100.1};
  wl.rows = {{1.0}, {1.0}, {0.5}};
  wl.lines = {2, 3, 4};
  opt.demand = wl;
  std::vector<config::ConfigError> warnings;
  auto bound = bind_fit_recording(r.recording, "r.chrec", skel, opt, warnings);
  ASSERT_TRUE(std::holds_alternative<FitSegment>(bound))
      << std::get<config::ConfigError>(bound).to_string();
  std::vector<FitSegment> data{std::get<FitSegment>(std::move(bound))};
  const FitSegment recorded = data.front();
  std::size_t col = 0;
  while (col < recorded.extra_names.size() && recorded.extra_names[col] != "screen") ++col;
  ASSERT_LT(col, recorded.extra_names.size()) << "the recording lacks the brightness";

  ASSERT_FALSE(add_brightness(data, skel, {{"screen", "backlight"}}));
  const auto& computed = data.front().extra_c[col];
  ASSERT_EQ(data.front().extra_names[col], "screen");  // replaced, not added twice
  std::size_t compared = 0;
  for (std::size_t k = 0; k < computed.size(); ++k) {
    const double seen = recorded.extra_c[col][k];
    if (std::isnan(seen) || k == 0 || k + 1 == computed.size()) continue;
    // A reading is the brightness at its instant, the computed value the
    // interval's mean: equal where nothing changed in the interval.
    if (computed[k - 1] != computed[k] || computed[k + 1] != computed[k]) continue;
    EXPECT_NEAR(seen, computed[k], 0.0005) << "t = " << recorded.time_s[k];
    ++compared;
  }
  EXPECT_GT(compared, 50U);

  const auto missing = add_brightness(data, skel, {{"screen", "display"}});
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->to_string().find("no device 'display'"), std::string::npos);
}

// The glass from the board thermistor alone, and with the brightness: only
// the second sees the demand step that heats the glass.
TEST(Brightness, FitSkinTakesItAsAnInput) {
  ThermalModel m(model());
  FitSegment seg;
  seg.name = "trace";
  seg.step_s = 1.0;
  std::vector<double> board, glass;
  std::vector<std::vector<double>> load0(2), load1(2);
  std::vector<std::uint32_t> levels(2, 0);
  std::vector<double> demand = {1.0, 1.0};
  for (int k = 0; k < 3600; ++k) {
    demand[1] = (k / 300) % 3 == 0 ? 0.2 : (k / 300) % 3 == 1 ? 1.0 : 0.6;
    demand[0] = (k / 450) % 2 == 0 ? 1.0 : 0.3;
    m.set_inputs(levels, demand);
    for (int s = 0; s < 10; ++s) m.step();
    seg.time_s.push_back(k);
    board.push_back(m.node_c(0));
    glass.push_back(m.node_c(1));
    for (std::size_t d = 0; d < 2; ++d) {
      load0[d].push_back(demand[d]);
      load1[d].push_back(0.0);
    }
  }
  seg.reading_c = {board};
  seg.load = {{load0[0]}, {load0[1], load1[1]}};
  seg.extra_names = {"glass_c"};
  seg.extra_c = {glass};
  std::vector<FitSegment> data{seg};
  ASSERT_FALSE(add_brightness(data, model(), {{"screen", "backlight"}}));
  SkinFitOptions opt;
  opt.taps = 8;
  opt.tap_period_s = 8;
  opt.ridge = 1e-3;
  opt.inputs = {"board_therm"};
  auto alone = fit_skin(data, {"glass_c"}, {"board_therm"}, opt);
  opt.inputs = {"board_therm", "screen"};
  auto with = fit_skin(data, {"glass_c"}, {"board_therm"}, opt);
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(alone)));
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(with)));
  const auto& a = std::get<std::vector<SkinEstimator>>(alone).front();
  const auto& w = std::get<std::vector<SkinEstimator>>(with).front();
  EXPECT_EQ(w.inputs, (std::vector<std::string>{"board_therm", "screen"}));
  EXPECT_GT(a.held_out.rms_c, 0.3);
  EXPECT_LT(w.held_out.rms_c, a.held_out.rms_c / 3) << a.held_out.rms_c;

  opt.inputs = {"board_therm", "brightness"};
  auto unknown = fit_skin(data, {"glass_c"}, {"board_therm"}, opt);
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(unknown));
  EXPECT_NE(std::get<config::ConfigError>(unknown).to_string().find(
                "'brightness' is neither a sensor of the skeleton nor a brightness"),
            std::string::npos);
}

// A brightness's taps are held >= 0 when the fit is told so (`fit` tells it
// for each --brightness): against a reference the screen would cool, the
// free fit's taps on it go negative and the held ones stay at 0, while the
// other input's taps stay free.
TEST(Brightness, NonNegativeTapsStayAtOrAboveZero) {
  FitSegment seg;
  seg.name = "trace";
  seg.step_s = 1.0;
  std::vector<double> board;
  std::vector<std::vector<double>> load0(2), load1(2);
  for (int k = 0; k < 3600; ++k) {
    const double screen = (k / 300) % 3 == 0 ? 0.2 : (k / 300) % 3 == 1 ? 1.0 : 0.6;
    seg.time_s.push_back(k);
    board.push_back(35.0 + 3.0 * std::sin(k / 200.0));
    load0[0].push_back(1.0);
    load1[0].push_back(0.0);
    load0[1].push_back(screen);
    load1[1].push_back(0.0);
  }
  seg.reading_c = {board};
  seg.load = {{load0[0]}, {load0[1], load1[1]}};
  std::vector<FitSegment> data{seg};
  ASSERT_FALSE(add_brightness(data, model(), {{"screen", "backlight"}}));
  // The reference: the board, less 0.5 °C per full brightness.
  std::vector<double> ref(board.size());
  for (std::size_t k = 0; k < ref.size(); ++k) ref[k] = board[k] - 0.5 * data[0].extra_c[0][k];
  data[0].extra_names.push_back("ref_c");
  data[0].extra_c.push_back(ref);
  SkinFitOptions opt;
  opt.taps = 4;
  opt.tap_period_s = 8;
  opt.ridge = 1e-3;
  opt.inputs = {"board_therm", "screen"};
  const auto free_fit = fit_skin(data, {"ref_c"}, {"board_therm"}, opt);
  opt.non_negative = {"screen"};
  const auto held_fit = fit_skin(data, {"ref_c"}, {"board_therm"}, opt);
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(free_fit)));
  ASSERT_TRUE((std::holds_alternative<std::vector<SkinEstimator>>(held_fit)));
  const auto& f = std::get<std::vector<SkinEstimator>>(free_fit).front();
  const auto& h = std::get<std::vector<SkinEstimator>>(held_fit).front();
  double free_sum = 0;
  for (const double w : f.weights[1]) free_sum += w;
  EXPECT_NEAR(free_sum, -0.5, 0.05);
  for (const double w : h.weights[1]) EXPECT_GE(w, 0.0);
  double board_sum = 0;
  for (const double w : h.weights[0]) board_sum += w;
  EXPECT_NEAR(board_sum, 1.0, 0.05);  // the board's taps still fitted
  EXPECT_GT(h.train.rms_c, f.train.rms_c);
}

}  // namespace
}  // namespace coolhand::sim::backlight_brightness_test
