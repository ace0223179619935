// coolhandctl record (record_cmd.h): dump and follow over D-Bus.
#include "record_cmd.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "coolhand/dbus_api.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/text.h"

namespace coolhand::ctl {

namespace api = coolhand::dbus_api;
namespace rec = coolhand::recorder;

namespace {

// Read a whole file back (the recording just written) for checking.
std::optional<std::string> slurp(int fd) {
  std::string out;
  if (::lseek(fd, 0, SEEK_SET) < 0) return std::nullopt;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

int dump(const BusTarget& bus, const RecordOptions& o) {
  const int fd = ::open(o.output.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::cerr << "coolhandctl: record: cannot open " << o.output << ": " << std::strerror(errno)
              << '\n';
    return kExitUsage;
  }
  auto client = connect(bus);
  if (!client) {
    ::close(fd);
    return kExitUnreachable;
  }
  std::uint64_t held = 0;
  std::uint64_t lost = 0;
  try {
    client->proxy->callMethod(api::kRecord)
        .onInterface(api::kInterface)
        .withArguments(sdbus::UnixFd(fd))
        .storeResultsTo(held, lost);
  } catch (const sdbus::Error& e) {
    ::close(fd);
    return fail(bus, "record", e);
  }
  const auto bytes = slurp(fd);
  ::close(fd);
  if (!bytes) {
    std::cerr << "coolhandctl: record: cannot read back " << o.output << '\n';
    return kExitUsage;
  }
  const rec::ReadResult r = rec::read_recording(*bytes);
  if (r.error) {
    std::cerr << "coolhandctl: record: " << o.output << ": " << r.error->to_string() << '\n';
    return kExitRejected;
  }
  std::cout << "wrote " << r.recording->records.size() << " records (" << r.recording->lost
            << " lost to the ring's wrap, ring of " << r.recording->capacity << ") to " << o.output
            << '\n';
  return kExitOk;
}

// Messages: the first a recording header, then batches of 32-byte records.
int follow(const BusTarget& bus, const RecordOptions& o) {
  auto client = connect(bus);
  if (!client) return kExitUnreachable;
  sdbus::UnixFd sock;
  try {
    client->proxy->callMethod(api::kFollow).onInterface(api::kInterface).storeResultsTo(sock);
  } catch (const sdbus::Error& e) {
    return fail(bus, "record --follow", e);
  }
  std::vector<char> buf(1U << 20);
  auto receive = [&]() -> ssize_t {
    for (;;) {
      const ssize_t n = ::recv(sock.get(), buf.data(), buf.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      return n;
    }
  };
  const ssize_t head = receive();
  if (head <= 0) {
    std::cerr << "coolhandctl: record --follow: coolhandd closed the stream\n";
    return kExitUnreachable;
  }
  const rec::ReadResult r =
      rec::read_recording(std::string_view(buf.data(), static_cast<std::size_t>(head)));
  if (r.error) {
    std::cerr << "coolhandctl: record --follow: header: " << r.error->to_string() << '\n';
    return kExitRejected;
  }
  const rec::Metadata& names = r.recording->meta;
  std::uint64_t printed = 0;
  while (!o.count || printed < *o.count) {
    const ssize_t n = receive();
    if (n <= 0) break;  // the daemon stopped
    if (n % rec::kRecordSize != 0) {
      std::cerr << "coolhandctl: record --follow: a message of " << n
                << " bytes is not whole records\n";
      return kExitRejected;
    }
    for (ssize_t at = 0; at < n && (!o.count || printed < *o.count); at += rec::kRecordSize) {
      rec::Record x;
      std::memcpy(&x, buf.data() + at, rec::kRecordSize);
      std::cout << (o.json ? rec::format_json(names, x) : rec::format_text(names, x)) << '\n';
      ++printed;
    }
    std::cout.flush();
  }
  return kExitOk;
}

}  // namespace

int record(const BusTarget& bus, const RecordOptions& o) {
  if (o.follow) return follow(bus, o);
  return dump(bus, o);
}

}  // namespace coolhand::ctl
