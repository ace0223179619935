// `coolhandctl probe`: capture the thermal-relevant part of sysfs into a
// probe archive (daemon/src/probe_archive.h) that `coolhandd --sysfs-root`
// and `coolhandctl detect --sysfs-root` load as it is. Serial numbers, MAC
// addresses and UUIDs are left out.
#pragma once

#include <string>

namespace coolhand::ctl {

struct ProbeOptions {
  std::string sysfs_root = "/sys";
  std::string output;  // the archive to write; must not exist yet
};

// Exit status: 0 written; 2 the output exists or cannot be written.
[[nodiscard]] int probe(const ProbeOptions& o);

}  // namespace coolhand::ctl
