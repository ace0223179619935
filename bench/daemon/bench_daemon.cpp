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
//
// BM_Coolhand* do the same for the coolhand module's family: EVENT_TEMP
// through CoolhandMessageHandler and dispatch_coolhand_event to one module
// throttle device (1 write + 1 read-back per event). WINDOW_SET is a netlink
// round trip to the module and is left out (program_module_window succeeds
// without doing anything), as thresholds are for the thermal family.
//
// Both fixtures record into the flight recorder's default ring
// (daemon.recorder.records) with CLOCK_MONOTONIC stamps, as coolhandd does.
#include <benchmark/benchmark.h>
#include <linux/thermal.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "coolhand.h"
#include "coolhand/config/policy_file.h"
#include "coolhand_netlink.h"
#include "dispatch.h"
#include "fake_tree.h"
#include "flight_recorder.h"
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
    // As coolhandd runs it: the flight recorder's default ring and clock.
    auto r = cd::Runtime::create(
        std::move(*doc.document), fs, log,
        {.dry_run = false, .events_available = true, .ring = &ring, .clock = &cd::monotonic_ns});
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
  coolhand::recorder::Ring ring{coolhand::config::DaemonSettings::kDefaultRecorderRecords};
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

// ------------------------------------------------------ coolhand family --

constexpr const char* kModulePolicy = R"(
version: 1
sensors:
  skin:
    source: {kind: coolhand, name: emul_zone0}
devices:
  soc:
    max_level: 10
    knob: {kind: coolhand, name: throttle0}
controllers:
  guard:
    kind: table
    input: skin
    devices: [soc]
    table:
      - {up_c: 45, down_c: 43, level: 4}
      - {up_c: 50, down_c: 48, level: 8}
)";

struct ModuleTree : cd::testing::FakeTree {
  ModuleTree() : FakeTree(tree_base()) {
    write("class/coolhand/zone0/name", "emul_zone0");
    write("class/coolhand/zone0/temp1_input", 40000);
    write("class/coolhand/zone0/event_window", "39000 41000");
    write("class/coolhand/zone0/throttle0/throttling", 0);
    write("class/coolhand/zone0/throttle0/throttling_max", 10);
  }
};

MsgPtr module_temp(std::int32_t mc, std::uint32_t seq) {
  MsgPtr m(nlmsg_alloc(), &nlmsg_free);
  genlmsg_put(m.get(), 0, 0, kFamily, 0, 0, COOLHAND_CMD_EVENT_TEMP, COOLHAND_GENL_VERSION);
  nla_put_u32(m.get(), COOLHAND_A_ZONE_ID, 0);
  nla_put_s32(m.get(), COOLHAND_A_TEMP, mc);
  nla_put_s32(m.get(), COOLHAND_A_PREV_TEMP, 40000);
  nla_put_u64(m.get(), COOLHAND_A_TIMESTAMP_NS, 1'000'000'000);
  nla_put_u32(m.get(), COOLHAND_A_SEQ, seq);
  return m;
}

struct ModuleFixture {
  ModuleFixture() : fs(tree.root()), devnull(std::fopen("/dev/null", "w")), log(false, devnull) {
    auto doc = coolhand::config::parse_policy(kModulePolicy, "bench.yaml");
    if (!doc.document) std::abort();
    auto r = cd::Runtime::create(std::move(*doc.document), fs, log,
                                 {.dry_run = false,
                                  .module_events_available = true,
                                  .ring = &ring,
                                  .clock = &cd::monotonic_ns},
                                 &hooks);
    if (!r) std::abort();
    rt = std::move(*r);
    rt->start(now);
    handler = std::make_unique<cd::CoolhandMessageHandler>(
        kFamily, [this](const cd::CoolhandEvent& e) { cd::dispatch_coolhand_event(*rt, e, now); },
        log);
  }
  // The handler checks SEQ: each message must carry the next number.
  void event(std::int32_t mc) {
    now += coolhand::policy::Millis(100);
    auto m = module_temp(mc, ++seq);
    handler->handle(m.get());
    benchmark::DoNotOptimize(rt->tick(now));
  }
  ~ModuleFixture() { std::fclose(devnull); }
  ModuleTree tree;
  cd::RootedSysfs fs;
  std::FILE* devnull;
  cd::Logger log;
  // WINDOW_SET always succeeds: the module round trip is left out.
  struct AcceptWindows final : cd::KernelHooks {
    cd::Status set_module_window(std::uint32_t, const coolhand::policy::Window&) override {
      return cd::Ok{};
    }
  } hooks;
  coolhand::recorder::Ring ring{coolhand::config::DaemonSettings::kDefaultRecorderRecords};
  std::unique_ptr<cd::Runtime> rt;
  std::unique_ptr<cd::CoolhandMessageHandler> handler;
  coolhand::policy::Time now{1000};
  std::uint32_t seq = 0;
};

// Includes building each message (the sequence number changes), about as
// much as BM_CoolhandParseOnly's decode.
void BM_CoolhandEventThrottleToggle(benchmark::State& state) {
  ModuleFixture f;
  bool toggle = false;
  for (auto _ : state) {
    f.event(toggle ? 40000 : 51000);
    toggle = !toggle;
  }
  if (f.handler->counters().gaps != 0 || f.rt->device_level("soc") > 10)
    state.SkipWithError("events lost or bad level");
}
BENCHMARK(BM_CoolhandEventThrottleToggle)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMicrosecond);

void BM_CoolhandParseOnly(benchmark::State& state) {
  cd::Logger log;
  cd::CoolhandMessageHandler h(
      kFamily, [](const cd::CoolhandEvent&) {}, log);
  auto m = module_temp(45000, 1);
  for (auto _ : state) benchmark::DoNotOptimize(h.decode(m.get()));
}
BENCHMARK(BM_CoolhandParseOnly)->Repetitions(10)->ReportAggregatesOnly(true);

}  // namespace
