// Generic-netlink plumbing shared by the two families coolhandd listens to,
// the mainline "thermal" family (thermal_netlink.*) and the coolhand
// module's (coolhand_netlink.*): connecting a socket, reading a family's
// version, the screening every received message goes through, and draining
// a subscribed socket.
//
// Screening rules, the same for both families:
// - every message counts as received;
// - a message whose sender port id is not 0 did not come from the kernel:
//   dropped and counted as spoofed;
// - a message the family's decoder rejects is dropped and counted as
//   foreign (another family's, SysError detail "foreign") or malformed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "log.h"
#include "result.h"

struct nl_msg;
struct nl_sock;
struct nl_cb;

namespace coolhand::daemon {

struct NetlinkCounters {
  std::uint64_t received = 0;
  std::uint64_t accepted = 0;
  std::uint64_t spoofed = 0;    // sender port id != 0
  std::uint64_t malformed = 0;  // failed validation
  std::uint64_t foreign = 0;    // not the family's
  std::uint64_t overruns = 0;   // ENOBUFS
  std::uint64_t gaps = 0;       // sequence number gaps
  // Events the sequence numbers say were sent but never received (families
  // with a sequence attribute: coolhand's COOLHAND_A_SEQ).
  std::uint64_t lost = 0;
};

// One line of counters for the log: "received N, accepted N, ...".
[[nodiscard]] std::string counters_line(const NetlinkCounters& c);

using GenlSocket = std::unique_ptr<nl_sock, void (*)(nl_sock*)>;
// A socket connected to generic netlink.
[[nodiscard]] Result<GenlSocket> connect_genl();
// The family's version as the controller reports it; 0 when unreadable.
[[nodiscard]] std::uint32_t genl_family_version(nl_sock* sock, const char* family);

// The first two screening rules; false when the message was dropped.
// `who` prefixes the log lines ("netlink", "coolhand netlink").
[[nodiscard]] bool screen_sender(nl_msg* msg, NetlinkCounters& c, Logger& log,
                                 std::string_view who);
// The third rule, for a message `why` the decoder rejected.
void count_rejected(const SysError& why, NetlinkCounters& c, Logger& log, std::string_view who);

// All three rules: the decoded event, or nullopt when the message was
// dropped (and counted).
template <typename Event, typename Decode>
[[nodiscard]] std::optional<Event> screen(nl_msg* msg, NetlinkCounters& c, Logger& log,
                                          std::string_view who, const Decode& decode) {
  if (!screen_sender(msg, c, log, who)) return std::nullopt;
  Result<Event> ev = decode(msg);
  if (!ev) {
    count_rejected(ev.error(), c, log, who);
    return std::nullopt;
  }
  return std::move(*ev);
}

// Drains a nonblocking subscribed socket into `handle`. libnl's own
// sequence check is replaced by one that accepts every number: kernel
// multicasts carry the kernel's sequence numbers (or 0), not replies to
// ours, and the handlers do their own gap accounting. (libnl's default check
// rejected every event with "Message sequence number mismatch" before the
// handler saw it; nl_socket_disable_seq_check only changes the socket's own
// callback set, not one passed to nl_recvmsgs_report.)
class GenlReceiver {
 public:
  // `counters` belongs to the handler behind `handle`; it must outlive this.
  GenlReceiver(std::function<void(nl_msg*)> handle, NetlinkCounters& counters, Logger& log,
               std::string who);
  ~GenlReceiver();
  GenlReceiver(const GenlReceiver&) = delete;
  GenlReceiver& operator=(const GenlReceiver&) = delete;

  // Read until the socket would block. Returns true when messages were lost
  // (ENOBUFS, counted as an overrun, or a new sequence gap in the counters)
  // and the caller must resynchronise from sysfs.
  [[nodiscard]] bool drain(nl_sock* sock);

 private:
  struct CbDeleter {
    void operator()(nl_cb* c) const;
  };
  std::function<void(nl_msg*)> handle_;
  NetlinkCounters& counters_;
  Logger& log_;
  std::string who_;
  std::unique_ptr<nl_cb, CbDeleter> cb_;
};

}  // namespace coolhand::daemon
