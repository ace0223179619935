// Detection: which machine this is (DMI ids against config/devices/*.yaml),
// the policy for its class, and the hardware behind each role the policy
// names. Reads sysfs, writes nothing.
//
// Matching: a description matches when every DMI key it gives equals the
// machine's class/dmi/id/<key> (trimmed). Among matches the one with the most
// keys wins (a model beats the generic fallback, which gives none); a tie is
// broken by file name and logged. Roles: each role in the policy binds the
// device description's first candidate that discovery finds; a role the
// device lacks leaves the sensor or knob unbound, so a required one stops the
// daemon (exit 3) naming the role, and an optional one is logged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coolhand/config/device_file.h"
#include "coolhand/config/policy_file.h"
#include "log.h"
#include "result.h"
#include "sysfs.h"

namespace coolhand::daemon {

// class/dmi/id/<key> for each config::kDmiKeys key; absent files are "".
struct DmiIds {
  std::string sys_vendor;
  std::string product_name;
  std::string board_name;
  [[nodiscard]] const std::string& get(std::string_view key) const;
};
[[nodiscard]] DmiIds read_dmi(const Sysfs& fs);

struct Detection {
  std::optional<config::DeviceDescription> device;  // the best DMI match, if any
  std::string device_file;                          // its config/devices/<id>.yaml
  std::string why;          // "sys_vendor=Valve product_name=Jupiter" or "generic fallback"
  std::string policy_path;  // <data_dir>/policies/<device.policy>.yaml
};

// Loads every <data_dir>/devices/*.yaml (errors: bad_policy) and picks the
// machine's match. No match is not an error here (policy_path stays empty).
[[nodiscard]] Result<Detection> detect(const Sysfs& fs, const std::string& data_dir);

// One role of the policy and what it bound to.
struct RoleBinding {
  std::string role;
  std::string used_by;  // "sensor battery" / "device screen"
  bool required = true;
  std::optional<std::string> bound;  // the candidate found ("hwmon steamdeck_hwmon Battery Temp")
  std::string missing;               // why not, when unbound
};

// Replaces each role in `doc` by the detected device's first present
// candidate. An error (bind) only when the policy names roles and no device
// description matched; missing roles are reported in the result.
[[nodiscard]] Result<std::vector<RoleBinding>> bind_roles(config::PolicyDocument& doc,
                                                          const Detection& d, const Sysfs& fs);

// coolhandd's start: detect, log what matched and why, and set `config` to
// the detected policy when it is empty. Errors: "policy" (a bad description
// file: exit 2), "bind" (nothing matches and no --config: exit 3).
[[nodiscard]] Result<Detection> detect_and_log(const Sysfs& fs, const std::string& data_dir,
                                               std::string& config, Logger& log);
// bind_roles, logging each role's binding. A required role the machine lacks
// is an error (bind) naming it; an optional one is a warning.
[[nodiscard]] Status bind_roles_logged(config::PolicyDocument& doc, const Detection& d,
                                       const Sysfs& fs, Logger& log);

}  // namespace coolhand::daemon
