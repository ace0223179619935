// The example policies are the worked examples of docs/policy-language.md:
// each must load cleanly and appear verbatim in the document, so neither can
// drift from the loader.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "coolhand/config/policy_file.h"

namespace coolhand::config::examples_test {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::vector<fs::path> examples() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(COOLHAND_SOURCE_DIR "/config/examples")) {
    if (e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Examples, ThereIsOnePerFeature) {
  std::vector<std::string> names;
  for (const auto& p : examples()) names.push_back(p.filename().string());
  for (const char* want : {"minimal.yaml", "virtual-sensors.yaml", "zones.yaml", "controllers.yaml",
                           "device-constraints.yaml", "profiles.yaml", "sampling.yaml",
                           "hardware.yaml", "handheld.yaml", "limits.yaml"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

TEST(Examples, EveryExampleLoads) {
  for (const auto& p : examples()) {
    const LoadResult r = load_policy_file(p.string());
    for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
    EXPECT_TRUE(r.document.has_value()) << p;
  }
}

TEST(Examples, EveryExampleIsQuotedInTheDocs) {
  const std::string doc = read(COOLHAND_SOURCE_DIR "/docs/policy-language.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& p : examples()) {
    const std::string text = read(p);
    EXPECT_NE(doc.find("```yaml\n" + text + "```"), std::string::npos)
        << p.filename() << " is not quoted verbatim in docs/policy-language.md";
  }
}

// The shipped device policies (config/policies/, written by the daemon and
// simulator work) must keep to the schema too.
TEST(Examples, ShippedDevicePoliciesLoad) {
  const fs::path dir = COOLHAND_SOURCE_DIR "/config/policies";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no config/policies yet";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    ++n;
    const LoadResult r = load_policy_file(e.path().string());
    for (const auto& err : r.errors) ADD_FAILURE() << err.to_string();
  }
  EXPECT_GT(n, 0);
}

TEST(Examples, HardwareExampleBindsEveryKind) {
  const LoadResult r = load_policy_file(COOLHAND_SOURCE_DIR "/config/examples/hardware.yaml");
  ASSERT_TRUE(r.document.has_value());
  std::vector<SensorSource::Kind> sources;
  for (const auto& [name, s] : r.document->sources) sources.push_back(s.kind);
  for (auto k : {SensorSource::Kind::none, SensorSource::Kind::thermal_zone,
                 SensorSource::Kind::hwmon, SensorSource::Kind::power_supply,
                 SensorSource::Kind::coolhand, SensorSource::Kind::backlight}) {
    EXPECT_NE(std::find(sources.begin(), sources.end(), k), sources.end());
  }
  std::vector<DeviceKnob::Kind> knobs;
  for (const auto& [name, k] : r.document->knobs) knobs.push_back(k.kind);
  EXPECT_EQ(knobs.size(), 10u);
  for (int k = 0; k <= static_cast<int>(DeviceKnob::Kind::coolhand); ++k) {
    EXPECT_NE(std::find(knobs.begin(), knobs.end(), static_cast<DeviceKnob::Kind>(k)), knobs.end())
        << k;
  }
  const DeviceKnob& charging = r.document->knobs.at("charging");
  using U = config::KnobValue::Unit;
  // Levels 1..max; level 0 is the value found at start.
  EXPECT_EQ(charging.values,
            (std::vector<config::KnobValue>{{U::current_ua, 1500000}, {U::current_ua, 500000}}));
  const DeviceKnob& pstate = r.document->knobs.at("pstate");
  EXPECT_EQ(pstate.values,
            (std::vector<config::KnobValue>{
                {U::percent, 85}, {U::percent, 70}, {U::percent, 55}, {U::percent, 40}}));
  const DeviceKnob& modem = r.document->knobs.at("modem");
  EXPECT_EQ(modem.path, "devices/platform/modem/tx_power_cap");
  EXPECT_FALSE(modem.required);
}

}  // namespace
}  // namespace coolhand::config::examples_test
