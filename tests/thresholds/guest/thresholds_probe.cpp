// Guest helper of the threshold VM test (tests/thresholds): asks the kernel
// which user thresholds a thermal zone holds, independently of coolhandd.
//
//   thresholds_probe get TZ_ID    one line "threshold <m°C> <up|down|up+down>"
//                                 per threshold, then "count <n>"; exit 0.
//   exit 1 with a message on stderr when the family or the command fails.
//
// THRESHOLD_GET {TZ_ID} is answered with a THRESHOLD nest holding
// THRESHOLD_TEMP, THRESHOLD_DIRECTION pairs (include/uapi/linux/thermal.h,
// 6.13+; numbers written out because Debian 12's header is 6.1's). Linked
// statically so the initramfs needs no libraries for it.
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

constexpr int kAttrTzId = 2;
constexpr int kAttrThreshold = 24;
constexpr int kAttrThresholdTemp = 25;
constexpr int kAttrThresholdDirection = 26;
constexpr int kAttrMax = 27;
constexpr std::uint8_t kCmdThresholdGet = 7;
constexpr std::uint32_t kWayUp = 1;
constexpr std::uint32_t kWayDown = 2;

struct Reply {
  int count = 0;
  bool bad = false;
};

const char* way_name(std::uint32_t way) {
  switch (way) {
    case kWayUp:
      return "up";
    case kWayDown:
      return "down";
    case kWayUp | kWayDown:
      return "up+down";
    default:
      return "unknown";
  }
}

int on_reply(nl_msg* msg, void* arg) {
  auto* r = static_cast<Reply*>(arg);
  nlattr* tb[kAttrMax + 1] = {};
  if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, kAttrMax, nullptr) < 0) {
    r->bad = true;
    return NL_STOP;
  }
  if (!tb[kAttrThreshold]) return NL_OK;  // no thresholds: an empty reply
  std::int32_t temp = 0;
  bool have_temp = false;
  nlattr* a = nullptr;
  int rem = 0;
  nla_for_each_nested(a, tb[kAttrThreshold], rem) {
    if (nla_type(a) == kAttrThresholdTemp && nla_len(a) == 4) {
      temp = static_cast<std::int32_t>(nla_get_u32(a));
      have_temp = true;
    } else if (nla_type(a) == kAttrThresholdDirection && nla_len(a) == 4 && have_temp) {
      std::printf("threshold %d %s\n", temp, way_name(nla_get_u32(a)));
      ++r->count;
      have_temp = false;
    } else {
      r->bad = true;
    }
  }
  return NL_OK;
}

int usage() {
  std::fprintf(stderr, "usage: thresholds_probe get TZ_ID\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "get") != 0) return usage();
  char* end = nullptr;
  const unsigned long tz = std::strtoul(argv[2], &end, 10);
  if (*argv[2] == '\0' || *end != '\0') return usage();

  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sk(nl_socket_alloc(), &nl_socket_free);
  if (!sk || genl_connect(sk.get()) < 0) {
    std::fprintf(stderr, "thresholds_probe: cannot open a generic netlink socket\n");
    return 1;
  }
  const int family = genl_ctrl_resolve(sk.get(), "thermal");
  if (family < 0) {
    std::fprintf(stderr, "thresholds_probe: no thermal family: %s\n", nl_geterror(family));
    return 1;
  }
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> m(nlmsg_alloc(), &nlmsg_free);
  if (!m ||
      !genlmsg_put(m.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST, kCmdThresholdGet,
                   1) ||
      nla_put_u32(m.get(), kAttrTzId, static_cast<std::uint32_t>(tz)) < 0) {
    std::fprintf(stderr, "thresholds_probe: out of memory\n");
    return 1;
  }
  Reply reply;
  nl_socket_modify_cb(sk.get(), NL_CB_VALID, NL_CB_CUSTOM, on_reply, &reply);
  if (int e = nl_send_auto(sk.get(), m.get()); e < 0) {
    std::fprintf(stderr, "thresholds_probe: send: %s\n", nl_geterror(e));
    return 1;
  }
  if (int e = nl_recvmsgs_default(sk.get()); e < 0) {
    std::fprintf(stderr, "thresholds_probe: THRESHOLD_GET: %s\n", nl_geterror(e));
    return 1;
  }
  if (reply.bad) {
    std::fprintf(stderr, "thresholds_probe: malformed THRESHOLD_GET reply\n");
    return 1;
  }
  std::printf("count %d\n", reply.count);
  return 0;
}
