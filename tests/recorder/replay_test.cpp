// Record a ControlLoop driven by a small closed-loop model through
// LoopRecorder, dump it, read it back and replay it: the fresh loop must
// produce the recorded stream exactly (inputs, port answers, decisions).
#include "coolhand/recorder/replay.h"

#include <gtest/gtest.h>

#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"
#include "recording_fixture.h"

namespace coolhand::recorder::replay_test {
namespace {

using policy::ControllerSpec;
using policy::MilliC;
using policy::Millis;
using policy::Time;
using test::drive;
using test::Plant;

policy::ControllerSpec controller(std::string name, ControllerSpec::Kind kind, std::string input,
                                  std::string device) {
  ControllerSpec c;
  c.name = std::move(name);
  c.kind = kind;
  c.input = std::move(input);
  c.devices.push_back({std::move(device), 1.0});
  return c;
}

// cpu (polled, slot 0), skin (pushed, slot 1), a virtual EMA of cpu; a zone
// on the EMA with a passive trip and a severity ladder; a table on the EMA
// for "gpu" and a step_wise on skin for "fan"; a "quiet" profile.
policy::PolicySpec spec(MilliC threshold = MilliC(45000)) {
  policy::PolicySpec s;
  policy::SensorSpec cpu;
  cpu.name = "cpu";
  s.sensors.push_back(cpu);
  policy::SensorSpec skin;
  skin.name = "skin";
  s.sensors.push_back(skin);
  policy::SensorSpec ema;
  ema.name = "cpu_ema";
  ema.kind = policy::SensorSpec::Kind::ema;
  ema.inputs = {"cpu"};
  ema.time_constant = Millis(2000);
  s.sensors.push_back(ema);
  policy::ZoneSpec z;
  z.name = "soc";
  z.sensor = "cpu_ema";
  z.trips.push_back(
      {"warm", policy::TripSpec::Type::passive, MilliC(60000), MilliC(2000), {}, {}, 1});
  z.severities.push_back({policy::Severity::light, MilliC(55000), MilliC(2000)});
  s.zones.push_back(z);
  policy::DeviceSpec gpu;
  gpu.name = "gpu";
  gpu.max_level = 3;
  s.devices.push_back(gpu);
  policy::DeviceSpec fan;
  fan.name = "fan";
  fan.max_level = 4;
  s.devices.push_back(fan);
  ControllerSpec tab = controller("tab", ControllerSpec::Kind::table, "soc", "gpu");
  tab.table = {{MilliC(50000), MilliC(48000), 1}, {MilliC(58000), MilliC(55000), 3}};
  s.controllers.push_back(tab);
  ControllerSpec sw = controller("sw", ControllerSpec::Kind::step_wise, "skin", "fan");
  sw.threshold = threshold;
  sw.hysteresis = MilliC(1000);
  sw.period = Millis(1000);
  s.controllers.push_back(sw);
  policy::ProfileSpec quiet;
  quiet.name = "quiet";
  quiet.limit_offset = MilliC(-2000);
  s.profiles.push_back(quiet);
  s.sampling.min_interval = Millis(250);
  s.sampling.max_interval = Millis(5000);
  return s;
}

std::unique_ptr<policy::Engine> compile(const policy::PolicySpec& s) {
  auto r = policy::Engine::compile(s);
  EXPECT_TRUE(r.errors.empty());
  return std::move(r.engine);
}

const std::vector<policy::SensorId> kSlots{policy::SensorId{0}, policy::SensorId{1}};

// A recording of `ring` with the spec's names.
Recording read_back(const Ring& ring, const policy::PolicySpec& s, std::string text) {
  Metadata m;
  m.policy_text = std::move(text);
  set_names(m, s);
  return test::dump(ring, m);
}

TEST(Replay, TheEmbeddedPolicyReproducesEveryRecordExactly) {
  Ring ring(1 << 16);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(60000));
  ASSERT_GT(loop.loop().counters().steps, 50u);
  ASSERT_GT(loop.loop().counters().pushed_samples, 5u);
  ASSERT_GE(loop.loop().counters().sensors_lost, 1u);
  ASSERT_EQ(ring.lost(), 0u);

  const Recording rec = read_back(ring, s, "policy");
  const auto segs = segments(rec);
  ASSERT_EQ(segs.size(), 1u);
  ASSERT_TRUE(segs[0].complete);
  EXPECT_EQ(segs[0].policy_hash, rec.policy_hash);
  const ReplayResult r = replay_segment(rec, segs[0], compile(s), s.sampling);
  EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
  EXPECT_EQ(r.steps, loop.loop().counters().steps);
  EXPECT_EQ(r.compared, rec.records.size());
  // Levels moved, causes were recorded, thresholds follow the profile.
  bool gpu_throttled = false;
  bool quiet_threshold = false;
  for (const Record& x : rec.records) {
    if (x.kind != static_cast<std::uint16_t>(Kind::device_decision)) continue;
    if (x.index == 0 && x.a > 0) gpu_throttled = true;
    if (x.index == 1 && decision_cause(x) == 1 && x.d == 43000) quiet_threshold = true;
  }
  EXPECT_TRUE(gpu_throttled);
  EXPECT_TRUE(quiet_threshold);
}

TEST(Replay, ACandidatePolicyDivergesAndSaysWhere) {
  Ring ring(1 << 16);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(60000));
  const Recording rec = read_back(ring, s, "policy");
  const auto other = spec(MilliC(38000));
  const ReplayResult r = replay_segment(rec, segments(rec)[0], compile(other), other.sampling);
  ASSERT_TRUE(r.divergence);
  EXPECT_GT(r.divergence->record, 0u);
  EXPECT_NE(r.divergence->message.find("recorded"), std::string::npos) << r.divergence->message;
}

TEST(Replay, AReloadStartsASecondSegmentAndBothReplay) {
  Ring ring(1 << 16);
  Plant plant;
  const auto s = spec();
  {
    LoopRecorder first(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                       {plant, plant, plant, nullptr});
    first.start(Time(0));
    drive(first, plant, Time(0), Time(20000));
  }
  LoopRecorder second(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                      {plant, plant, plant, nullptr});
  second.seed_level(0, plant.levels[0], Time(20000));
  second.start(Time(20000));
  drive(second, plant, Time(20000), Time(50000));
  const Recording rec = read_back(ring, s, "policy");
  const auto segs = segments(rec);
  ASSERT_EQ(segs.size(), 2u);
  for (const Segment& seg : segs) {
    ASSERT_TRUE(seg.complete);
    const ReplayResult r = replay_segment(rec, seg, compile(s), s.sampling);
    EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
    EXPECT_GT(r.steps, 0u);
  }
}

// After the ring wraps, the head segment has lost loop_created: the replay
// starts at its first whole checkpoint and is still exact, and the replayed
// state equals every later checkpoint's.
TEST(Replay, AfterAWrapTheHeadSegmentReplaysFromItsFirstCheckpoint) {
  Ring ring(256);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  // The default interval (4 × a checkpoint's 46 records here) would leave
  // one in so small a ring; a ring of default size keeps dozens.
  loop.set_checkpoint_interval(40);
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(60000));
  ASSERT_GT(ring.lost(), ring.capacity());  // wrapped more than once
  const Recording rec = read_back(ring, s, "policy");
  EXPECT_EQ(rec.lost, ring.lost());
  const auto segs = segments(rec);
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_FALSE(segs[0].complete);
  ASSERT_TRUE(segs[0].checkpoint);
  EXPECT_EQ(segs[0].policy_hash, policy_hash("policy"));
  const ReplayResult r = replay_segment(rec, segs[0], compile(s), s.sampling);
  EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
  EXPECT_GT(r.steps, 5u);
  EXPECT_GE(r.checkpoints, 1u);  // a later checkpoint was checked against the replayed state
  // A candidate policy restored from the daemon's checkpoint diverges.
  const auto other = spec(MilliC(38000));
  EXPECT_TRUE(replay_segment(rec, segs[0], compile(other), other.sampling).divergence);
}

// A checkpoint whose payload was damaged is not whole (its checksum fails):
// the replay starts at the next one.
TEST(Replay, ADamagedCheckpointIsSkipped) {
  Ring ring(256);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  loop.set_checkpoint_interval(40);
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(60000));
  Recording rec = read_back(ring, s, "policy");
  const std::size_t first = *segments(rec)[0].checkpoint;
  rec.records[first + 1].b ^= 1;
  std::string why;
  EXPECT_FALSE(read_checkpoint(rec.records, first, rec.records.size(), &why));
  EXPECT_EQ(why, "checkpoint checksum does not match its payload");
  const auto segs = segments(rec);
  ASSERT_TRUE(segs[0].checkpoint);
  EXPECT_GT(*segs[0].checkpoint, first);
  const ReplayResult r = replay_segment(rec, segs[0], compile(s), s.sampling);
  EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
}

// Without checkpoints (interval 0) a wrapped head cannot be replayed.
TEST(Replay, AWrappedHeadWithoutCheckpointsIsRefused) {
  Ring ring(256);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  loop.set_checkpoint_interval(0);
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(20000));
  ASSERT_GT(ring.lost(), 0u);
  const Recording rec = read_back(ring, s, "policy");
  const auto segs = segments(rec);
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_FALSE(segs[0].replayable());
  const ReplayResult r = replay_segment(rec, segs[0], compile(s), s.sampling);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->message,
            "segment does not start at a loop_created record (its start was overwritten) and "
            "holds no whole checkpoint; exact replay impossible");
}

}  // namespace
}  // namespace coolhand::recorder::replay_test
