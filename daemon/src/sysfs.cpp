// RootedSysfs: plain POSIX file access below a root directory. Reads open
// non-blocking so a FIFO planted in a fake tree cannot hang the event loop;
// writes are one write(2) each (see write()).
#include "sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "parse.h"

namespace coolhand::daemon {

namespace {
constexpr std::size_t kMaxAttr = 4096;

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

Result<std::int64_t> Sysfs::read_integer(std::string_view rel) const {
  auto text = read(rel);
  if (!text) return text.error();
  return parse_integer(*text, rel);
}

Status Sysfs::write_integer(std::string_view rel, std::int64_t value) {
  return write(rel, std::to_string(value));
}

RootedSysfs::RootedSysfs(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::string RootedSysfs::absolute(std::string_view rel) const {
  return root_ + "/" + std::string(rel);
}

Result<std::string> RootedSysfs::read(std::string_view rel) const {
  const std::string path = absolute(rel);
  FdCloser f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) return errno_error("read", std::string(rel), errno);
  std::array<char, kMaxAttr> buf{};
  std::string out;
  for (;;) {
    const ssize_t n = ::read(f.fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("read", std::string(rel), errno);
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<std::size_t>(n));
    if (out.size() >= kMaxAttr) break;
  }
  return out;
}

namespace {
// `text` to `fd` in one write(2); a short write is an error (for sysfs the
// rest could only go in as a second store()).
Status write_once(int fd, std::string_view text, std::string_view rel) {
  ssize_t n = 0;
  do {
    n = ::write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno_error("write", std::string(rel), errno);
  if (static_cast<std::size_t>(n) != text.size())
    return errno_error("write", std::string(rel), EIO);
  return Ok{};
}

// A regular file replaced whole: `value` goes to a new file beside it (same
// mode), which rename(2) then puts in its place, so a concurrent reader opens
// either the old file or the new one, never an empty or half-written one.
Status replace_file(const std::string& path, const struct stat& st, std::string_view value,
                    std::string_view rel) {
  const auto slash = path.rfind('/');
  const std::string tmp =
      path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".coolhand-new";
  FdCloser t{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777)};
  if (t.fd < 0) return errno_error("write", std::string(rel), errno);
  Status s = write_once(t.fd, value, rel);
  if (s && ::fchmod(t.fd, st.st_mode & 07777) != 0)
    s = errno_error("write", std::string(rel), errno);
  if (s && ::rename(tmp.c_str(), path.c_str()) != 0)
    s = errno_error("write", std::string(rel), errno);
  if (!s) ::unlink(tmp.c_str());
  return s;
}
}  // namespace

// Every write carries the whole value in one write(2), and no reader ever
// sees an empty or mixed value:
// - Pseudo-files (sysfs, procfs, debugfs, tracefs) and anything that is not
//   a regular file get exactly the value in one write: kernfs hands each
//   write(2) to the attribute's store() as one buffer (fs/kernfs/file.c,
//   kernfs_fop_write_iter), and kstrto*() accept only an optional trailing
//   newline (lib/kstrtox.c, _kstrtoull), so no padding. Truncation means
//   nothing there.
// - A regular file (a fake tree; the tmpfs knob of a test guest) is
//   replaced whole (replace_file). Truncating and rewriting it in place
//   shows a reader an empty file, and overwriting it in place can show a
//   torn one (regular-file reads do not lock out a concurrent write).
//   Writability is checked first by opening the file itself for writing.
// A symlink to a regular file (a test's read-only knob) is written through
// in place, so the link stays a link.
Status RootedSysfs::write(std::string_view rel, std::string_view value) {
  const std::string path = absolute(rel);
  FdCloser f{::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) return errno_error("write", std::string(rel), errno);
  struct stat st {};
  struct stat link {};
  struct statfs fsinfo {};
  if (::fstat(f.fd, &st) != 0 || ::fstatfs(f.fd, &fsinfo) != 0 ||
      ::lstat(path.c_str(), &link) != 0) {
    return errno_error("write", std::string(rel), errno);
  }
  const auto magic = static_cast<std::uint64_t>(fsinfo.f_type);
  const bool pseudo = magic == SYSFS_MAGIC || magic == PROC_SUPER_MAGIC || magic == DEBUGFS_MAGIC ||
                      magic == TRACEFS_MAGIC;
  if (!pseudo && S_ISREG(link.st_mode)) return replace_file(path, st, value, rel);
  return write_once(f.fd, value, rel);
}

Result<std::vector<std::string>> RootedSysfs::list(std::string_view rel) const {
  const std::string path = absolute(rel);
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), &::closedir);
  if (!dir) return errno_error("list", std::string(rel), errno);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    names.emplace_back(n);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool RootedSysfs::exists(std::string_view rel) const {
  struct stat st {};
  return ::stat(absolute(rel).c_str(), &st) == 0;
}

}  // namespace coolhand::daemon

namespace coolhand::daemon {

Result<std::string> RootedSysfs::read_link(std::string_view rel) const {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(absolute(rel).c_str(), buf.data(), buf.size() - 1);
  if (n < 0) return errno_error("readlink", std::string(rel), errno);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

}  // namespace coolhand::daemon
