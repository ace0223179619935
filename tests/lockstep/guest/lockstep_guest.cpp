// The kernel in the loop (issue 14), guest side: the simulator's thermal
// model runs a workload while the real kernel's thermal core and governors,
// on coolhand_emul.ko's emulated zones, decide the levels, one model step
// per kernel decision and no real-time waiting.
//
//   lockstep_guest params MODEL GOVERNOR
//       print the coolhand_emul.ko parameters that reproduce MODEL's
//       kernel_zones (docs/simulator.md, "Kernel baselines") for GOVERNOR
//   lockstep_guest run MODEL WORKLOAD GOVERNOR SEED LABEL
//       run WORKLOAD against the loaded emulated platform; print the
//       level trace (lockstep_trace.h) on stdout
//   lockstep_guest daemon-policy MODEL POLICY
//       print POLICY with only its hardware sources and knobs remapped to
//       the emulated platform (lockstep_daemon.h; run on the host)
//   lockstep_guest daemon-params MODEL POLICY
//       print the coolhand_emul.ko parameters for coolhandd's run
//   lockstep_guest daemon-run MODEL POLICY WORKLOAD SEED LABEL LOG DAEMON [ARG...]
//       run WORKLOAD with the real coolhandd (DAEMON ARG... --lockstep-fd 3,
//       its output in LOG) deciding; POLICY is the remapped policy it runs
//       (guest/daemon_run.cpp describes the step)
//
// How an update is made (the choice issue 14 asks to document): the zones
// have no polling delay and coolhand.ko is loaded with a passive delay of
// one hour, so the thermal core's own timer never fires during a run (a run
// takes seconds; 0 would arm no timer at all, but 6.1's power_allocator
// divides its derivative term by the passive delay and oopses on 0; with
// k_d = 0, the baselines' value, the delay does not enter its arithmetic);
// coolhand_emul.ko runs with emul_lockstep=1, so writing a temperature
// raises no interrupt either.
// Each zone update is then, explicitly: write the model sensor's reading
// (noise and quantisation included) to sensor<i>/temp, write 1 to
// sensor<i>/notify (the EC's interrupt: coolhand_zone_notify ->
// thermal_zone_device_update, which runs the governor on every trip), read
// zone<N>/thermal_passive. The next update of the zone is scheduled as the
// core's monitor_thermal_zone would arm its timer: passive_delay while
// tz->passive is non-zero, else polling_delay, both taken from the model.
// The kernel's own timers round expiries up to jiffies and drift against
// the model's 100 ms steps, so with them no governor could match step for
// step. The schedule is the simulator's GovernorController's.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../lockstep_daemon.h"
#include "../lockstep_trace.h"
#include "coolhand/sim/runner.h"
#include "daemon_run.h"
#include "sys_file.h"

namespace fs = std::filesystem;
using coolhand::policy::Time;
namespace sim = coolhand::sim;

namespace {

constexpr const char* kEmul = "/sys/devices/coolhand_emul";

using coolhand::lockstep::die;
using coolhand::lockstep::SysFile;

void write_file(const fs::path& p, const std::string& s) {
  SysFile(p, O_WRONLY).write(s);
}

// The zone class directory (/sys/class/coolhand/zoneN) of emulated sensor i.
fs::path zone_dir(std::size_t i) {
  const fs::path base = fs::path(kEmul) / ("sensor" + std::to_string(i)) / "coolhand";
  for (const auto& e : fs::directory_iterator(base))
    if (e.path().filename().string().rfind("zone", 0) == 0) return e.path();
  die("no coolhand zone under " + base.string());
}

struct Zone {
  std::size_t sensor = 0;  // model sensor index
  Time polling{0}, passive{0};
  SysFile temp, notify, passive_count;
  std::optional<Time> next;
};

// The kernel thermal core on the emulated platform as a sim::Controller:
// the same schedule as sim's GovernorController, the kernel's decisions.
class KernelController final : public sim::Controller {
 public:
  KernelController(const sim::ModelSpec& model, sim::Governor governor) : governor_(governor) {
    for (std::size_t i = 0; i < model.kernel_zones.size(); ++i) {
      const auto& z = model.kernel_zones[i];
      std::size_t s = 0;
      while (model.sensors[s].name != z.sensor) ++s;
      const fs::path sensor = fs::path(kEmul) / ("sensor" + std::to_string(i));
      const fs::path zone = zone_dir(i);
      zones_.push_back(Zone{s, z.polling_delay, z.passive_delay, SysFile(sensor / "temp", O_WRONLY),
                            SysFile(sensor / "notify", O_WRONLY),
                            SysFile(zone / "thermal_passive", O_RDONLY), Time(0)});
      const fs::path tz = fs::canonical(zone / "thermal_zone");
      write_file(tz / "policy", std::string(sim::to_string(governor)));
      // power_allocator's parameters, when firmware gives them (else the
      // governor estimates them, as the baselines do).
      const auto put = [&](const char* f, const auto& v) {
        if (v) write_file(tz / f, std::to_string(*v));
      };
      put("sustainable_power", z.sustainable_power_mw);
      put("k_po", z.k_po);
      put("k_pu", z.k_pu);
      put("k_i", z.k_i);
      put("k_d", z.k_d);
      if (z.integral_cutoff_mc != 0)
        write_file(tz / "integral_cutoff", std::to_string(z.integral_cutoff_mc));
    }
    const auto cdevs = sim::cooling_devices_for(model);
    for (std::size_t d = 0; d < model.devices.size(); ++d) {
      const fs::path dev = fs::path(kEmul) / ("throttle" + std::to_string(d));
      levels_.emplace_back(dev / "throttling", O_RDONLY);
      loads_.emplace_back(dev / "load", O_WRONLY);
      load_scale_.push_back(cdevs[d].actor == sim::PowerActor::devfreq ? 1024.0 : 100.0);
    }
  }

  std::string name() const override { return std::string(sim::to_string(governor_)); }
  std::uint64_t decisions() const override { return updates_; }

  void control(const sim::ThermalModel& model, std::span<std::uint32_t> levels) override {
    const Time now = model.now();
    accumulate_demand(model);
    bool any = false;
    for (auto& z : zones_) {
      if (!z.next || now < *z.next) continue;
      if (!any) set_loads(model);
      any = true;
      z.temp.write(std::to_string(model.sensor(z.sensor).mc()));
      z.notify.write("1");
      ++updates_;
      const Time delay = z.passive_count.read_long() != 0 ? z.passive : z.polling;
      if (delay.count() > 0)
        z.next = now + delay;
      else
        z.next.reset();
    }
    if (any)
      for (std::size_t d = 0; d < levels.size(); ++d)
        levels[d] = static_cast<std::uint32_t>(levels_[d].read_long());
  }

 private:
  // The load each device's driver would measure: its mean demand since the
  // previous update round, written to throttle<d>/load before the round.
  // The same rule as sim's GovernorController (governor_controller.cpp),
  // which documents it; written out here because that class is internal.
  void accumulate_demand(const sim::ThermalModel& model) {
    const Time now = model.now();
    const auto n = model.spec().devices.size();
    if (held_.empty()) {
      held_.assign(n, 0.0);
      busy_ms_.assign(n, 0.0);
      window_start_ = now;
    } else {
      const auto dt = static_cast<double>((now - last_call_).count());
      for (std::size_t d = 0; d < n; ++d) busy_ms_[d] += held_[d] * dt;
    }
    for (std::size_t d = 0; d < n; ++d) held_[d] = model.demand(d);
    last_call_ = now;
  }

  void set_loads(const sim::ThermalModel& model) {
    const auto window = static_cast<double>((model.now() - window_start_).count());
    for (std::size_t d = 0; d < held_.size(); ++d) {
      const double mean = window > 0 ? busy_ms_[d] / window : held_[d];
      const auto load = static_cast<std::uint32_t>(
          std::floor(std::clamp(mean, 0.0, 1.0) * load_scale_[d] + 1e-9));
      loads_[d].write(std::to_string(load));
      busy_ms_[d] = 0.0;
    }
    window_start_ = model.now();
  }

  sim::Governor governor_;
  std::vector<Zone> zones_;
  std::vector<SysFile> levels_, loads_;
  std::vector<double> load_scale_;
  std::uint64_t updates_ = 0;
  std::vector<double> held_, busy_ms_;
  Time window_start_{}, last_call_{};
};

int cmd_params(const sim::ModelSpec& model, sim::Governor governor) {
  auto params = coolhand::lockstep::emul_params(model, governor);
  if (auto* err = std::get_if<std::string>(&params)) {
    std::cerr << "lockstep_guest: " << *err << "\n";
    return 1;
  }
  std::cout << std::get<coolhand::lockstep::EmulParams>(params).args << "\n";
  return 0;
}

int cmd_run(const sim::ModelSpec& spec, const std::string& workload_path, sim::Governor governor,
            std::uint64_t seed, const std::string& label) {
  auto table = sim::load_csv_file(workload_path);
  if (auto* e = std::get_if<coolhand::config::ConfigError>(&table)) die(e->to_string());
  auto bound = sim::Workload::bind(std::get<sim::CsvTable>(std::move(table)), spec);
  if (auto* e = std::get_if<coolhand::config::ConfigError>(&bound)) die(e->to_string());
  auto& workload = std::get<sim::Workload>(bound);
  KernelController controller(spec, governor);
  sim::ThermalModel model(spec, seed);
  const auto result = sim::run(model, workload, controller);
  coolhand::lockstep::write_trace(std::cout, label, result);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() < 3)
      die("usage: lockstep_guest params MODEL GOVERNOR | run MODEL WORKLOAD GOVERNOR SEED LABEL");
    auto loaded = sim::load_model_file(a[1]);
    if (auto* e = std::get_if<coolhand::config::ConfigError>(&loaded)) die(e->to_string());
    const auto& spec = std::get<sim::ModelSpec>(loaded);
    if (a[0] == "daemon-policy" || a[0] == "daemon-params") {
      std::ifstream in(a[2]);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) die("cannot read " + a[2]);
      auto layout = coolhand::lockstep::daemon_layout(spec, text.str());
      if (auto* e = std::get_if<coolhand::lockstep::LayoutError>(&layout)) die(e->what);
      const auto& l = std::get<coolhand::lockstep::DaemonLayout>(layout);
      if (a[0] == "daemon-params") {
        std::cout << coolhand::lockstep::daemon_emul_params(spec, l) << "\n";
        return 0;
      }
      auto remapped = coolhand::lockstep::remap_policy(spec, l, text.str());
      if (auto* e = std::get_if<coolhand::lockstep::LayoutError>(&remapped)) die(e->what);
      std::cout << "# Generated by lockstep_guest daemon-policy from " << a[2]
                << ": only the hardware sources and knobs remapped to coolhand_emul.ko\n"
                << std::get<std::string>(remapped);
      return 0;
    }
    if (a[0] == "daemon-run" && a.size() >= 8) {
      return coolhand::lockstep::cmd_daemon_run(spec, a[2], a[3], std::stoull(a[4]), a[5], a[6],
                                                {a.begin() + 7, a.end()});
    }
    if (a[0] == "params") {
      const auto g = sim::governor_from_string(a[2]);
      if (!g) die("unknown governor " + a[2]);
      return cmd_params(spec, *g);
    }
    if (a[0] == "run" && a.size() == 6) {
      const auto g = sim::governor_from_string(a[3]);
      if (!g) die("unknown governor " + a[3]);
      return cmd_run(spec, a[2], *g, std::stoull(a[4]), a[5]);
    }
    die("unknown command; see the comment at the top of lockstep_guest.cpp");
  } catch (const std::exception& e) {
    std::cerr << "lockstep_guest: " << e.what() << "\n";
    return 1;
  }
}
