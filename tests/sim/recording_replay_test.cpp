// coolhand-sim's side of the flight recorder (issue 11): a ControlLoop
// driven by a toy plant is recorded through recorder::LoopRecorder, dumped
// and read back like a coolhandd recording; replay_recording must then
// reproduce every record with the embedded policy, name the first record
// that differs when the recording or the policy is changed (the mutants),
// and in what-if mode report where another policy's levels differ. export
// writes one table per record kind.
#include "coolhand/sim/recording_replay.h"

#include <gtest/gtest.h>

#include <string>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/sim/recording_export.h"

namespace coolhand::sim {
namespace {

using policy::MilliC;
using policy::Millis;
using policy::Time;

// skin is pushed, cpu polled; cpu_ema is virtual. The fan follows a table on
// skin, the gpu a pid on cpu_ema with setpoint SETPOINT.
std::string policy_text(const std::string& setpoint = "50") {
  return "version: 1\n"
         "sampling: {min_interval: 250ms, max_interval: 5s}\n"
         "sensors:\n"
         "  cpu: {source: {kind: thermal_zone, name: cpu-therm}}\n"
         "  skin: {source: {kind: thermal_zone, name: skin-therm}}\n"
         "  cpu_ema: {kind: ema, input: cpu, time_constant: 2s}\n"
         "zones:\n"
         "  soc:\n"
         "    sensor: cpu_ema\n"
         "    severities:\n"
         "      light: {threshold_c: 48, hysteresis_c: 1}\n"
         "devices:\n"
         "  fan: {max_level: 3}\n"
         "  gpu: {max_level: 4}\n"
         "controllers:\n"
         "  guard:\n"
         "    kind: table\n"
         "    input: skin\n"
         "    devices: [fan]\n"
         "    table:\n"
         "      - {up_c: 40, down_c: 39, level: 1}\n"
         "      - {up_c: 44, down_c: 43, level: 3}\n"
         "  gpu_pid:\n"
         "    kind: pid\n"
         "    input: cpu_ema\n"
         "    devices: [gpu]\n"
         "    setpoint_c: " +
         setpoint +
         "\n"
         "    kp: 0.5\n"
         "    ki: 0.05\n"
         "    kd: 0\n"
         "    engage_below_c: 3\n"
         "    period: 1s\n"
         "profiles:\n"
         "  quiet: {limit_offset_c: -2}\n";
}

config::PolicyDocument parse(const std::string& text) {
  auto r = config::parse_policy(text, "policy.yaml");
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0].to_string());
  return std::move(*r.document);
}

// cpu heats with load and cools with the gpu level; skin follows cpu and
// the fan cools it. cpu reads fail during [30 s, 32 s).
struct Plant final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  double cpu = 40000;
  double skin = 33000;
  std::uint32_t fan = 0;
  std::uint32_t gpu = 0;
  Time now{0};
  policy::Window skin_window;

  void advance(Time t, double load) {
    const double dt = static_cast<double>((t - now).count()) / 1000.0;
    now = t;
    cpu += dt * (load - 700.0 * gpu - 0.05 * (cpu - 30000));
    skin += dt * (0.08 * (cpu - skin) - 250.0 * fan);
  }
  policy::SensorRead read(std::size_t slot, bool) override {
    if (slot == 0 && now >= Time(30000) && now < Time(32000)) return {std::nullopt, "EIO"};
    return {MilliC(static_cast<std::int32_t>(slot == 0 ? cpu : skin)), {}};
  }
  [[nodiscard]] bool present(std::size_t) const override { return true; }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    return slot == 1 ? policy::Delivery::pushed : policy::Delivery::polled;
  }
  [[nodiscard]] bool bound(std::size_t) const override { return true; }
  bool rebind(std::size_t) override { return false; }
  bool apply(std::size_t device, std::uint32_t level) override {
    (device == 0 ? fan : gpu) = level;
    return true;
  }
  void verify(std::size_t) override {}
  void restore(std::size_t) override {}
  bool watch(std::size_t, const policy::Window& w) override {
    skin_window = w;
    return true;
  }
};

// The drive's clock for the recorder's time stamps (ns), as coolhandd's
// CLOCK_MONOTONIC: calls without a `now` (set_profile) are stamped with it.
std::uint64_t g_clock_ns = 0;
std::uint64_t test_clock() {
  return g_clock_ns;
}

// A recording of 60 s of the plant under `text`'s policy, read back.
recorder::Recording record(const std::string& text) {
  const config::PolicyDocument doc = parse(text);
  auto engine = policy::Engine::compile(doc.spec).engine;
  const std::vector<policy::SensorId> slots{*engine->sensor_id("cpu"), *engine->sensor_id("skin")};
  recorder::Ring ring(100000);
  Plant plant;
  recorder::Metadata meta;
  meta.policy_text = text;
  meta.daemon_version = "test";
  meta.reason = "test";
  recorder::set_names(meta, doc.spec);
  g_clock_ns = 0;
  {
    recorder::LoopRecorder loop(ring, recorder::policy_hash(text), std::move(engine), slots,
                                policy::LoopConfig{doc.spec.sampling, 3},
                                policy::LoopPorts{plant, plant, plant, nullptr}, test_clock);
    loop.start(Time(0));
    // The plant moves every 50 ms; the loop is ticked at exactly the time it
    // asks for, as coolhandd's timer does, and after each push.
    std::optional<Time> wake = Time(0);
    Time next_plant{0};
    for (Time t{0}; t < Time(60000);) {
      g_clock_ns = static_cast<std::uint64_t>(t.count()) * 1000000U;
      bool pushed = false;
      if (t == next_plant) {
        plant.advance(t, t < Time(40000) ? 1200.0 : 100.0);
        const MilliC skin(static_cast<std::int32_t>(plant.skin));
        if (skin < plant.skin_window.low || skin > plant.skin_window.high) {
          loop.push(1, skin, t);
          pushed = true;
        }
        if (t == Time(20000)) (void)loop.set_profile("quiet");
        next_plant += Millis(50);
      }
      if (pushed || !wake || *wake <= t) wake = loop.tick(t);
      t = wake ? std::min(*wake, next_plant) : next_plant;
    }
  }
  recorder::StringSink sink;
  EXPECT_TRUE(recorder::write_recording(ring, meta, sink));
  auto r = recorder::read_recording(sink.out);
  EXPECT_FALSE(r.error) << r.error->to_string();
  return std::move(*r.recording);
}

std::size_t first(const recorder::Recording& rec, recorder::Kind k, std::size_t after = 0) {
  for (std::size_t i = after; i < rec.records.size(); ++i)
    if (rec.records[i].kind == static_cast<std::uint16_t>(k)) return i;
  ADD_FAILURE() << "no record of kind " << static_cast<int>(k);
  return 0;
}

TEST(RecordingReplay, EmbeddedPolicyReproducesEveryRecord) {
  const auto rec = record(policy_text());
  auto r = replay_recording(rec, "rec.bin", std::nullopt, false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(r)) << std::get<std::string>(r);
  const auto& o = std::get<RecordingReplay>(r);
  EXPECT_FALSE(o.what_if);
  EXPECT_EQ(o.segments, 1U);
  EXPECT_GT(o.steps, 50U);
  EXPECT_GT(o.compared, o.steps * 3);  // step + 2 device decisions + 1 virtual value each
  EXPECT_TRUE(o.differences.empty());
  // The plant made both devices move, so the comparison covered real changes.
  bool fan_moved = false;
  bool gpu_moved = false;
  for (std::size_t k = 0; k < o.levels.time_s.size(); ++k) {
    fan_moved |= o.levels.replay[0][k] > 0;
    gpu_moved |= o.levels.replay[1][k] > 0;
    EXPECT_EQ(o.levels.replay[0][k], o.levels.daemon[0][k]) << "step " << k;
    EXPECT_EQ(o.levels.replay[1][k], o.levels.daemon[1][k]) << "step " << k;
  }
  EXPECT_TRUE(fan_moved);
  EXPECT_TRUE(gpu_moved);
  EXPECT_EQ(o.decisions_csv.substr(0, o.decisions_csv.find('\n')),
            "time_s,segment,severity,fan_level,fan_cause,gpu_level,gpu_cause");
  EXPECT_NE(o.decisions_csv.find(",gpu_pid"), std::string::npos);
  EXPECT_EQ(o.sensors.names.size(), 3U);
  EXPECT_EQ(o.sensors.time_s.size(), o.steps);
}

// Mutant: the daemon's recorded level of one decision changed. The replay
// must name that record.
TEST(RecordingReplay, ATamperedDecisionIsTheFirstDifferingRecord) {
  auto rec = record(policy_text());
  const std::size_t i =
      first(rec, recorder::Kind::device_decision, first(rec, recorder::Kind::call_tick) + 1);
  rec.records[i].a += 1;
  auto r = replay_recording(rec, "rec.bin", std::nullopt, false);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  const std::string prefix = "rec.bin: record " + std::to_string(i) + " (byte " +
                             std::to_string(rec.offset_of(i)) +
                             "): the replay differs from the daemon: recorded device_decision";
  EXPECT_EQ(std::get<std::string>(r).substr(0, prefix.size()), prefix) << std::get<std::string>(r);
}

// Mutant: the policy's setpoint moved by 0.1 °C. Exact replay with it must
// fail; what-if replay with it runs and compares levels.
TEST(RecordingReplay, APolicyWithTheSetpointMovedByATenthFailsExactReplay) {
  const auto rec = record(policy_text("50"));
  const auto same = parse(policy_text("50"));
  auto ok = replay_recording(rec, "rec.bin", same, true);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(ok)) << std::get<std::string>(ok);

  const auto moved = parse(policy_text("50.1"));
  auto bad = replay_recording(rec, "rec.bin", moved, true);
  ASSERT_TRUE(std::holds_alternative<std::string>(bad));
  EXPECT_EQ(std::get<std::string>(bad).rfind("rec.bin: record ", 0), 0U)
      << std::get<std::string>(bad);
  EXPECT_NE(std::get<std::string>(bad).find("): the replay differs from the daemon: "),
            std::string::npos)
      << std::get<std::string>(bad);

  auto what_if = replay_recording(rec, "rec.bin", moved, false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(what_if)) << std::get<std::string>(what_if);
  EXPECT_TRUE(std::get<RecordingReplay>(what_if).what_if);
  EXPECT_GT(std::get<RecordingReplay>(what_if).steps, 50U);
}

// What-if with a much cooler pid: the gpu goes deeper than the daemon's
// did, and each stretch where it differs is reported.
TEST(RecordingReplay, WhatIfReportsWhereTheLevelsDiffer) {
  const auto rec = record(policy_text("50"));
  auto r = replay_recording(rec, "rec.bin", parse(policy_text("42")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(r)) << std::get<std::string>(r);
  const auto& o = std::get<RecordingReplay>(r);
  ASSERT_FALSE(o.differences.empty());
  bool deeper = false;
  for (const auto& d : o.differences) {
    EXPECT_LE(d.from_s, d.to_s);
    if (d.device == "gpu" && d.candidate > d.daemon) deeper = true;
  }
  EXPECT_TRUE(deeper) << o.differences_csv();
  EXPECT_EQ(o.differences_csv().substr(0, 45), "device,from_s,to_s,daemon_level,replay_level\n");
  // The same policy as the daemon's changes nothing in what-if mode either.
  auto same = replay_recording(rec, "rec.bin", parse(policy_text("50")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(same));
  EXPECT_TRUE(std::get<RecordingReplay>(same).differences.empty())
      << std::get<RecordingReplay>(same).differences_csv();
}

// A gap of years before the last call (a damaged time stamp, found by
// fuzz_sim_recording as an out-of-memory): the candidate is ticked at most
// 100000 times in it, and a note says so.
TEST(RecordingReplay, WhatIfBoundsTheTicksInAHugeGap) {
  auto rec = record(policy_text("50"));
  std::size_t last = 0;
  for (std::size_t i = 0; i < rec.records.size(); ++i)
    if (rec.records[i].kind == static_cast<std::uint16_t>(recorder::Kind::call_tick)) last = i;
  rec.records[last].b += 100'000'000'000;  // about 3 years
  auto r = replay_recording(rec, "rec.bin", parse(policy_text("50")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(r)) << std::get<std::string>(r);
  const auto& o = std::get<RecordingReplay>(r);
  ASSERT_EQ(o.notes.size(), 1U);
  EXPECT_NE(o.notes[0].find("the policy asked for more than 100000 wake-ups"), std::string::npos)
      << o.notes[0];
  EXPECT_LT(o.steps, 110000U);
}

TEST(RecordingReplay, CandidateWithoutARecordedSensorIsAnError) {
  const auto rec = record(policy_text());
  std::string text = policy_text();
  text.replace(text.find("  cpu: {source"), 6, "  cpux:");
  text.replace(text.find("input: cpu,"), 11, "input: cpux,");
  auto r = replay_recording(rec, "rec.bin", parse(text), false);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r),
            "rec.bin: the policy has no physical sensor 'cpu' that the recording reads");
}

TEST(RecordingExport, OneTablePerKindWithNamedIndices) {
  const auto rec = record(policy_text());
  const auto files = export_tables(rec);
  ASSERT_TRUE(files.contains("device_decision.csv"));
  ASSERT_TRUE(files.contains("call_tick.csv"));
  ASSERT_TRUE(files.contains("port_read.csv"));
  ASSERT_TRUE(files.contains("recording.csv"));
  EXPECT_EQ(files.at("policy.yaml"), policy_text());
  const std::string& dd = files.at("device_decision.csv");
  EXPECT_EQ(dd.substr(0, dd.find('\n')),
            "t_ns,device,device_name,level,requested,cause,cause_name,flags,input_mc,"
            "threshold_mc");
  EXPECT_NE(dd.find(",gpu,"), std::string::npos);
  EXPECT_NE(dd.find(",gpu_pid,"), std::string::npos);
  // One row per record of the kind.
  std::size_t n = 0;
  for (const auto& r : rec.records)
    n += r.kind == static_cast<std::uint16_t>(recorder::Kind::device_decision);
  EXPECT_EQ(static_cast<std::size_t>(std::count(dd.begin(), dd.end(), '\n')), n + 1);
  EXPECT_NE(files.at("recording.csv").find("reason,test\n"), std::string::npos);
}

}  // namespace
}  // namespace coolhand::sim
