// The control loop with hand-made ports and a hand-advanced clock: failed
// and lost sensors with their retry schedule, pushed readings ignored while
// recovering, poll clamps, the recheck after a watched window, applied
// levels, resume and restore.
#include "coolhand/policy/loop.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rig.h"

namespace coolhand::policy::loop_test {
namespace {

using testing::controller;
using testing::device;
using testing::mc;
using testing::ms;
using testing::physical;

// One sensor "t" (slot 0), one device "d" (0..2) driven by a table:
// level 1 at 45 °C, level 2 at 50 °C; safe level 2.
PolicySpec spec() {
  PolicySpec s;
  s.sensors.push_back(physical("t"));
  s.devices.push_back(device("d", 2));
  ControllerSpec c = controller("tab", ControllerSpec::Kind::table, "t", {"d"});
  c.table = {{mc(45000), mc(43000), 1}, {mc(50000), mc(48000), 2}};
  c.safe_level = 2;
  s.controllers.push_back(c);
  s.sampling.min_interval = Millis(500);
  s.sampling.max_interval = Millis(10000);
  return s;
}

struct Ports final : SensorPort, KnobPort, WindowPort, LoopObserver {
  std::optional<MilliC> value = mc(30000);  // none: reads fail
  bool is_present = true;
  Delivery feed = Delivery::polled;
  bool watched = false;  // what watch() answers
  std::vector<Time> reads;
  std::vector<bool> rebinds;
  std::vector<std::uint32_t> writes;
  int restores = 0;
  bool write_ok = true;
  std::vector<Window> windows;
  int lost = 0;
  int recovered = 0;
  std::optional<MilliC> move_on_watch;  // the value moves while a window goes in
  bool oscillate = false;               // ...to just above each new window
  Time now{0};

  SensorRead read(std::size_t, bool rebind) override {
    reads.push_back(now);
    rebinds.push_back(rebind);
    if (!value) return {std::nullopt, "EIO"};
    return {*value, {}};
  }
  bool present(std::size_t) const override { return is_present; }
  Delivery delivery(std::size_t) const override { return feed; }
  bool bound(std::size_t) const override { return true; }
  bool rebind(std::size_t) override { return false; }
  bool apply(std::size_t, std::uint32_t level) override {
    writes.push_back(level);
    return write_ok;
  }
  void verify(std::size_t) override {}
  void restore(std::size_t) override { ++restores; }
  bool watch(std::size_t, const Window& w) override {
    windows.push_back(w);
    if (move_on_watch) value = *move_on_watch;
    if (oscillate) value = MilliC(w.high.mc() + 1000);
    return watched;
  }
  void sensor_lost(std::size_t, std::uint32_t, std::string_view, Time) override { ++lost; }
  void sensor_recovered(std::size_t, MilliC, Time) override { ++recovered; }
};

struct LoopTest : ::testing::Test {
  std::unique_ptr<ControlLoop> make(std::uint32_t lost_after = 2) {
    auto r = Engine::compile(spec());
    EXPECT_TRUE(r.errors.empty());
    return std::make_unique<ControlLoop>(std::move(r.engine), std::vector<SensorId>{SensorId{0}},
                                         LoopConfig{spec().sampling, lost_after},
                                         LoopPorts{p, p, p, &p});
  }
  // Tick at every wake-up the loop asks for until `until`.
  void run_until(ControlLoop& loop, Time until, std::optional<Time> wake) {
    while (wake && *wake <= until) {
      p.now = *wake;
      const auto next = loop.tick(*wake);
      ASSERT_TRUE(!next || *next > *wake) << "a wake-up that is not in the future";
      wake = next;
    }
  }
  Ports p;
};

TEST_F(LoopTest, PollIntervalsStayWithinTheSamplingClamps) {
  auto loop = make();
  loop->start(ms(0));
  auto wake = loop->tick(ms(0));
  run_until(*loop, ms(60000), wake);
  ASSERT_GE(p.reads.size(), 3u);
  for (std::size_t i = 1; i < p.reads.size(); ++i) {
    const auto gap = p.reads[i] - p.reads[i - 1];
    EXPECT_GE(gap, Millis(500));
    EXPECT_LE(gap, Millis(10000));
  }
}

TEST_F(LoopTest, FailingSensorIsRetriedAtMinIntervalThenLostAndSafe) {
  auto loop = make(2);
  loop->start(ms(0));
  EXPECT_EQ(loop->applied_level(0), 0u);
  p.value.reset();
  p.reads.clear();
  p.rebinds.clear();
  auto wake = loop->tick(ms(0));
  run_until(*loop, ms(20000), wake);
  ASSERT_GE(p.reads.size(), 3u);
  // The first failure is retried after min_interval; once lost, every
  // max(min_interval, min(max_interval, 5 s)) = 5 s, asking for a rebind.
  EXPECT_EQ(p.reads[1] - p.reads[0], Millis(500));
  EXPECT_EQ(p.reads[2] - p.reads[1], Millis(5000));
  EXPECT_FALSE(p.rebinds[1]);
  EXPECT_TRUE(p.rebinds[2]);
  EXPECT_EQ(p.lost, 1);
  EXPECT_TRUE(loop->sensor_lost(0));
  EXPECT_EQ(loop->applied_level(0), 2u);  // the controller's safe level
  EXPECT_EQ(loop->counters().sensors_lost, 1u);
  // Back: known again, released.
  p.value = mc(30000);
  run_until(*loop, ms(40000), loop->tick(ms(20000)));
  EXPECT_EQ(p.recovered, 1);
  EXPECT_FALSE(loop->sensor_lost(0));
  EXPECT_EQ(loop->applied_level(0), 0u);
}

TEST_F(LoopTest, PushedReadingsOfALostSensorAreIgnored) {
  p.feed = Delivery::pushed;
  auto loop = make(1);
  p.value.reset();
  loop->start(ms(0));
  ASSERT_TRUE(loop->sensor_lost(0));
  const auto samples = loop->counters().samples;
  loop->push(0, mc(30000), ms(100));
  (void)loop->tick(ms(100));
  EXPECT_EQ(loop->counters().samples, samples);
  EXPECT_TRUE(loop->sensor_lost(0));
}

TEST_F(LoopTest, APushedSensorIsNeverPolledAndGetsItsWindow) {
  p.feed = Delivery::pushed;
  auto loop = make();
  loop->start(ms(0));
  EXPECT_EQ(loop->tick(ms(0)), std::nullopt);  // nothing to poll, nothing time-driven
  ASSERT_EQ(p.windows.size(), 1u);
  EXPECT_LE(p.windows[0].low, mc(30000));
  EXPECT_GE(p.windows[0].high, mc(30000));
  EXPECT_EQ(p.reads.size(), 1u);  // start only
  loop->push(0, mc(46000), ms(1000));
  (void)loop->tick(ms(1000));
  EXPECT_EQ(loop->applied_level(0), 1u);
  EXPECT_EQ(loop->counters().pushed_samples, 1u);
  EXPECT_EQ(p.windows.size(), 2u);  // a new window after the crossing
}

// A watched window: the platform reports only crossings, so the loop reads
// once after it goes in; a value that moved meanwhile is stepped on at once.
TEST_F(LoopTest, AWatchedWindowIsCheckedOnceAndTheSettleLoopIsBounded) {
  p.feed = Delivery::pushed;
  p.watched = true;
  auto loop = make();
  loop->start(ms(0));
  const auto steps = loop->counters().steps;
  p.move_on_watch = mc(51000);
  loop->push(0, mc(44000), ms(1000));
  (void)loop->tick(ms(1000));
  EXPECT_EQ(loop->applied_level(0), 2u);
  EXPECT_GT(loop->counters().steps, steps + 1);  // stepped again on the value read back
}

TEST_F(LoopTest, TheSettleLoopIsBounded) {
  p.feed = Delivery::pushed;
  p.watched = true;
  auto loop = make();
  loop->start(ms(0));
  // Every window the loop sends moves the value across it again: one tick
  // stops after kMaxSettleSteps steps and asks to come back soon.
  p.oscillate = true;
  loop->push(0, mc(51000), ms(1000));
  const auto before = loop->counters().steps;
  const auto wake = loop->tick(ms(1000));
  EXPECT_EQ(loop->counters().steps - before,
            static_cast<std::uint64_t>(ControlLoop::kMaxSettleSteps));
  ASSERT_TRUE(wake);
  EXPECT_EQ(*wake, ms(1000) + ControlLoop::kMinWake);
}

TEST_F(LoopTest, AFailedWriteIsRetriedAtTheNextStep) {
  auto loop = make();
  p.value = mc(46000);
  p.write_ok = false;
  loop->start(ms(0));
  EXPECT_EQ(loop->applied_level(0), std::nullopt);
  p.write_ok = true;
  run_until(*loop, ms(2000), loop->tick(ms(0)));
  EXPECT_EQ(loop->applied_level(0), 1u);
  EXPECT_GE(p.writes.size(), 2u);
}

TEST_F(LoopTest, ResumeRewritesAndRestoreForgetsTheAppliedLevel) {
  auto loop = make();
  p.value = mc(46000);
  loop->start(ms(0));
  const auto writes = p.writes.size();
  loop->resume(ms(100));
  EXPECT_GT(p.writes.size(), writes);
  EXPECT_EQ(p.writes.back(), 1u);
  EXPECT_EQ(loop->counters().resumes, 1u);
  loop->restore_all();
  EXPECT_EQ(p.restores, 1);
  EXPECT_EQ(loop->applied_level(0), std::nullopt);
}

TEST_F(LoopTest, ANeverReadSensorCountsAsLost) {
  p.is_present = false;
  p.value.reset();
  auto loop = make(5);
  loop->start(ms(0));
  EXPECT_TRUE(loop->sensor_lost(0));  // one failure only, but never read
}

}  // namespace
}  // namespace coolhand::policy::loop_test
