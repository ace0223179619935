// Probe archives: unpacking under the rules in probe_archive.h, and the
// scrubbing of probe text. The writer is probe_archive_write.cpp.
//
// libarchive parses the gzip and the tar; it is loaded with dlopen on the
// archive's unpacking (libarchive_dl.h) and closed after, so coolhandd
// loads it, and libxml2 and ICU with it, only to unpack --sysfs-root FILE.
#include "probe_archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include "libarchive_dl.h"

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

std::string libarchive_says(const LibArchive& la, struct archive* a) {
  const char* s = la.archive_error_string(a);
  return s != nullptr ? s : "unknown libarchive error";
}

// Unpacks the opened archive `a` into `dir`; errors name `archive`.
Status unpack(const LibArchive& la, struct archive* a, const std::string& archive,
              const fs::path& dir) {
  struct archive_entry* entry = nullptr;
  std::size_t entries = 0;
  std::size_t files = 0;
  std::int64_t total = 0;
  std::string buf;
  for (;;) {
    const int r = la.archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return archive_error("unpack", archive, libarchive_says(la, a));
    if (++entries > kMaxEntries) {
      return archive_error("unpack", archive,
                           "more than " + std::to_string(kMaxEntries) + " entries");
    }
    const char* raw = la.archive_entry_pathname(entry);
    const std::string name = raw != nullptr ? raw : "";
    if (auto why = bad_name(name); !why.empty()) return archive_error("unpack", archive, why);
    const fs::path target = dir / name;
    std::error_code ec;
    const auto type = la.archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      fs::create_directories(target, ec);
      if (ec) return archive_error("unpack", archive, name + ": " + ec.message());
      continue;
    }
    if (type != AE_IFREG || la.archive_entry_hardlink(entry) != nullptr) {
      return archive_error("unpack", archive,
                           "entry '" + name + "' is not a regular file or directory");
    }
    fs::create_directories(target.parent_path(), ec);
    if (ec) return archive_error("unpack", archive, name + ": " + ec.message());
    buf.clear();
    char chunk[8192];
    for (;;) {
      const la_ssize_t n = la.archive_read_data(a, chunk, sizeof chunk);
      if (n < 0) return archive_error("unpack", archive, libarchive_says(la, a));
      if (n == 0) break;
      buf.append(chunk, static_cast<std::size_t>(n));
      if (static_cast<std::int64_t>(buf.size()) > kMaxFileBytes) {
        return archive_error(
            "unpack", archive,
            "entry '" + name + "' is larger than " + std::to_string(kMaxFileBytes) + " bytes");
      }
    }
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
      // Both shapes start with a hex digit that follows none (what shaped()
      // checks first): one test here instead of two calls at every byte.
      if (!hex(kept[i]) || (i > 0 && hex(kept[i - 1]))) continue;
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
  // Only now, and only while unpacking: a directory needs no libarchive,
  // and nothing needs it after (closed when `loaded` goes, after `a`).
  auto loaded = load_libarchive();
  if (!loaded) return loaded.error();
  const LibArchive& la = *loaded;
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/coolhand-probe-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return errno_error("mkdtemp", tmpl, errno);
  SysfsRootArg root(tmpl, true);  // removes the directory on every early return
  Fd fd{::open(arg.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return errno_error("open", arg, errno);
  using ReadPtr = std::unique_ptr<struct archive, decltype(la.archive_read_free)>;
  ReadPtr a(la.archive_read_new(), la.archive_read_free);
  if (!a || la.archive_read_support_filter_gzip(a.get()) != ARCHIVE_OK ||
      la.archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
      la.archive_read_open_fd(a.get(), fd.fd, 16384) != ARCHIVE_OK) {
    return archive_error("open", arg,
                         "not a probe archive (gzip-compressed tar): " +
                             (a ? libarchive_says(la, a.get()) : std::string("out of memory")));
  }
  if (Status s = unpack(la, a.get(), arg, root.path_); !s) {
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
