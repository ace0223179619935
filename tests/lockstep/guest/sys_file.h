// A sysfs attribute of the emulated platform kept open and accessed with
// pread/pwrite (one open per run, not per step: the lockstep guest makes
// tens of thousands of accesses under an emulated CPU). Errors throw
// std::runtime_error naming the path.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace coolhand::lockstep {

[[noreturn]] inline void die(const std::string& what) {
  throw std::runtime_error(what);
}

class SysFile {
 public:
  SysFile(std::filesystem::path path, int flags)
      : path_(std::move(path)), fd_(::open(path_.c_str(), flags | O_CLOEXEC)) {
    if (fd_ < 0) die(path_.string() + ": " + std::strerror(errno));
  }
  SysFile(const SysFile&) = delete;
  SysFile& operator=(const SysFile&) = delete;
  SysFile(SysFile&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) { o.fd_ = -1; }
  SysFile& operator=(SysFile&&) = delete;
  ~SysFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const std::string& s) const {
    if (::pwrite(fd_, s.data(), s.size(), 0) != static_cast<ssize_t>(s.size()))
      die(path_.string() + ": write '" + s + "': " + std::strerror(errno));
  }
  [[nodiscard]] std::string read() const {
    char buf[64];
    const ssize_t n = ::pread(fd_, buf, sizeof(buf) - 1, 0);
    if (n <= 0) die(path_.string() + ": read: " + std::strerror(errno));
    return std::string(buf, static_cast<std::size_t>(n));
  }
  [[nodiscard]] long read_long() const {
    const std::string s = read();
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (end == s.c_str()) die(path_.string() + ": not a number: " + s);
    return v;
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace coolhand::lockstep
