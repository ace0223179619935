// coolhandctl: the command-line companion of coolhandd. On policy files,
// `check-config` validates them the way the daemon would at start and
// `dump-config` shows what a valid one compiles to. Over D-Bus, `status`
// shows what the running daemon does, `explain` why a device is at its
// level, `reload` and `set-profile` change it
// (root only; bus_client.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "bus_client.h"
#include "coolhand/config/policy_file.h"
#include "detect_cmd.h"
#include "policy_json.h"
#include "probe_cmd.h"
#include "record_cmd.h"

namespace {

// Prints "FILE: ok" or every error, one per line; returns the number of
// files with errors.
int check_config(const std::vector<std::string>& files) {
  int failed = 0;
  for (const std::string& file : files) {
    const coolhand::config::LoadResult r = coolhand::config::load_policy_file(file);
    if (r.errors.empty()) {
      std::cout << file << ": ok\n";
      continue;
    }
    ++failed;
    for (const auto& e : r.errors) std::cout << e.to_string() << '\n';
  }
  return failed;
}

int dump_config(const std::string& file) {
  const coolhand::config::LoadResult r = coolhand::config::load_policy_file(file);
  if (!r.document) {
    for (const auto& e : r.errors) std::cerr << e.to_string() << '\n';
    return 1;
  }
  std::cout << coolhand::ctl::to_json(*r.document).dump(2) << '\n';
  return 0;
}

int run(int argc, char** argv) {
  namespace ctl = coolhand::ctl;
  CLI::App app{"coolhandctl: inspect and control the coolhand thermal daemon"};
  app.footer(
      "Exit codes of status, explain, reload and set-profile: 0 done; 1 the daemon refused "
      "(invalid policy, unknown profile or device; it keeps running as before); 2 usage or "
      "unexpected error; 3 "
      "no bus, or coolhandd is not running; 4 access denied (changing the daemon needs root).");
  app.require_subcommand(1);
  ctl::BusTarget bus;
  app.add_flag("--session", bus.session,
               "Talk to coolhandd on the session bus instead of the system bus "
               "(DBUS_SYSTEM_BUS_ADDRESS and DBUS_SESSION_BUS_ADDRESS are honoured)");

  std::vector<std::string> check_files;
  auto* check =
      app.add_subcommand("check-config",
                         "Validate policy files; print 'FILE: ok' or each error as "
                         "file:line:column: key: message. Exits 1 if any file has errors.");
  check->add_option("FILE", check_files, "Policy files (YAML)")->required();

  std::string dump_file;
  auto* dump = app.add_subcommand("dump-config",
                                  "Print a valid policy as JSON after defaults and unit conversion "
                                  "(temperatures in °C, durations in ms). Exits 1 on errors.");
  dump->add_option("FILE", dump_file, "Policy file (YAML)")->required();

#ifdef COOLHAND_CTL_DETECT
  ctl::DetectOptions detect_opts;
  detect_opts.data_dir = COOLHAND_DATA_DIR;
  auto* detect = app.add_subcommand(
      "detect",
      "Show which device description matches this machine (DMI), its policy, each role's "
      "binding and what is missing. Exits 3 if nothing matches or a required role is missing.");
  detect
      ->add_option("--sysfs-root", detect_opts.sysfs_root,
                   "Root of the sysfs tree, or a probe archive ('coolhandctl probe')")
      ->capture_default_str();
  detect->add_option("--data-dir", detect_opts.data_dir, "Device descriptions and policies")
      ->capture_default_str();
  detect->add_option("--config", detect_opts.config, "Policy file (default: the detected one)");
#endif

  ctl::ProbeOptions probe_opts;
  auto* probe = app.add_subcommand(
      "probe",
      "Copy the thermal-relevant sysfs (thermal, hwmon, powercap, power_supply, backlight, "
      "cpufreq, DRM frequency files, firmware-attributes, DMI ids; no serials, MACs or UUIDs) "
      "into a new .tar.gz archive that --sysfs-root loads as it is; attach it to a bug report.");
  probe->add_option("--output", probe_opts.output, "New archive to write (e.g. probe.tar.gz)")
      ->required();
  probe->add_option("--sysfs-root", probe_opts.sysfs_root, "Root of the sysfs tree")
      ->capture_default_str();

  bool json = false;
  auto* status = app.add_subcommand("status",
                                    "Show the running daemon's severity, zones, sensors, device "
                                    "levels and counters (anyone may ask).");
  status->add_flag("--json", json, "JSON instead of text (temperatures in m°C, unknown: null)");

  std::string explain_device;
  bool explain_json = false;
  auto* explain = app.add_subcommand(
      "explain",
      "Why is a device at its level? The winning controller, its input's value, the threshold "
      "or setpoint, and since when (anyone may ask).");
  explain->add_option("DEVICE", explain_device, "Device name from the policy (default: all)");
  explain->add_flag("--json", explain_json,
                    "JSON instead of text (m°C, monotonic ms; unknown: null)");

  auto* reload = app.add_subcommand(
      "reload",
      "Make coolhandd re-read its policy file (root only). An invalid policy is refused with "
      "the reason, and the daemon keeps running the old one (exit 1).");

  std::string profile;
  auto* set_profile = app.add_subcommand(
      "set-profile", "Switch the running policy's profile (root only); \"\" for none.");
  set_profile->add_option("NAME", profile, "Profile name from the policy")->required();

  ctl::RecordOptions record_opts;
  auto* record = app.add_subcommand(
      "record",
      "The daemon's flight recorder (anyone who may read status may record): --output FILE "
      "writes a recording into FILE, opened with your permissions; --follow prints records as "
      "they are made.");
  auto* record_output =
      record->add_option("--output", record_opts.output, "Recording file to write (.chrec)");
  auto* record_follow =
      record->add_flag("--follow", record_opts.follow, "Print records as they are made");
  record_output->excludes(record_follow);
  record->add_flag("--json", record_opts.json, "--follow: one JSON object per line")
      ->needs(record_follow);
  record->add_option("--count", record_opts.count, "--follow: stop after N records")
      ->needs(record_follow);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints the help or the error
    return code == 0 ? 0 : ctl::kExitUsage;
  }

  if (check->parsed()) return check_config(check_files) == 0 ? 0 : 1;
  if (dump->parsed()) return dump_config(dump_file);
  if (probe->parsed()) return ctl::probe(probe_opts);
#ifdef COOLHAND_CTL_DETECT
  if (detect->parsed()) return ctl::detect(detect_opts);
#endif
  if (status->parsed()) return ctl::status(bus, json);
  if (explain->parsed()) return ctl::explain(bus, explain_device, explain_json);
  if (reload->parsed()) return ctl::reload(bus);
  if (set_profile->parsed()) return ctl::set_profile(bus, profile);
  if (record->parsed()) {
    if (record_opts.output.empty() && !record_opts.follow) {
      std::cerr << "coolhandctl: record: give --output FILE or --follow\n";
      return ctl::kExitUsage;
    }
    return ctl::record(bus, record_opts);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "coolhandctl: " << e.what() << '\n';
    return 2;
  }
}
