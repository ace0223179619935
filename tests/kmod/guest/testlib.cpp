// sysfs writes for the guest tests (see testlib.hpp).
#include "testlib.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace coolhand::vmtest {

int write_file(const std::string& path, std::string_view value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int err = n < 0 ? errno : (static_cast<size_t>(n) == value.size() ? 0 : EIO);
  ::close(fd);
  return err;
}

}  // namespace coolhand::vmtest
