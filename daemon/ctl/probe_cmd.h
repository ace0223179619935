// `coolhandctl probe`: copy the thermal-relevant part of sysfs into a plain
// directory tree that `coolhandd --sysfs-root` and `coolhandctl detect
// --sysfs-root` load as they are (tar it to attach it to a bug report).
// Serial numbers, MAC addresses and UUIDs are left out.
#pragma once

#include <string>

namespace coolhand::ctl {

struct ProbeOptions {
  std::string sysfs_root = "/sys";
  std::string output;  // a directory that must not exist yet
};

// Exit status: 0 written; 2 the output exists or cannot be written.
[[nodiscard]] int probe(const ProbeOptions& o);

}  // namespace coolhand::ctl
