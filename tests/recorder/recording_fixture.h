// The recording fixture shared by tests/recorder (replay_test.cpp) and
// tests/sim (recording_replay_test.cpp): a toy plant behind the loop's
// ports and a drive that records it through recorder::LoopRecorder the way
// coolhandd does (ticks at the times the loop asks for, pushes when the
// pushed sensor leaves its window, a profile switch and a resume on the
// way), then a dump read back as a file.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "coolhand/policy/loop.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"

namespace coolhand::recorder::test {

// cpu (slot 0, polled) heats with load and cools with the level of device
// `cpu_device`; skin (slot 1, pushed) follows cpu and is cooled by the other
// device. Reads of cpu fail during [fail_from, fail_to).
struct PlantParams {
  double cpu = 40000;
  double skin = 35000;
  std::size_t cpu_device = 0;
  double cpu_cooling = 900.0;   // m°C/s per level
  double skin_follow = 0.1;     // 1/s
  double skin_cooling = 300.0;  // m°C/s per level
  double heavy = 1500.0;        // m°C/s of load until heavy_until, then `light`
  double light = 200.0;
  policy::Time heavy_until{40000};
  policy::Time fail_from{30000};
  policy::Time fail_to{33000};
};

struct Plant final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  explicit Plant(PlantParams params = {}) : p(params), cpu(params.cpu), skin(params.skin) {}

  PlantParams p;
  double cpu;
  double skin;
  std::uint32_t levels[2] = {0, 0};
  policy::Time now{0};
  policy::Window skin_window;

  void advance(policy::Time t) {
    const double dt = static_cast<double>((t - now).count()) / 1000.0;
    const double load = t < p.heavy_until ? p.heavy : p.light;
    now = t;
    cpu += dt * (load - p.cpu_cooling * levels[p.cpu_device] - 0.05 * (cpu - 30000));
    skin += dt * (p.skin_follow * (cpu - skin) - p.skin_cooling * levels[1 - p.cpu_device]);
  }
  policy::SensorRead read(std::size_t slot, bool /*rebind*/) override {
    if (slot == 0 && now >= p.fail_from && now < p.fail_to) return {std::nullopt, "EIO"};
    return {policy::MilliC(static_cast<std::int32_t>(slot == 0 ? cpu : skin)), {}};
  }
  [[nodiscard]] bool present(std::size_t /*slot*/) const override { return true; }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    return slot == 1 ? policy::Delivery::pushed : policy::Delivery::polled;
  }
  [[nodiscard]] bool bound(std::size_t /*device*/) const override { return true; }
  bool rebind(std::size_t /*device*/) override { return false; }
  bool apply(std::size_t device, std::uint32_t level) override {
    levels[device & 1U] = level;
    return true;
  }
  void verify(std::size_t /*device*/) override {}
  void restore(std::size_t /*device*/) override {}
  bool watch(std::size_t /*slot*/, const policy::Window& w) override {
    skin_window = w;
    return true;
  }
};

// The drive's clock for the recorder's time stamps (ns), as coolhandd's
// CLOCK_MONOTONIC: calls without a `now` (set_profile) are stamped with it.
inline std::uint64_t& clock_ns() {
  static std::uint64_t ns = 0;
  return ns;
}
inline std::uint64_t test_clock() {
  return clock_ns();
}

// Drive `loop` over [from, to): the plant moves every 50 ms; the loop is
// ticked at exactly the time it asks for (and after each push); "quiet" is
// switched to at 20 s and the loop resumed at 45 s when inside the span.
inline void drive(LoopRecorder& loop, Plant& plant, policy::Time from, policy::Time to) {
  std::optional<policy::Time> wake = from;
  policy::Time next_plant = from;
  for (policy::Time t = from; t < to;) {
    clock_ns() = static_cast<std::uint64_t>(t.count()) * 1000000U;
    bool pushed = false;
    if (t == next_plant) {
      plant.advance(t);
      const policy::MilliC skin(static_cast<std::int32_t>(plant.skin));
      if (skin < plant.skin_window.low || skin > plant.skin_window.high) {
        loop.push(1, skin, t);
        pushed = true;
      }
      if (t == policy::Time(20000)) (void)loop.set_profile("quiet");
      if (t == policy::Time(45000)) loop.resume(t);
      next_plant += policy::Millis(50);
    }
    if (pushed || !wake || *wake <= t) wake = loop.tick(t);
    t = wake ? std::min(*wake, next_plant) : next_plant;
  }
}

// The ring dumped with `meta` and read back.
inline Recording dump(const Ring& ring, const Metadata& meta) {
  StringSink sink;
  EXPECT_TRUE(write_recording(ring, meta, sink));
  ReadResult r = read_recording(sink.out);
  EXPECT_FALSE(r.error) << r.error->to_string();
  return r.recording ? std::move(*r.recording) : Recording{};
}

}  // namespace coolhand::recorder::test
