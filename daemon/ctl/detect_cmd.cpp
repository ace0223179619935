// `coolhandctl detect`: the daemon's detection, printed.
#include "detect_cmd.h"

#include <iostream>

#include "coolhand/config/policy_file.h"
#include "detect.h"
#include "probe_archive.h"
#include "sysfs.h"

namespace coolhand::ctl {

int detect(const DetectOptions& o) {
  auto root = daemon::SysfsRootArg::open(o.sysfs_root);
  if (!root) {
    std::cout << "error: --sysfs-root: " << root.error().to_string() << '\n';
    return 2;
  }
  daemon::RootedSysfs fs(root->path());
  const daemon::DmiIds dmi = daemon::read_dmi(fs);
  std::cout << "dmi: sys_vendor='" << dmi.sys_vendor << "' product_name='" << dmi.product_name
            << "' board_name='" << dmi.board_name << "'\n";
  auto det = daemon::detect(fs, o.data_dir);
  if (!det) {
    std::cout << "error: " << det.error().to_string() << '\n';
    return 2;
  }
  if (det->device) {
    std::cout << "device: " << det->device->name << " (" << det->device->id << ", "
              << det->device_file << ")\n  matched on: " << det->why << '\n';
  } else {
    std::cout << "device: none of " << o.data_dir << "/devices matches\n";
  }
  const std::string policy = o.config.empty() ? det->policy_path : o.config;
  if (policy.empty()) return 3;
  std::cout << "policy: " << policy << '\n';
  auto loaded = config::load_policy_file(policy);
  if (!loaded.document) {
    for (const auto& e : loaded.errors) std::cout << "error: " << e.to_string() << '\n';
    return 2;
  }
  auto roles = daemon::bind_roles(*loaded.document, *det, fs);
  if (!roles) {
    std::cout << "error: " << roles.error().to_string() << '\n';
    return 3;
  }
  int status = 0;
  for (const auto& r : *roles) {
    std::cout << "role " << r.role << " (" << r.used_by << "): ";
    if (r.bound) {
      std::cout << *r.bound << '\n';
    } else {
      std::cout << "MISSING (" << (r.required ? "required" : "optional") << "): " << r.missing
                << '\n';
      if (r.required) status = 3;
    }
  }
  return status;
}

}  // namespace coolhand::ctl
