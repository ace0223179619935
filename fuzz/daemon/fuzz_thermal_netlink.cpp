// Random bytes as the body of a thermal generic netlink message (header
// fixed to the family so validation is reached): the handler must drop or
// accept without crashing, and accepted temperatures are plausible.
#include <netlink/msg.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "thermal_netlink.h"

namespace {
constexpr int kFamily = 0x1c;
}

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
  coolhand::daemon::ThermalMessageHandler h(
      kFamily,
      [](const coolhand::daemon::ThermalEvent& e) {
        if (e.temperature && (e.temperature->mc() < -100'000 || e.temperature->mc() > 400'000))
          std::abort();
      },
      log);
  h.handle(msg);
  nlmsg_free(msg);
  return 0;
}
