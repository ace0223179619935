// Thermal generic netlink: validation table, decoding and sockets.
#include "thermal_netlink.h"

#include <linux/thermal.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <array>
#include <new>

namespace coolhand::daemon {

namespace {

// Numbers added after Debian 12's 6.1 header (mainline include/uapi/linux/thermal.h, 6.13).
constexpr int kAttrThreshold = 24;
constexpr int kAttrThresholdTemp = 25;
constexpr int kAttrThresholdDirection = 26;
constexpr int kAttrTzPrevTemp = 27;
constexpr int kAttrMax = 27;
constexpr std::uint8_t kEventThresholdAdd = 15;
constexpr std::uint8_t kEventThresholdFlush = 17;
constexpr std::uint8_t kEventThresholdUp = 18;
constexpr std::uint8_t kEventThresholdDown = 19;
constexpr std::uint8_t kCmdThresholdAdd = 8;
constexpr std::uint8_t kCmdThresholdFlush = 10;
constexpr std::uint32_t kFirstThresholdVersion = 2;
constexpr std::uint16_t kNameLength = 20;  // THERMAL_NAME_LENGTH, with the NUL
constexpr std::int32_t kMinTempMc = -100'000;
constexpr std::int32_t kMaxTempMc = 400'000;

static_assert(THERMAL_GENL_ATTR_CPU_CAPABILITY_EFFICIENCY == 23, "attribute numbering changed");
static_assert(THERMAL_GENL_EVENT_CPU_CAPABILITY_CHANGE == 14, "event numbering changed");

using Policy = std::array<nla_policy, kAttrMax + 1>;

// Every attribute the kernel sends, with its exact type and size.
Policy make_policy() {
  Policy p{};
  auto u32 = [&](int a) { p[a] = nla_policy{NLA_U32, 4, 4}; };
  auto str = [&](int a) { p[a] = nla_policy{NLA_STRING, 0, kNameLength}; };
  auto nest = [&](int a) { p[a].type = NLA_NESTED; };
  nest(THERMAL_GENL_ATTR_TZ);
  u32(THERMAL_GENL_ATTR_TZ_ID);
  u32(THERMAL_GENL_ATTR_TZ_TEMP);
  nest(THERMAL_GENL_ATTR_TZ_TRIP);
  u32(THERMAL_GENL_ATTR_TZ_TRIP_ID);
  u32(THERMAL_GENL_ATTR_TZ_TRIP_TYPE);
  u32(THERMAL_GENL_ATTR_TZ_TRIP_TEMP);
  u32(THERMAL_GENL_ATTR_TZ_TRIP_HYST);
  u32(THERMAL_GENL_ATTR_TZ_MODE);
  str(THERMAL_GENL_ATTR_TZ_NAME);
  u32(THERMAL_GENL_ATTR_TZ_CDEV_WEIGHT);
  nest(THERMAL_GENL_ATTR_TZ_GOV);
  str(THERMAL_GENL_ATTR_TZ_GOV_NAME);
  nest(THERMAL_GENL_ATTR_CDEV);
  u32(THERMAL_GENL_ATTR_CDEV_ID);
  u32(THERMAL_GENL_ATTR_CDEV_CUR_STATE);
  u32(THERMAL_GENL_ATTR_CDEV_MAX_STATE);
  str(THERMAL_GENL_ATTR_CDEV_NAME);
  str(THERMAL_GENL_ATTR_GOV_NAME);
  nest(THERMAL_GENL_ATTR_CPU_CAPABILITY);
  u32(THERMAL_GENL_ATTR_CPU_CAPABILITY_ID);
  u32(THERMAL_GENL_ATTR_CPU_CAPABILITY_PERFORMANCE);
  u32(THERMAL_GENL_ATTR_CPU_CAPABILITY_EFFICIENCY);
  nest(kAttrThreshold);
  u32(kAttrThresholdTemp);
  u32(kAttrThresholdDirection);
  u32(kAttrTzPrevTemp);
  return p;
}

const Policy& attr_policy() {
  static const Policy p = make_policy();
  return p;
}

// What each command must carry, and the event it becomes.
struct CommandRule {
  ThermalEvent::Kind kind;
  bool tz_id, temp, trip_id, name, cdev_id, cdev_state;
};

std::optional<CommandRule> rule_for(std::uint8_t cmd) {
  using K = ThermalEvent::Kind;
  switch (cmd) {
    case THERMAL_GENL_SAMPLING_TEMP:
      return CommandRule{K::sample, true, true, false, false, false, false};
    case THERMAL_GENL_EVENT_TZ_CREATE:
      return CommandRule{K::tz_create, true, false, false, true, false, false};
    case THERMAL_GENL_EVENT_TZ_DELETE:
      return CommandRule{K::tz_delete, true, false, false, false, false, false};
    case THERMAL_GENL_EVENT_TZ_DISABLE:
      return CommandRule{K::tz_disable, true, false, false, false, false, false};
    case THERMAL_GENL_EVENT_TZ_ENABLE:
      return CommandRule{K::tz_enable, true, false, false, false, false, false};
    case THERMAL_GENL_EVENT_TZ_TRIP_UP:
      return CommandRule{K::trip_up, true, true, true, false, false, false};
    case THERMAL_GENL_EVENT_TZ_TRIP_DOWN:
      return CommandRule{K::trip_down, true, true, true, false, false, false};
    case THERMAL_GENL_EVENT_TZ_TRIP_CHANGE:
    case THERMAL_GENL_EVENT_TZ_TRIP_ADD:
    case THERMAL_GENL_EVENT_TZ_TRIP_DELETE:
      return CommandRule{K::trip_change, true, false, true, false, false, false};
    case THERMAL_GENL_EVENT_CDEV_ADD:
      return CommandRule{K::cdev_add, false, false, false, true, true, false};
    case THERMAL_GENL_EVENT_CDEV_DELETE:
      return CommandRule{K::cdev_delete, false, false, false, false, true, false};
    case THERMAL_GENL_EVENT_CDEV_STATE_UPDATE:
      return CommandRule{K::cdev_update, false, false, false, false, true, true};
    case THERMAL_GENL_EVENT_TZ_GOV_CHANGE:
      return CommandRule{K::gov_change, true, false, false, false, false, false};
    case THERMAL_GENL_EVENT_CPU_CAPABILITY_CHANGE:
    case kEventThresholdAdd:
    case kEventThresholdAdd + 1:
    case kEventThresholdFlush:
      return CommandRule{K::other, false, false, false, false, false, false};
    case kEventThresholdUp:
      return CommandRule{K::threshold_up, true, true, false, false, false, false};
    case kEventThresholdDown:
      return CommandRule{K::threshold_down, true, true, false, false, false, false};
    default:
      return std::nullopt;
  }
}

SysError malformed(std::string detail) {
  return SysError{"netlink", "thermal", 0, std::move(detail)};
}

}  // namespace

const char* to_string(ThermalEvent::Kind k) {
  using K = ThermalEvent::Kind;
  switch (k) {
    case K::sample:
      return "sample";
    case K::tz_create:
      return "tz_create";
    case K::tz_delete:
      return "tz_delete";
    case K::tz_enable:
      return "tz_enable";
    case K::tz_disable:
      return "tz_disable";
    case K::trip_up:
      return "trip_up";
    case K::trip_down:
      return "trip_down";
    case K::trip_change:
      return "trip_change";
    case K::cdev_add:
      return "cdev_add";
    case K::cdev_delete:
      return "cdev_delete";
    case K::cdev_update:
      return "cdev_update";
    case K::gov_change:
      return "gov_change";
    case K::threshold_up:
      return "threshold_up";
    case K::threshold_down:
      return "threshold_down";
    case K::other:
      break;
  }
  return "other";
}

ThermalMessageHandler::ThermalMessageHandler(int family_id, ThermalEventSink sink, Logger& log)
    : family_id_(family_id), sink_(std::move(sink)), log_(log) {}

Result<ThermalEvent> ThermalMessageHandler::decode(nl_msg* msg) const {
  nlmsghdr* nlh = nlmsg_hdr(msg);
  if (nlh->nlmsg_type != family_id_) return SysError{"netlink", "thermal", 0, "foreign"};
  std::array<nlattr*, kAttrMax + 1> tb{};
  const int err =
      genlmsg_parse(nlh, 0, tb.data(), kAttrMax, const_cast<nla_policy*>(attr_policy().data()));
  if (err < 0) return malformed(std::string("attribute validation: ") + nl_geterror(err));
  const std::uint8_t cmd = genlmsg_hdr(nlh)->cmd;
  auto rule = rule_for(cmd);
  if (!rule) return malformed("unknown command " + std::to_string(cmd));
  ThermalEvent ev;
  ev.kind = rule->kind;
  auto need = [&](bool wanted, int attr, const char* what) -> std::optional<SysError> {
    if (wanted && !tb[attr])
      return malformed(std::string("command ") + std::to_string(cmd) + " lacks " + what);
    return std::nullopt;
  };
  if (auto e = need(rule->tz_id, THERMAL_GENL_ATTR_TZ_ID, "TZ_ID")) return *e;
  if (auto e = need(rule->temp, THERMAL_GENL_ATTR_TZ_TEMP, "TZ_TEMP")) return *e;
  if (auto e = need(rule->trip_id, THERMAL_GENL_ATTR_TZ_TRIP_ID, "TZ_TRIP_ID")) return *e;
  if (auto e = need(rule->cdev_id, THERMAL_GENL_ATTR_CDEV_ID, "CDEV_ID")) return *e;
  if (auto e = need(rule->cdev_state, THERMAL_GENL_ATTR_CDEV_CUR_STATE, "CDEV_CUR_STATE"))
    return *e;
  const int name_attr =
      cmd == THERMAL_GENL_EVENT_CDEV_ADD ? THERMAL_GENL_ATTR_CDEV_NAME : THERMAL_GENL_ATTR_TZ_NAME;
  if (auto e = need(rule->name, name_attr, "a name")) return *e;

  if (tb[THERMAL_GENL_ATTR_TZ_ID]) ev.tz_id = nla_get_u32(tb[THERMAL_GENL_ATTR_TZ_ID]);
  if (tb[THERMAL_GENL_ATTR_TZ_TRIP_ID]) ev.trip_id = nla_get_u32(tb[THERMAL_GENL_ATTR_TZ_TRIP_ID]);
  if (tb[THERMAL_GENL_ATTR_CDEV_ID]) ev.cdev_id = nla_get_u32(tb[THERMAL_GENL_ATTR_CDEV_ID]);
  if (tb[THERMAL_GENL_ATTR_CDEV_CUR_STATE])
    ev.cdev_state = nla_get_u32(tb[THERMAL_GENL_ATTR_CDEV_CUR_STATE]);
  if (rule->name) ev.name = nla_get_string(tb[name_attr]);
  if (rule->temp) {
    // Negative temperatures travel as two's complement in a u32.
    const auto t = static_cast<std::int32_t>(nla_get_u32(tb[THERMAL_GENL_ATTR_TZ_TEMP]));
    if (t < kMinTempMc || t > kMaxTempMc)
      return malformed("impossible temperature " + std::to_string(t));
    ev.temperature = policy::MilliC(t);
  }
  return ev;
}

bool ThermalMessageHandler::handle(nl_msg* msg) {
  const auto ev = screen<ThermalEvent>(msg, counters_, log_, "netlink",
                                       [this](nl_msg* m) { return decode(m); });
  if (!ev) return false;
  bool gap = false;
  const std::uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;
  if (seq != 0) {
    if (last_seq_ && seq != *last_seq_ + 1) {
      ++counters_.gaps;
      gap = true;
    }
    last_seq_ = seq;
  }
  ++counters_.accepted;
  if (ev->tz_id && ev->temperature) {
    log_.debug("netlink: {} zone {} at {} m°C", to_string(ev->kind), *ev->tz_id,
               ev->temperature->mc());
  }
  sink_(*ev);
  return gap;
}

// ---------------------------------------------------------------- requests --

namespace {
Result<NlMsgPtr> threshold_request(int family_id, std::uint8_t cmd, std::uint32_t tz_id) {
  NlMsgPtr m(nlmsg_alloc(), &nlmsg_free);
  if (!m) return SysError{"netlink", "alloc", ENOMEM, {}};
  if (!genlmsg_put(m.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_id, 0, NLM_F_REQUEST | NLM_F_ACK, cmd,
                   THERMAL_GENL_VERSION) ||
      nla_put_u32(m.get(), THERMAL_GENL_ATTR_TZ_ID, tz_id) < 0) {
    return SysError{"netlink", "threshold request", ENOMEM, {}};
  }
  return m;
}
}  // namespace

Result<NlMsgPtr> encode_threshold_flush(int family_id, std::uint32_t tz_id) {
  return threshold_request(family_id, kCmdThresholdFlush, tz_id);
}

Result<NlMsgPtr> encode_threshold_add(int family_id, std::uint32_t tz_id, policy::MilliC temp,
                                      ThresholdWay way) {
  auto m = threshold_request(family_id, kCmdThresholdAdd, tz_id);
  if (!m) return m;
  // The kernel reads the temperature with nla_get_u32 into an int.
  if (nla_put_u32(m->get(), kAttrThresholdTemp, static_cast<std::uint32_t>(temp.mc())) < 0 ||
      nla_put_u32(m->get(), kAttrThresholdDirection, static_cast<std::uint32_t>(way)) < 0) {
    return SysError{"netlink", "threshold request", ENOMEM, {}};
  }
  return m;
}

// ---------------------------------------------------------------- receiver --

ThermalReceiver::ThermalReceiver(int family_id, ThermalEventSink sink, Logger& log)
    : handler_(family_id, std::move(sink), log),
      receiver_([this](nl_msg* m) { (void)handler_.handle(m); }, handler_.mutable_counters(), log,
                "netlink") {}
ThermalReceiver::~ThermalReceiver() = default;

bool ThermalReceiver::drain(nl_sock* sock) {
  return receiver_.drain(sock);
}

// ------------------------------------------------------------------ socket --

void ThermalNetlink::SockDeleter::operator()(nl_sock* s) const {
  nl_socket_free(s);
}

ThermalNetlink::ThermalNetlink(int family, ThermalEventSink sink, Logger& log)
    : family_(family), log_(log), receiver_(family, std::move(sink), log) {}
ThermalNetlink::~ThermalNetlink() = default;

int ThermalNetlink::fd() const {
  return nl_socket_get_fd(events_.get());
}

Result<std::unique_ptr<ThermalNetlink>> ThermalNetlink::open(ThermalEventSink sink, Logger& log) {
  auto ev = connect_genl();
  if (!ev) return ev.error();
  auto cmd = connect_genl();
  if (!cmd) return cmd.error();
  const int family = genl_ctrl_resolve(ev->get(), THERMAL_GENL_FAMILY_NAME);
  if (family < 0) return SysError{"netlink", "family thermal", 0, nl_geterror(family)};
  std::unique_ptr<ThermalNetlink> t(new ThermalNetlink(family, std::move(sink), log));
  t->events_.reset(ev->release());
  t->commands_.reset(cmd->release());
  auto group_id = [&](const char* group) -> Result<int> {
    const int g = genl_ctrl_resolve_grp(t->events_.get(), THERMAL_GENL_FAMILY_NAME, group);
    if (g < 0) return SysError{"netlink", std::string("group ") + group, 0, nl_geterror(g)};
    return g;
  };
  auto event_group = group_id(THERMAL_GENL_EVENT_GROUP_NAME);
  if (!event_group) return event_group.error();
  auto sampling_group = group_id(THERMAL_GENL_SAMPLING_GROUP_NAME);
  if (!sampling_group) return sampling_group.error();
  t->sampling_group_ = *sampling_group;
  if (int e = nl_socket_add_membership(t->events_.get(), *event_group); e < 0) {
    return SysError{"netlink", "join event", 0, nl_geterror(e)};
  }
  if (int e = nl_socket_set_nonblocking(t->events_.get()); e < 0) {
    return SysError{"netlink", "nonblocking", 0, nl_geterror(e)};
  }

  t->version_ = genl_family_version(t->commands_.get(), THERMAL_GENL_FAMILY_NAME);
  t->thresholds_ = t->version_ >= kFirstThresholdVersion;
  if (!t->thresholds_) {
    if (auto s = t->join_sampling(); !s) return s.error();
  }
  return t;
}

Status ThermalNetlink::join_sampling() {
  if (sampling_joined_) return Ok{};
  if (int e = nl_socket_add_membership(events_.get(), sampling_group_); e < 0) {
    return SysError{"netlink", "join sampling", 0, nl_geterror(e)};
  }
  sampling_joined_ = true;
  return Ok{};
}

bool ThermalNetlink::receive() {
  return receiver_.drain(events_.get());
}

Status ThermalNetlink::request(Result<NlMsgPtr> msg) {
  if (!msg) return msg.error();
  if (int e = nl_send_auto(commands_.get(), msg->get()); e < 0) {
    return SysError{"netlink", "threshold command", 0, nl_geterror(e)};
  }
  if (int e = nl_wait_for_ack(commands_.get()); e < 0) {
    return SysError{"netlink", "threshold command", 0, nl_geterror(e)};
  }
  return Ok{};
}

Status ThermalNetlink::set_window(std::uint32_t tz_id, const policy::Window& w) {
  if (!thresholds_) return SysError{"netlink", "thresholds", EOPNOTSUPP, "family version < 2"};
  Status s = request(encode_threshold_flush(family_, tz_id));
  if (s && w.high != policy::MilliC::max())
    s = request(encode_threshold_add(family_, tz_id, w.high, ThresholdWay::up));
  if (s && w.low != policy::MilliC::min())
    s = request(encode_threshold_add(family_, tz_id, w.low, ThresholdWay::down));
  if (!s) {
    thresholds_ = false;
    log_.warning("netlink: kernel thresholds unavailable ({}); relying on sampling events",
                 s.error().to_string());
    if (auto j = join_sampling(); !j) log_.error("netlink: {}", j.error().to_string());
    return s;
  }
  programmed_.insert(tz_id);
  log_.debug("netlink: zone {} thresholds: up {} m°C, down {} m°C", tz_id, w.high.mc(), w.low.mc());
  return s;
}

void ThermalNetlink::flush_thresholds() {
  for (std::uint32_t tz : programmed_) {
    if (auto s = request(encode_threshold_flush(family_, tz)); !s) {
      log_.debug("netlink: flushing zone {} thresholds: {}", tz, s.error().to_string());
    }
  }
  programmed_.clear();
}

}  // namespace coolhand::daemon
