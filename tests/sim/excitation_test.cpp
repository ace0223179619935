// The port chain's excitation level steps (port_yaml.h, excitation_steps and
// lab_copies' profiles) and the profile switches that apply them during a
// run (runner.h, ProfileSwitch): which devices step, through which levels,
// how long each is held, and that a switched profile's floor reaches the
// model's level from the next step on.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/port_yaml.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim::excitation_test {
namespace {

// cpu has the Energy Model (its powers known: not stepped); panel steps
// through all five levels; charger only within the policy's [1, 3].
constexpr const char* kModel =
    "name: m\n"
    "ambient_c: 25\n"
    "skin: {nodes: [a], limit_c: 45}\n"
    "nodes: [{name: a, capacity_j_per_k: 50, to_ambient_w_per_k: 0.5}]\n"
    "devices:\n"
    "  - {name: cpu, power_w: [2, 1], performance: [1, 0.5], heat: [{node: a}], energy_model: "
    "true}\n"
    "  - {name: panel, power_w: [1, 0.8, 0.6, 0.4, 0.2], performance: [1, 0.9, 0.8, 0.7, 0.6], "
    "heat: [{node: a}]}\n"
    "  - {name: charger, power_w: [2, 1.5, 1, 0.5, 0.2], performance: [1, 0.8, 0.6, 0.4, 0.2], "
    "heat: [{node: a}]}\n"
    "sensors: [{name: t, node: a, quantum_c: 0.1, period_ms: 100}]\n";

constexpr const char* kPolicy =
    "version: 1\n"
    "sensors: {t: {source: {kind: thermal_zone, name: t-therm}}}\n"
    "devices:\n"
    "  cpu: {max_level: 1}\n"
    "  panel: {max_level: 4}\n"
    "  charger: {max_level: 4, min_level: 1, limit_level: 3}\n"
    "controllers:\n"
    "  guard: {kind: step_wise, input: t, devices: [cpu, panel, charger], threshold_c: 80, "
    "hysteresis_c: 2, period: 1s}\n"
    "profiles:\n"
    "  quiet: {limit_offset_c: -2}\n"
    "  floor: {devices: {panel: {min_level: 3}}}\n";

ModelSpec model() {
  auto m = parse_model(kModel, "m.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&m)) ADD_FAILURE() << e->to_string();
  return std::holds_alternative<ModelSpec>(m) ? std::get<ModelSpec>(m) : ModelSpec{};
}

config::PolicyDocument policy(const std::string& text = kPolicy) {
  auto r = config::parse_policy(text, "p.yaml");
  for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
  return r.document ? *r.document : config::PolicyDocument{};
}

TEST(ExcitationTest, StepsEveryLevelOfTheDevicesWhosePowersAreUnknown) {
  const auto steps = excitation_steps(model(), policy(), 600);
  ASSERT_GT(steps.size(), 10U);
  EXPECT_EQ(steps.front().at_s, 0.0);
  std::map<std::string, std::set<std::uint32_t>> seen;
  std::map<std::string, std::pair<double, std::uint32_t>> last;  // since, level
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    if (i > 0) {
      EXPECT_GT(s.at_s, steps[i - 1].at_s);
    }
    EXPECT_LT(s.at_s, 600.0);
    ASSERT_EQ(s.floors.size(), 2U);  // panel and charger; not cpu
    EXPECT_EQ(s.floors[0].first, "panel");
    EXPECT_EQ(s.floors[1].first, "charger");
    for (const auto& [device, level] : s.floors) {
      seen[device].insert(level);
      auto& [since, held] = last[device];
      // A change comes 15-60 s after the device's last one (the first at 0).
      if (i > 0 && level != held) {
        EXPECT_GE(s.at_s - since, 15.0) << device << " at " << s.at_s;
        EXPECT_LE(s.at_s - since, 60.0) << device << " at " << s.at_s;
      }
      if (i == 0 || level != held) last[device] = {s.at_s, level};
    }
  }
  EXPECT_EQ(seen["panel"], (std::set<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(seen["charger"], (std::set<std::uint32_t>{1, 2, 3}));
  // Deterministic.
  const auto again = excitation_steps(model(), policy(), 600);
  ASSERT_EQ(again.size(), steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(again[i].at_s, steps[i].at_s);
    EXPECT_EQ(again[i].floors, steps[i].floors);
  }
  EXPECT_TRUE(excitation_steps(model(), policy(), 0).empty());
}

TEST(ExcitationTest, LabPolicyGetsOneProfilePerStepBesideItsOwn) {
  const auto made = lab_copies({kModel, "m.yaml"}, {kPolicy, "p.yaml"}, 600);
  ASSERT_TRUE(std::holds_alternative<LabCopies>(made)) << std::get<std::string>(made);
  const auto& c = std::get<LabCopies>(made);
  const auto steps = excitation_steps(model(), policy(), 600);
  ASSERT_EQ(c.excitation.size(), steps.size());
  const auto lab = policy(c.policy);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(c.excitation[i].first, steps[i].at_s);
    EXPECT_EQ(c.excitation[i].second, "excite-" + std::to_string(i + 1));
    const auto p = std::find_if(lab.spec.profiles.begin(), lab.spec.profiles.end(),
                                [&](const auto& x) { return x.name == c.excitation[i].second; });
    ASSERT_NE(p, lab.spec.profiles.end()) << c.excitation[i].second;
    ASSERT_EQ(p->devices.size(), 2U);
    for (std::size_t d = 0; d < 2; ++d) {
      EXPECT_EQ(p->devices[d].device, steps[i].floors[d].first);
      EXPECT_EQ(p->devices[d].min_level, steps[i].floors[d].second);
    }
  }
  // The policy's own profiles stay.
  EXPECT_EQ(lab.spec.profiles.size(), steps.size() + 2);
  // Without an excitation: no profiles added, no switches.
  const auto plain = std::get<LabCopies>(lab_copies({kModel, "m.yaml"}, {kPolicy, "p.yaml"}));
  EXPECT_TRUE(plain.excitation.empty());
  EXPECT_EQ(policy(plain.policy).spec.profiles.size(), 2U);
}

Workload cold_workload(const ModelSpec& m) {
  auto table = parse_csv("time_s,cpu,panel,charger,ambient_c\n0,1,1,1,25\n40,1,1,1,25\n", "w.csv");
  auto w = Workload::bind(std::get<CsvTable>(std::move(table)), m);
  return std::get<Workload>(std::move(w));
}

TEST(ExcitationTest, ASwitchedProfilesFloorHoldsFromTheNextStep) {
  const ModelSpec m = model();
  const auto doc = policy();
  auto made = make_policy_controller(m, doc, "p", policy::Delivery::pushed, {},
                                     {{policy::Time(20000), ""}, {policy::Time(10000), "floor"}});
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<Controller>>(made))
      << std::get<std::string>(made);
  const Workload w = cold_workload(m);
  const auto r = run_from_start(m, w, *std::get<std::unique_ptr<Controller>>(made), 1);
  const auto panel = static_cast<std::size_t>(
      std::find(r.trace.devices.begin(), r.trace.devices.end(), "panel") - r.trace.devices.begin());
  ASSERT_LT(panel, r.trace.devices.size());
  for (std::size_t i = 0; i < r.trace.time_s.size(); ++i) {
    const double t = r.trace.time_s[i];
    // Far below the guard's 80 °C: only the profile throttles the panel.
    const std::uint32_t want = (t > 10.05 && t < 20.05) ? 3 : 0;
    ASSERT_EQ(r.trace.level[panel][i], want) << "at " << t << " s";
  }
}

TEST(ExcitationTest, AnUnknownProfileIsRefused) {
  const ModelSpec m = model();
  auto made = make_policy_controller(m, policy(), "p", policy::Delivery::pushed, {},
                                     {{policy::Time(5000), "excite-9"}});
  ASSERT_TRUE(std::holds_alternative<std::string>(made));
  EXPECT_EQ(std::get<std::string>(made),
            "no profile 'excite-9' in the policy (a switch at 5000 ms)");
}

}  // namespace
}  // namespace coolhand::sim::excitation_test
