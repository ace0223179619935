// The daemon run's host-side pieces without a guest (lockstep_daemon.h):
// which model sensors become emulated zones, the module parameters, and
// that the remapped reference policy differs from the real one in its
// hardware sources and knobs only.
#include "lockstep_daemon.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <string>

#include "coolhand/config/policy_file.h"

namespace sim = coolhand::sim;
namespace ls = coolhand::lockstep;

namespace {

sim::ModelSpec reference_model() {
  auto m = sim::load_model_file(COOLHAND_SIM_DATA_DIR "/models/reference-umpc.yaml");
  EXPECT_TRUE(std::holds_alternative<sim::ModelSpec>(m));
  return std::get<sim::ModelSpec>(m);
}

std::string reference_policy() {
  std::ifstream in(COOLHAND_POLICY_DIR "/reference-umpc.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ls::DaemonLayout layout_of(const sim::ModelSpec& m, const std::string& policy) {
  auto l = ls::daemon_layout(m, policy);
  if (auto* e = std::get_if<ls::LayoutError>(&l)) ADD_FAILURE() << e->what;
  return std::get<ls::DaemonLayout>(l);
}

TEST(LockstepDaemon, ReferencePolicyReadsEverySensorOfTheModel) {
  const auto m = reference_model();
  EXPECT_EQ(layout_of(m, reference_policy()).zone_sensor,
            (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  // A policy that reads only the board thermistor gets one zone.
  EXPECT_EQ(layout_of(m,
                      "sensors:\n  skin_therm: {source: {kind: thermal_zone, name: x}}\n  "
                      "cpu_therm: {kind: ema, input: skin_therm, time_constant: 1s}\n")
                .zone_sensor,
            (std::vector<std::size_t>{4}));
}

TEST(LockstepDaemon, RefusesADeviceTheModelLacks) {
  auto l = ls::daemon_layout(reference_model(), "devices:\n  fan: {max_level: 3}\n");
  ASSERT_TRUE(std::holds_alternative<ls::LayoutError>(l));
  EXPECT_NE(std::get<ls::LayoutError>(l).what.find("fan"), std::string::npos);
  EXPECT_TRUE(std::holds_alternative<ls::LayoutError>(ls::daemon_layout(reference_model(), "[")));
}

TEST(LockstepDaemon, ParamsHaveNoTripsAndBindEveryDeviceToZoneZero) {
  const auto m = reference_model();
  EXPECT_EQ(ls::daemon_emul_params(m, layout_of(m, reference_policy())),
            "emul_zones=6 emul_devices=5 emul_max_level=7,7,3,4,4 "
            "emul_power_mw=6000:4800:3800:3000:2300:1700:1200:800,"
            "7000:5600:4400:3400:2600:1900:1300:900,2200:1500:1000:600,"
            "1600:1280:1000:740:510,2600:1800:1100:700:350 "
            "emul_passive_mc=0 emul_passive_hyst_mc=0 emul_crit_mc=0 emul_governor=user_space "
            "emul_binding=0:0,0:1,0:2,0:3,0:4");
}

TEST(LockstepDaemon, RemapChangesOnlySourcesAndKnobs) {
  const auto m = reference_model();
  const std::string text = reference_policy();
  auto remapped = ls::remap_policy(m, layout_of(m, text), text);
  ASSERT_TRUE(std::holds_alternative<std::string>(remapped));
  const std::string& out = std::get<std::string>(remapped);
  // The result is a valid policy.
  const auto loaded = coolhand::config::parse_policy(out, "remapped");
  for (const auto& e : loaded.errors) ADD_FAILURE() << e.to_string();
  // Remove the remapped keys from both trees: what is left is identical.
  YAML::Node a = YAML::Load(text), b = YAML::Load(out);
  EXPECT_EQ(b["sensors"]["battery_therm"]["source"]["kind"].as<std::string>(), "coolhand");
  EXPECT_EQ(b["sensors"]["battery_therm"]["source"]["name"].as<std::string>(), "emul_zone5");
  EXPECT_EQ(b["devices"]["charger"]["knob"]["name"].as<std::string>(), "throttle4");
  for (const auto& s : m.sensors) {
    a["sensors"][s.name].remove("source");
    b["sensors"][s.name].remove("source");
  }
  for (const auto& d : m.devices) {
    a["devices"][d.name].remove("knob");
    b["devices"][d.name].remove("knob");
  }
  YAML::Emitter ea, eb;
  ea << a;
  eb << b;
  EXPECT_EQ(std::string(ea.c_str()), std::string(eb.c_str()));
}

}  // namespace
