// RootedSysfs: plain POSIX file access below a root directory. Reads open
// non-blocking so a FIFO planted in a fake tree cannot hang the event loop.
#include "sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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

Status RootedSysfs::write(std::string_view rel, std::string_view value) {
  const std::string path = absolute(rel);
  // O_TRUNC is ignored by sysfs and needed by the regular files of a fake tree.
  FdCloser f{::open(path.c_str(), O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) return errno_error("write", std::string(rel), errno);
  std::size_t done = 0;
  while (done < value.size()) {
    const ssize_t n = ::write(f.fd, value.data() + done, value.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("write", std::string(rel), errno);
    }
    done += static_cast<std::size_t>(n);
  }
  return Ok{};
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
