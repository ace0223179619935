// See genl.h.
#include "genl.h"

#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cerrno>
#include <new>

namespace coolhand::daemon {

std::string counters_line(const NetlinkCounters& c) {
  return fmt::format(
      "received {}, accepted {}, spoofed {}, malformed {}, foreign {}, overruns {}, gaps {}, "
      "lost {}",
      c.received, c.accepted, c.spoofed, c.malformed, c.foreign, c.overruns, c.gaps, c.lost);
}

Result<GenlSocket> connect_genl() {
  GenlSocket s(nl_socket_alloc(), &nl_socket_free);
  if (!s) return SysError{"netlink", "socket", ENOMEM, {}};
  if (int e = genl_connect(s.get()); e < 0)
    return SysError{"netlink", "genl_connect", 0, nl_geterror(e)};
  return s;
}

std::uint32_t genl_family_version(nl_sock* sock, const char* family) {
  std::uint32_t version = 0;
  nl_cache* cache = nullptr;
  if (genl_ctrl_alloc_cache(sock, &cache) == 0) {
    if (genl_family* f = genl_ctrl_search_by_name(cache, family)) {
      version = static_cast<std::uint32_t>(genl_family_get_version(f));
      genl_family_put(f);
    }
    nl_cache_free(cache);
  }
  return version;
}

bool screen_sender(nl_msg* msg, NetlinkCounters& c, Logger& log, std::string_view who) {
  ++c.received;
  if (const sockaddr_nl* src = nlmsg_get_src(msg); src && src->nl_pid != 0) {
    ++c.spoofed;
    log.debug("{}: dropped a message from port {} (not the kernel)", who, src->nl_pid);
    return false;
  }
  return true;
}

void count_rejected(const SysError& why, NetlinkCounters& c, Logger& log, std::string_view who) {
  if (why.detail == "foreign") {
    ++c.foreign;
  } else {
    ++c.malformed;
    log.debug("{}: dropped: {}", who, why.to_string());
  }
}

void GenlReceiver::CbDeleter::operator()(nl_cb* c) const {
  nl_cb_put(c);
}

GenlReceiver::GenlReceiver(std::function<void(nl_msg*)> handle, NetlinkCounters& counters,
                           Logger& log, std::string who)
    : handle_(std::move(handle)),
      counters_(counters),
      log_(log),
      who_(std::move(who)),
      cb_(nl_cb_alloc(NL_CB_DEFAULT)) {
  if (!cb_) throw std::bad_alloc();
  nl_cb_set(
      cb_.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, [](nl_msg*, void*) -> int { return NL_OK; },
      nullptr);
  nl_cb_set(
      cb_.get(), NL_CB_VALID, NL_CB_CUSTOM,
      [](nl_msg* m, void* self) -> int {
        static_cast<GenlReceiver*>(self)->handle_(m);  // gaps are counted
        return NL_OK;
      },
      this);
}
GenlReceiver::~GenlReceiver() = default;

bool GenlReceiver::drain(nl_sock* sock) {
  const std::uint64_t gaps_before = counters_.gaps;
  for (;;) {
    const int r = nl_recvmsgs_report(sock, cb_.get());
    if (r > 0) continue;
    if (r == -NLE_NOMEM) {  // libnl's translation of ENOBUFS
      ++counters_.overruns;
      log_.warning("{}: receive buffer overrun; resynchronising from sysfs", who_);
      return true;
    }
    if (r < 0 && r != -NLE_AGAIN) log_.debug("{}: receive: {}", who_, nl_geterror(r));
    break;
  }
  return counters_.gaps != gaps_before;
}

}  // namespace coolhand::daemon
