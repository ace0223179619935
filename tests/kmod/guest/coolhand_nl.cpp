// libnl client of the coolhand family (see coolhand_nl.hpp).
#include "coolhand_nl.hpp"

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <poll.h>

#include <cerrno>

#include "coolhand.h"

namespace coolhand::vmtest {

void NlSockFree::operator()(nl_sock* s) const {
  nl_socket_free(s);
}
void NlMsgFree::operator()(nl_msg* m) const {
  nlmsg_free(m);
}

namespace {

enum class Kind { kU32, kS32, kU64, kString, kTripNest, kDevNest };

// Type of every attribute the kernel sends (kmod/README, uapi/coolhand.h).
const std::map<int, Kind>& attr_kinds() {
  static const std::map<int, Kind> kinds = {
      {COOLHAND_A_ZONE_ID, Kind::kU32},       {COOLHAND_A_ZONE_NAME, Kind::kString},
      {COOLHAND_A_ZONE_KIND, Kind::kU32},     {COOLHAND_A_TEMP, Kind::kS32},
      {COOLHAND_A_PREV_TEMP, Kind::kS32},     {COOLHAND_A_SEQ, Kind::kU32},
      {COOLHAND_A_TIMESTAMP_NS, Kind::kU64},  {COOLHAND_A_TRIP, Kind::kTripNest},
      {COOLHAND_A_TRIP_TYPE, Kind::kU32},     {COOLHAND_A_TRIP_TEMP, Kind::kS32},
      {COOLHAND_A_TRIP_HYST, Kind::kS32},     {COOLHAND_A_TRIP_DIRECTION, Kind::kU32},
      {COOLHAND_A_EVENT_MODE, Kind::kU32},    {COOLHAND_A_WINDOW_LOW, Kind::kS32},
      {COOLHAND_A_WINDOW_HIGH, Kind::kS32},   {COOLHAND_A_STEP_BELOW, Kind::kU32},
      {COOLHAND_A_STEP_ABOVE, Kind::kU32},    {COOLHAND_A_DEV_ID, Kind::kU32},
      {COOLHAND_A_DEV_NAME, Kind::kString},   {COOLHAND_A_LEVEL, Kind::kU32},
      {COOLHAND_A_MAX_LEVEL, Kind::kU32},     {COOLHAND_A_POWER_MW, Kind::kU32},
      {COOLHAND_A_ZONE_DEVS, Kind::kDevNest}, {COOLHAND_A_THERMAL_ID, Kind::kU32},
      {COOLHAND_A_SYSFS_PATH, Kind::kString}, {COOLHAND_A_ALARMS, Kind::kU32},
  };
  return kinds;
}

// Parses a genl message with nla_for_each_attr over libnl's accessors.
int parse_msg(nl_msg* msg, void* arg) {
  auto* out = static_cast<std::vector<NlMsg>*>(arg);
  nlmsghdr* nlh = nlmsg_hdr(msg);
  genlmsghdr* gnlh = static_cast<genlmsghdr*>(nlmsg_data(nlh));
  NlMsg m;
  m.cmd = gnlh->cmd;
  nlattr* attr;
  int rem;
  nla_for_each_attr(attr, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem) {
    const int type = nla_type(attr);
    auto it = attr_kinds().find(type);
    if (it == attr_kinds().end()) continue;
    switch (it->second) {
      case Kind::kU32:
        m.num[type] = nla_get_u32(attr);
        break;
      case Kind::kS32:
        m.num[type] = nla_get_s32(attr);
        break;
      case Kind::kU64:
        m.num[type] = static_cast<int64_t>(nla_get_u64(attr));
        break;
      case Kind::kString:
        m.str[type] = nla_get_string(attr);
        break;
      case Kind::kTripNest: {
        NlTrip t;
        nlattr* in;
        int r2;
        nla_for_each_nested(in, attr, r2) {
          if (nla_type(in) == COOLHAND_A_TRIP_TYPE) t.type = nla_get_u32(in);
          if (nla_type(in) == COOLHAND_A_TRIP_TEMP) t.temp_mc = nla_get_s32(in);
          if (nla_type(in) == COOLHAND_A_TRIP_HYST) t.hyst_mc = nla_get_s32(in);
        }
        m.trips.push_back(t);
        break;
      }
      case Kind::kDevNest: {
        nlattr* in;
        int r2;
        nla_for_each_nested(in, attr, r2) {
          if (nla_type(in) == COOLHAND_A_DEV_ID) m.zone_devs.push_back(nla_get_u32(in));
        }
        break;
      }
    }
  }
  out->push_back(std::move(m));
  return NL_OK;
}

struct RequestState {
  bool done = false;
  int error = 0;
};

int on_finish(nl_msg*, void* arg) {
  static_cast<RequestState*>(arg)->done = true;
  return NL_STOP;
}

int on_error(sockaddr_nl*, nlmsgerr* err, void* arg) {
  auto* st = static_cast<RequestState*>(arg);
  st->error = err->error;
  st->done = true;
  return NL_STOP;
}

}  // namespace

std::optional<CoolhandNl> CoolhandNl::open(std::string* why) {
  CoolhandNl nl;
  nl.req_.reset(nl_socket_alloc());
  if (!nl.req_ || genl_connect(nl.req_.get()) < 0) {
    *why = "cannot connect a generic netlink socket";
    return std::nullopt;
  }
  nl.family_ = genl_ctrl_resolve(nl.req_.get(), COOLHAND_GENL_NAME);
  if (nl.family_ < 0) {
    *why = std::string("family not found: ") + nl_geterror(nl.family_);
    return std::nullopt;
  }
  return nl;
}

int CoolhandNl::request(uint8_t cmd, bool dump, const Builder& build, std::vector<NlMsg>* replies) {
  NlMsgPtr msg(nlmsg_alloc());
  if (!msg) return -ENOMEM;
  // Dumps end with NLMSG_DONE; other requests with an ACK or an error.
  if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, dump ? NLM_F_DUMP : NLM_F_ACK,
                   cmd, COOLHAND_GENL_VERSION))
    return -ENOMEM;
  if (build) build(msg.get());

  std::vector<NlMsg> local;
  std::vector<NlMsg>* out = replies ? replies : &local;
  RequestState st;
  std::unique_ptr<nl_cb, void (*)(nl_cb*)> cb(nl_cb_alloc(NL_CB_CUSTOM), nl_cb_put);
  if (!cb) return -ENOMEM;
  nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, parse_msg, out);
  nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &st);
  nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_finish, &st);
  nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &st);

  if (nl_send_auto(req_.get(), msg.get()) < 0) return -EIO;
  while (!st.done) {
    const int r = nl_recvmsgs(req_.get(), cb.get());
    if (r < 0 && !st.done) return -EIO;
  }
  return st.error;
}

bool CoolhandNl::subscribe(std::string* why) {
  ev_.reset(nl_socket_alloc());
  if (!ev_ || genl_connect(ev_.get()) < 0) {
    *why = "cannot connect the event socket";
    return false;
  }
  nl_socket_disable_seq_check(ev_.get());
  nl_socket_set_buffer_size(ev_.get(), 1 << 20, 0);
  const int grp = genl_ctrl_resolve_grp(ev_.get(), COOLHAND_GENL_NAME, COOLHAND_GENL_MCGRP_EVENTS);
  if (grp < 0) {
    *why = std::string("events group not found: ") + nl_geterror(grp);
    return false;
  }
  if (nl_socket_add_membership(ev_.get(), grp) < 0) {
    *why = "cannot join the events group";
    return false;
  }
  nl_socket_modify_cb(ev_.get(), NL_CB_VALID, NL_CB_CUSTOM, parse_msg, &pending_);
  return true;
}

std::optional<NlMsg> CoolhandNl::next_event(int timeout_ms, bool* overrun) {
  while (pending_.empty()) {
    pollfd pfd{nl_socket_get_fd(ev_.get()), POLLIN, 0};
    const int r = ::poll(&pfd, 1, timeout_ms);
    if (r <= 0) return std::nullopt;
    const int err = nl_recvmsgs_default(ev_.get());
    if (err == -NLE_NOMEM && overrun) *overrun = true;
  }
  NlMsg m = std::move(pending_.front());
  pending_.erase(pending_.begin());
  return m;
}

int CoolhandNl::drain_events(int settle_ms) {
  int n = 0;
  while (next_event(settle_ms)) ++n;
  return n;
}

}  // namespace coolhand::vmtest
