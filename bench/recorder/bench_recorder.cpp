// The flight recorder's cost (issue 11: <= 15 ns per record, median).
//   BM_RingPut            one Ring::put into the daemon's default ring
//                         (262144 records, wrapping), per record
//   BM_RingPutBurst       a step's worth of records (1 step + 4 device
//                         decisions + 2 virtual values), per record
//   BM_Loop{Plain,Recorded}/tick: one ControlLoop tick that reads two
//                         sensors, steps and applies, with and without
//                         LoopRecorder; the difference is what recording
//                         adds to the daemon's loop.
//   BM_Checkpoint         one checkpoint of that loop (state saved, put as
//                         records), made once per checkpoint interval
// Run: build/bench/recorder/bench_recorder --benchmark_repetitions=10
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/ring.h"

namespace {

using namespace coolhand;  // NOLINT(google-build-using-namespace)
using policy::MilliC;
using policy::Time;

constexpr std::size_t kDefaultRing = 262144;

void BM_RingPut(benchmark::State& state) {
  recorder::Ring ring(kDefaultRing);
  std::int32_t v = 40000;
  std::uint64_t t = 0;
  for (auto _ : state) {
    ring.set_time(++t);
    ring.put(recorder::Kind::port_read, 0, recorder::kReadOk, 0, ++v);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RingPut);

void BM_RingPutBurst(benchmark::State& state) {
  recorder::Ring ring(kDefaultRing);
  std::int32_t v = 40000;
  for (auto _ : state) {
    ring.put(recorder::Kind::step, 0, 1, 1000, -1, 0);
    for (std::uint16_t d = 0; d < 4; ++d) {
      ring.put(recorder::Kind::device_decision, d, 2, recorder::pack_decision(2, 0, 0), v, 45000);
    }
    ring.put(recorder::Kind::virtual_value, 2, 1, 0, ++v);
    ring.put(recorder::Kind::virtual_value, 3, 1, 0, v);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 7);
}
BENCHMARK(BM_RingPutBurst);

// Two polled sensors, an EMA, one table controller on two devices.
policy::PolicySpec spec() {
  policy::PolicySpec s;
  for (const char* n : {"cpu", "gpu"}) {
    policy::SensorSpec p;
    p.name = n;
    s.sensors.push_back(p);
  }
  policy::SensorSpec ema;
  ema.name = "cpu_ema";
  ema.kind = policy::SensorSpec::Kind::ema;
  ema.inputs = {"cpu"};
  ema.time_constant = policy::Millis(2000);
  s.sensors.push_back(ema);
  for (const char* n : {"cpu_freq", "gpu_freq"}) {
    policy::DeviceSpec d;
    d.name = n;
    d.max_level = 3;
    s.devices.push_back(d);
  }
  policy::ControllerSpec c;
  c.name = "tab";
  c.kind = policy::ControllerSpec::Kind::table;
  c.input = "cpu_ema";
  c.devices = {{"cpu_freq", 1.0}, {"gpu_freq", 1.0}};
  c.table = {{MilliC(45000), MilliC(43000), 1}, {MilliC(50000), MilliC(48000), 3}};
  s.controllers.push_back(c);
  s.sampling.min_interval = policy::Millis(100);
  s.sampling.max_interval = policy::Millis(100);
  return s;
}

struct Ports final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  std::int32_t t = 40000;
  policy::SensorRead read(std::size_t, bool) override {
    t = t >= 52000 ? 40000 : t + 300;  // sweeps through both table rows
    return {MilliC(t), {}};
  }
  [[nodiscard]] bool present(std::size_t) const override { return true; }
  [[nodiscard]] policy::Delivery delivery(std::size_t) const override {
    return policy::Delivery::polled;
  }
  [[nodiscard]] bool bound(std::size_t) const override { return true; }
  bool rebind(std::size_t) override { return false; }
  bool apply(std::size_t, std::uint32_t) override { return true; }
  void verify(std::size_t) override {}
  void restore(std::size_t) override {}
  bool watch(std::size_t, const policy::Window&) override { return false; }
};

const std::vector<policy::SensorId> kSlots{policy::SensorId{0}, policy::SensorId{1}};

void BM_LoopPlain(benchmark::State& state) {
  const auto s = spec();
  Ports p;
  policy::ControlLoop loop(policy::Engine::compile(s).engine, kSlots, {s.sampling, 3},
                           {p, p, p, nullptr});
  loop.start(Time(0));
  Time now(0);
  for (auto _ : state) {
    now += policy::Millis(100);
    benchmark::DoNotOptimize(loop.tick(now));
  }
}
BENCHMARK(BM_LoopPlain);

void BM_LoopRecorded(benchmark::State& state) {
  const auto s = spec();
  Ports p;
  recorder::Ring ring(kDefaultRing);
  recorder::LoopRecorder loop(ring, 1, policy::Engine::compile(s).engine, kSlots, {s.sampling, 3},
                              {p, p, p, nullptr});
  loop.start(Time(0));
  Time now(0);
  const std::uint64_t before = ring.total();
  for (auto _ : state) {
    now += policy::Millis(100);
    benchmark::DoNotOptimize(loop.tick(now));
  }
  state.counters["records_per_tick"] =
      static_cast<double>(ring.total() - before) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LoopRecorded);

// One checkpoint of this loop (its state saved and put as records), the
// work LoopRecorder adds once per interval.
void BM_Checkpoint(benchmark::State& state) {
  const auto s = spec();
  Ports p;
  recorder::Ring ring(kDefaultRing);
  recorder::LoopRecorder loop(ring, 1, policy::Engine::compile(s).engine, kSlots, {s.sampling, 3},
                              {p, p, p, nullptr});
  loop.start(Time(0));
  (void)loop.tick(Time(100));
  for (auto _ : state) {
    // A checkpoint that would straddle the ring's end waits for the wrap
    // (checkpoint.h); here nothing else puts records, so move past it
    // untimed (once per ~6,400 checkpoints in the default ring).
    if (!loop.checkpoint()) {
      state.PauseTiming();
      while (!loop.checkpoint()) ring.put(recorder::Kind::call_tick, 0);
      state.ResumeTiming();
    }
  }
  state.counters["bytes"] = static_cast<double>(loop.checkpoint_bytes());
  state.counters["records"] =
      static_cast<double>(recorder::checkpoint_records(loop.checkpoint_bytes()));
  state.counters["interval"] = static_cast<double>(loop.checkpoint_interval());
}
BENCHMARK(BM_Checkpoint);

}  // namespace
