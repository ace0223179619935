// CoolhandMessageHandler fed with messages built by libnl, as the module
// sends them (kmod/coolhand_netlink.c): each event decoded; spoofed senders,
// foreign families, truncation, wrong attribute sizes, missing attributes and
// impossible values dropped and counted; sequence gaps; and events routed to
// the right sensor and knob of a Runtime.
#include "coolhand_netlink.h"

#include <gtest/gtest.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "coolhand.h"
#include "coolhand/config/policy_file.h"
#include "dispatch.h"
#include "fake_tree.h"
#include "runtime.h"
#include "test_hooks.h"

namespace coolhand::daemon::coolhand_netlink_test {
namespace {

constexpr int kFamily = 0x22;
constexpr std::uint64_t kNs = 123'456'789'000;

using MsgPtr = std::unique_ptr<nl_msg, void (*)(nl_msg*)>;

MsgPtr message(std::uint8_t cmd, int family = kFamily) {
  MsgPtr m(nlmsg_alloc(), &nlmsg_free);
  genlmsg_put(m.get(), 0, 0, family, 0, 0, cmd, COOLHAND_GENL_VERSION);
  return m;
}

MsgPtr temp_event(std::uint32_t zone, std::int32_t temp_mc, std::uint32_t seq,
                  std::int32_t prev_mc = 40000) {
  auto m = message(COOLHAND_CMD_EVENT_TEMP);
  nla_put_u32(m.get(), COOLHAND_A_ZONE_ID, zone);
  nla_put_s32(m.get(), COOLHAND_A_TEMP, temp_mc);
  nla_put_s32(m.get(), COOLHAND_A_PREV_TEMP, prev_mc);
  nla_put_u64(m.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(m.get(), COOLHAND_A_SEQ, seq);
  return m;
}

MsgPtr trip_event(std::uint32_t type, std::uint32_t direction, std::uint32_t seq) {
  auto m = message(COOLHAND_CMD_EVENT_TRIP);
  nla_put_u32(m.get(), COOLHAND_A_ZONE_ID, 1);
  nla_put_u32(m.get(), COOLHAND_A_TRIP_TYPE, type);
  nla_put_u32(m.get(), COOLHAND_A_TRIP_DIRECTION, direction);
  nla_put_s32(m.get(), COOLHAND_A_TRIP_TEMP, 60000);
  nla_put_s32(m.get(), COOLHAND_A_TEMP, 61500);
  nla_put_u64(m.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(m.get(), COOLHAND_A_SEQ, seq);
  return m;
}

MsgPtr throttle_event(std::uint32_t dev, std::uint32_t level, std::uint32_t seq) {
  auto m = message(COOLHAND_CMD_EVENT_THROTTLE);
  nla_put_u32(m.get(), COOLHAND_A_DEV_ID, dev);
  nla_put_u32(m.get(), COOLHAND_A_LEVEL, level);
  nla_put_u64(m.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(m.get(), COOLHAND_A_SEQ, seq);
  return m;
}

struct CoolhandNetlinkTest : ::testing::Test {
  CoolhandNetlinkTest()
      : handler(
            kFamily, [this](const CoolhandEvent& e) { events.push_back(e); }, log) {
    log.capture();
  }
  void expect_dropped_as_malformed(std::uint64_t n) {
    EXPECT_TRUE(events.empty());
    EXPECT_EQ(handler.counters().malformed, n);
    EXPECT_EQ(handler.counters().received, n);
    EXPECT_EQ(handler.counters().accepted, 0u);
  }
  Logger log;
  std::vector<CoolhandEvent> events;
  CoolhandMessageHandler handler;
};

TEST_F(CoolhandNetlinkTest, TempEventIsDecoded) {
  EXPECT_FALSE(handler.handle(temp_event(2, 45500, 7).get()));
  ASSERT_EQ(events.size(), 1u);
  const CoolhandEvent& e = events[0];
  EXPECT_EQ(e.kind, CoolhandEvent::Kind::temp);
  EXPECT_EQ(e.zone_id, 2u);
  EXPECT_EQ(e.temperature->mc(), 45500);
  EXPECT_EQ(e.prev_temperature->mc(), 40000);
  EXPECT_EQ(e.seq, 7u);
  EXPECT_EQ(e.timestamp_ns, kNs);
  EXPECT_EQ(handler.counters().accepted, 1u);
}

TEST_F(CoolhandNetlinkTest, NegativeTemperaturesAreSigned) {
  handler.handle(temp_event(0, -20000, 1, -19000).get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].temperature->mc(), -20000);
  EXPECT_EQ(events[0].prev_temperature->mc(), -19000);
}

TEST_F(CoolhandNetlinkTest, TripEventsAreDecoded) {
  handler.handle(trip_event(COOLHAND_TRIP_PASSIVE, COOLHAND_TRIP_UP, 1).get());
  handler.handle(trip_event(COOLHAND_TRIP_CRITICAL, COOLHAND_TRIP_DOWN, 2).get());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, CoolhandEvent::Kind::trip);
  EXPECT_EQ(events[0].zone_id, 1u);
  EXPECT_EQ(events[0].trip_type, CoolhandEvent::TripType::passive);
  EXPECT_EQ(events[0].trip_direction, CoolhandEvent::Direction::up);
  EXPECT_EQ(events[0].trip_temperature->mc(), 60000);
  EXPECT_EQ(events[0].temperature->mc(), 61500);
  EXPECT_EQ(events[1].trip_type, CoolhandEvent::TripType::critical);
  EXPECT_EQ(events[1].trip_direction, CoolhandEvent::Direction::down);
}

TEST_F(CoolhandNetlinkTest, ThrottleEventIsDecoded) {
  handler.handle(throttle_event(3, 7, 1).get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, CoolhandEvent::Kind::throttle);
  EXPECT_EQ(events[0].dev_id, 3u);
  EXPECT_EQ(events[0].level, 7u);
  EXPECT_FALSE(events[0].zone_id);
  EXPECT_FALSE(events[0].temperature);
}

TEST_F(CoolhandNetlinkTest, AttributesOfANewerModuleAreIgnored) {
  auto m = temp_event(0, 45000, 1);
  nla_put_u32(m.get(), COOLHAND_A_MAX + 1, 99);
  handler.handle(m.get());
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(CoolhandNetlinkTest, NonzeroSenderPortIsDroppedAsSpoofed) {
  auto m = temp_event(0, 99000, 1);
  sockaddr_nl src{};
  src.nl_family = AF_NETLINK;
  src.nl_pid = 4242;
  nlmsg_set_src(m.get(), &src);
  EXPECT_FALSE(handler.handle(m.get()));
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().spoofed, 1u);
  EXPECT_EQ(handler.counters().accepted, 0u);
}

// Multicast spoofs: a user port with the event group set (mutant: only
// nl_groups == 0 senders are screened). The kernel's own multicast (port 0,
// group set) still gets through.
TEST_F(CoolhandNetlinkTest, MulticastSpoofIsDroppedAndKernelMulticastAccepted) {
  for (std::uint32_t groups : {1u << 0, 1u << 5, ~0u}) {
    auto m = temp_event(0, 99000, 1);
    sockaddr_nl src{};
    src.nl_family = AF_NETLINK;
    src.nl_pid = 4242;
    src.nl_groups = groups;
    nlmsg_set_src(m.get(), &src);
    EXPECT_FALSE(handler.handle(m.get()));
  }
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().spoofed, 3u);
  EXPECT_EQ(handler.counters().accepted, 0u);

  auto kernel = temp_event(0, 45000, 1);
  sockaddr_nl src{};
  src.nl_family = AF_NETLINK;
  src.nl_groups = 1u << 0;
  nlmsg_set_src(kernel.get(), &src);
  handler.handle(kernel.get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].temperature->mc(), 45000);
  EXPECT_EQ(handler.counters().accepted, 1u);
}

TEST_F(CoolhandNetlinkTest, OtherFamiliesAreDroppedAsForeign) {
  auto m = message(COOLHAND_CMD_EVENT_TEMP, kFamily + 1);
  nla_put_u32(m.get(), COOLHAND_A_ZONE_ID, 0);
  handler.handle(m.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().foreign, 1u);
  EXPECT_EQ(handler.counters().malformed, 0u);
}

TEST_F(CoolhandNetlinkTest, TruncatedMessagesAreMalformed) {
  auto cut_last = temp_event(0, 45000, 1);  // SEQ loses its value
  nlmsg_hdr(cut_last.get())->nlmsg_len -= 4;
  handler.handle(cut_last.get());
  auto cut_middle = temp_event(0, 45000, 2);  // the u64 timestamp runs past the end
  nlmsg_hdr(cut_middle.get())->nlmsg_len -= 12;
  handler.handle(cut_middle.get());
  auto no_genl_header = temp_event(0, 45000, 3);
  nlmsg_hdr(no_genl_header.get())->nlmsg_len = NLMSG_HDRLEN;
  handler.handle(no_genl_header.get());
  auto cut_optional = temp_event(0, 45000, 4);  // every required attribute is whole
  nla_put_u32(cut_optional.get(), COOLHAND_A_ALARMS, 1);
  nlmsg_hdr(cut_optional.get())->nlmsg_len -= 2;
  handler.handle(cut_optional.get());
  expect_dropped_as_malformed(4);
}

TEST_F(CoolhandNetlinkTest, WrongAttributeSizesAreMalformed) {
  auto narrow_temp = message(COOLHAND_CMD_EVENT_TEMP);
  nla_put_u32(narrow_temp.get(), COOLHAND_A_ZONE_ID, 0);
  nla_put_u16(narrow_temp.get(), COOLHAND_A_TEMP, 45);
  nla_put_s32(narrow_temp.get(), COOLHAND_A_PREV_TEMP, 40000);
  nla_put_u64(narrow_temp.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(narrow_temp.get(), COOLHAND_A_SEQ, 1);
  handler.handle(narrow_temp.get());
  auto wide_zone = message(COOLHAND_CMD_EVENT_TEMP);
  nla_put_u64(wide_zone.get(), COOLHAND_A_ZONE_ID, 0);
  nla_put_s32(wide_zone.get(), COOLHAND_A_TEMP, 45000);
  nla_put_s32(wide_zone.get(), COOLHAND_A_PREV_TEMP, 40000);
  nla_put_u64(wide_zone.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(wide_zone.get(), COOLHAND_A_SEQ, 2);
  handler.handle(wide_zone.get());
  auto narrow_stamp = message(COOLHAND_CMD_EVENT_THROTTLE);
  nla_put_u32(narrow_stamp.get(), COOLHAND_A_DEV_ID, 0);
  nla_put_u32(narrow_stamp.get(), COOLHAND_A_LEVEL, 1);
  nla_put_u32(narrow_stamp.get(), COOLHAND_A_TIMESTAMP_NS, 5);
  nla_put_u32(narrow_stamp.get(), COOLHAND_A_SEQ, 3);
  handler.handle(narrow_stamp.get());
  auto unterminated_name = throttle_event(0, 1, 4);
  nla_put(unterminated_name.get(), COOLHAND_A_DEV_NAME, 4, "emul");
  handler.handle(unterminated_name.get());
  auto long_name = throttle_event(0, 1, 5);
  nla_put_string(long_name.get(), COOLHAND_A_DEV_NAME, "a-device-name-past-twenty");
  handler.handle(long_name.get());
  expect_dropped_as_malformed(5);
}

TEST_F(CoolhandNetlinkTest, MissingAttributesAreMalformed) {
  auto no_temp = message(COOLHAND_CMD_EVENT_TEMP);
  nla_put_u32(no_temp.get(), COOLHAND_A_ZONE_ID, 0);
  nla_put_s32(no_temp.get(), COOLHAND_A_PREV_TEMP, 40000);
  nla_put_u64(no_temp.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(no_temp.get(), COOLHAND_A_SEQ, 1);
  handler.handle(no_temp.get());
  auto no_seq = message(COOLHAND_CMD_EVENT_THROTTLE);
  nla_put_u32(no_seq.get(), COOLHAND_A_DEV_ID, 0);
  nla_put_u32(no_seq.get(), COOLHAND_A_LEVEL, 1);
  nla_put_u64(no_seq.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  handler.handle(no_seq.get());
  auto no_direction = message(COOLHAND_CMD_EVENT_TRIP);
  nla_put_u32(no_direction.get(), COOLHAND_A_ZONE_ID, 1);
  nla_put_u32(no_direction.get(), COOLHAND_A_TRIP_TYPE, COOLHAND_TRIP_PASSIVE);
  nla_put_s32(no_direction.get(), COOLHAND_A_TRIP_TEMP, 60000);
  nla_put_s32(no_direction.get(), COOLHAND_A_TEMP, 61000);
  nla_put_u64(no_direction.get(), COOLHAND_A_TIMESTAMP_NS, kNs);
  nla_put_u32(no_direction.get(), COOLHAND_A_SEQ, 3);
  handler.handle(no_direction.get());
  expect_dropped_as_malformed(3);
  EXPECT_EQ(log.lines().size(), 0u);  // drop reasons are debug lines
}

TEST_F(CoolhandNetlinkTest, ImpossibleValuesAreMalformed) {
  handler.handle(temp_event(0, COOLHAND_TEMP_MAX_MC + 1, 1).get());
  handler.handle(temp_event(0, COOLHAND_TEMP_MIN_MC - 1, 2).get());
  handler.handle(temp_event(0, 45000, 3, COOLHAND_TEMP_MAX_MC + 1).get());
  handler.handle(trip_event(7, COOLHAND_TRIP_UP, 4).get());
  handler.handle(trip_event(COOLHAND_TRIP_PASSIVE, 0, 5).get());
  expect_dropped_as_malformed(5);
  // The limits themselves are possible.
  handler.handle(temp_event(0, COOLHAND_TEMP_MAX_MC, 6).get());
  handler.handle(temp_event(0, COOLHAND_TEMP_MIN_MC, 7).get());
  EXPECT_EQ(events.size(), 2u);
}

TEST_F(CoolhandNetlinkTest, RequestsAndUnknownCommandsAreMalformed) {
  auto request = message(COOLHAND_CMD_WINDOW_SET);
  nla_put_u32(request.get(), COOLHAND_A_ZONE_ID, 0);
  handler.handle(request.get());
  handler.handle(message(200).get());
  expect_dropped_as_malformed(2);
}

TEST_F(CoolhandNetlinkTest, SequenceGapAsksForResync) {
  EXPECT_FALSE(handler.handle(temp_event(0, 45000, 5).get()));
  EXPECT_FALSE(handler.handle(throttle_event(0, 1, 6).get()));
  EXPECT_TRUE(handler.handle(temp_event(0, 46000, 9).get()));  // 7 and 8 were lost
  EXPECT_FALSE(handler.handle(temp_event(0, 47000, 10).get()));
  EXPECT_EQ(handler.counters().gaps, 1u);
  EXPECT_EQ(handler.counters().lost, 2u);  // every lost event counted, not just the gap
  EXPECT_EQ(events.size(), 4u);            // the event after a gap is still used
}

TEST_F(CoolhandNetlinkTest, SequenceWrapsWithoutAGap) {
  EXPECT_FALSE(handler.handle(temp_event(0, 45000, 0xffffffffu).get()));
  EXPECT_FALSE(handler.handle(temp_event(0, 45000, 0).get()));
  EXPECT_TRUE(handler.handle(temp_event(0, 45000, 0).get()));  // a repeat is not the next one
  EXPECT_EQ(handler.counters().gaps, 1u);
  EXPECT_EQ(handler.counters().lost, 0u);                      // nothing was skipped
  EXPECT_TRUE(handler.handle(temp_event(0, 45000, 3).get()));  // 1 and 2 lost, across no wrap
  EXPECT_EQ(handler.counters().lost, 2u);
}

TEST(ModuleWindow, ClampsToTheModulesLimits) {
  const auto open = module_window({policy::MilliC::min(), policy::MilliC::max()});
  EXPECT_EQ(open.low_mc, COOLHAND_TEMP_MIN_MC);
  EXPECT_EQ(open.high_mc, COOLHAND_TEMP_MAX_MC);
  const auto normal = module_window({policy::MilliC(43000), policy::MilliC(45000)});
  EXPECT_EQ(normal.low_mc, 43000);
  EXPECT_EQ(normal.high_mc, 45000);
  const auto empty = module_window({policy::MilliC(45000), policy::MilliC(45000)});
  EXPECT_LT(empty.low_mc, empty.high_mc);  // window mode needs low < high
}

// ----------------------------------------------------------- into a Runtime --

constexpr const char* kPolicy = R"(
version: 1
sensors:
  cpu:
    source: {kind: coolhand, name: emul_zone0}
  skin:
    source: {kind: coolhand, name: emul_zone1}
devices:
  throttle:
    max_level: 4
    knob: {kind: coolhand, name: emul_throttle0}
controllers:
  skin_guard:
    kind: table
    input: skin
    devices: [throttle]
    table:
      - {up_c: 45, down_c: 43, level: 2}
      - {up_c: 50, down_c: 48, level: 4}
)";

constexpr const char* kKnob = "class/coolhand/zone1/emul_throttle0/throttling";
constexpr const char* kSkinTemp = "class/coolhand/zone1/temp1_input";
constexpr const char* kSkinWindow = "class/coolhand/zone1/event_window";

// Two module zones as kmod/README section 3 lays them out: zone0 "emul_zone0"
// and zone1 "emul_zone1", both with a thermal mirror, and the throttle
// device linked from zone1.
struct ModuleRuntimeTest : ::testing::Test {
  ModuleRuntimeTest() : fs(tree.root()) {
    log.capture();
    for (int z = 0; z < 2; ++z) {
      const std::string base = "class/coolhand/zone" + std::to_string(z) + "/";
      tree.thermal_zone(z, "emul_zone" + std::to_string(z), 35000);
      // The mirror's passive trip (kmod/README section 5).
      tree.write("class/thermal/thermal_zone" + std::to_string(z) + "/trip_point_0_temp", 50000);
      tree.write(base + "name", "emul_zone" + std::to_string(z));
      tree.write(base + "temp1_input", 35000);
      tree.write(base + "event_window", "34000 36000");
      std::filesystem::create_directory_symlink(
          tree.root() + "/class/thermal/thermal_zone" + std::to_string(z),
          tree.root() + "/" + base + "thermal_zone");
    }
    tree.write("class/coolhand/zone1/emul_throttle0/throttling", 1);
    tree.write("class/coolhand/zone1/emul_throttle0/throttling_max", 10);
  }

  std::unique_ptr<Runtime> make(RuntimeOptions opts) {
    auto doc = config::parse_policy(kPolicy, "module.yaml");
    EXPECT_TRUE(doc.document);
    auto r = Runtime::create(std::move(*doc.document), fs, log, opts, &hooks);
    EXPECT_TRUE(r) << r.error().to_string();
    if (!r) return nullptr;
    hooks.module_window = [this](std::uint32_t zone, const policy::Window& w) -> Status {
      windows.emplace_back(zone, w);
      if (window_error) return *window_error;
      return Ok{};
    };
    hooks.thresholds = [this](std::uint32_t tz, const policy::Window&) {
      thresholds.push_back(tz);
      return false;
    };
    auto rt = std::move(*r);
    rt->start(now);
    return rt;
  }

  void deliver(Runtime& rt, const MsgPtr& m) {
    CoolhandMessageHandler h(
        kFamily, [&](const CoolhandEvent& e) { dispatch_coolhand_event(rt, e, now); }, log);
    ASSERT_FALSE(h.handle(m.get()));
    ASSERT_EQ(h.counters().accepted, 1u);
  }

  testing::FakeTree tree;
  testing::FaultySysfs fs;
  Logger log;
  testing::TestHooks hooks;
  policy::Time now{1000};
  std::vector<std::pair<std::uint32_t, policy::Window>> windows;
  std::vector<std::uint32_t> thresholds;
  std::optional<SysError> window_error;
};

TEST_F(ModuleRuntimeTest, ModuleZonesAreDrivenByTheModuleFamily) {
  auto rt = make({.events_available = true, .module_events_available = true});
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->module_event_zones(), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_TRUE(rt->event_zones().empty());
  EXPECT_EQ(rt->tick(now), std::nullopt);  // no polls
  // The windows went out through WINDOW_SET; the event_window files are untouched.
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[1].first, 1u);
  EXPECT_LE(windows[1].second.high.mc(), 45000);
  EXPECT_TRUE(thresholds.empty());
  EXPECT_EQ(tree.read(kSkinWindow), "34000 36000\n");
}

// The module reports a zone's fresh temperature; its temp1_input reads the
// same value (the tests write both, as the module would show them).
TEST_F(ModuleRuntimeTest, TempEventReachesTheRightSensor) {
  auto rt = make({.events_available = true, .module_events_available = true});
  ASSERT_TRUE(rt);
  tree.write("class/coolhand/zone0/temp1_input", 51000);
  deliver(*rt, temp_event(0, 51000, 1));  // the cpu zone: no controller
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kKnob), 1);  // level 0: the throttling found at start
  tree.write(kSkinTemp, 46000);
  deliver(*rt, temp_event(1, 46000, 2));  // the skin zone
  (void)rt->tick(now);
  EXPECT_EQ(tree.read_int(kKnob), 6);  // level 2 of 4 from 1 to throttling_max 10: 5.5
  EXPECT_EQ(rt->device_level("throttle"), 2u);
  EXPECT_EQ(rt->counters().pushed_samples, 2u);
  // Mainline events for the mirrored zone no longer drive it.
  rt->on_zone_temperature(1, policy::MilliC(30000), now);
  (void)rt->tick(now);
  EXPECT_EQ(rt->device_level("throttle"), 2u);
  EXPECT_EQ(rt->counters().pushed_samples, 2u);
}

TEST_F(ModuleRuntimeTest, TripEventCarriesTheTemperature) {
  auto rt = make({.module_events_available = true});
  ASSERT_TRUE(rt);
  tree.write(kSkinTemp, 61500);
  deliver(*rt, trip_event(COOLHAND_TRIP_PASSIVE, COOLHAND_TRIP_UP, 1));  // zone 1 at 61.5 °C
  (void)rt->tick(now);
  EXPECT_EQ(rt->device_level("throttle"), 4u);
}

TEST_F(ModuleRuntimeTest, ThrottleEventByAnotherWriterIsReapplied) {
  auto rt = make({.module_events_available = true});
  ASSERT_TRUE(rt);
  tree.write(kSkinTemp, 46000);
  deliver(*rt, temp_event(1, 46000, 1));
  (void)rt->tick(now);
  ASSERT_EQ(tree.read_int(kKnob), 6);
  tree.write(kKnob, 9);  // a kernel governor or another tool
  deliver(*rt, throttle_event(0, 9, 2));
  EXPECT_EQ(tree.read_int(kKnob), 6);
}

TEST_F(ModuleRuntimeTest, WindowSetFailureFallsBackToSysfs) {
  window_error = SysError{"netlink", "WINDOW_SET", EPERM, "turned off"};
  auto rt = make({.module_events_available = true});
  ASSERT_TRUE(rt);
  ASSERT_EQ(windows.size(), 2u);  // tried first
  std::int64_t low = 0;
  std::int64_t high = 0;
  ASSERT_EQ(std::sscanf(tree.read(kSkinWindow).c_str(), "%ld %ld", &low, &high), 2);
  EXPECT_LE(low, 35000);
  EXPECT_GT(high, 35000);
  EXPECT_LE(high, 45000);
}

TEST_F(ModuleRuntimeTest, WithoutTheModuleFamilyTheMirrorDrivesTheZone) {
  auto rt = make({.events_available = true});
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->event_zones(), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_TRUE(rt->module_event_zones().empty());
  EXPECT_TRUE(windows.empty());
  EXPECT_EQ(thresholds.size(), 2u);
  EXPECT_NE(tree.read(kSkinWindow), "34000 36000\n");  // written in sysfs
  deliver(*rt, temp_event(1, 46000, 1));               // not subscribed: ignored
  (void)rt->tick(now);
  EXPECT_EQ(rt->device_level("throttle"), 0u);
  rt->on_zone_temperature(1, policy::MilliC(46000), now);
  (void)rt->tick(now);
  EXPECT_EQ(rt->device_level("throttle"), 2u);
}

TEST_F(ModuleRuntimeTest, DryRunSendsNoWindow) {
  auto rt = make({.dry_run = true, .module_events_available = true});
  ASSERT_TRUE(rt);
  EXPECT_TRUE(windows.empty());
  EXPECT_EQ(tree.read(kSkinWindow), "34000 36000\n");
}

}  // namespace
}  // namespace coolhand::daemon::coolhand_netlink_test
