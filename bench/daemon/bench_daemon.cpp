// The daemon's per-event cost: a SAMPLING_TEMP message built with libnl goes
// through ThermalMessageHandler (sender check, genlmsg_parse against the
// attribute policy), dispatch_thermal_event, Runtime::tick (engine step) and
// the actuators' sysfs writes with read-back, on a temp-dir tree in tmpfs
// (/dev/shm; real sysfs attribute writes are the same syscalls, plus the
// driver's own work).
//
// BM_EventThrottleToggle alternates hot and cool readings so every event
// changes two devices' levels (the worst case: 2 writes + 2 read-backs);
// BM_EventNoChange sends readings inside the current window (decide only);
// BM_ParseOnly isolates validation.
#include <benchmark/benchmark.h>
#include <linux/thermal.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "coolhand/config/policy_file.h"
#include "dispatch.h"
#include "fake_tree.h"
#include "runtime.h"
#include "sysfs.h"
#include "thermal_netlink.h"

namespace cd = coolhand::daemon;

namespace {

constexpr int kFamily = 0x1c;

constexpr const char* kPolicy = R"(
version: 1
sensors:
  skin:
    source: {kind: thermal_zone, name: skin-therm}
devices:
  fan:
    max_level: 3
    knob: {kind: cooling_device, name: Fan}
  cpu:
    max_level: 2
    knob: {kind: cpufreq, name: all}
controllers:
  guard:
    kind: table
    input: skin
    devices: [fan, cpu]
    table:
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 50, down_c: 48, level: 2}
)";

// tmpfs like sysfs: on ext4, closing a truncated file forces writeback
// (auto_da_alloc), which costs milliseconds and has no sysfs analogue.
std::filesystem::path tree_base() {
  return std::filesystem::is_directory("/dev/shm") ? "/dev/shm"
                                                   : std::filesystem::temp_directory_path();
}

struct Tree : cd::testing::FakeTree {
  Tree() : FakeTree(tree_base()) {
    thermal_zone(0, "skin-therm", 40000);
    cooling_device(0, "Fan", 3);
    cpufreq_policy(0, 400000, 2000000);
  }
};

using MsgPtr = std::unique_ptr<nl_msg, void (*)(nl_msg*)>;

MsgPtr sample(std::int32_t mc) {
  MsgPtr m(nlmsg_alloc(), &nlmsg_free);
  genlmsg_put(m.get(), 0, 0, kFamily, 0, 0, THERMAL_GENL_SAMPLING_TEMP, THERMAL_GENL_VERSION);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 0);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, static_cast<std::uint32_t>(mc));
  return m;
}

struct Fixture {
  // Log lines (one per level change, as in the daemon) go to /dev/null.
  Fixture() : fs(tree.root()), devnull(std::fopen("/dev/null", "w")), log(false, devnull) {
    auto doc = coolhand::config::parse_policy(kPolicy, "bench.yaml");
    if (!doc.document) std::abort();
    auto r = cd::Runtime::create(std::move(*doc.document), fs, log,
                                 {.dry_run = false, .events_available = true});
    if (!r) std::abort();
    rt = std::move(*r);
    rt->start(now);
    handler = std::make_unique<cd::ThermalMessageHandler>(
        kFamily,
        [this](const cd::ThermalEvent& e) { (void)cd::dispatch_thermal_event(*rt, e, now); }, log);
  }
  // One event end to end: receive-side validation, decision, writes.
  void event(nl_msg* m) {
    now += coolhand::policy::Millis(100);
    handler->handle(m);
    benchmark::DoNotOptimize(rt->tick(now));
  }
  ~Fixture() { std::fclose(devnull); }
  Tree tree;
  cd::RootedSysfs fs;
  std::FILE* devnull;
  cd::Logger log;
  std::unique_ptr<cd::Runtime> rt;
  std::unique_ptr<cd::ThermalMessageHandler> handler;
  coolhand::policy::Time now{1000};
};

void BM_EventThrottleToggle(benchmark::State& state) {
  Fixture f;
  auto hot = sample(51000);
  auto cool = sample(40000);
  bool toggle = false;
  for (auto _ : state) {
    f.event(toggle ? cool.get() : hot.get());
    toggle = !toggle;
  }
  if (f.rt->device_level("fan") > 3) state.SkipWithError("bad level");
}
BENCHMARK(BM_EventThrottleToggle)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMicrosecond);

void BM_EventNoChange(benchmark::State& state) {
  Fixture f;
  auto a = sample(40000);
  auto b = sample(40100);
  bool toggle = false;
  for (auto _ : state) {
    f.event(toggle ? a.get() : b.get());
    toggle = !toggle;
  }
}
BENCHMARK(BM_EventNoChange)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMicrosecond);

void BM_ParseOnly(benchmark::State& state) {
  cd::Logger log;
  cd::ThermalMessageHandler h(
      kFamily, [](const cd::ThermalEvent&) {}, log);
  auto m = sample(45000);
  for (auto _ : state) benchmark::DoNotOptimize(h.decode(m.get()));
}
BENCHMARK(BM_ParseOnly)->Repetitions(10)->ReportAggregatesOnly(true);

}  // namespace
