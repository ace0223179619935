// sysfs writes and lookups for the guest tests (see testlib.hpp).
#include "testlib.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace coolhand::vmtest {

int write_file(const std::string& path, std::string_view value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int err = n < 0 ? errno : (static_cast<size_t>(n) == value.size() ? 0 : EIO);
  ::close(fd);
  return err;
}

std::vector<std::string> list_dir(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(e->d_name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string zone_dir(const std::string& name) {
  for (const auto& z : list_dir(kClass, "zone")) {
    if (read_file(kClass + "/" + z + "/name") == name) return kClass + "/" + z;
  }
  return {};
}

int zone_id(const std::string& dir) {
  return std::atoi(dir.substr(dir.rfind("zone") + 4).c_str());
}

std::string thermal_dir(const std::string& prefix, const std::string& type) {
  for (const auto& d : list_dir(kThermal, prefix)) {
    if (read_file(kThermal + "/" + d + "/type") == type) return kThermal + "/" + d;
  }
  return {};
}

}  // namespace coolhand::vmtest
