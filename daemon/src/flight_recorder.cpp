// FlightRecorder: dumps to a descriptor or the record directory, and the
// live followers (rules in flight_recorder.h).
#include "flight_recorder.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <compare>
#include <string_view>
#include <utility>

namespace coolhand::daemon {

namespace rec = coolhand::recorder;

std::uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {

// "dropped" record sources (docs/recording-format.md).
constexpr std::uint16_t kDroppedFollow = 1;
// Records per follower message: one page, so a message is never split.
constexpr std::size_t kFollowBatch = 128;

// Writes to a descriptor in non-blocking mode; the first error ends it.
class FdSink final : public rec::ByteSink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  bool write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err_ = n < 0 ? errno : EIO;
        return false;
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  [[nodiscard]] int error() const { return err_; }

 private:
  int fd_;
  int err_ = 0;
};

// "20261124T065130Z". Civil-date arithmetic (std::chrono), not gmtime_r:
// glibc's first gmtime_r reads /etc/localtime (tzset) into heap it keeps.
std::string utc_stamp() {
  using namespace std::chrono;
  const auto now = floor<seconds>(system_clock::now());
  const auto day = floor<days>(now);
  const year_month_day ymd{day};
  const hh_mm_ss hms{now - day};
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

// Keep file names to [A-Za-z0-9_-].
std::string safe(std::string s) {
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) c = '_';
  }
  return s;
}

// A dump file's place in time: its UTC stamp, then its number within that
// second ("recording-<stamp>-<reason>[-N].chrec", no -N: 0). Names sort
// as text wrongly: "-SIGUSR1-1" before "-SIGUSR1", "-10" before "-2".
struct DumpOrder {
  std::string_view stamp;
  unsigned seq = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>.
  auto operator<=>(const DumpOrder&) const = default;
};

constexpr std::string_view kDumpPrefix = "recording-";
constexpr std::string_view kDumpSuffix = ".chrec";
constexpr std::size_t kStampSize = std::string_view("20261124T065130Z").size();

DumpOrder dump_order(std::string_view name) {
  name.remove_prefix(kDumpPrefix.size());
  name.remove_suffix(kDumpSuffix.size());
  DumpOrder o{name.substr(0, std::min(name.size(), kStampSize))};
  const std::size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash <= kStampSize || dash + 1 == name.size()) return o;
  unsigned seq = 0;
  for (const char c : name.substr(dash + 1)) {
    if (c < '0' || c > '9' || seq > 1000000) return o;
    seq = seq * 10 + static_cast<unsigned>(c - '0');
  }
  o.seq = seq;
  return o;
}

}  // namespace

FlightRecorder::FlightRecorder(std::size_t records, std::string dir, std::string boot_id,
                               std::string version)
    : ring_(records), dir_(std::move(dir)) {
  meta_.boot_id = std::move(boot_id);
  meta_.daemon_version = std::move(version);
}

FlightRecorder::~FlightRecorder() {
  for (const Follower& f : followers_) ::close(f.fd);
}

void FlightRecorder::set_policy(std::string text, const policy::PolicySpec& spec) {
  hash_ = rec::policy_hash(text);
  meta_.policy_text = std::move(text);
  rec::set_names(meta_, spec);
}

const rec::Metadata& FlightRecorder::stamped(const std::string& reason) {
  meta_.reason = reason;
  meta_.dump_time_ns = monotonic_ns();
  return meta_;
}

Status FlightRecorder::dump_to_fd(int fd, const std::string& reason) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return errno_error("fcntl", "recording fd", errno);
  if ((flags & O_ACCMODE) == O_RDONLY) {
    return SysError{"write", "recording fd", EBADF, "the descriptor is open read-only"};
  }
  (void)::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  ring_.set_time(monotonic_ns());
  ring_.put(rec::Kind::dump, 0);
  FdSink sink(fd);
  if (!rec::write_recording(ring_, stamped(reason), sink)) {
    return errno_error("write", "recording fd", sink.error());
  }
  return Ok{};
}

Result<std::string> FlightRecorder::dump_to_dir(const std::string& reason) {
  if (dir_.empty()) return SysError{"dump", "recording", 0, "no record directory (--record-dir)"};
  if (::mkdir(dir_.c_str(), 0700) < 0 && errno != EEXIST) {
    return errno_error("mkdir", dir_, errno);
  }
  // Numbered after every dump of this second, whatever its reason, so the
  // new one is the newest in dump_order() (a free lower number, left by a
  // pruned dump, would make it the oldest and the first pruned).
  std::vector<std::string> names = list_dumps();
  const std::string stamp = utc_stamp();
  unsigned seq = 0;
  for (const std::string& n : names) {
    const DumpOrder o = dump_order(n);
    if (o.stamp == stamp) seq = std::max(seq, o.seq + 1);
  }
  const std::string base = dir_ + "/" + std::string(kDumpPrefix) + stamp + "-" + safe(reason);
  std::string path;
  int fd = -1;
  for (int i = 0; i < 100 && fd < 0; ++i, ++seq) {
    path = base + (seq == 0 ? "" : fmt::format("-{}", seq)) + std::string(kDumpSuffix);
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return errno_error("open", path, errno);
  }
  if (fd < 0) return errno_error("open", path, EEXIST);
  Status s = dump_to_fd(fd, reason);
  if (s && ::fsync(fd) < 0) s = errno_error("fsync", path, errno);
  ::close(fd);
  if (!s) {
    ::unlink(path.c_str());
    return s.error();
  }
  names.push_back(path.substr(dir_.size() + 1));
  prune_dumps(names);
  return path;
}

std::vector<std::string> FlightRecorder::list_dumps() const {
  // getdents64 into a buffer on the stack, not opendir: glibc's opendir
  // mallocs a 32 KiB buffer, which extended the heap by 160 KiB (sbrk) at
  // the first dump and left its written pages dirty after closedir
  // (docs/benchmarks.md, "The recorder's fixed part").
  std::vector<std::string> names;
  const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  alignas(dirent64) std::array<char, 2048> buf;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  for (;;) {
    const ssize_t n = ::getdents64(fd, buf.data(), buf.size());
    if (n <= 0) break;  // the end, or an error: what was listed
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf.data() + at);  // NOLINT
      const std::string_view name(e->d_name);
      if (name.starts_with(kDumpPrefix) && name.ends_with(kDumpSuffix)) names.emplace_back(name);
      at += e->d_reclen;
    }
  }
  ::close(fd);
  return names;
}

void FlightRecorder::prune_dumps(std::vector<std::string>& names) const {
  if (names.size() <= kKeepDumps) return;
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return std::pair(dump_order(a), std::string_view(a)) <
           std::pair(dump_order(b), std::string_view(b));
  });
  for (std::size_t i = 0; i + kKeepDumps < names.size(); ++i) {
    ::unlink((dir_ + "/" + names[i]).c_str());
  }
}

Result<int> FlightRecorder::follow() {
  if (followers_.size() >= kMaxFollowers) {
    return SysError{"follow", "recording", EBUSY,
                    fmt::format("{} followers already", kMaxFollowers)};
  }
  std::array<int, 2> sv{-1, -1};
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv.data()) < 0) {
    return errno_error("socketpair", "recording follower", errno);
  }
  (void)::shutdown(sv[1], SHUT_WR);  // the client only reads
  // The header: a recording with no records (record count 0, lost 0).
  const rec::Ring empty(rec::Ring::kMinCapacity);
  const std::string header = rec::encode_header(empty, stamped("follow"));
  if (::send(sv[0], header.data(), header.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
    const int err = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return errno_error("send", "recording follower header", err);
  }
  followers_.push_back(Follower{sv[0], ring_.total(), 0});
  return sv[1];
}

// One message per batch of up to kFollowBatch records; a batch the socket
// cannot take now is dropped (counted), never waited for.
bool FlightRecorder::send_to(Follower& f) {
  if (f.next < ring_.first()) {
    f.dropped += ring_.first() - f.next;
    f.next = ring_.first();
  }
  std::array<rec::Record, kFollowBatch + 1> batch{};
  while (f.next < ring_.total()) {
    std::size_t n = 0;
    if (f.dropped > 0) {
      rec::Record& r = batch[n++];
      r.t_ns = ring_.time();
      r.kind = static_cast<std::uint16_t>(rec::Kind::dropped);
      r.index = kDroppedFollow;
      r.a = static_cast<std::uint32_t>(std::min<std::uint64_t>(f.dropped, 0xFFFFFFFFU));
    }
    const std::size_t copied =
        ring_.copy_since(f.next, std::span<rec::Record>(batch.data() + n, kFollowBatch));
    n += copied;
    const ssize_t sent =
        ::send(f.fd, batch.data(), n * rec::kRecordSize, MSG_DONTWAIT | MSG_NOSIGNAL);
    f.next += copied;
    if (sent < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
        f.dropped += copied;
        continue;
      }
      return false;  // EPIPE, ECONNRESET: the follower left
    }
    f.dropped = 0;
  }
  return true;
}

void FlightRecorder::flush() {
  for (std::size_t i = 0; i < followers_.size();) {
    if (send_to(followers_[i])) {
      ++i;
      continue;
    }
    ::close(followers_[i].fd);
    followers_.erase(followers_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace coolhand::daemon
