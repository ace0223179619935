// Detection: DMI match against the device database, and role binding.
#include "detect.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "discovery.h"
#include "parse.h"

namespace coolhand::daemon {

namespace {

SysError error(std::string what, std::string object, std::string detail) {
  return SysError{std::move(what), std::move(object), 0, std::move(detail)};
}

std::string describe(const config::SensorSource& s) {
  using K = config::SensorSource::Kind;
  switch (s.kind) {
    case K::thermal_zone:
      return "thermal_zone " + s.name;
    case K::hwmon:
      return fmt::format("hwmon {} {}", s.name,
                         s.label.empty() ? fmt::format("temp{}", s.index.value_or(1)) : s.label);
    case K::power_supply:
      return "power_supply " + s.name;
    case K::coolhand:
      return "coolhand zone " + s.name;
    case K::backlight:
      return "backlight " + s.name;
    case K::none:
      break;
  }
  return "none";
}

// The number of keys that match, or nullopt when one differs.
std::optional<std::size_t> match_keys(const config::DeviceDescription& d, const DmiIds& dmi) {
  std::size_t n = 0;
  for (const auto& [key, want] : d.match) {
    if (dmi.get(key) != want) return std::nullopt;
    ++n;
  }
  return n;
}

}  // namespace

const std::string& DmiIds::get(std::string_view key) const {
  if (key == "sys_vendor") return sys_vendor;
  if (key == "product_name") return product_name;
  return board_name;
}

DmiIds read_dmi(const Sysfs& fs) {
  DmiIds ids;
  const auto one = [&](const char* key) {
    auto v = fs.read(std::string("class/dmi/id/") + key);
    return v ? std::string(trim_line(*v)) : std::string{};
  };
  ids.sys_vendor = one("sys_vendor");
  ids.product_name = one("product_name");
  ids.board_name = one("board_name");
  return ids;
}

Result<Detection> detect(const Sysfs& fs, const std::string& data_dir) {
  namespace stdfs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  // No database (not installed): nothing matches; only --config works.
  if (!stdfs::exists(data_dir + "/devices", ec)) return Detection{};
  for (stdfs::directory_iterator it(data_dir + "/devices", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() == ".yaml") files.push_back(it->path().string());
  }
  if (ec) return error("policy", data_dir + "/devices", "cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  const DmiIds dmi = read_dmi(fs);
  Detection best;
  std::optional<std::size_t> best_keys;
  std::vector<std::string> ties;
  for (const auto& file : files) {
    auto loaded = config::load_device_file(file);
    if (!loaded.description) {
      std::string detail;
      for (const auto& e : loaded.errors) detail += (detail.empty() ? "" : "; ") + e.to_string();
      return error("policy", file, detail);
    }
    auto keys = match_keys(*loaded.description, dmi);
    if (!keys) continue;
    if (best_keys && *keys == *best_keys) ties.push_back(file);
    if (best_keys && *keys <= *best_keys) continue;
    best_keys = keys;
    ties.clear();
    best.device = std::move(*loaded.description);
    best.device_file = file;
  }
  if (!best.device) return best;
  for (const auto& [key, want] : best.device->match) {
    best.why += fmt::format("{}{}='{}'", best.why.empty() ? "" : " ", key, want);
  }
  if (best.why.empty()) best.why = "generic fallback (no model matched)";
  if (!ties.empty()) best.why += fmt::format("; also matched equally: {}", fmt::join(ties, ", "));
  best.policy_path = fmt::format("{}/policies/{}.yaml", data_dir, best.device->policy);
  return best;
}

Result<std::vector<RoleBinding>> bind_roles(config::PolicyDocument& doc, const Detection& d,
                                            const Sysfs& fs) {
  std::vector<RoleBinding> out;
  const auto need_device = [&](const std::string& role) -> Status {
    if (d.device) return Ok{};
    return error("bind", "role " + role,
                 "the policy names roles but no device description matches this machine");
  };
  for (auto& [sensor, src] : doc.sources) {
    if (src.role.empty()) continue;
    if (auto s = need_device(src.role); !s) return s.error();
    RoleBinding rb{src.role, "sensor " + sensor, src.required, std::nullopt, {}};
    auto role = d.device->sensors.find(src.role);
    if (role == d.device->sensors.end()) {
      rb.missing = d.device->id + " has no " + src.role;
    } else {
      for (const auto& cand : role->second.candidates) {
        config::SensorSource c = cand;
        c.role = src.role;
        c.required = src.required;
        auto found = find_sensor(fs, c);
        if (found) {
          src = c;
          rb.bound = describe(c) + " -> " + found->path;
          break;
        }
        rb.missing += (rb.missing.empty() ? "" : "; ") + found.error().to_string();
      }
    }
    out.push_back(std::move(rb));
  }
  for (auto& [device, knob] : doc.knobs) {
    if (knob.role.empty()) continue;
    if (auto s = need_device(knob.role); !s) return s.error();
    RoleBinding rb{knob.role, "device " + device, knob.required, std::nullopt, {}};
    auto role = d.device->knobs.find(knob.role);
    std::uint32_t max_level = 0;
    for (const auto& spec : doc.spec.devices) {
      if (spec.name == device) max_level = spec.max_level;
    }
    if (role == d.device->knobs.end()) {
      rb.missing = d.device->id + " has no " + knob.role;
    } else {
      for (const auto& cand : role->second.candidates) {
        config::DeviceKnob c = cand;
        c.role = knob.role;
        c.values = knob.values;
        c.deepest = knob.deepest;
        c.required = knob.required;
        auto found = find_knob(fs, c, max_level, nullptr);
        if (found) {
          knob = c;
          rb.bound = found->description;
          break;
        }
        rb.missing += (rb.missing.empty() ? "" : "; ") + found.error().to_string();
      }
    }
    out.push_back(std::move(rb));
  }
  return out;
}

Result<Detection> detect_and_log(const Sysfs& fs, const std::string& data_dir, std::string& config,
                                 Logger& log) {
  if (config.empty()) {
    // Without --config the database is the only way to a policy: a missing
    // one is a broken installation (exit 2), not a machine we do not know.
    std::error_code ec;
    const std::string dir = data_dir + "/devices";
    if (!std::filesystem::is_directory(dir, ec)) {
      const int err = ec ? ec.value() : ENOENT;
      const char* name = strerrorname_np(err);
      log.error("{}: cannot open: {} ({}); give --config FILE or --data-dir DIR", dir,
                std::strerror(err), name ? name : "?");
      return error("policy", dir, "cannot open");
    }
  }
  auto det = detect(fs, data_dir);
  if (!det) {
    log.error("device database: {}", det.error().to_string());
    return det;
  }
  const DmiIds dmi = read_dmi(fs);
  if (det->device) {
    log.info("device: {} ({}) matched on {}", det->device->name, det->device_file, det->why);
  } else {
    log.info(
        "device: no description in {}/devices matches sys_vendor='{}' product_name='{}' "
        "board_name='{}'",
        data_dir, dmi.sys_vendor, dmi.product_name, dmi.board_name);
  }
  if (config.empty()) {
    if (!det->device) {
      log.error("no --config and no device description matches this machine");
      return error("bind", "device", "no description matches");
    }
    config = det->policy_path;
    log.info("policy: {} (the policy for {})", config, det->device->id);
  }
  return det;
}

Status bind_roles_logged(config::PolicyDocument& doc, const Detection& d, const Sysfs& fs,
                         Logger& log) {
  auto roles = bind_roles(doc, d, fs);
  if (!roles) {
    log.error("{}", roles.error().to_string());
    return roles.error();
  }
  std::string missing;
  for (const auto& r : *roles) {
    if (r.bound) {
      log.info("role {} ({}): {}", r.role, r.used_by, *r.bound);
    } else if (r.required) {
      log.error("role {} ({}): required and not present: {}", r.role, r.used_by, r.missing);
      missing += fmt::format("{}{} ({})", missing.empty() ? "" : ", ", r.role, r.used_by);
    } else {
      log.warning("role {} ({}): optional, not present: {}", r.role, r.used_by, r.missing);
    }
  }
  if (!missing.empty()) return error("bind", "roles", "required hardware not present: " + missing);
  return Ok{};
}

}  // namespace coolhand::daemon
