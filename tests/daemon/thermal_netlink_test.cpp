// ThermalMessageHandler fed with messages built by libnl: valid events,
// spoofed senders, wrong attribute types, truncation and sequence gaps.
#include "thermal_netlink.h"

#include <gtest/gtest.h>
#include <linux/thermal.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <memory>
#include <vector>

namespace coolhand::daemon::thermal_netlink_test {
namespace {

constexpr int kFamily = 0x1c;

using MsgPtr = std::unique_ptr<nl_msg, void (*)(nl_msg*)>;

MsgPtr message(std::uint8_t cmd, std::uint32_t seq = 0, int family = kFamily) {
  MsgPtr m(nlmsg_alloc(), &nlmsg_free);
  genlmsg_put(m.get(), 0, seq, family, 0, 0, cmd, THERMAL_GENL_VERSION);
  return m;
}

struct NetlinkTest : ::testing::Test {
  NetlinkTest()
      : handler(
            kFamily, [this](const ThermalEvent& e) { events.push_back(e); }, log) {
    log.capture();
  }
  Logger log;
  std::vector<ThermalEvent> events;
  ThermalMessageHandler handler;
};

TEST_F(NetlinkTest, SamplingTempBecomesASample) {
  auto m = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45500);
  EXPECT_FALSE(handler.handle(m.get()));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ThermalEvent::Kind::sample);
  EXPECT_EQ(events[0].tz_id, 3u);
  EXPECT_EQ(events[0].temperature->mc(), 45500);
  EXPECT_EQ(handler.counters().accepted, 1u);
}

TEST_F(NetlinkTest, NegativeTemperatureTravelsAsTwosComplement) {
  auto m = message(THERMAL_GENL_EVENT_TZ_TRIP_DOWN);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 1);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TRIP_ID, 0);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, static_cast<std::uint32_t>(-5000));
  handler.handle(m.get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ThermalEvent::Kind::trip_down);
  EXPECT_EQ(events[0].temperature->mc(), -5000);
}

TEST_F(NetlinkTest, ZoneCreateCarriesTheName) {
  auto m = message(THERMAL_GENL_EVENT_TZ_CREATE);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 9);
  nla_put_string(m.get(), THERMAL_GENL_ATTR_TZ_NAME, "skin-therm");
  handler.handle(m.get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, ThermalEvent::Kind::tz_create);
  EXPECT_EQ(events[0].name, "skin-therm");
}

TEST_F(NetlinkTest, NonzeroSenderPortIsDroppedAsSpoofed) {
  auto m = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, 99000);
  sockaddr_nl src{};
  src.nl_family = AF_NETLINK;
  src.nl_pid = 4242;
  nlmsg_set_src(m.get(), &src);
  handler.handle(m.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().spoofed, 1u);
  EXPECT_EQ(handler.counters().accepted, 0u);
}

// A user process multicasting to the family's groups arrives with its own
// port and the group mask set; the kernel's multicasts carry port 0 and the
// group. Only the port tells them apart (mutant: a sender is screened only
// when nl_groups == 0, letting multicast spoofs through).
TEST_F(NetlinkTest, MulticastSpoofIsDroppedAndKernelMulticastAccepted) {
  for (std::uint32_t groups : {1u << 0, 1u << 1, 0x3u}) {
    auto m = message(THERMAL_GENL_SAMPLING_TEMP);
    nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
    nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, 99000);
    sockaddr_nl src{};
    src.nl_family = AF_NETLINK;
    src.nl_pid = 4242;
    src.nl_groups = groups;
    nlmsg_set_src(m.get(), &src);
    handler.handle(m.get());
  }
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().spoofed, 3u);
  EXPECT_EQ(handler.counters().accepted, 0u);

  auto kernel = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(kernel.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(kernel.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45000);
  sockaddr_nl src{};
  src.nl_family = AF_NETLINK;
  src.nl_groups = 1u << 1;  // the sampling group, from port 0
  nlmsg_set_src(kernel.get(), &src);
  handler.handle(kernel.get());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].temperature->mc(), 45000);
  EXPECT_EQ(handler.counters().accepted, 1u);
  EXPECT_EQ(handler.counters().spoofed, 3u);
}

TEST_F(NetlinkTest, WrongAttributeTypesAreMalformed) {
  auto narrow = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(narrow.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u16(narrow.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45);
  handler.handle(narrow.get());
  auto wide = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u64(wide.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(wide.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45000);
  handler.handle(wide.get());
  auto unterminated = message(THERMAL_GENL_EVENT_TZ_CREATE);
  nla_put_u32(unterminated.get(), THERMAL_GENL_ATTR_TZ_ID, 9);
  nla_put(unterminated.get(), THERMAL_GENL_ATTR_TZ_NAME, 4, "skin");
  handler.handle(unterminated.get());
  auto too_long = message(THERMAL_GENL_EVENT_TZ_CREATE);
  nla_put_u32(too_long.get(), THERMAL_GENL_ATTR_TZ_ID, 9);
  nla_put_string(too_long.get(), THERMAL_GENL_ATTR_TZ_NAME, "a-zone-name-longer-than-twenty");
  handler.handle(too_long.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().malformed, 4u);
}

TEST_F(NetlinkTest, TruncatedMessagesAreMalformed) {
  auto cut_attr = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(cut_attr.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(cut_attr.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45000);
  nlmsg_hdr(cut_attr.get())->nlmsg_len -= 4;
  handler.handle(cut_attr.get());
  auto no_genl_header = message(THERMAL_GENL_SAMPLING_TEMP);
  nlmsg_hdr(no_genl_header.get())->nlmsg_len = NLMSG_HDRLEN;
  handler.handle(no_genl_header.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().malformed, 2u);
}

TEST_F(NetlinkTest, MissingAttributesAndUnknownCommandsAreMalformed) {
  auto no_temp = message(THERMAL_GENL_EVENT_TZ_TRIP_UP);
  nla_put_u32(no_temp.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(no_temp.get(), THERMAL_GENL_ATTR_TZ_TRIP_ID, 1);
  handler.handle(no_temp.get());
  auto unknown = message(200);
  handler.handle(unknown.get());
  auto impossible = message(THERMAL_GENL_SAMPLING_TEMP);
  nla_put_u32(impossible.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(impossible.get(), THERMAL_GENL_ATTR_TZ_TEMP, 0x7fffffff);
  handler.handle(impossible.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().malformed, 3u);
}

TEST_F(NetlinkTest, OtherFamiliesAreIgnored) {
  auto m = message(THERMAL_GENL_SAMPLING_TEMP, 0, kFamily + 1);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 3);
  nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_TEMP, 45000);
  handler.handle(m.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().foreign, 1u);
}

TEST_F(NetlinkTest, SequenceGapAsksForResync) {
  auto send = [&](std::uint32_t seq) {
    auto m = message(THERMAL_GENL_EVENT_TZ_ENABLE, seq);
    nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, 1);
    return handler.handle(m.get());
  };
  EXPECT_FALSE(send(5));
  EXPECT_FALSE(send(6));
  EXPECT_TRUE(send(9));
  EXPECT_FALSE(send(10));
  EXPECT_EQ(handler.counters().gaps, 1u);
  EXPECT_EQ(events.size(), 4u);
}

}  // namespace
}  // namespace coolhand::daemon::thermal_netlink_test
