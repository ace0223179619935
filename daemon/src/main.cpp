// coolhandd's entry point: the command line becomes Options (app.h), then
// either the daemon runs or --restore writes back the knobs' originals.
// Exit statuses are listed in app.h.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "app.h"
#include "probe_archive.h"

namespace cd = coolhand::daemon;

namespace {

int run(int argc, char** argv) {
  cd::Options o;
  CLI::App app{"coolhandd: thermal policy daemon for Linux handhelds"};
  app.add_option("--config", o.config,
                 "Policy file (default: detect the machine by DMI and use its class's policy)");
  app.add_option("--data-dir", o.data_dir, "Device descriptions and policies (devices/, policies/)")
      ->capture_default_str();
  app.add_option("--sysfs-root", o.sysfs_root,
                 "Root of the sysfs tree (tests: a fake tree), or a probe archive from "
                 "'coolhandctl probe', unpacked into a private directory removed at exit")
      ->capture_default_str();
  app.add_option("--proc-root", o.proc_root,
                 "Root of procfs, for sys/kernel/random/boot_id (tests: a fake tree)")
      ->capture_default_str();
  app.add_option("--state-dir", o.state_dir,
                 "Directory of the state file 'originals' (knob values before the first "
                 "write). Default: /run/coolhand with --sysfs-root /sys, none with a fake tree");
  app.add_option("--record-dir", o.record_dir,
                 "Directory for flight-recorder dumps (SIGUSR1, critical actions). Default: "
                 "$STATE_DIRECTORY, else /var/lib/coolhand with --sysfs-root /sys, none with a "
                 "fake tree");
  app.add_flag("--dry-run", o.dry_run, "Decide and print what would be written; write nothing");
  app.add_flag("--once", o.once, "One pass: read, decide, write, exit (levels stay applied)");
  app.add_flag("--restore", o.restore,
               "Write back every original the state file holds, then exit (ExecStopPost=)");
  app.add_flag("--verbose", o.verbose, "Log every sample");
  app.add_option("--netlink", o.netlink,
                 "Thermal and coolhand netlink events: auto (only with --sysfs-root /sys), on, "
                 "off. 'on' with a fake tree is for measurements: its zone numbers must not "
                 "clash with the kernel's")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_option("--bus", o.bus,
                 "D-Bus service: auto (the system bus only with --sysfs-root /sys), system, "
                 "session, none. Failing to reach the bus is a warning")
      ->check(CLI::IsMember({"auto", "system", "session", "none"}))
      ->capture_default_str();
  app.add_option("--logind", o.logind,
                 "logind (resume, power actions) on the system bus: auto (only with --sysfs-root "
                 "/sys), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_option(
         "--lockstep-fd", o.lockstep_fd,
         "For testing: run on a virtual clock that a driver advances over this inherited "
         "descriptor ('advance <ms>' lines, answered 'ok <ms> <next deadline>'; docs/daemon.md)")
      ->check(CLI::NonNegativeNumber);
  app.set_version_flag("--version", std::string("coolhandd ") + COOLHAND_VERSION);
  CLI11_PARSE(app, argc, argv);
  auto root = cd::SysfsRootArg::open(o.sysfs_root);
  if (!root) {
    std::fprintf(stderr, "<3>coolhandd: --sysfs-root: %s\n", root.error().to_string().c_str());
    return cd::kExitSystemError;
  }
  o.sysfs_root = root->path();  // `root` removes an unpacked archive when run() returns
  return o.restore ? cd::run_restore(o) : cd::run_daemon(o);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "<2>coolhandd: fatal: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "<2>coolhandd: fatal: unknown exception\n");
  }
  return 1;
}
