// coolhandd: the one place that wires the adapters (sysfs, thermal and
// coolhand netlink, udev, logind, D-Bus, sd-event) to the runtime.
// Everything else lives in coolhand_daemon_core so tests link it.
//
// Exit status: 0 after SIGTERM/SIGINT (knobs restored) or --once; 1 on a
// system error; 2 on a bad policy file; 3 when the policy's required
// hardware is absent (the unit treats 3 as "not for this machine").
#include <systemd/sd-daemon.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "coolhand/config/policy_file.h"
#include "coolhand_netlink.h"
#include "dbus_service.h"
#include "detect.h"
#include "dispatch.h"
#include "event_loop.h"
#include "hotplug.h"
#include "log.h"
#include "logind.h"
#include "memory.h"
#include "runtime.h"
#include "sysfs.h"
#include "thermal_netlink.h"

namespace cd = coolhand::daemon;

namespace {

constexpr int kExitBadPolicy = 2;
constexpr int kExitNoHardware = 3;

struct Options {
  std::string config;                        // empty: the policy for the machine detect.h finds
  std::string data_dir = COOLHAND_DATA_DIR;  // devices/ and policies/
  std::string sysfs_root = "/sys";
  bool dry_run = false;
  bool once = false;
  bool verbose = false;
  std::string netlink = "auto";  // auto: only with the real /sys
  std::string bus = "auto";      // auto: the system bus only with the real /sys
};

// Reads the policy with a buffer of the file's own size, then parses it;
// anything unusual (not a regular file, unreadable, oversized) goes through
// config::load_policy_file for its error message. load_policy_file alone
// would zero-fill a 4 MiB buffer, which stays in the daemon's peak RSS.
// `errors`, when set, receives the errors joined by "; " (D-Bus replies).
std::optional<coolhand::config::PolicyDocument> load(const std::string& path, cd::Logger& log,
                                                     std::string* errors = nullptr) {
  constexpr std::uintmax_t kMaxPolicyBytes = 1 << 20;
  coolhand::config::LoadResult r;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::ifstream in;
  if (!ec && size <= kMaxPolicyBytes && std::filesystem::is_regular_file(path, ec))
    in.open(path, std::ios::binary);
  std::string text(in ? size : 0, '\0');
  if (in && in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    r = coolhand::config::parse_policy(text, path);
  } else {
    r = coolhand::config::load_policy_file(path);
  }
  for (const auto& e : r.errors) {
    log.error("{}", e.to_string());
    if (errors) *errors += (errors->empty() ? "" : "; ") + e.to_string();
  }
  return std::move(r.document);
}

// Start-up and reload touch code the steady loop never runs again (memory.h).
void release_startup_memory(cd::Logger& log) {
  const auto r = cd::release_startup_memory();
  log.debug("released start-up memory: {} code mappings, {} kB advised, {} failed", r.mappings,
            r.bytes / 1024, r.failures);
}

}  // namespace

namespace {

int run_daemon(int argc, char** argv) {
  Options o;
  CLI::App app{"coolhandd: thermal policy daemon for Linux handhelds"};
  app.add_option("--config", o.config,
                 "Policy file (default: detect the machine by DMI and use its class's policy)");
  app.add_option("--data-dir", o.data_dir, "Device descriptions and policies (devices/, policies/)")
      ->capture_default_str();
  app.add_option("--sysfs-root", o.sysfs_root, "Root of the sysfs tree (tests: a fake tree)")
      ->capture_default_str();
  app.add_flag("--dry-run", o.dry_run, "Decide and print what would be written; write nothing");
  app.add_flag("--once", o.once, "One pass: read, decide, write, exit (levels stay applied)");
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
  app.set_version_flag("--version", std::string("coolhandd ") + COOLHAND_VERSION);
  CLI11_PARSE(app, argc, argv);

  cd::Logger log(o.verbose);
  cd::RootedSysfs fs(o.sysfs_root);
  // --- device detection and roles (detect.h) ---
  auto det = cd::detect_and_log(fs, o.data_dir, o.config, log);
  if (!det) return det.error().what == "bind" ? kExitNoHardware : kExitBadPolicy;
  auto doc = load(o.config, log);
  if (!doc) return kExitBadPolicy;
  if (!cd::bind_roles_logged(*doc, *det, fs, log)) return kExitNoHardware;
  // --- end device detection ---
  const bool real_sys = fs.root() == "/sys";

  auto loop = cd::EventLoop::create();
  if (!loop) {
    log.error("{}", loop.error().to_string());
    return 1;
  }
  cd::EventLoop& ev = **loop;

  // Events refer to the kernel's zones, so by default they are used only with the real /sys.
  std::unique_ptr<cd::Runtime> rt;
  std::unique_ptr<cd::ThermalNetlink> nl;
  bool resync_wanted = false;
  const bool want_netlink = o.netlink == "on" || (o.netlink == "auto" && real_sys);
  if (want_netlink && !o.once) {
    auto opened = cd::ThermalNetlink::open(
        [&](const cd::ThermalEvent& e) {
          if (rt) resync_wanted |= cd::dispatch_thermal_event(*rt, e, cd::monotonic_now());
        },
        log);
    if (opened) {
      nl = std::move(*opened);
      log.info("thermal netlink: subscribed (family version {}, thresholds {})",
               nl->family_version(), nl->thresholds_supported() ? "yes" : "no");
    } else {
      log.warning("thermal netlink unavailable ({}); polling every sensor",
                  opened.error().to_string());
    }
  }

  // The coolhand module's own family, when the module is loaded: its zones
  // become event-driven from it, with WINDOW_SET for their windows.
  std::unique_ptr<cd::CoolhandNetlink> chnl;
  if (want_netlink && !o.once) {
    auto opened = cd::CoolhandNetlink::open(
        [&](const cd::CoolhandEvent& e) {
          if (rt) cd::dispatch_coolhand_event(*rt, e, cd::monotonic_now());
        },
        log);
    if (opened) {
      chnl = std::move(*opened);
      log.info("coolhand netlink: subscribed (family version {})", chnl->family_version());
    } else if (opened.error().err == ENOENT) {
      log.info("coolhand netlink: no coolhand family (module not loaded)");
    } else {
      log.warning("coolhand netlink unavailable ({})", opened.error().to_string());
    }
  }

  auto created =
      cd::Runtime::create(std::move(*doc), fs, log, {o.dry_run, nl != nullptr, chnl != nullptr});
  if (!created) {
    log.error("{}: {}", o.config, created.error().to_string());
    if (created.error().what == "bind") {
      log.error("the policy's required hardware is not present on this machine; exiting");
      return kExitNoHardware;
    }
    return kExitBadPolicy;
  }
  rt = std::move(*created);
  // An exception that escapes the loop must not leave devices throttled:
  // main() catches it, so the stack unwinds through here and every knob
  // gets its original value back.
  struct RestoreOnUnwind {
    explicit RestoreOnUnwind(std::unique_ptr<cd::Runtime>& r) : rt(r) {}
    RestoreOnUnwind(const RestoreOnUnwind&) = delete;
    RestoreOnUnwind& operator=(const RestoreOnUnwind&) = delete;
    ~RestoreOnUnwind() {
      if (std::uncaught_exceptions() > 0 && rt) rt->restore_all();
    }
    std::unique_ptr<cd::Runtime>& rt;
  } restore_on_unwind{rt};

  std::unique_ptr<cd::Logind> logind;
  if (real_sys && !o.once) {
    auto c = cd::Logind::connect(ev.raw(), [&] { rt->on_resume(cd::monotonic_now()); });
    if (c) {
      logind = std::move(*c);
    } else {
      log.info("logind unavailable ({}); detecting resume from clock divergence",
               c.error().to_string());
    }
  }
  rt->on_window = [&](std::uint32_t tz, const coolhand::policy::Window& w) {
    return nl && nl->thresholds_supported() && nl->set_window(tz, w);
  };
  if (chnl) {
    rt->program_module_window = [&](std::uint32_t zone, const coolhand::policy::Window& w) {
      return chnl->set_window(zone, w);
    };
  }
  rt->on_action = [&](coolhand::policy::TripAction a, const std::string& zone) {
    if (o.dry_run) return;
    if (!logind) {
      log.error("zone {}: cannot request {} without logind", zone, coolhand::policy::to_string(a));
      return;
    }
    if (auto s = logind->request(a); !s) log.error("zone {}: {}", zone, s.error().to_string());
  };

  rt->start(cd::monotonic_now());
  if (o.once) {
    log.info("{}", rt->status_line());
    return 0;
  }

  cd::ResumeDetector resume;
  std::string last_status;
  std::unique_ptr<cd::DbusService> bus;
  // After every wake-up: notice a resume, do what is due, re-arm the one timer.
  auto reschedule = [&] {
    const auto now = cd::monotonic_now();
    if (resume.resumed(now, cd::boottime_now())) rt->on_resume(now);
    if (resync_wanted) {
      resync_wanted = false;
      rt->resync(now);
    }
    if (auto s = ev.set_timer(rt->tick(now)); !s) log.error("{}", s.error().to_string());
    const std::string status = rt->status_line();
    if (status != last_status) {
      sd_notifyf(0, "STATUS=%s", status.c_str());
      last_status = status;
    }
    if (bus) bus->publish();
  };
  ev.on_timer(reschedule);

  auto stop = [&] {
    sd_notify(0, "STOPPING=1");
    ev.exit(0);
  };
  // SIGHUP and D-Bus Reload().
  auto reload = [&]() -> cd::Status {
    sd_notify(0, "RELOADING=1");
    log.info("reloading {}", o.config);
    std::string errors;
    cd::Status result = cd::Ok{};
    auto d = load(o.config, log, &errors);
    if (d && !cd::bind_roles_logged(*d, *det, fs, log)) d.reset();  // detect.h
    if (d) {
      if (auto s = rt->reload(std::move(*d), cd::monotonic_now()); !s) {
        log.error("reload rejected, keeping the running policy: {}", s.error().to_string());
        result = s.error();
      }
    } else {
      log.error("reload rejected, keeping the running policy");
      result = cd::SysError{"invalid policy", "", 0, errors};
    }
    release_startup_memory(log);
    sd_notify(0, "READY=1");
    reschedule();
    return result;
  };
  cd::Status ok = ev.on_signal(SIGTERM, stop);
  if (ok) ok = ev.on_signal(SIGINT, stop);
  if (ok) {
    ok = ev.on_signal(SIGHUP, [&] {
      log.info("SIGHUP: reload requested");
      (void)reload();
    });
  }
  if (ok && nl) {
    ok = ev.on_readable(nl->fd(), [&] {
      resync_wanted |= nl->receive();
      reschedule();
    });
  }
  if (ok && chnl) {
    ok = ev.on_readable(chnl->fd(), [&] {
      resync_wanted |= chnl->receive();
      reschedule();
    });
  }
  std::unique_ptr<cd::HotplugMonitor> hotplug;
  if (ok && real_sys) {
    auto h = cd::HotplugMonitor::open([&](const std::string& subsystem, const std::string& action) {
      log.debug("udev: {} {}", action, subsystem);
      resync_wanted = true;
    });
    if (h) {
      hotplug = std::move(*h);
      ok = ev.on_readable(hotplug->fd(), [&] {
        hotplug->receive();
        reschedule();
      });
    } else {
      log.info("udev monitor unavailable ({}); hot-plug found by retries only",
               h.error().to_string());
    }
  }
  if (!ok) {
    log.error("{}", ok.error().to_string());
    rt->restore_all();
    return 1;
  }

  if (o.bus == "system" || o.bus == "session" || (o.bus == "auto" && real_sys)) {
    cd::DbusService::Hooks hooks;
    hooks.snapshot = [&] { return cd::snapshot(*rt, nl ? &nl->counters() : nullptr); };
    hooks.reload = reload;
    hooks.set_profile = [&](const std::string& name) {
      const bool known = rt->set_profile(name);
      if (known) reschedule();
      return known;
    };
    const auto kind = o.bus == "session" ? cd::BusKind::session : cd::BusKind::system;
    auto b = cd::DbusService::open(kind, ev.raw(), std::move(hooks), log, COOLHAND_VERSION);
    if (b) {
      bus = std::move(*b);
    } else {
      log.warning("D-Bus service unavailable ({}); running without it", b.error().to_string());
    }
  }

  reschedule();
  release_startup_memory(log);
  sd_notify(0, "READY=1");
  log.info("coolhandd {} running: {}", COOLHAND_VERSION, rt->status_line());
  const int code = ev.run();
  rt->restore_all();
  if (nl) nl->flush_thresholds();
  if (nl) log.info("thermal netlink: {}", cd::counters_line(nl->counters()));
  if (chnl) log.info("coolhand netlink: {}", cd::counters_line(chnl->counters()));
  log.info("stopped; original knob values restored");
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_daemon(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "<2>coolhandd: fatal: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "<2>coolhandd: fatal: unknown exception\n");
  }
  return 1;
}
