// The coolhandd application: its options, exit statuses and the two things
// it can do (run the daemon, or restore knob originals and exit). main.cpp
// turns the command line into Options; app.cpp wires the adapters (sysfs,
// thermal and coolhand netlink, udev, logind, D-Bus, sd-event) to the
// runtime through named builders.
#pragma once

#include <string>

namespace coolhand::daemon {

// Exit status: 0 after SIGTERM/SIGINT (knobs restored), --once or
// --restore with every knob restored; 1 on a system error (or knobs left
// unrestored by --restore); 2 on a bad, missing or unreadable policy file;
// 3 when the policy's required hardware is absent (the unit treats 3 as
// "not for this machine").
inline constexpr int kExitOk = 0;
inline constexpr int kExitSystemError = 1;
inline constexpr int kExitBadPolicy = 2;
inline constexpr int kExitNoHardware = 3;

struct Options {
  std::string config;                        // empty: the policy for the machine detect.h finds
  std::string data_dir = COOLHAND_DATA_DIR;  // devices/ and policies/
  std::string sysfs_root = "/sys";
  // Root of procfs, where boot_id is read (sys/kernel/random/boot_id);
  // tests point it at a fake tree as they do --sysfs-root.
  std::string proc_root = "/proc";
  // Directory of the state file "originals" (the unit's RuntimeDirectory=).
  // Empty: /run/coolhand with the real /sys; with a fake tree, no state file
  // (originals in memory), so a test never touches the real daemon's file.
  std::string state_dir;
  // Where SIGUSR1 and critical actions dump the flight recorder (the unit's
  // StateDirectory=). Empty: $STATE_DIRECTORY, else /var/lib/coolhand with
  // the real /sys, else none (a fake tree: SIGUSR1 only logs).
  std::string record_dir;
  bool dry_run = false;
  bool once = false;
  bool restore = false;  // --restore: write back the state file's originals and exit
  bool verbose = false;
  std::string netlink = "auto";  // auto: only with the real /sys
  std::string bus = "auto";      // auto: the system bus only with the real /sys
  std::string logind = "auto";   // auto: only with the real /sys (tests: on, a private bus)
  // Tests only: >= 0 runs the loop on the lockstep clock driven over this
  // inherited descriptor (EventLoop::use_lockstep; docs/daemon.md).
  int lockstep_fd = -1;
};

// Run the daemon until SIGTERM/SIGINT (or one pass with --once).
[[nodiscard]] int run_daemon(const Options& o);
// --restore: write back every original the state file holds, checked
// against the policy's discovered ranges when the policy can be bound.
[[nodiscard]] int run_restore(const Options& o);

}  // namespace coolhand::daemon
