// The wiring of coolhandd (app.h): one App holds every adapter and the
// runtime, and each builder below opens or connects one of them. Order in
// run(): policy, event loop, state file, netlink, runtime (restoring what a
// previous instance left), logind, runtime hooks, event sources, D-Bus.
#include "app.h"

#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>

#include "coolhand/config/policy_file.h"
#include "coolhand_netlink.h"
#include "dbus_service.h"
#include "detect.h"
#include "dispatch.h"
#include "event_loop.h"
#include "flight_recorder.h"
#include "hotplug.h"
#include "log.h"
#include "logind.h"
#include "memory.h"
#include "originals.h"
#include "parse.h"
#include "runtime.h"
#include "sysfs.h"
#include "thermal_netlink.h"

namespace coolhand::daemon {

namespace {

// Read and parse the policy (config::load_policy_file, the one reader);
// every error is logged. `errors`, when set, receives them joined by "; "
// (D-Bus replies).
std::optional<config::PolicyDocument> load_policy(const std::string& path, Logger& log,
                                                  std::string* errors = nullptr) {
  config::LoadResult r = config::load_policy_file(path);
  for (const auto& e : r.errors) {
    log.error("{}", e.to_string());
    if (errors) *errors += (errors->empty() ? "" : "; ") + e.to_string();
  }
  return std::move(r.document);
}

// Start-up and reload leave free heap behind (memory.h).
void release_startup_memory(Logger& log) {
  const auto r = daemon::release_startup_memory();
  log.debug("released start-up memory: heap {}", r.heap_released ? "trimmed" : "had none free");
}

// This boot's id (proc(5): /proc/sys/kernel/random/boot_id, a UUID that
// changes at every boot); "" when unreadable.
std::string read_boot_id(const Options& o, Logger& log) {
  RootedSysfs proc(o.proc_root);
  auto id = proc.read("sys/kernel/random/boot_id");
  if (!id) {
    log.warning("boot id unknown ({}); a state file's boot is not checked", id.error().to_string());
    return {};
  }
  return std::string(trim_line(*id));
}

// -- flight recorder (issue 11)
// The policy file's text for the recording header ("" when unreadable: the
// file was just parsed, so only a race with an editor can cause that).
std::string read_policy_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string record_dir(const Options& o) {
  if (!o.record_dir.empty()) return o.record_dir;
  if (const char* d = std::getenv("STATE_DIRECTORY"); d && *d) {
    const std::string dirs(d);
    return dirs.substr(0, dirs.find(':'));  // systemd lists one per StateDirectory= entry
  }
  if (RootedSysfs(o.sysfs_root).root() == "/sys") return "/var/lib/coolhand";
  return {};
}
// -- end flight recorder

// The store of knob originals; in-memory only in dry-run mode (nothing is
// written, so nothing needs restoring).
std::unique_ptr<OriginalStore> open_store(const Options& o, Logger& log) {
  std::string dir = o.state_dir;
  if (dir.empty() && RootedSysfs(o.sysfs_root).root() == "/sys") dir = "/run/coolhand";
  if (o.dry_run || dir.empty()) {
    if (!o.dry_run) log.info("no --state-dir with a fake sysfs tree: originals kept in memory");
    return std::make_unique<OriginalStore>("", "", log);
  }
  // The unit's RuntimeDirectory= creates it; a daemon started by hand makes it.
  if (::mkdir(dir.c_str(), 0700) < 0 && errno != EEXIST) {
    log.error("{}", errno_error("mkdir", dir, errno).to_string());
  }
  auto store = std::make_unique<OriginalStore>(dir + "/originals", read_boot_id(o, log), log);
  store->load();
  return store;
}

// App is also what the runtime asks of the kernel and the session
// (KernelHooks): thresholds, WINDOW_SET, and logind for trip actions.
class App final : public KernelHooks {
 public:
  App(const Options& o, Logger& log) : o_(o), log_(log), fs_(o.sysfs_root) {}

  int run();

 private:
  [[nodiscard]] bool real_sys() const { return fs_.root() == "/sys"; }
  void open_thermal_netlink();
  void open_coolhand_netlink();
  [[nodiscard]] std::optional<int> create_runtime(config::PolicyDocument doc);
  void connect_logind();
  bool set_thresholds(std::uint32_t tz, const policy::Window& w) override;
  Status set_module_window(std::uint32_t zone, const policy::Window& w) override;
  void request_action(policy::TripAction a, const std::string& zone) override;
  [[nodiscard]] Status watch_events();
  void open_bus();
  void reschedule();
  Status reload();
  void stop();
  void restore_everything();
  void dump(const std::string& reason);
  void resize_recorder(std::size_t records);  // a reload's daemon.recorder.records
  void note_dropped(std::uint16_t source, const NetlinkCounters& c, std::uint64_t& seen);

  Options o_;                           // config is set by detection when empty
  std::optional<Detection> detection_;  // the machine's description, for roles
  Logger& log_;
  RootedSysfs fs_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<OriginalStore> store_;
  std::unique_ptr<Runtime> rt_;
  std::unique_ptr<ThermalNetlink> nl_;
  std::unique_ptr<CoolhandNetlink> chnl_;
  std::unique_ptr<Logind> logind_;
  std::unique_ptr<HotplugMonitor> hotplug_;
  std::unique_ptr<DbusService> bus_;
  std::unique_ptr<FlightRecorder> recorder_;
  std::optional<policy::Time> last_auto_dump_;
  std::uint64_t thermal_dropped_seen_ = 0;
  std::uint64_t coolhand_dropped_seen_ = 0;
  ResumeDetector resume_;
  std::string last_status_;
  bool resync_wanted_ = false;
};

// Thermal netlink events refer to the kernel's zones, so by default they
// are used only with the real /sys.
void App::open_thermal_netlink() {
  auto opened = ThermalNetlink::open(
      [this](const ThermalEvent& e) {
        if (rt_) resync_wanted_ |= dispatch_thermal_event(*rt_, e, monotonic_now());
      },
      log_);
  if (!opened) {
    log_.warning("thermal netlink unavailable ({}); polling every sensor",
                 opened.error().to_string());
    return;
  }
  nl_ = std::move(*opened);
  log_.info("thermal netlink: subscribed (family version {}, thresholds {})", nl_->family_version(),
            nl_->thresholds_supported() ? "yes" : "no");
}

// The coolhand module's own family, when the module is loaded: its zones
// become event-driven from it, with WINDOW_SET for their windows.
void App::open_coolhand_netlink() {
  auto opened = CoolhandNetlink::open(
      [this](const CoolhandEvent& e) {
        if (rt_) dispatch_coolhand_event(*rt_, e, monotonic_now());
      },
      log_);
  if (opened) {
    chnl_ = std::move(*opened);
    log_.info("coolhand netlink: subscribed (family version {})", chnl_->family_version());
  } else if (opened.error().err == ENOENT) {
    log_.info("coolhand netlink: no coolhand family (module not loaded)");
  } else {
    log_.warning("coolhand netlink unavailable ({})", opened.error().to_string());
  }
}

// Bind the policy, then write back what a previous instance left in the
// state file before anything else is written. Returns an exit status when
// the daemon cannot run.
std::optional<int> App::create_runtime(config::PolicyDocument doc) {
  RuntimeOptions ro;
  ro.dry_run = o_.dry_run;
  ro.events_available = nl_ != nullptr;
  ro.module_events_available = chnl_ != nullptr;
  ro.originals = store_.get();
  ro.ring = &recorder_->ring();
  ro.clock = &monotonic_ns;
  ro.policy_hash = recorder_->policy_hash();
  auto created = Runtime::create(std::move(doc), fs_, log_, ro, this);
  if (!created) {
    log_.error("{}: {}", o_.config, created.error().to_string());
    // Nothing of ours will drive the knobs: put back what an earlier instance left.
    if (!o_.dry_run) (void)store_->restore(fs_, OriginalStore::Keep::none);
    if (created.error().reason == CreateError::Reason::missing_hardware) {
      log_.error("the policy's required hardware is not present on this machine; exiting");
      return kExitNoHardware;
    }
    return kExitBadPolicy;
  }
  rt_ = std::move(*created);
  if (!o_.dry_run) (void)store_->restore(fs_, OriginalStore::Keep::bound);
  return std::nullopt;
}

void App::connect_logind() {
  auto c = Logind::connect(loop_->raw(), [this] { rt_->on_resume(monotonic_now()); });
  if (c) {
    logind_ = std::move(*c);
  } else {
    log_.info("logind unavailable ({}); detecting resume from clock divergence",
              c.error().to_string());
  }
}

bool App::set_thresholds(std::uint32_t tz, const policy::Window& w) {
  return nl_ && nl_->thresholds_supported() && nl_->set_window(tz, w);
}

Status App::set_module_window(std::uint32_t zone, const policy::Window& w) {
  if (!chnl_) return KernelHooks::set_module_window(zone, w);
  return chnl_->set_window(zone, w);
}

// A critical action dumps the flight recorder before it acts (at most one
// automatic dump per kAutoDumpGap: a trip that fires again and again must
// not fill the disk; the newest kKeepDumps are kept anyway).
void App::request_action(policy::TripAction a, const std::string& zone) {
  constexpr policy::Millis kAutoDumpGap{10000};
  const policy::Time now = monotonic_now();
  if (!last_auto_dump_ || now - *last_auto_dump_ >= kAutoDumpGap) {
    last_auto_dump_ = now;
    dump(std::string(policy::to_string(a)));
  }
  if (a == policy::TripAction::force_deepest) return;  // the engine forces the levels itself
  if (o_.dry_run) return;
  if (!logind_) {
    log_.error("zone {}: cannot request {} without logind", zone, policy::to_string(a));
    return;
  }
  if (auto s = logind_->request(a); !s) log_.error("zone {}: {}", zone, s.error().to_string());
}

// After every wake-up: notice a resume, do what is due, re-arm the one timer.
void App::reschedule() {
  const auto now = monotonic_now();
  // With logind connected, PrepareForSleep(false) reports the resume; the
  // clock check is the fallback only, or one suspend would count twice.
  if (!logind_ && resume_.resumed(now, boottime_now())) rt_->on_resume(now);
  if (resync_wanted_) {
    resync_wanted_ = false;
    rt_->resync(now);
  }
  if (auto s = loop_->set_timer(rt_->tick(now)); !s) log_.error("{}", s.error().to_string());
  const std::string status = rt_->status_line();
  if (status != last_status_) {
    sd_notifyf(0, "STATUS=%s", status.c_str());
    last_status_ = status;
  }
  if (bus_) bus_->publish();
  if (recorder_->followers() > 0) recorder_->flush();
}

// SIGUSR1 and critical actions: a recording in the record directory.
void App::dump(const std::string& reason) {
  auto path = recorder_->dump_to_dir(reason);
  if (path) {
    log_.info("flight recorder: {} dumped to {}", reason, *path);
  } else {
    log_.warning("flight recorder: {} dump failed: {}", reason, path.error().to_string());
  }
}

// Netlink messages lost before they reached us (ENOBUFS, sequence gaps).
void App::note_dropped(std::uint16_t source, const NetlinkCounters& c, std::uint64_t& seen) {
  const std::uint64_t lost = c.overruns + c.lost;
  if (lost == seen) return;
  rt_->record(recorder::Kind::dropped, source, static_cast<std::uint32_t>(lost - seen), 0, 0,
              monotonic_now());
  seen = lost;
}

void App::stop() {
  sd_notify(0, "STOPPING=1");
  loop_->exit(0);
}

// -- flight recorder (issue 11)
// A reload's daemon.recorder.records: the ring is re-allocated at the new
// size, keeping the newest records (recorder::Ring::resize). When the pages
// cannot be had, the old ring stays and recording goes on.
void App::resize_recorder(std::size_t records) {
  recorder::Ring& ring = recorder_->ring();
  const std::size_t before = ring.capacity();
  if (records == before) return;
  const std::uint64_t lost_before = ring.lost();
  try {
    ring.resize(records);
  } catch (const std::bad_alloc&) {
    log_.warning("flight recorder: cannot allocate {} records; keeping the ring of {}", records,
                 before);
    return;
  }
  log_.info("flight recorder: ring resized from {} to {} records ({} KiB); {} kept, {} more lost",
            before, ring.capacity(), ring.capacity() * recorder::kRecordSize / 1024, ring.size(),
            ring.lost() - lost_before);
}
// -- end flight recorder

// SIGHUP and D-Bus Reload().
Status App::reload() {
  sd_notify(0, "RELOADING=1");
  log_.info("reloading {}", o_.config);
  std::string errors;
  Status result = Ok{};
  auto d = load_policy(o_.config, log_, &errors);
  std::string text = d ? read_policy_text(o_.config) : std::string();
  const std::uint64_t hash = recorder::policy_hash(text);
  if (d && detection_) {
    if (auto bound = bind_roles_logged(*d, *detection_, fs_, log_); !bound) {
      errors = bound.error().to_string();
      d.reset();
    }
  }
  if (d) {
    policy::PolicySpec spec = d->spec;
    const std::size_t records = d->daemon.recorder_records;
    if (auto s = rt_->reload(std::move(*d), monotonic_now(), hash); !s) {
      log_.error("reload rejected, keeping the running policy: {}", s.error().to_string());
      result = s.error();
    } else {
      recorder_->set_policy(std::move(text), spec);
      resize_recorder(records);
    }
  } else {
    log_.error("reload rejected, keeping the running policy");
    result = SysError{"invalid policy", "", 0, errors};
  }
  rt_->record(recorder::Kind::reload, 0, result ? 1 : 0, static_cast<std::int64_t>(hash), 0,
              monotonic_now());
  release_startup_memory(log_);
  sd_notify(0, "READY=1");
  reschedule();
  return result;
}

// Signals, netlink sockets and udev; the first failure is returned.
Status App::watch_events() {
  EventLoop& ev = *loop_;
  Status ok = ev.on_signal(SIGTERM, [this] { stop(); });
  if (ok) ok = ev.on_signal(SIGINT, [this] { stop(); });
  if (ok) {
    ok = ev.on_signal(SIGHUP, [this] {
      log_.info("SIGHUP: reload requested");
      (void)reload();
    });
  }
  if (ok) ok = ev.on_signal(SIGUSR1, [this] { dump("SIGUSR1"); });
  if (ok && nl_) {
    ok = ev.on_readable(nl_->fd(), [this] {
      resync_wanted_ |= nl_->receive();
      note_dropped(2, nl_->counters(), thermal_dropped_seen_);
      reschedule();
    });
  }
  if (ok && chnl_) {
    ok = ev.on_readable(chnl_->fd(), [this] {
      resync_wanted_ |= chnl_->receive();
      note_dropped(3, chnl_->counters(), coolhand_dropped_seen_);
      reschedule();
    });
  }
  if (!ok || !real_sys()) return ok;
  auto h = HotplugMonitor::open([this](const std::string& subsystem, const std::string& action) {
    log_.debug("udev: {} {}", action, subsystem);
    resync_wanted_ = true;
  });
  if (!h) {
    log_.info("udev monitor unavailable ({}); hot-plug found by retries only",
              h.error().to_string());
    return ok;
  }
  hotplug_ = std::move(*h);
  return ev.on_readable(hotplug_->fd(), [this] {
    hotplug_->receive();
    reschedule();
  });
}

void App::open_bus() {
  if (!(o_.bus == "system" || o_.bus == "session" || (o_.bus == "auto" && real_sys()))) return;
  DbusService::Hooks hooks;
  hooks.snapshot = [this] { return snapshot(*rt_, nl_ ? &nl_->counters() : nullptr); };
  hooks.reload = [this] { return reload(); };
  hooks.set_profile = [this](const std::string& name) {
    const bool known = rt_->set_profile(name);
    if (known) reschedule();
    return known;
  };
  hooks.explain = [this] { return std::make_pair(monotonic_now(), explain(rt_->engine())); };
  hooks.record = [this](int fd) { return recorder_->dump_to_fd(fd, "dbus"); };
  hooks.follow = [this] { return recorder_->follow(); };
  hooks.record_counts = [this] {
    const auto& ring = recorder_->ring();
    return std::make_pair(static_cast<std::uint64_t>(ring.size()), ring.lost());
  };
  const auto kind = o_.bus == "session" ? BusKind::session : BusKind::system;
  auto b = DbusService::open(kind, loop_->raw(), std::move(hooks), log_, COOLHAND_VERSION);
  if (b) {
    bus_ = std::move(*b);
  } else {
    log_.warning("D-Bus service unavailable ({}); running without it", b.error().to_string());
  }
}

// Every knob back to its original: the actuators first, then whatever the
// state file still names (a knob a reload dropped whose write failed).
void App::restore_everything() {
  if (!rt_) return;
  rt_->restore_all();
  if (!o_.dry_run) (void)store_->restore(fs_, OriginalStore::Keep::none);
}

int App::run() {
  // The machine by DMI (detect.h); without --config, its class's policy.
  auto detected = detect_and_log(fs_, o_.data_dir, o_.config, log_);
  if (!detected) return detected.error().what == "bind" ? kExitNoHardware : kExitBadPolicy;
  detection_ = std::move(*detected);
  auto doc = load_policy(o_.config, log_);
  if (!doc) return kExitBadPolicy;
  if (!bind_roles_logged(*doc, *detection_, fs_, log_)) return kExitNoHardware;
  auto loop = EventLoop::create();
  if (!loop) {
    log_.error("{}", loop.error().to_string());
    return kExitSystemError;
  }
  loop_ = std::move(*loop);
  if (o_.lockstep_fd >= 0) {
    loop_->use_lockstep(o_.lockstep_fd);
    log_.info("lockstep clock on fd {} (tests only): virtual time from 0 ms", o_.lockstep_fd);
  }
  store_ = open_store(o_, log_);
  recorder_ = std::make_unique<FlightRecorder>(doc->daemon.recorder_records, record_dir(o_),
                                               read_boot_id(o_, log_),
                                               std::string("coolhandd ") + COOLHAND_VERSION);
  recorder_->set_policy(read_policy_text(o_.config), doc->spec);
  log_.info("flight recorder: {} records ({} KiB), dumps to {}", recorder_->ring().capacity(),
            recorder_->ring().capacity() * recorder::kRecordSize / 1024,
            recorder_->dir().empty() ? "(none: no --record-dir)" : recorder_->dir());

  const bool want_netlink = o_.netlink == "on" || (o_.netlink == "auto" && real_sys());
  if (want_netlink && !o_.once) {
    open_thermal_netlink();
    open_coolhand_netlink();
  }
  if (auto code = create_runtime(std::move(*doc))) return *code;
  // An exception that escapes the loop must not leave devices throttled:
  // main() catches it, so the stack unwinds through here and every knob
  // gets its original value back.
  struct RestoreOnUnwind {
    explicit RestoreOnUnwind(App& a) : app(a) {}
    RestoreOnUnwind(const RestoreOnUnwind&) = delete;
    RestoreOnUnwind& operator=(const RestoreOnUnwind&) = delete;
    ~RestoreOnUnwind() {
      if (std::uncaught_exceptions() > 0) app.restore_everything();
    }
    App& app;
  } restore_on_unwind{*this};

  const bool want_logind = o_.logind == "on" || (o_.logind == "auto" && real_sys());
  if (want_logind && !o_.once) connect_logind();
  rt_->start(monotonic_now());
  if (o_.once) {
    log_.info("{}", rt_->status_line());
    return kExitOk;
  }
  loop_->on_timer([this] { reschedule(); });
  if (Status ok = watch_events(); !ok) {
    log_.error("{}", ok.error().to_string());
    restore_everything();
    return kExitSystemError;
  }
  open_bus();

  reschedule();
  release_startup_memory(log_);
  sd_notify(0, "READY=1");
  log_.info("coolhandd {} running: {}", COOLHAND_VERSION, rt_->status_line());
  const int code = loop_->run();
  restore_everything();
  if (nl_) nl_->flush_thresholds();
  if (nl_) log_.info("thermal netlink: {}", counters_line(nl_->counters()));
  if (chnl_) log_.info("coolhand netlink: {}", counters_line(chnl_->counters()));
  log_.info("stopped; original knob values restored");
  return code;
}

}  // namespace

int run_daemon(const Options& o) {
  Logger log(o.verbose);
  App app(o, log);
  return app.run();
}

int run_restore(const Options& o) {
  Logger log(o.verbose);
  RootedSysfs fs(o.sysfs_root);
  Options opts = o;
  opts.dry_run = false;
  auto store = open_store(opts, log);
  if (store->size() == 0) {
    log.info("restore: nothing to restore");
    return kExitOk;
  }
  // The policy, when it loads and binds, gives each knob's discovered range;
  // binding writes nothing. Without it an intact state file is still restored.
  std::unique_ptr<Runtime> rt;
  std::string config = o.config;
  auto detected = detect_and_log(fs, o.data_dir, config, log);
  std::optional<config::PolicyDocument> doc;
  if (detected) doc = load_policy(config, log);
  if (doc && !bind_roles_logged(*doc, *detected, fs, log)) doc.reset();
  if (doc) {
    RuntimeOptions ro;
    ro.originals = store.get();
    auto created = Runtime::create(std::move(*doc), fs, log, ro);
    if (created) {
      rt = std::move(*created);
    } else {
      log.warning("restore: cannot bind {} ({}); knob ranges unknown", config,
                  created.error().to_string());
    }
  } else {
    log.warning("restore: no usable policy; knob ranges unknown");
  }
  const std::size_t left = store->restore(fs, OriginalStore::Keep::none);
  if (left > 0) {
    log.error("restore: {} knob(s) not restored; {} keeps them", left, store->path());
    return kExitSystemError;
  }
  log.info("restore: done");
  return kExitOk;
}

}  // namespace coolhand::daemon
