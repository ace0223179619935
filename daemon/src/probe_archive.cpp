// Probe archives: unpacking under the rules in probe_archive.h, and the
// scrubbing of probe text. The writer is probe_archive_write.cpp.
//
// The reader reads only what probe archives are: a gzip stream (zlib) of a
// POSIX tar, ustar headers with pax extended headers ('x': their `path` and
// `size` apply to the next entry; 'g' is read and ignored). Not libarchive:
// it links libxml2 and ICU, whose relocated data cost coolhandd about
// 180 kB of Private_Dirty at every start, archive or not
// (docs/benchmarks.md, "Flight recorder"). tar facts: POSIX.1-2017, pax(1),
// "ustar Interchange Format" and "pax Interchange Format".
#include "probe_archive.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

namespace coolhand::daemon {

namespace {

namespace fs = std::filesystem;

SysError archive_error(std::string what, const std::string& archive, std::string detail) {
  return SysError{std::move(what), archive, 0, std::move(detail)};
}

// Closes a file descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Why `name` may not be unpacked (empty: it may). A trailing '/' (a
// directory entry) is allowed.
std::string bad_name(std::string_view name) {
  if (name.empty()) return "an entry has no name";
  if (name.size() > 4096) return "an entry's name is longer than 4096 bytes";
  if (name.front() == '/') return "entry '" + std::string(name) + "' is an absolute path";
  if (name.back() == '/') name.remove_suffix(1);
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return "entry '" + std::string(name) + "' has an empty, '.' or '..' component";
    }
    start = end + 1;
  }
  return {};
}

bool hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// Whether `text` at `i` has the shape `pattern`: 'x' a hex digit, 's' ':' or
// '-' (the same one throughout), anything else itself; and no hex digit
// right before or after.
bool shaped(std::string_view text, std::size_t i, std::string_view pattern) {
  if (i + pattern.size() > text.size()) return false;
  if (i > 0 && hex(text[i - 1])) return false;
  if (i + pattern.size() < text.size() && hex(text[i + pattern.size()])) return false;
  char sep = 0;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    const char c = text[i + k];
    if (pattern[k] == 'x') {
      if (!hex(c)) return false;
    } else if (pattern[k] == 's') {
      if ((c != ':' && c != '-') || (sep != 0 && c != sep)) return false;
      sep = c;
    } else if (c != pattern[k]) {
      return false;
    }
  }
  return true;
}

// Whether `line` names a serial number, UUID or address anywhere, in any
// case ("POWER_SUPPLY_SERIAL_NUMBER=...", "uuid: ...").
bool private_line(std::string_view line) {
  std::string upper(line);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper.find("SERIAL") != std::string::npos || upper.find("UUID") != std::string::npos ||
         upper.find("ADDRESS") != std::string::npos;
}

// The decompressed bytes of a gzip file, pulled on demand. inflate checks
// the gzip header, and at the stream's end its CRC-32 and length.
class Gunzip {
 public:
  explicit Gunzip(int fd) : fd_(fd) {}
  ~Gunzip() {
    if (open_) ::inflateEnd(&z_);
  }
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  // False (error() says why) when zlib cannot start.
  bool open() {
    open_ = ::inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;  // 16: gzip, not zlib
    if (!open_) err_ = "zlib: out of memory";
    return open_;
  }
  // Exactly `n` bytes into `out`; false at the stream's end or on an error.
  bool read(char* out, std::size_t n) {
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out > 0) {
      got_ = n - z_.avail_out;
      if (ended_) {
        err_ = "truncated: the tar data ends inside a block";
        return false;
      }
      if (!step()) return false;
    }
    got_ = n;
    return true;
  }
  // After the tar's end: the rest of the stream (the tar's zero padding, at
  // most kMaxTrailer bytes) up to gzip's end, whose checks must pass.
  bool finish() {
    std::array<char, 4096> sink{};
    std::size_t drained = 0;
    while (!ended_) {
      if (drained > kMaxTrailer) {
        err_ = "more than " + std::to_string(kMaxTrailer) + " bytes after the tar's end";
        return false;
      }
      z_.next_out = reinterpret_cast<Bytef*>(sink.data());
      z_.avail_out = static_cast<uInt>(sink.size());
      if (!step()) return false;
      drained += sink.size() - z_.avail_out;
    }
    return true;
  }
  [[nodiscard]] const std::string& error() const { return err_; }
  // After a failed read(): the gzip stream had ended, its checks passed,
  // before that read produced a byte.
  [[nodiscard]] bool ended_before_read() const { return ended_ && got_ == 0; }

 private:
  static constexpr std::size_t kMaxTrailer = std::size_t{64} * 1024;

  // One inflate call, reading more input first when it has none.
  bool step() {
    if (z_.avail_in == 0) {
      const ssize_t n = ::read(fd_, in_.data(), in_.size());
      if (n < 0) {
        err_ = std::string("read: ") + std::strerror(errno);
        return false;
      }
      if (n == 0) {
        err_ = "truncated: the gzip stream ends early";
        return false;
      }
      z_.next_in = in_.data();
      z_.avail_in = static_cast<uInt>(n);
    }
    const int r = ::inflate(&z_, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      ended_ = true;
      return true;
    }
    if (r != Z_OK) {
      err_ = std::string("not gzip data, or damaged: ") +
             (z_.msg != nullptr ? z_.msg : "zlib error " + std::to_string(r));
      return false;
    }
    return true;
  }

  int fd_;
  z_stream z_{};
  bool open_ = false;
  bool ended_ = false;
  std::size_t got_ = 0;  // bytes the last read() produced
  std::array<Bytef, 16384> in_{};
  std::string err_;
};

constexpr std::size_t kBlock = 512;
using Block = std::array<char, kBlock>;

// A NUL-terminated (or full) field of a header.
std::string_view field(const Block& b, std::size_t at, std::size_t len) {
  const std::string_view f(b.data() + at, len);
  return f.substr(0, f.find('\0'));
}

// An octal number field: optional leading spaces, digits, then NUL or
// spaces. None for anything else (base-256 included: no probe file is that
// large).
std::optional<std::uint64_t> octal(std::string_view f) {
  std::size_t i = 0;
  while (i < f.size() && f[i] == ' ') ++i;
  std::uint64_t v = 0;
  const std::size_t first = i;
  for (; i < f.size() && f[i] >= '0' && f[i] <= '7'; ++i) {
    if (v > (std::uint64_t{1} << 40)) return std::nullopt;
    v = v * 8 + static_cast<std::uint64_t>(f[i] - '0');
  }
  if (i == first) return std::nullopt;
  for (; i < f.size(); ++i) {
    if (f[i] != ' ' && f[i] != '\0') return std::nullopt;
  }
  return v;
}

// The header checksum: the sum of its bytes, unsigned, with the checksum
// field (148, 8 bytes) counted as spaces.
bool checksum_ok(const Block& b) {
  const auto want = octal(std::string_view(b.data() + 148, 8));
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(b[i]);
  }
  return want && *want == sum;
}

// A decimal number (pax lengths and sizes); none for anything else.
std::optional<std::uint64_t> decimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9' || v > (std::uint64_t{1} << 40)) return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// A pax extended header's records, "LEN key=value\n" each: its `path` and
// `size` (the next entry's). An error says what is malformed.
struct Pax {
  std::optional<std::string> path;
  std::optional<std::uint64_t> size;
};
std::string parse_pax(std::string_view data, Pax& pax) {
  while (!data.empty()) {
    const std::size_t sp = data.find(' ');
    const auto len = sp == std::string_view::npos ? std::nullopt : decimal(data.substr(0, sp));
    if (!len || *len <= sp + 1 || *len > data.size() || data[*len - 1] != '\n') {
      return "a pax header record is malformed";
    }
    const std::string_view rec = data.substr(sp + 1, *len - sp - 2);
    data.remove_prefix(*len);
    const std::size_t eq = rec.find('=');
    if (eq == std::string_view::npos) return "a pax header record has no '='";
    const std::string_view key = rec.substr(0, eq);
    const std::string_view value = rec.substr(eq + 1);
    if (key == "path") pax.path = std::string(value);
    if (key == "size") {
      pax.size = decimal(value);
      if (!pax.size) return "a pax size is not a number";
    }
  }
  return {};
}

// Unpacks the tar in `gz` into `dir`; errors name `archive`.
Status unpack(Gunzip& gz, const std::string& archive, const fs::path& dir) {
  std::size_t entries = 0;
  std::size_t files = 0;
  std::int64_t total = 0;
  std::string buf;
  Pax pax;
  Block b{};
  // The data of an entry (`size` bytes, then padding to a block) into buf.
  const auto read_data = [&](std::uint64_t size) {
    buf.resize(static_cast<std::size_t>((size + kBlock - 1) / kBlock * kBlock));
    const bool ok = gz.read(buf.data(), buf.size());
    buf.resize(static_cast<std::size_t>(size));
    return ok;
  };
  for (;;) {
    if (!gz.read(b.data(), kBlock)) {
      // A gzip stream that ends, checked, right after an entry is a tar
      // without its end-of-archive blocks: accepted, as tar(1) does.
      if (gz.ended_before_read()) break;
      return archive_error("unpack", archive, gz.error());
    }
    if (std::all_of(b.begin(), b.end(), [](char c) { return c == '\0'; })) {
      if (!gz.finish()) return archive_error("unpack", archive, gz.error());
      break;
    }
    if (field(b, 257, 5) != "ustar") {
      return archive_error("unpack", archive, "not a tar archive (no ustar header)");
    }
    if (!checksum_ok(b)) {
      return archive_error("unpack", archive, "a tar header's checksum does not match");
    }
    const char type = b[156];
    const auto size = octal(std::string_view(b.data() + 124, 12));
    if (!size) return archive_error("unpack", archive, "a tar header's size is not a number");
    if (++entries > kMaxEntries) {
      return archive_error("unpack", archive,
                           "more than " + std::to_string(kMaxEntries) + " entries");
    }
    if (type == 'x' || type == 'g') {
      if (*size > static_cast<std::uint64_t>(kMaxFileBytes)) {
        return archive_error(
            "unpack", archive,
            "a pax header is larger than " + std::to_string(kMaxFileBytes) + " bytes");
      }
      if (!read_data(*size)) return archive_error("unpack", archive, gz.error());
      if (type == 'g') continue;
      if (auto why = parse_pax(buf, pax); !why.empty()) {
        return archive_error("unpack", archive, why);
      }
      continue;
    }
    std::string name;
    if (pax.path) {
      name = *pax.path;
    } else {
      const std::string_view prefix = field(b, 345, 155);
      name = std::string(prefix) + (prefix.empty() ? "" : "/") + std::string(field(b, 0, 100));
    }
    const std::uint64_t data_size = pax.size.value_or(*size);
    pax = Pax{};
    if (auto why = bad_name(name); !why.empty()) return archive_error("unpack", archive, why);
    const fs::path target = dir / name;
    std::error_code ec;
    if (type != '0' && type != '\0' && type != '5') {
      return archive_error("unpack", archive,
                           "entry '" + name + "' is not a regular file or directory");
    }
    if (data_size > static_cast<std::uint64_t>(kMaxFileBytes)) {
      return archive_error(
          "unpack", archive,
          "entry '" + name + "' is larger than " + std::to_string(kMaxFileBytes) + " bytes");
    }
    if (!read_data(data_size)) return archive_error("unpack", archive, gz.error());
    if (type == '5') {
      fs::create_directories(target, ec);
      if (ec) return archive_error("unpack", archive, name + ": " + ec.message());
      continue;
    }
    fs::create_directories(target.parent_path(), ec);
    if (ec) return archive_error("unpack", archive, name + ": " + ec.message());
    total += static_cast<std::int64_t>(buf.size());
    if (total > kMaxTotalBytes) {
      return archive_error("unpack", archive,
                           "more than " + std::to_string(kMaxTotalBytes) + " bytes in all");
    }
    Fd out{::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
    if (out.fd < 0) {
      return errno == EEXIST ? archive_error("unpack", archive, "entry '" + name + "' twice")
                             : errno_error("unpack", target.string(), errno);
    }
    if (::write(out.fd, buf.data(), buf.size()) != static_cast<ssize_t>(buf.size())) {
      return errno_error("unpack", target.string(), errno);
    }
    ++files;
  }
  if (files == 0) return archive_error("unpack", archive, "the archive holds no files");
  return Ok{};
}

}  // namespace

bool private_name(std::string_view name) {
  for (std::string_view bad : {"serial", "uuid", "address"}) {
    if (name.find(bad) != std::string_view::npos) return true;
  }
  return false;
}

std::string scrub(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(start, end - start);
    start = end;
    if (private_line(line)) continue;
    std::string kept(line);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      for (std::string_view shape : {std::string_view("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"),
                                     std::string_view("xxsxxsxxsxxsxxsxx")}) {
        if (!shaped(kept, i, shape)) continue;
        for (std::size_t k = 0; k < shape.size(); ++k) {
          if (shape[k] == 'x') kept[i + k] = '0';
        }
        i += shape.size() - 1;
        break;
      }
    }
    out += kept;
  }
  return out;
}

Result<SysfsRootArg> SysfsRootArg::open(const std::string& arg) {
  std::error_code ec;
  const auto st = fs::status(arg, ec);
  if (fs::is_directory(st)) return SysfsRootArg(arg, false);
  if (!fs::is_regular_file(st)) {
    return archive_error("open", arg,
                         ec ? ec.message() : "neither a directory nor a probe archive file");
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/coolhand-probe-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return errno_error("mkdtemp", tmpl, errno);
  SysfsRootArg root(tmpl, true);  // removes the directory on every early return
  Fd fd{::open(arg.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return errno_error("open", arg, errno);
  Gunzip gz(fd.fd);
  if (!gz.open()) return archive_error("open", arg, gz.error());
  if (Status s = unpack(gz, arg, root.path_); !s) {
    SysError e = s.error();
    if (e.err == 0) e.detail = "not a valid probe archive: " + e.detail;
    return e;
  }
  return root;
}

SysfsRootArg& SysfsRootArg::operator=(SysfsRootArg&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    owned_ = std::exchange(o.owned_, false);
  }
  return *this;
}

SysfsRootArg::~SysfsRootArg() {
  remove();
}

void SysfsRootArg::remove() {
  if (!owned_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  owned_ = false;
}

}  // namespace coolhand::daemon
