// A minimal libnl client of the coolhand generic netlink family, for the
// guest tests: requests (with the kernel's errno on failure) and a
// subscription to the "events" multicast group. libnl objects are owned by
// unique_ptr with their free functions; messages are copied into plain
// structs so no pointer into a netlink buffer escapes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct nl_sock;
struct nl_msg;

namespace coolhand::vmtest {

struct NlTrip {
  uint32_t type = 0;
  int32_t temp_mc = 0;
  int32_t hyst_mc = 0;
};

// One parsed coolhand message (reply or event).
struct NlMsg {
  uint8_t cmd = 0;
  std::map<int, int64_t> num;       // u32/s32/u64 attributes by number
  std::map<int, std::string> str;   // string attributes
  std::vector<NlTrip> trips;        // COOLHAND_A_TRIP nests
  std::vector<uint32_t> zone_devs;  // COOLHAND_A_ZONE_DEVS
  bool has(int attr) const { return num.count(attr) != 0; }
  int64_t get(int attr, int64_t fallback = INT64_MIN) const {
    auto it = num.find(attr);
    return it == num.end() ? fallback : it->second;
  }
};

struct NlSockFree {
  void operator()(nl_sock* s) const;
};
using NlSockPtr = std::unique_ptr<nl_sock, NlSockFree>;

struct NlMsgFree {
  void operator()(nl_msg* m) const;
};
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgFree>;

class CoolhandNl {
 public:
  // Connects and resolves the family; nullopt (with a reason) on failure.
  static std::optional<CoolhandNl> open(std::string* why);

  // Adds attributes to a request.
  using Builder = std::function<void(nl_msg*)>;

  // Sends one request and collects the replies. Returns 0 or -errno as
  // reported by the kernel (e.g. -EPERM, -EINVAL).
  int request(uint8_t cmd, bool dump, const Builder& build, std::vector<NlMsg>* replies);

  // Joins the events group on a separate socket.
  bool subscribe(std::string* why);
  // Next event, waiting at most timeout_ms. nullopt on timeout. Sets
  // *overrun when the kernel dropped events (ENOBUFS).
  std::optional<NlMsg> next_event(int timeout_ms, bool* overrun = nullptr);
  // Drops every event already queued (waiting up to settle_ms for more).
  int drain_events(int settle_ms);

  int family() const { return family_; }

 private:
  NlSockPtr req_;
  NlSockPtr ev_;
  int family_ = -1;
  std::vector<NlMsg> pending_;
};

}  // namespace coolhand::vmtest
