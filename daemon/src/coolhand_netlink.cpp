// coolhand generic netlink: validation table, decoding and sockets.
#include "coolhand_netlink.h"

#include <fmt/format.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "coolhand.h"  // kmod/include/uapi: the module's ABI

namespace coolhand::daemon {

namespace {

constexpr std::uint16_t kSysfsPathMax = 4096;  // PATH_MAX, with the NUL

using Policy = std::array<nla_policy, COOLHAND_A_MAX + 1>;

// Every attribute of the family (kmod/README 4.1) with its exact type and
// size. Attributes numbered above COOLHAND_A_MAX (a newer module) are
// skipped by libnl; the ABI only appends.
Policy make_policy() {
  Policy p{};
  auto u32 = [&](int a) { p[a] = nla_policy{NLA_U32, 4, 4}; };
  auto s32 = [&](int a) { p[a] = nla_policy{NLA_S32, 4, 4}; };
  auto str = [&](int a, std::uint16_t max) { p[a] = nla_policy{NLA_STRING, 0, max}; };
  auto nest = [&](int a) { p[a].type = NLA_NESTED; };
  u32(COOLHAND_A_ZONE_ID);
  str(COOLHAND_A_ZONE_NAME, COOLHAND_NAME_LEN);
  u32(COOLHAND_A_ZONE_KIND);
  s32(COOLHAND_A_TEMP);
  s32(COOLHAND_A_PREV_TEMP);
  u32(COOLHAND_A_SEQ);
  p[COOLHAND_A_TIMESTAMP_NS] = nla_policy{NLA_U64, 8, 8};
  nest(COOLHAND_A_TRIP);
  u32(COOLHAND_A_TRIP_TYPE);
  s32(COOLHAND_A_TRIP_TEMP);
  s32(COOLHAND_A_TRIP_HYST);
  u32(COOLHAND_A_TRIP_DIRECTION);
  u32(COOLHAND_A_EVENT_MODE);
  s32(COOLHAND_A_WINDOW_LOW);
  s32(COOLHAND_A_WINDOW_HIGH);
  u32(COOLHAND_A_STEP_BELOW);
  u32(COOLHAND_A_STEP_ABOVE);
  u32(COOLHAND_A_DEV_ID);
  str(COOLHAND_A_DEV_NAME, COOLHAND_NAME_LEN);
  u32(COOLHAND_A_LEVEL);
  u32(COOLHAND_A_MAX_LEVEL);
  u32(COOLHAND_A_POWER_MW);
  nest(COOLHAND_A_ZONE_DEVS);
  u32(COOLHAND_A_THERMAL_ID);
  str(COOLHAND_A_SYSFS_PATH, kSysfsPathMax);
  u32(COOLHAND_A_ALARMS);
  return p;
}

const Policy& attr_policy() {
  static const Policy p = make_policy();
  return p;
}

struct Required {
  int attr;
  const char* name;
};

// The attributes each event carries (kmod/README 4.3); all are required.
constexpr std::array kTempAttrs{
    Required{COOLHAND_A_ZONE_ID, "ZONE_ID"}, Required{COOLHAND_A_TEMP, "TEMP"},
    Required{COOLHAND_A_PREV_TEMP, "PREV_TEMP"}, Required{COOLHAND_A_TIMESTAMP_NS, "TIMESTAMP_NS"},
    Required{COOLHAND_A_SEQ, "SEQ"}};
constexpr std::array kTripAttrs{Required{COOLHAND_A_ZONE_ID, "ZONE_ID"},
                                Required{COOLHAND_A_TRIP_TYPE, "TRIP_TYPE"},
                                Required{COOLHAND_A_TRIP_DIRECTION, "TRIP_DIRECTION"},
                                Required{COOLHAND_A_TRIP_TEMP, "TRIP_TEMP"},
                                Required{COOLHAND_A_TEMP, "TEMP"},
                                Required{COOLHAND_A_TIMESTAMP_NS, "TIMESTAMP_NS"},
                                Required{COOLHAND_A_SEQ, "SEQ"}};
constexpr std::array kThrottleAttrs{
    Required{COOLHAND_A_DEV_ID, "DEV_ID"}, Required{COOLHAND_A_LEVEL, "LEVEL"},
    Required{COOLHAND_A_TIMESTAMP_NS, "TIMESTAMP_NS"}, Required{COOLHAND_A_SEQ, "SEQ"}};

SysError malformed(std::string detail) {
  return SysError{"netlink", "coolhand", 0, std::move(detail)};
}

using Table = std::array<nlattr*, COOLHAND_A_MAX + 1>;

template <std::size_t N>
std::optional<SysError> missing(const Table& tb, const std::array<Required, N>& need,
                                const char* event) {
  for (const Required& r : need) {
    if (!tb[r.attr]) return malformed(fmt::format("{} lacks {}", event, r.name));
  }
  return std::nullopt;
}

// A temperature attribute within the ABI's limits (kmod/README 4.1).
Result<policy::MilliC> temperature(const nlattr* a, const char* what) {
  const std::int32_t t = nla_get_s32(const_cast<nlattr*>(a));
  if (t < COOLHAND_TEMP_MIN_MC || t > COOLHAND_TEMP_MAX_MC)
    return malformed(fmt::format("impossible {} {} m°C", what, t));
  return policy::MilliC(t);
}

}  // namespace

ModuleWindow module_window(const policy::Window& w) {
  const std::int64_t low =
      std::clamp<std::int64_t>(w.low.mc(), COOLHAND_TEMP_MIN_MC, COOLHAND_TEMP_MAX_MC - 1);
  const std::int64_t high = std::clamp<std::int64_t>(w.high.mc(), low + 1, COOLHAND_TEMP_MAX_MC);
  return {static_cast<std::int32_t>(low), static_cast<std::int32_t>(high)};
}

CoolhandMessageHandler::CoolhandMessageHandler(int family_id, CoolhandEventSink sink, Logger& log)
    : family_id_(family_id), sink_(std::move(sink)), log_(log) {}

Result<CoolhandEvent> CoolhandMessageHandler::decode(nl_msg* msg) const {
  nlmsghdr* nlh = nlmsg_hdr(msg);
  if (nlh->nlmsg_type != family_id_) return SysError{"netlink", "coolhand", 0, "foreign"};
  Table tb{};
  const int err = genlmsg_parse(nlh, 0, tb.data(), COOLHAND_A_MAX,
                                const_cast<nla_policy*>(attr_policy().data()));
  if (err < 0) return malformed(std::string("attribute validation: ") + nl_geterror(err));
  // libnl stops quietly at an attribute that runs past the message's end.
  int rem = 0;
  nlattr* a = nullptr;
  nla_for_each_attr(a, genlmsg_attrdata(genlmsg_hdr(nlh), 0), genlmsg_attrlen(genlmsg_hdr(nlh), 0),
                    rem) {}
  if (rem != 0) return malformed(fmt::format("truncated: {} bytes after the last attribute", rem));

  const std::uint8_t cmd = genlmsg_hdr(nlh)->cmd;
  CoolhandEvent ev;
  switch (cmd) {
    case COOLHAND_CMD_EVENT_TEMP:
      if (auto e = missing(tb, kTempAttrs, "EVENT_TEMP")) return *e;
      ev.kind = CoolhandEvent::Kind::temp;
      break;
    case COOLHAND_CMD_EVENT_TRIP:
      if (auto e = missing(tb, kTripAttrs, "EVENT_TRIP")) return *e;
      ev.kind = CoolhandEvent::Kind::trip;
      break;
    case COOLHAND_CMD_EVENT_THROTTLE:
      if (auto e = missing(tb, kThrottleAttrs, "EVENT_THROTTLE")) return *e;
      ev.kind = CoolhandEvent::Kind::throttle;
      break;
    default:
      return malformed(fmt::format("command {} is not an event", cmd));
  }
  ev.seq = nla_get_u32(tb[COOLHAND_A_SEQ]);
  ev.timestamp_ns = nla_get_u64(tb[COOLHAND_A_TIMESTAMP_NS]);
  if (tb[COOLHAND_A_ZONE_ID]) ev.zone_id = nla_get_u32(tb[COOLHAND_A_ZONE_ID]);
  if (tb[COOLHAND_A_DEV_ID]) ev.dev_id = nla_get_u32(tb[COOLHAND_A_DEV_ID]);
  if (tb[COOLHAND_A_LEVEL]) ev.level = nla_get_u32(tb[COOLHAND_A_LEVEL]);
  if (tb[COOLHAND_A_TEMP]) {
    auto t = temperature(tb[COOLHAND_A_TEMP], "TEMP");
    if (!t) return t.error();
    ev.temperature = *t;
  }
  if (tb[COOLHAND_A_PREV_TEMP]) {
    auto t = temperature(tb[COOLHAND_A_PREV_TEMP], "PREV_TEMP");
    if (!t) return t.error();
    ev.prev_temperature = *t;
  }
  if (ev.kind == CoolhandEvent::Kind::trip) {
    auto t = temperature(tb[COOLHAND_A_TRIP_TEMP], "TRIP_TEMP");
    if (!t) return t.error();
    ev.trip_temperature = *t;
    switch (nla_get_u32(tb[COOLHAND_A_TRIP_TYPE])) {
      case COOLHAND_TRIP_PASSIVE:
        ev.trip_type = CoolhandEvent::TripType::passive;
        break;
      case COOLHAND_TRIP_CRITICAL:
        ev.trip_type = CoolhandEvent::TripType::critical;
        break;
      default:
        return malformed(
            fmt::format("unknown trip type {}", nla_get_u32(tb[COOLHAND_A_TRIP_TYPE])));
    }
    switch (nla_get_u32(tb[COOLHAND_A_TRIP_DIRECTION])) {
      case COOLHAND_TRIP_UP:
        ev.trip_direction = CoolhandEvent::Direction::up;
        break;
      case COOLHAND_TRIP_DOWN:
        ev.trip_direction = CoolhandEvent::Direction::down;
        break;
      default:
        return malformed(
            fmt::format("unknown trip direction {}", nla_get_u32(tb[COOLHAND_A_TRIP_DIRECTION])));
    }
  }
  return ev;
}

bool CoolhandMessageHandler::handle(nl_msg* msg) {
  const auto ev = screen<CoolhandEvent>(msg, counters_, log_, "coolhand netlink",
                                        [this](nl_msg* m) { return decode(m); });
  if (!ev) return false;
  bool gap = false;
  if (last_seq_ && ev->seq != static_cast<std::uint32_t>(*last_seq_ + 1)) {
    ++counters_.gaps;
    // Sequence numbers wrap at 2^32; a step back (a repeat) loses nothing.
    const std::uint32_t skipped = ev->seq - *last_seq_ - 1U;
    if (skipped < 0x80000000U) counters_.lost += skipped;
    gap = true;
    log_.debug("coolhand netlink: sequence {} after {}: events lost", ev->seq, *last_seq_);
  }
  last_seq_ = ev->seq;
  ++counters_.accepted;
  sink_(*ev);
  return gap;
}

// ------------------------------------------------------------------ socket --

void CoolhandNetlink::SockDeleter::operator()(nl_sock* s) const {
  nl_socket_free(s);
}

CoolhandNetlink::CoolhandNetlink(int family, CoolhandEventSink sink, Logger& log)
    : family_(family),
      log_(log),
      handler_(family, std::move(sink), log),
      receiver_([this](nl_msg* m) { (void)handler_.handle(m); }, handler_.mutable_counters(), log,
                "coolhand netlink") {}
CoolhandNetlink::~CoolhandNetlink() = default;

int CoolhandNetlink::fd() const {
  return nl_socket_get_fd(events_.get());
}

Result<std::unique_ptr<CoolhandNetlink>> CoolhandNetlink::open(CoolhandEventSink sink,
                                                               Logger& log) {
  auto ev = connect_genl();
  if (!ev) return ev.error();
  auto cmd = connect_genl();
  if (!cmd) return cmd.error();
  const int family = genl_ctrl_resolve(ev->get(), COOLHAND_GENL_NAME);
  if (family < 0) {
    const int code = family == -NLE_OBJ_NOTFOUND ? ENOENT : 0;
    return SysError{"netlink", "family coolhand", code, nl_geterror(family)};
  }
  std::unique_ptr<CoolhandNetlink> c(new CoolhandNetlink(family, std::move(sink), log));
  c->events_.reset(ev->release());
  c->commands_.reset(cmd->release());
  const int g =
      genl_ctrl_resolve_grp(c->events_.get(), COOLHAND_GENL_NAME, COOLHAND_GENL_MCGRP_EVENTS);
  if (g < 0) return SysError{"netlink", "group coolhand/events", 0, nl_geterror(g)};
  if (int e = nl_socket_add_membership(c->events_.get(), g); e < 0)
    return SysError{"netlink", "join coolhand/events", 0, nl_geterror(e)};
  if (int e = nl_socket_set_nonblocking(c->events_.get()); e < 0)
    return SysError{"netlink", "nonblocking", 0, nl_geterror(e)};

  c->version_ = genl_family_version(c->commands_.get(), COOLHAND_GENL_NAME);
  return c;
}

bool CoolhandNetlink::receive() {
  return receiver_.drain(events_.get());
}

Status CoolhandNetlink::set_window(std::uint32_t zone_id, const policy::Window& w) {
  if (!window_set_) return SysError{"netlink", "WINDOW_SET", EPERM, "turned off after EPERM"};
  const ModuleWindow mw = module_window(w);
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> m(nlmsg_alloc(), &nlmsg_free);
  if (!m) return SysError{"netlink", "alloc", ENOMEM, {}};
  if (!genlmsg_put(m.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, NLM_F_REQUEST | NLM_F_ACK,
                   COOLHAND_CMD_WINDOW_SET, COOLHAND_GENL_VERSION) ||
      nla_put_u32(m.get(), COOLHAND_A_ZONE_ID, zone_id) < 0 ||
      nla_put_s32(m.get(), COOLHAND_A_WINDOW_LOW, mw.low_mc) < 0 ||
      nla_put_s32(m.get(), COOLHAND_A_WINDOW_HIGH, mw.high_mc) < 0) {
    return SysError{"netlink", "WINDOW_SET", ENOMEM, "message too small"};
  }
  int e = nl_send_auto(commands_.get(), m.get());
  if (e >= 0) e = nl_wait_for_ack(commands_.get());
  if (e == -NLE_PERM) {
    window_set_ = false;
    log_.warning(
        "coolhand netlink: WINDOW_SET not permitted (needs CAP_SYS_ADMIN); writing the zones' "
        "event_window in sysfs instead");
    return SysError{"netlink", "WINDOW_SET", EPERM, nl_geterror(e)};
  }
  if (e < 0)
    return SysError{"netlink", fmt::format("WINDOW_SET zone {}", zone_id), 0, nl_geterror(e)};
  log_.debug("coolhand netlink: zone {} window {} .. {} m°C", zone_id, mw.low_mc, mw.high_mc);
  return Ok{};
}

}  // namespace coolhand::daemon
