// Random bytes as the body of a coolhand generic netlink message (header
// fixed to the family so validation is reached): the handler must drop or
// accept without crashing, and what it accepts stays within the module's ABI
// limits (kmod/include/uapi/coolhand.h).
#include <netlink/msg.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "coolhand.h"
#include "coolhand_netlink.h"

namespace {
constexpr int kFamily = 0x22;

bool possible(const std::optional<coolhand::policy::MilliC>& t) {
  return !t || (t->mc() >= COOLHAND_TEMP_MIN_MC && t->mc() <= COOLHAND_TEMP_MAX_MC);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> buf(NLMSG_HDRLEN + size);
  auto* hdr = reinterpret_cast<nlmsghdr*>(buf.data());
  hdr->nlmsg_len = static_cast<std::uint32_t>(buf.size());
  hdr->nlmsg_type = kFamily;
  std::memcpy(buf.data() + NLMSG_HDRLEN, data, size);
  nl_msg* msg = nlmsg_convert(hdr);
  if (!msg) return 0;
  coolhand::daemon::Logger log;
  log.capture();
  coolhand::daemon::CoolhandMessageHandler h(
      kFamily,
      [](const coolhand::daemon::CoolhandEvent& e) {
        if (!possible(e.temperature) || !possible(e.prev_temperature) ||
            !possible(e.trip_temperature))
          std::abort();
        if (e.kind == coolhand::daemon::CoolhandEvent::Kind::throttle ? !e.dev_id || !e.level
                                                                      : !e.zone_id)
          std::abort();
      },
      log);
  h.handle(msg);
  nlmsg_free(msg);
  return 0;
}
