// How many records a busy session makes: a shipped policy (its YAML, as the
// daemon loads it) drives a LoopRecorder for MINUTES of virtual time while
// every physical sensor swings around the policy's lowest trip, the way a
// game keeps a handheld at its limits: T = trip - 2 °C + 4 °C * sin(2πt /
// 40 s) plus a ±0.5 °C ripple per read. All sensors are polled (no kernel
// events: the most reads), all devices bound. Prints records per second,
// per kind, and the ring size 30 minutes need. It sizes
// daemon.recorder.records (docs/recording-format.md, "Ring size").
//   build/bench/recorder/record_rate config/policies/steam-deck.yaml 30
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numbers>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/layout.h"
#include "coolhand/recorder/loop_recorder.h"

namespace {

using namespace coolhand;  // NOLINT(google-build-using-namespace)

struct Plant final : policy::SensorPort, policy::KnobPort, policy::WindowPort {
  double trip_mc = 80000;
  double now_s = 0;
  std::uint32_t n = 0;
  policy::SensorRead read(std::size_t slot, bool) override {
    const double ripple = ((n++ * 2654435761U) % 1001) - 500.0;  // deterministic ±0.5 °C
    const double t = trip_mc - 2000 + 4000 * std::sin(2 * std::numbers::pi * now_s / 40.0) +
                     ripple - 300.0 * static_cast<double>(slot);
    return {policy::MilliC(static_cast<std::int32_t>(t)), {}};
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: record_rate POLICY.yaml [MINUTES]\n");
    return 2;
  }
  const double minutes = argc > 2 ? std::atof(argv[2]) : 30.0;
  auto doc = config::load_policy_file(argv[1]);
  if (!doc.document) {
    for (const auto& e : doc.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    return 2;
  }
  const policy::PolicySpec& spec = doc.document->spec;
  Plant plant;
  for (const auto& z : spec.zones) {
    for (const auto& t : z.trips) {
      plant.trip_mc = std::min(plant.trip_mc, static_cast<double>(t.threshold.mc()));
    }
  }
  auto compiled = policy::Engine::compile(spec);
  std::vector<policy::SensorId> slots;
  for (std::size_t i = 0; i < spec.sensors.size(); ++i) {
    if (spec.sensors[i].kind == policy::SensorSpec::Kind::physical) {
      slots.push_back(policy::SensorId{static_cast<std::uint16_t>(i)});
    }
  }
  recorder::Ring ring(recorder::Ring::kMaxCapacity);
  recorder::LoopRecorder loop(ring, 0, std::move(compiled.engine), slots,
                              {spec.sampling, doc.document->daemon.lost_after_failures},
                              {plant, plant, plant, nullptr});
  // Checkpoints as often as in a ring of the default size (the ring here
  // is larger so that it keeps everything for counting).
  loop.set_checkpoint_interval(recorder::default_checkpoint_interval(
      config::DaemonSettings::kDefaultRecorderRecords, loop.checkpoint_bytes()));
  loop.start(policy::Time(0));
  const auto end = policy::Time(static_cast<std::int64_t>(minutes * 60000));
  std::optional<policy::Time> wake = policy::Time(0);
  std::uint64_t ticks = 0;
  while (wake && *wake < end) {
    plant.now_s = static_cast<double>(wake->count()) / 1000.0;
    wake = loop.tick(*wake);
    ++ticks;
  }
  std::map<std::string_view, std::uint64_t> by_kind;
  for (std::uint64_t s = ring.first(); s < ring.total(); ++s) {
    const auto* l = recorder::find_layout(ring.at(s).kind);
    ++by_kind[l ? l->name() : "?"];
  }
  const double seconds = minutes * 60.0;
  const double rate = static_cast<double>(ring.total()) / seconds;
  std::printf("%s: %zu physical sensors, %zu sensors, %zu devices; lowest trip %.1f °C\n", argv[1],
              slots.size(), spec.sensors.size(), spec.devices.size(), plant.trip_mc / 1000.0);
  std::printf("%.0f virtual minutes: %llu records, %llu ticks, %llu steps: %.1f records/s\n",
              minutes, static_cast<unsigned long long>(ring.total()),
              static_cast<unsigned long long>(ticks),
              static_cast<unsigned long long>(loop.loop().counters().steps), rate);
  for (const auto& [k, n] : by_kind) {
    std::printf("  %-18s %10llu  %6.2f/s\n", std::string(k).c_str(),
                static_cast<unsigned long long>(n), static_cast<double>(n) / seconds);
  }
  std::printf("30 minutes need %.0f records (%.1f MiB)\n", rate * 1800,
              rate * 1800 * recorder::kRecordSize / 1048576.0);
  const std::uint64_t checkpoints = by_kind["checkpoint"];
  if (checkpoints > 0) {
    const std::uint64_t cp_records =
        checkpoints + by_kind["checkpoint_data"] + by_kind["checkpoint_end"];
    std::printf(
        "checkpoints: %llu, %.0f records each on average (at most %zu), every %llu "
        "records: %.2f%% of all records\n",
        static_cast<unsigned long long>(checkpoints),
        static_cast<double>(cp_records) / static_cast<double>(checkpoints),
        recorder::checkpoint_records(loop.checkpoint_bytes()),
        static_cast<unsigned long long>(loop.checkpoint_interval()),
        100.0 * static_cast<double>(cp_records) / static_cast<double>(ring.total()));
  }
  return 0;
}
