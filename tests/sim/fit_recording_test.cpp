// bind_fit_recording (fit_recording.h) on a small hand-made recording:
// readings from reads and pushes held on the grid until the next, broken
// by a failed read, the sensor gone and the loop's end; virtual sensors
// left out; levels from knob writes as time fractions; and the exact
// errors for what cannot be mapped.
#include "coolhand/sim/fit_recording.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "coolhand/recorder/record.h"

namespace coolhand::sim::fit_recording_test {
namespace {

using recorder::Kind;

constexpr std::uint64_t kHash = 0x1234;
constexpr std::uint64_t kSecond = 1'000'000'000;

recorder::Record rec(std::uint64_t t_ns, Kind kind, std::uint16_t index, std::uint32_t a = 0,
                     std::int64_t b = 0, std::int32_t c = 0, std::int32_t d = 0) {
  recorder::Record r{};
  r.t_ns = t_ns;
  r.kind = static_cast<std::uint16_t>(kind);
  r.index = index;
  r.a = a;
  r.b = b;
  r.c = c;
  r.d = d;
  return r;
}

// Sensors s_a (physical), virt (a virtual one), s_b (physical); device cpu.
recorder::Recording recording() {
  recorder::Recording r;
  r.policy_hash = kHash;
  r.meta.sensors = {"s_a", "virt", "s_b"};
  r.meta.sensor_kinds = {0, 1, 0};
  r.meta.devices = {"cpu"};
  r.records = {
      rec(0, Kind::loop_created, 2, 1, static_cast<std::int64_t>(kHash)),
      rec(0, Kind::slot_map, 0, 0),
      rec(0, Kind::slot_map, 1, 2),
      rec(0, Kind::port_read, 0, 2, 0, 30000),
      rec(0, Kind::port_read, 1, 2, 0, 31000),
      rec(kSecond * 3 / 2, Kind::knob_write, 0, 1, 0, 1, 1),
      rec(kSecond * 22 / 10, Kind::call_push, 0, 0, 2200, 32000),
      rec(4 * kSecond, Kind::port_read, 1, 0, 0, recorder::kNoValue),  // a failed read
      rec(kSecond * 9 / 2, Kind::call_sensor_gone, 0, 0, 4500),
      rec(5 * kSecond, Kind::port_read, 1, 2, 0, 33000),
  };
  return r;
}

ModelSpec skeleton() {
  ModelSpec m;
  m.name = "t";
  m.nodes = {NodeSpec{"a", 2.0, 0.0, {}}, NodeSpec{"b", 20.0, 0.5, {}}};
  DeviceModelSpec cpu;
  cpu.name = "cpu";
  cpu.power_w = {2.0, 1.0};
  cpu.performance = {1.0, 0.5};
  cpu.heat = {HeatShare{"a", 1.0}};
  m.devices = {cpu};
  SensorModelSpec a;
  a.name = "s_a";
  a.node = "a";
  SensorModelSpec b;
  b.name = "s_b";
  b.node = "b";
  m.sensors = {a, b};
  return m;
}

std::string error_of(const ModelSpec& m, RecordingFitOptions opt,
                     const recorder::Recording& r = recording()) {
  std::vector<config::ConfigError> warnings;
  auto got = bind_fit_recording(r, "r.chrec", m, std::move(opt), warnings);
  const auto* e = std::get_if<config::ConfigError>(&got);
  return e ? e->to_string() : "no error";
}

// The recording bound to skeleton() at a 25 °C ambient; the error as text
// when it does not bind.
std::variant<FitSegment, std::string> bind_at_25(const recorder::Recording& r) {
  RecordingFitOptions opt;
  opt.ambient_c = 25.0;
  std::vector<config::ConfigError> warnings;
  auto got = bind_fit_recording(r, "r.chrec", skeleton(), opt, warnings);
  if (auto* e = std::get_if<config::ConfigError>(&got)) return e->to_string();
  return std::get<FitSegment>(std::move(got));
}

TEST(FitRecording, ReadingsHeldLevelsAsFractions) {
  RecordingFitOptions opt;
  opt.ambient_c = 25.0;
  std::vector<config::ConfigError> warnings;
  auto got = bind_fit_recording(recording(), "r.chrec", skeleton(), opt, warnings);
  ASSERT_TRUE(std::holds_alternative<FitSegment>(got)) << error_of(skeleton(), opt);
  const auto& seg = std::get<FitSegment>(got);
  ASSERT_EQ(seg.time_s.size(), 6U);  // 0..5 s
  ASSERT_EQ(seg.reading_c.size(), 2U);
  const auto& sa = seg.reading_c[0];
  const auto& sb = seg.reading_c[1];
  // The reading at t_k is the latest at or before t_k, as the daemon saw it.
  for (std::size_t k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(sa[k], 30.0) << k;
  EXPECT_DOUBLE_EQ(sa[3], 32.0);  // the push at 2.2 s, from 3 s
  EXPECT_DOUBLE_EQ(sa[4], 32.0);
  EXPECT_TRUE(std::isnan(sa[5]));  // gone at 4.5 s
  for (std::size_t k = 0; k < 4; ++k) EXPECT_DOUBLE_EQ(sb[k], 31.0) << k;
  EXPECT_TRUE(std::isnan(sb[4]));  // the read at 4 s failed
  EXPECT_DOUBLE_EQ(sb[5], 33.0);
  // Level 0 until 1.5 s, then 1; demand 1 (no workload).
  EXPECT_DOUBLE_EQ(seg.load[0][0][0], 1.0);
  EXPECT_DOUBLE_EQ(seg.load[0][0][1], 0.5);
  EXPECT_DOUBLE_EQ(seg.load[0][1][1], 0.5);
  EXPECT_DOUBLE_EQ(seg.load[0][1][3], 1.0);
  EXPECT_DOUBLE_EQ(seg.ambient_c[2], 25.0);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0].to_string(),
            "r.chrec: warning: no --demand workload: every device's demand taken as 1, so "
            "power_w is the device's mean power at each level in this use");
}

// A pushed reading holds only while the window set after it is narrow
// (at most 0.5 °C): a wide one's reading counts at its nearest grid point
// only, and a window widened later ends the hold there.
TEST(FitRecording, PushedReadingsHoldOnlyInsideANarrowWindow) {
  auto base = recording();
  std::vector<recorder::Record> r(base.records.begin(), base.records.begin() + 5);
  r.push_back(rec(0, Kind::port_watch, 0, 0, 0, 29900, 30100));  // narrow: 30.0 holds
  r.push_back(rec(0, Kind::port_watch, 1, 0, 0, 30900, 31100));  // narrow: 31.0 holds
  r.push_back(base.records[5]);                                  // knob_write at 1.5 s
  r.push_back(base.records[6]);                                  // push 32.0 at 2.2 s
  r.push_back(rec(kSecond * 22 / 10, Kind::port_watch, 0, 0, 0, 30000, 34000));  // wide
  r.push_back(rec(kSecond * 5 / 2, Kind::port_watch, 1, 0, 0, 29000, 33000));    // widened later
  r.insert(r.end(), base.records.begin() + 7, base.records.end());
  base.records = r;
  auto got = bind_at_25(base);
  ASSERT_TRUE(std::holds_alternative<FitSegment>(got)) << std::get<std::string>(got);
  const auto& seg = std::get<FitSegment>(got);
  ASSERT_EQ(seg.time_s.size(), 6U);
  const auto& sa = seg.reading_c[0];
  EXPECT_DOUBLE_EQ(sa[0], 30.0);
  EXPECT_DOUBLE_EQ(sa[1], 30.0);
  EXPECT_DOUBLE_EQ(sa[2], 32.0);  // the wide window's push, at its nearest grid point
  for (std::size_t k = 3; k < 6; ++k) EXPECT_TRUE(std::isnan(sa[k])) << k;
  const auto& sb = seg.reading_c[1];
  for (std::size_t k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(sb[k], 31.0) << k;
  EXPECT_TRUE(std::isnan(sb[3]));  // the window widened at 2.5 s
  EXPECT_TRUE(std::isnan(sb[4]));
  EXPECT_DOUBLE_EQ(sb[5], 33.0);
}

// A window's bounds are whatever the file holds: reversed or as far
// apart as int32 allows, the window is not narrow, and nothing overflows.
TEST(FitRecording, AWindowOutOfOrderOrAtTheInt32EdgesIsNotNarrow) {
  for (const auto& [low, high] : std::vector<std::pair<std::int32_t, std::int32_t>>{
           {30100, 29900}, {-2147455970, 27722}, {INT32_MIN + 1, INT32_MAX}}) {
    auto r = recording();
    r.records.insert(r.records.begin() + 4, rec(0, Kind::port_watch, 0, 0, 0, low, high));
    auto got = bind_at_25(r);
    ASSERT_TRUE(std::holds_alternative<FitSegment>(got)) << std::get<std::string>(got);
    const auto& sa = std::get<FitSegment>(got).reading_c[0];
    EXPECT_DOUBLE_EQ(sa[0], 30.0) << low;   // the read at 0 s, at its own grid point
    EXPECT_TRUE(std::isnan(sa[1])) << low;  // and not held
  }
}

// A reading does not hold past its loop's end (a restarted daemon's loop
// reads afresh; the time between is not the last loop's reading).
TEST(FitRecording, ReadingsNotHeldAcrossLoops) {
  auto r = recording();
  r.records.push_back(rec(8 * kSecond, Kind::loop_created, 2, 1, static_cast<std::int64_t>(kHash)));
  r.records.push_back(rec(8 * kSecond, Kind::slot_map, 0, 0));
  r.records.push_back(rec(8 * kSecond, Kind::slot_map, 1, 2));
  r.records.push_back(rec(9 * kSecond, Kind::port_read, 1, 2, 0, 35000));
  r.records.push_back(rec(10 * kSecond, Kind::port_read, 0, 2, 0, 34000));
  auto got = bind_at_25(r);
  ASSERT_TRUE(std::holds_alternative<FitSegment>(got)) << std::get<std::string>(got);
  const auto& seg = std::get<FitSegment>(got);
  ASSERT_EQ(seg.time_s.size(), 11U);  // 0..10 s
  const auto& sb = seg.reading_c[1];
  EXPECT_DOUBLE_EQ(sb[5], 33.0);
  for (std::size_t k = 6; k < 9; ++k) EXPECT_TRUE(std::isnan(sb[k])) << k;
  EXPECT_DOUBLE_EQ(sb[9], 35.0);
  EXPECT_DOUBLE_EQ(sb[10], 35.0);
  const auto& sa = seg.reading_c[0];
  for (std::size_t k = 5; k < 10; ++k) EXPECT_TRUE(std::isnan(sa[k])) << k;
  EXPECT_DOUBLE_EQ(sa[10], 34.0);
}

TEST(FitRecording, AmbientFromASensorHeld) {
  ModelSpec m = skeleton();
  m.sensors.pop_back();  // s_b is the air probe, not a sensor of the skeleton
  RecordingFitOptions opt;
  opt.ambient_sensor = "s_b";
  std::vector<config::ConfigError> warnings;
  auto got = bind_fit_recording(recording(), "r.chrec", m, opt, warnings);
  ASSERT_TRUE(std::holds_alternative<FitSegment>(got)) << error_of(m, opt);
  const auto& seg = std::get<FitSegment>(got);
  EXPECT_DOUBLE_EQ(seg.ambient_c[0], 31.0);
  EXPECT_DOUBLE_EQ(seg.ambient_c[4], 31.0);  // held over the failed read
  // The probe is still a physical sensor the skeleton does not read: an extra column.
  EXPECT_EQ(seg.extra_names, std::vector<std::string>{"s_b"});
}

TEST(FitRecording, ExactErrors) {
  RecordingFitOptions with_ambient;
  with_ambient.ambient_c = 25.0;
  ModelSpec m = skeleton();
  m.sensors[1].name = "s_c";
  EXPECT_EQ(error_of(m, with_ambient),
            "r.chrec: no sensor 's_c' of the skeleton in the recording (its physical sensors: "
            "s_a, s_b)");
  m = skeleton();
  m.sensors[1].name = "virt";
  EXPECT_EQ(error_of(m, with_ambient),
            "r.chrec: no sensor 'virt' of the skeleton in the recording (its physical sensors: "
            "s_a, s_b)");
  m = skeleton();
  m.devices[0].name = "gpu";
  EXPECT_EQ(error_of(m, with_ambient),
            "r.chrec: no device 'gpu' of the skeleton in the recording (its devices: cpu)");
  EXPECT_EQ(error_of(skeleton(), {}),
            "r.chrec: a recording has no ambient: give --ambient C, --ambient-sensor NAME or a "
            "--demand workload with an ambient_c column");
  RecordingFitOptions air;
  air.ambient_sensor = "air";
  EXPECT_EQ(error_of(skeleton(), air),
            "r.chrec: --ambient-sensor 'air': no physical sensor of that name in the recording "
            "(its physical sensors: s_a, s_b)");
  m = skeleton();
  m.devices[0].power_w = {2.0};
  m.devices[0].performance = {1.0};
  EXPECT_EQ(error_of(m, with_ambient),
            "r.chrec: record 5 (byte 160): knob_write sets device 'cpu' to level 1, but the "
            "skeleton's has levels 0..0");
  auto r = recording();
  r.records[4] = rec(0, Kind::port_read, 1, 0, 0, 31000);  // s_b never reads
  r.records[9] = rec(5 * kSecond, Kind::port_read, 1, 0, 0, 33000);
  EXPECT_EQ(error_of(skeleton(), with_ambient, r),
            "r.chrec: sensor 's_b' has no reading in the recording (no successful port_read or "
            "call_push of its slot)");
  r = recording();
  r.policy_hash = 99;  // the loop ran another policy than the one the header names
  EXPECT_EQ(error_of(skeleton(), with_ambient, r),
            "r.chrec: no loop of the policy the recording names starts in it (the ring "
            "overwrote its start, or every loop ran an older policy): nothing to fit");
}

}  // namespace
}  // namespace coolhand::sim::fit_recording_test
