// Record a ControlLoop driven by a small closed-loop model through
// LoopRecorder, dump it, read it back and replay it: the fresh loop must
// produce the recorded stream exactly (inputs, port answers, decisions).
#include "coolhand/recorder/replay.h"

#include <gtest/gtest.h>

#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"

namespace coolhand::recorder {
namespace {

using policy::ControllerSpec;
using policy::MilliC;
using policy::Millis;
using policy::Time;

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

// A toy plant: cpu heats with load and cools with gpu level; skin follows
// cpu and is cooled by the fan. Reads of cpu fail during [fail_from, fail_to).
struct Plant final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  double cpu = 40000;
  double skin = 35000;
  std::uint32_t gpu = 0;
  std::uint32_t fan = 0;
  Time now{0};
  Time fail_from{30000};
  Time fail_to{33000};
  policy::Window skin_window;

  void advance(Time t, double load) {
    const double dt = static_cast<double>((t - now).count()) / 1000.0;
    now = t;
    cpu += dt * (load - 900.0 * gpu - 0.05 * (cpu - 30000));
    skin += dt * (0.1 * (cpu - skin) - 300.0 * fan);
  }
  policy::SensorRead read(std::size_t slot, bool) override {
    if (slot == 0 && now >= fail_from && now < fail_to) return {std::nullopt, "EIO"};
    return {MilliC(static_cast<std::int32_t>(slot == 0 ? cpu : skin)), {}};
  }
  [[nodiscard]] bool present(std::size_t) const override { return true; }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    return slot == 1 ? policy::Delivery::pushed : policy::Delivery::polled;
  }
  [[nodiscard]] bool bound(std::size_t) const override { return true; }
  bool rebind(std::size_t) override { return false; }
  bool apply(std::size_t device, std::uint32_t level) override {
    (device == 0 ? gpu : fan) = level;
    return true;
  }
  void verify(std::size_t) override {}
  void restore(std::size_t) override {}
  bool watch(std::size_t, const policy::Window& w) override {
    skin_window = w;
    return true;
  }
};

std::unique_ptr<policy::Engine> compile(const policy::PolicySpec& s) {
  auto r = policy::Engine::compile(s);
  EXPECT_TRUE(r.errors.empty());
  return std::move(r.engine);
}

const std::vector<policy::SensorId> kSlots{policy::SensorId{0}, policy::SensorId{1}};

// Drive `loop` for [from, to) ms: ticks at its wake-ups (at least every
// 500 ms), a push whenever skin leaves its window, a profile switch and a
// resume on the way.
void drive(LoopRecorder& loop, Plant& plant, Time from, Time to) {
  std::optional<Time> wake = from;
  for (Time t = from; t < to; t += Millis(50)) {
    plant.advance(t, t < Time(40000) ? 1500.0 : 200.0);
    const MilliC skin(static_cast<std::int32_t>(plant.skin));
    if (skin < plant.skin_window.low || skin > plant.skin_window.high) loop.push(1, skin, t);
    if (t == Time(20000)) (void)loop.set_profile("quiet");
    if (t == Time(45000)) loop.resume(t);
    if (!wake || *wake <= t || t.count() % 500 == 0) wake = loop.tick(t);
  }
}

std::string dump(const Ring& ring, const policy::PolicySpec& s, std::string text) {
  Metadata m;
  m.policy_text = std::move(text);
  set_names(m, s);
  StringSink sink;
  EXPECT_TRUE(write_recording(ring, m, sink));
  return sink.out;
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

  const ReadResult rr = read_recording(dump(ring, s, "policy"));
  ASSERT_FALSE(rr.error) << rr.error->to_string();
  const auto segs = segments(*rr.recording);
  ASSERT_EQ(segs.size(), 1u);
  ASSERT_TRUE(segs[0].complete);
  EXPECT_EQ(segs[0].policy_hash, rr.recording->policy_hash);
  const ReplayResult r = replay_segment(*rr.recording, segs[0], compile(s), s.sampling);
  EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
  EXPECT_EQ(r.steps, loop.loop().counters().steps);
  EXPECT_EQ(r.compared, rr.recording->records.size());
  // Levels moved, causes were recorded, thresholds follow the profile.
  bool gpu_throttled = false;
  bool quiet_threshold = false;
  for (const Record& x : rr.recording->records) {
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
  const ReadResult rr = read_recording(dump(ring, s, "policy"));
  ASSERT_TRUE(rr.recording);
  const auto other = spec(MilliC(38000));
  const ReplayResult r =
      replay_segment(*rr.recording, segments(*rr.recording)[0], compile(other), other.sampling);
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
  second.seed_level(0, plant.gpu, Time(20000));
  second.start(Time(20000));
  drive(second, plant, Time(20000), Time(50000));
  const ReadResult rr = read_recording(dump(ring, s, "policy"));
  ASSERT_TRUE(rr.recording);
  const auto segs = segments(*rr.recording);
  ASSERT_EQ(segs.size(), 2u);
  for (const Segment& seg : segs) {
    ASSERT_TRUE(seg.complete);
    const ReplayResult r = replay_segment(*rr.recording, seg, compile(s), s.sampling);
    EXPECT_FALSE(r.divergence) << r.divergence->record << ": " << r.divergence->message;
    EXPECT_GT(r.steps, 0u);
  }
}

TEST(Replay, AfterAWrapTheHeadSegmentIsIncompleteAndRefused) {
  Ring ring(256);
  Plant plant;
  const auto s = spec();
  LoopRecorder loop(ring, policy_hash("policy"), compile(s), kSlots, {s.sampling, 2},
                    {plant, plant, plant, nullptr});
  loop.start(Time(0));
  drive(loop, plant, Time(0), Time(20000));
  ASSERT_GT(ring.lost(), 0u);
  const ReadResult rr = read_recording(dump(ring, s, "policy"));
  ASSERT_TRUE(rr.recording);
  EXPECT_EQ(rr.recording->lost, ring.lost());
  const auto segs = segments(*rr.recording);
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_FALSE(segs[0].complete);
  const ReplayResult r = replay_segment(*rr.recording, segs[0], compile(s), s.sampling);
  ASSERT_TRUE(r.divergence);
  EXPECT_EQ(r.divergence->message,
            "segment does not start at a loop_created record (its start was overwritten); exact "
            "replay impossible");
}

}  // namespace
}  // namespace coolhand::recorder
