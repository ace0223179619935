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

#include "../recorder/recording_fixture.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/replay.h"
#include "coolhand/sim/recording_export.h"

namespace coolhand::sim::recording_replay_test {
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

// The shared plant (tests/recorder/recording_fixture.h) with the gpu
// (device 1) cooling cpu and the fan cooling skin; cpu reads fail during
// [30 s, 32 s).
recorder::test::PlantParams plant_params() {
  recorder::test::PlantParams p;
  p.skin = 33000;
  p.cpu_device = 1;
  p.cpu_cooling = 700.0;
  p.skin_follow = 0.08;
  p.skin_cooling = 250.0;
  p.heavy = 1200.0;
  p.light = 100.0;
  p.fail_to = Time(32000);
  return p;
}

// A recording of 60 s of the plant under `text`'s policy in a ring of
// `capacity` records, read back; checkpoints every `checkpoint_every`
// records (0: the recorder's default).
recorder::Recording record(const std::string& text, std::size_t capacity = 100000,
                           std::uint64_t checkpoint_every = 0) {
  const config::PolicyDocument doc = parse(text);
  auto engine = policy::Engine::compile(doc.spec).engine;
  const std::vector<policy::SensorId> slots{*engine->sensor_id("cpu"), *engine->sensor_id("skin")};
  recorder::Ring ring(capacity);
  recorder::test::Plant plant(plant_params());
  recorder::Metadata meta;
  meta.policy_text = text;
  meta.daemon_version = "test";
  meta.reason = "test";
  recorder::set_names(meta, doc.spec);
  recorder::test::clock_ns() = 0;
  {
    recorder::LoopRecorder loop(ring, recorder::policy_hash(text), std::move(engine), slots,
                                policy::LoopConfig{doc.spec.sampling, 3},
                                policy::LoopPorts{plant, plant, plant, nullptr},
                                recorder::test::test_clock);
    if (checkpoint_every != 0) loop.set_checkpoint_interval(checkpoint_every);
    loop.start(Time(0));
    recorder::test::drive(loop, plant, Time(0), Time(60000));
  }
  return recorder::test::dump(ring, meta);
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
// fuzz_sim_recording as an out-of-memory). When only the call's `now` says
// so, the records' own clock bounds the candidate's ticks in the gap (at
// most one per 10 ms of it); when the records' clock agrees (a suspend of
// years, as far as the file tells), at most 100000. A note says which.
TEST(RecordingReplay, WhatIfBoundsTheTicksInAHugeGap) {
  const auto clean = record(policy_text("50"));
  std::size_t last = 0;
  for (std::size_t i = 0; i < clean.records.size(); ++i)
    if (clean.records[i].kind == static_cast<std::uint16_t>(recorder::Kind::call_tick)) last = i;
  const std::int64_t years = 100'000'000'000;  // ms, about 3 years

  auto rec = clean;
  rec.records[last].b += years;
  auto r = replay_recording(rec, "rec.bin", parse(policy_text("50")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(r)) << std::get<std::string>(r);
  const auto& o = std::get<RecordingReplay>(r);
  ASSERT_EQ(o.notes.size(), 1U);
  EXPECT_NE(o.notes[0].find("(more than the records' own clock allows)"), std::string::npos)
      << o.notes[0];
  EXPECT_LT(o.steps, 2000U);

  rec = clean;
  rec.records[last].b += years;
  for (std::size_t i = last; i < rec.records.size(); ++i)
    rec.records[i].t_ns += static_cast<std::uint64_t>(years) * 1000000U;
  auto far = replay_recording(rec, "rec.bin", parse(policy_text("50")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(far)) << std::get<std::string>(far);
  const auto& f = std::get<RecordingReplay>(far);
  ASSERT_EQ(f.notes.size(), 1U);
  EXPECT_NE(f.notes[0].find("the policy asked for more than 100000 wake-ups since the call "
                            "before; the last"),
            std::string::npos)
      << f.notes[0];
  EXPECT_GT(f.steps, 100000U);
  EXPECT_LT(f.steps, 110000U);
}

// A ring that wrapped during the run (so loop_created is gone): the exact
// replay starts from the first whole checkpoint, reproduces every record
// after it and says where it started. 600 records keep the run from about
// 20 s, so the first whole checkpoint (25 s) falls while gpu_pid is engaged
// and integrating: a restore that gets its integrator wrong (mutant: the
// integral halved on restore) fails here.
TEST(RecordingReplay, AWrappedRingReplaysExactlyFromACheckpoint) {
  const auto rec = record(policy_text(), 600, 150);
  ASSERT_GT(rec.lost, 0U);
  auto r = replay_recording(rec, "rec.bin", std::nullopt, false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(r)) << std::get<std::string>(r);
  const auto& o = std::get<RecordingReplay>(r);
  EXPECT_EQ(o.segments, 1U);
  EXPECT_GT(o.steps, 10U);
  ASSERT_EQ(o.notes.size(), 1U);
  EXPECT_NE(o.notes[0].find("replayed from the checkpoint at record"), std::string::npos)
      << o.notes[0];
  // The gpu's pid was engaged at the checkpoint: its levels after it match
  // the daemon's step for step.
  bool gpu_moved = false;
  for (std::size_t k = 0; k < o.levels.time_s.size(); ++k) {
    gpu_moved |= o.levels.replay[1][k] > 0;
    EXPECT_EQ(o.levels.replay[1][k], o.levels.daemon[1][k]) << "step " << k;
  }
  EXPECT_TRUE(gpu_moved);
  // What-if on the same wrapped recording starts the candidate cold there.
  auto w = replay_recording(rec, "rec.bin", parse(policy_text("42")), false);
  ASSERT_TRUE(std::holds_alternative<RecordingReplay>(w)) << std::get<std::string>(w);
  EXPECT_GT(std::get<RecordingReplay>(w).steps, 10U);
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
}  // namespace coolhand::sim::recording_replay_test
