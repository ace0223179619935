// The user-threshold side of the thermal netlink adapter, checked against the
// numbers of the mainline header that has them (include/uapi/linux/thermal.h
// as shipped in Debian's linux-libc-dev 7.3.4; the 6.16.12 guest kernel
// behaves the same, tests/thresholds): the THRESHOLD_FLUSH/ADD requests the
// daemon sends, the THRESHOLD_* events it decodes, and the receive path that
// must hand multicast messages with any sequence number to the handler.
// The numbers are written out here on purpose: Debian 12's own header (6.1)
// lacks them, and the daemon's copy must not be checked against itself.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "thermal_netlink.h"

namespace coolhand::daemon::thresholds_test {
namespace {

constexpr int kFamily = 0x1d;

// include/uapi/linux/thermal.h (6.13+).
constexpr int kAttrTzId = 2;
constexpr int kAttrTzTemp = 3;
constexpr int kAttrThresholdTemp = 25;
constexpr int kAttrThresholdDirection = 26;
constexpr int kAttrTzPrevTemp = 27;
constexpr int kAttrMax = 27;
constexpr std::uint8_t kCmdThresholdGet = 7;
constexpr std::uint8_t kCmdThresholdAdd = 8;
constexpr std::uint8_t kCmdThresholdFlush = 10;
constexpr std::uint8_t kEventThresholdAdd = 15;
constexpr std::uint8_t kEventThresholdDelete = 16;
constexpr std::uint8_t kEventThresholdFlush = 17;
constexpr std::uint8_t kEventThresholdUp = 18;
constexpr std::uint8_t kEventThresholdDown = 19;
constexpr std::uint32_t kWayUp = 1;
constexpr std::uint32_t kWayDown = 2;

struct Parsed {
  std::uint16_t type = 0;
  std::uint16_t flags = 0;
  std::uint8_t cmd = 0;
  std::array<nlattr*, kAttrMax + 1> tb{};
};

Parsed parse(nl_msg* m) {
  Parsed p;
  nlmsghdr* h = nlmsg_hdr(m);
  p.type = h->nlmsg_type;
  p.flags = h->nlmsg_flags;
  p.cmd = genlmsg_hdr(h)->cmd;
  EXPECT_EQ(genlmsg_parse(h, 0, p.tb.data(), kAttrMax, nullptr), 0);
  return p;
}

std::vector<int> present(const Parsed& p) {
  std::vector<int> v;
  for (int a = 0; a <= kAttrMax; ++a)
    if (p.tb[a]) v.push_back(a);
  return v;
}

TEST(ThresholdRequest, FlushCarriesOnlyTheZone) {
  auto m = encode_threshold_flush(kFamily, 4);
  ASSERT_TRUE(m);
  const Parsed p = parse(m->get());
  EXPECT_EQ(p.type, kFamily);
  EXPECT_EQ(p.cmd, kCmdThresholdFlush);
  EXPECT_EQ(p.flags & (NLM_F_REQUEST | NLM_F_ACK), NLM_F_REQUEST | NLM_F_ACK);
  EXPECT_EQ(present(p), std::vector<int>{kAttrTzId});
  EXPECT_EQ(nla_get_u32(p.tb[kAttrTzId]), 4u);
}

TEST(ThresholdRequest, AddUpCarriesZoneTemperatureAndDirection) {
  auto m = encode_threshold_add(kFamily, 7, policy::MilliC(55500), ThresholdWay::up);
  ASSERT_TRUE(m);
  const Parsed p = parse(m->get());
  EXPECT_EQ(p.cmd, kCmdThresholdAdd);
  EXPECT_NE(p.cmd, kCmdThresholdGet);
  EXPECT_EQ(p.flags & (NLM_F_REQUEST | NLM_F_ACK), NLM_F_REQUEST | NLM_F_ACK);
  EXPECT_EQ(present(p), (std::vector<int>{kAttrTzId, kAttrThresholdTemp, kAttrThresholdDirection}));
  EXPECT_EQ(nla_len(p.tb[kAttrThresholdTemp]), 4);
  EXPECT_EQ(nla_len(p.tb[kAttrThresholdDirection]), 4);
  EXPECT_EQ(nla_get_u32(p.tb[kAttrTzId]), 7u);
  EXPECT_EQ(nla_get_u32(p.tb[kAttrThresholdTemp]), 55500u);
  EXPECT_EQ(nla_get_u32(p.tb[kAttrThresholdDirection]), kWayUp);
}

TEST(ThresholdRequest, AddDownUsesDirectionTwo) {
  auto m = encode_threshold_add(kFamily, 0, policy::MilliC(44500), ThresholdWay::down);
  ASSERT_TRUE(m);
  const Parsed p = parse(m->get());
  EXPECT_EQ(nla_get_u32(p.tb[kAttrThresholdDirection]), kWayDown);
  EXPECT_EQ(nla_get_u32(p.tb[kAttrThresholdTemp]), 44500u);
}

TEST(ThresholdRequest, NegativeTemperatureIsTwosComplement) {
  auto m = encode_threshold_add(kFamily, 1, policy::MilliC(-12000), ThresholdWay::down);
  ASSERT_TRUE(m);
  const Parsed p = parse(m->get());
  EXPECT_EQ(static_cast<std::int32_t>(nla_get_u32(p.tb[kAttrThresholdTemp])), -12000);
}

struct ThresholdEvents : ::testing::Test {
  ThresholdEvents()
      : handler(
            kFamily, [this](const ThermalEvent& e) { events.push_back(e); }, log) {
    log.capture();
  }
  static NlMsgPtr event(std::uint8_t cmd) {
    NlMsgPtr m(nlmsg_alloc(), &nlmsg_free);
    genlmsg_put(m.get(), 0, 0, kFamily, 0, 0, cmd, 2);
    return m;
  }
  Logger log;
  std::vector<ThermalEvent> events;
  ThermalMessageHandler handler;
};

// What 6.16 sends on a crossing: {TZ_ID, TZ_TEMP, TZ_PREV_TEMP}.
TEST_F(ThresholdEvents, UpAndDownCarryTheZoneAndItsTemperature) {
  auto up = event(kEventThresholdUp);
  nla_put_u32(up.get(), kAttrTzId, 0);
  nla_put_u32(up.get(), kAttrTzTemp, 55000);
  nla_put_u32(up.get(), kAttrTzPrevTemp, 40000);
  handler.handle(up.get());
  auto down = event(kEventThresholdDown);
  nla_put_u32(down.get(), kAttrTzId, 0);
  nla_put_u32(down.get(), kAttrTzTemp, 45000);
  nla_put_u32(down.get(), kAttrTzPrevTemp, 55000);
  handler.handle(down.get());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, ThermalEvent::Kind::threshold_up);
  EXPECT_EQ(events[0].tz_id, 0u);
  EXPECT_EQ(events[0].temperature->mc(), 55000);
  EXPECT_EQ(events[1].kind, ThermalEvent::Kind::threshold_down);
  EXPECT_EQ(events[1].temperature->mc(), 45000);
}

// The echoes of the daemon's own requests: {TZ_ID, THRESHOLD_TEMP, DIRECTION}.
TEST_F(ThresholdEvents, AddDeleteFlushEchoesAreAcceptedAndIgnored) {
  for (std::uint8_t cmd : {kEventThresholdAdd, kEventThresholdDelete}) {
    auto m = event(cmd);
    nla_put_u32(m.get(), kAttrTzId, 0);
    nla_put_u32(m.get(), kAttrThresholdTemp, 45500);
    nla_put_u32(m.get(), kAttrThresholdDirection, kWayUp);
    handler.handle(m.get());
  }
  auto flush = event(kEventThresholdFlush);
  nla_put_u32(flush.get(), kAttrTzId, 0);
  handler.handle(flush.get());
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) EXPECT_EQ(e.kind, ThermalEvent::Kind::other);
  EXPECT_EQ(handler.counters().malformed, 0u);
}

TEST_F(ThresholdEvents, CrossingWithoutTemperatureIsMalformed) {
  auto m = event(kEventThresholdUp);
  nla_put_u32(m.get(), kAttrTzId, 0);
  nla_put_u32(m.get(), kAttrTzPrevTemp, 40000);
  handler.handle(m.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().malformed, 1u);
}

TEST_F(ThresholdEvents, WrongSizedThresholdAttributesAreMalformed) {
  auto prev = event(kEventThresholdDown);
  nla_put_u32(prev.get(), kAttrTzId, 0);
  nla_put_u32(prev.get(), kAttrTzTemp, 45000);
  nla_put_u16(prev.get(), kAttrTzPrevTemp, 1);
  handler.handle(prev.get());
  auto way = event(kEventThresholdAdd);
  nla_put_u32(way.get(), kAttrTzId, 0);
  nla_put_u64(way.get(), kAttrThresholdDirection, kWayUp);
  handler.handle(way.get());
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(handler.counters().malformed, 2u);
}

// Two user netlink sockets (NETLINK_USERSOCK allows unprivileged unicast):
// messages with arbitrary sequence numbers must reach the handler, which
// sees a nonzero sender port and counts them as spoofed. With libnl's
// default sequence check they never arrived (the bug found on 6.16).
TEST(ThermalReceiverTest, MessagesWithAnySequenceNumberReachTheHandler) {
  using SockPtr = std::unique_ptr<nl_sock, void (*)(nl_sock*)>;
  SockPtr rx(nl_socket_alloc(), &nl_socket_free);
  SockPtr tx(nl_socket_alloc(), &nl_socket_free);
  ASSERT_TRUE(rx && tx);
  if (nl_connect(rx.get(), NETLINK_USERSOCK) < 0 || nl_connect(tx.get(), NETLINK_USERSOCK) < 0) {
    const char* ci = std::getenv("CI");
    if (ci && std::string_view(ci) == "true") FAIL() << "NETLINK_USERSOCK sockets unavailable";
    GTEST_SKIP() << "NETLINK_USERSOCK sockets unavailable here";
  }
  ASSERT_EQ(nl_socket_set_nonblocking(rx.get()), 0);
  nl_socket_set_peer_port(tx.get(), nl_socket_get_local_port(rx.get()));

  Logger log;
  log.capture();
  std::vector<ThermalEvent> events;
  ThermalReceiver receiver(
      kFamily, [&](const ThermalEvent& e) { events.push_back(e); }, log);
  for (std::uint32_t seq : {4242u, 7u, 0u}) {
    NlMsgPtr m(nlmsg_alloc(), &nlmsg_free);
    ASSERT_NE(genlmsg_put(m.get(), NL_AUTO_PORT, seq, kFamily, 0, 0, kEventThresholdUp, 2),
              nullptr);
    nla_put_u32(m.get(), kAttrTzId, 0);
    nla_put_u32(m.get(), kAttrTzTemp, 50000);
    ASSERT_GE(nl_send(tx.get(), m.get()), 0);
  }
  EXPECT_FALSE(receiver.drain(rx.get()));
  EXPECT_EQ(receiver.counters().received, 3u);
  EXPECT_EQ(receiver.counters().spoofed, 3u);
  EXPECT_TRUE(events.empty());
}

}  // namespace
}  // namespace coolhand::daemon::thresholds_test
