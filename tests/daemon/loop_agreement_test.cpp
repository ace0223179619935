// The daemon and the simulator run one control loop. One recorded sequence
// of sensor readings (a closed-loop run of the reference model under the
// reference policy, hot ambient) goes through
//   - coolhandd's Runtime over a fake sysfs tree: the readings are written to
//     the zones' and the battery's attributes, kernel events are emulated
//     from the windows the runtime programs, knobs are cooling devices; and
//   - the simulator's PolicyLoop (sim/include/coolhand/sim/policy_loop.h)
//     over the same readings.
// Both must step the engine at the same times and apply the same levels.
// Readings are quantised to what each sysfs attribute carries (m°C for
// thermal zones, 0.1 °C for power_supply), so both sides see equal values.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/policy_loop.h"
#include "coolhand/sim/runner.h"
#include "fake_tree.h"
#include "runtime.h"
#include "test_hooks.h"

namespace coolhand::daemon {
namespace {

using policy::MilliC;
using policy::Time;
using SensorOutput = sim::ThermalModel::SensorOutput;

const std::string kData = COOLHAND_SIM_DATA_DIR;
const std::string kPolicy = COOLHAND_POLICY_DIR "/reference-umpc.yaml";

struct Recording {
  std::vector<std::string> sensors;                            // model order
  std::vector<std::pair<std::string, std::uint32_t>> devices;  // name, max_level
  std::vector<Time> time;                                      // per model step
  std::vector<std::vector<SensorOutput>> outputs;              // [step][sensor]
};

// Passes control on to `inner` and keeps every step's sensor outputs.
class Recorder final : public sim::Controller {
 public:
  Recorder(std::unique_ptr<sim::Controller> inner, Recording& rec)
      : inner_(std::move(inner)), rec_(rec) {}
  std::string name() const override { return inner_->name(); }
  std::uint64_t decisions() const override { return inner_->decisions(); }
  void control(const sim::ThermalModel& model, std::span<std::uint32_t> levels) override {
    rec_.time.push_back(model.now());
    const auto out = model.sensor_outputs();
    rec_.outputs.emplace_back(out.begin(), out.end());
    inner_->control(model, levels);
  }

 private:
  std::unique_ptr<sim::Controller> inner_;
  Recording& rec_;
};

config::PolicyDocument reference_policy() {
  auto r = config::load_policy_file(kPolicy);
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors.front().to_string());
  return std::move(*r.document);
}

// 30 minutes of gaming at 35 °C ambient: the policy throttles, releases and
// rides its PID setpoints, so levels change often.
Recording record(std::uint64_t seed) {
  auto m = sim::load_model_file(kData + "/models/reference-umpc.yaml");
  const auto spec = std::get<sim::ModelSpec>(m);
  auto t = sim::load_csv_file(kData + "/workloads/gaming-hot.csv");
  auto w = sim::Workload::bind(std::get<sim::CsvTable>(t), spec);
  auto& workload = std::get<sim::Workload>(w);
  Recording rec;
  for (const auto& s : spec.sensors) rec.sensors.push_back(s.name);
  for (const auto& d : spec.devices) rec.devices.emplace_back(d.name, d.max_level());
  auto inner = sim::make_policy_controller(spec, reference_policy(), "reference");
  Recorder recorder(std::move(std::get<std::unique_ptr<sim::Controller>>(inner)), rec);
  sim::ThermalModel model(spec, seed);
  (void)sim::run(model, workload, recorder, {.record_trace = false});
  return rec;
}

// One decision as both sides see it after a tick.
struct Step {
  Time at{0};
  std::uint64_t steps = 0;
  std::vector<std::uint32_t> levels;
  bool operator==(const Step&) const = default;
};

std::string describe(const Step& s) {
  std::string out =
      "t=" + std::to_string(s.at.count()) + "ms step " + std::to_string(s.steps) + " levels";
  for (auto l : s.levels) out += " " + std::to_string(l);
  return out;
}

// The policy's physical sensors as the fake tree exposes them.
struct Binding {
  std::string path;
  std::int32_t scale = 1;  // m°C per unit of the attribute
  std::optional<std::uint32_t> tz;
};

class Agreement : public ::testing::Test {
 protected:
  // `events`: the thermal zones are event-driven (kernel events emulated
  // from the programmed windows) and the battery polled; otherwise all
  // sensors are polled.
  void run_both(const Recording& rec, bool events) {
    // Quantise to what the attributes carry.
    std::map<std::string, Binding> bind;
    config::PolicyDocument doc = reference_policy();
    int tz = 0;
    for (const auto& [name, src] : doc.sources) {
      Binding b;
      if (src.kind == config::SensorSource::Kind::power_supply) {
        b.path = "class/power_supply/" + src.name + "/temp";
        b.scale = 100;
        tree.write("class/power_supply/" + src.name + "/type", "Battery");
        tree.write(b.path, 250);
      } else {
        ASSERT_EQ(src.kind, config::SensorSource::Kind::thermal_zone);
        tree.thermal_zone(tz, src.name, 25000);
        b.path = "class/thermal/thermal_zone" + std::to_string(tz) + "/temp";
        // A trip point set: the kernel updates the zone by itself and sends
        // its events (zone_sends_events, discovery.h).
        tree.write("class/thermal/thermal_zone" + std::to_string(tz) + "/trip_point_0_temp", 95000);
        b.tz = static_cast<std::uint32_t>(tz++);
      }
      bind[name] = b;
    }
    std::vector<std::vector<SensorOutput>> q = rec.outputs;
    std::vector<std::optional<Binding>> of_sensor(rec.sensors.size());
    std::map<std::string, policy::Delivery> per_sensor;
    for (std::size_t s = 0; s < rec.sensors.size(); ++s) {
      auto it = bind.find(rec.sensors[s]);
      if (it == bind.end()) continue;
      of_sensor[s] = it->second;
      const bool pushed = events && it->second.tz.has_value();
      per_sensor[rec.sensors[s]] = pushed ? policy::Delivery::pushed : policy::Delivery::polled;
      for (auto& step : q) {
        const auto mc = step[s].reading.mc();
        const auto scale = it->second.scale;
        step[s].reading = MilliC(
            static_cast<std::int64_t>(std::llround(static_cast<double>(mc) / scale)) * scale);
      }
    }
    // Knobs: one cooling device per policy device, max_state = max_level.
    std::map<std::string, int> cooling_device;
    for (const auto& d : doc.spec.devices) {
      const int cd = static_cast<int>(cooling_device.size());
      cooling_device[d.name] = cd;
      tree.cooling_device(cd, "cd-" + d.name, static_cast<int>(d.max_level), 0);
      config::DeviceKnob k;
      k.kind = config::DeviceKnob::Kind::cooling_device;
      k.name = "cd-" + d.name;
      doc.knobs[d.name] = k;
    }

    // The simulator's side.
    auto made =
        sim::PolicyLoop::create(doc, rec.sensors, rec.devices,
                                {.delivery = policy::Delivery::pushed, .per_sensor = per_sensor});
    ASSERT_TRUE(std::holds_alternative<std::unique_ptr<sim::PolicyLoop>>(made))
        << std::get<std::string>(made);
    auto& loop = *std::get<std::unique_ptr<sim::PolicyLoop>>(made);
    std::vector<std::uint32_t> levels(rec.devices.size(), 0);
    std::vector<Step> sim_steps;
    for (std::size_t k = 0; k < q.size(); ++k) {
      const auto before = loop.steps();
      loop.advance(rec.time[k], q[k], levels);
      if (loop.steps() != before) {
        sim_steps.push_back({loop.loop().last_decision()->at, loop.steps(), levels});
      }
    }

    // The daemon's side: windows programmed per thermal zone, as a kernel
    // with sampling events would apply them (no read back, as the simulated
    // EC's WINDOW_SET).
    std::map<std::uint32_t, policy::Window> windows;
    hooks.thresholds = [&](std::uint32_t zone, const policy::Window& w) {
      windows[zone] = w;
      return false;
    };
    auto created = Runtime::create(std::move(doc), fs, log, {.events_available = events}, &hooks);
    ASSERT_TRUE(created) << created.error().to_string();
    Runtime& rt = **created;
    std::vector<Step> daemon_steps;
    std::optional<Time> wake;
    // A sensor's attribute changes when it takes a new sample.
    auto write_all = [&](std::size_t k) {
      for (std::size_t s = 0; s < q[k].size(); ++s) {
        if (!of_sensor[s] || (k > 0 && q[k][s].reading == q[k - 1][s].reading)) continue;
        tree.write(of_sensor[s]->path, q[k][s].reading.mc() / of_sensor[s]->scale);
      }
    };
    auto record_step = [&](std::uint64_t before) {
      const auto c = rt.counters();
      if (c.steps == before) return;
      Step st{rt.last_decision()->at, c.steps, {}};
      for (const auto& [name, max_level] : rec.devices) {
        st.levels.push_back(static_cast<std::uint32_t>(
            tree.read_int("class/thermal/cooling_device" + std::to_string(cooling_device.at(name)) +
                          "/cur_state")));
      }
      daemon_steps.push_back(st);
    };
    write_all(0);
    rt.start(rec.time[0]);
    wake = rt.tick(rec.time[0]);
    record_step(0);
    std::uint64_t pushes = 0;
    for (std::size_t k = 1; k < q.size(); ++k) {
      const Time now = rec.time[k];
      write_all(k);
      bool pushed = false;
      for (std::size_t s = 0; s < q[k].size(); ++s) {
        if (!of_sensor[s] || !of_sensor[s]->tz || !events || !q[k][s].sampled) continue;
        auto w = windows.find(*of_sensor[s]->tz);
        if (w == windows.end()) continue;
        const MilliC v = q[k][s].reading;
        if (v > w->second.low && v < w->second.high) continue;
        rt.on_zone_temperature(*of_sensor[s]->tz, v, now);
        pushed = true;
        ++pushes;
      }
      if (pushed || (wake && now >= *wake)) {
        const auto before = rt.counters().steps;
        wake = rt.tick(now);
        record_step(before);
      }
    }

    ASSERT_GT(sim_steps.size(), 50u);
    if (events) {
      EXPECT_GT(pushes, 0u);
    }
    std::set<std::uint32_t> distinct;
    for (const auto& s : sim_steps)
      for (auto l : s.levels) distinct.insert(l);
    EXPECT_GT(distinct.size(), 3u) << "the recording should make the policy throttle";
    ASSERT_EQ(daemon_steps.size(), sim_steps.size());
    for (std::size_t i = 0; i < sim_steps.size(); ++i) {
      ASSERT_EQ(daemon_steps[i], sim_steps[i])
          << "decision " << i << ": daemon " << describe(daemon_steps[i]) << ", simulator "
          << describe(sim_steps[i]);
    }
  }

  testing::FakeTree tree{"/dev/shm"};  // tmpfs, like sysfs: no writeback on close
  RootedSysfs fs{tree.root()};
  Logger log;
  testing::TestHooks hooks;
};

TEST_F(Agreement, EventDrivenZonesGiveIdenticalDecisions) {
  log.capture();
  run_both(record(1), true);
}

TEST_F(Agreement, PolledSensorsGiveIdenticalDecisions) {
  log.capture();
  run_both(record(2), false);
}

}  // namespace
}  // namespace coolhand::daemon
