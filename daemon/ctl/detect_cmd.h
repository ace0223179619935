// `coolhandctl detect`: which device description matches this machine (DMI),
// the policy for its class, each role's binding and what is missing, using
// the daemon's own detection and discovery (daemon/src/detect.h).
#pragma once

#include <string>

namespace coolhand::ctl {

struct DetectOptions {
  std::string sysfs_root = "/sys";  // or a probe archive (probe_archive.h)
  std::string data_dir;             // devices/ and policies/
  std::string config;               // empty: the detected device's policy
};

// Prints the report to stdout. Exit status: 0 every required role bound;
// 3 no description matches, or a required role is missing; 2 a bad
// description or policy file, or a bad probe archive.
[[nodiscard]] int detect(const DetectOptions& o);

}  // namespace coolhand::ctl
