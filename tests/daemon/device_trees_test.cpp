// Every tree under tests/devices/<id>/ (rebuilt from public sources, see its
// README) against the shipped device database and policies, through the
// daemon's own detection, discovery and runtime in virtual time:
//   1. detection picks <id> (expect.yaml) and the policy binds with no
//      missing sensor and no missing required knob;
//   2. at the tree's idle temperatures nothing is throttled and no file of
//      the tree changes;
//   3. with expect.yaml's `hot` files raised, the power knob throttles and
//      every knob holds one of its planned level values (in the knob's unit,
//      inside the advertised range: discovery checks both);
//   4. restoring (what SIGTERM does) gives back every original exactly,
//      including firmware values above the advertised maximum.
// In CI (CI=true) a missing tests/devices directory fails; locally it skips.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "coolhand/config/policy_file.h"
#include "detect.h"
#include "discovery.h"
#include "fake_tree.h"
#include "runtime.h"

namespace coolhand::daemon::device_trees_test {
namespace {

namespace fs = std::filesystem;
using Snapshot = std::map<std::string, std::string>;

const fs::path kTrees = fs::path(COOLHAND_SOURCE_DIR) / "tests/devices";
const std::string kDataDir = std::string(COOLHAND_SOURCE_DIR) + "/config";

Snapshot snapshot(const fs::path& root) {
  Snapshot s;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    // Values as sysfs reads them back: a write without the trailing
    // newline the kernel prints reads the same.
    std::string v = text.str();
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    s[fs::relative(e.path(), root).string()] = v;
  }
  return s;
}

// Lines of `a` and `b` that differ, for failure messages.
std::string diff(const Snapshot& a, const Snapshot& b) {
  std::string out;
  for (const auto& [path, text] : b) {
    auto it = a.find(path);
    if (it == a.end() || it->second != text) {
      out += path + ": '" + (it == a.end() ? "<absent>" : it->second) + "' -> '" + text + "'\n";
    }
  }
  return out;
}

void run(Runtime& rt, policy::Time& now, int seconds) {
  const policy::Time end = now + policy::Time(seconds * 1000);
  while (now < end) {
    auto wake = rt.tick(now);
    now = wake ? std::min(*wake, end) : end;
  }
  (void)rt.tick(now);
}

std::vector<std::string> tree_ids() {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kTrees, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "expect.yaml"))
      ids.push_back(e.path().filename().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

class DeviceTree : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceTree, DetectsBindsIdlesThrottlesAndRestores) {
  const std::string id = GetParam();
  const YAML::Node expect = YAML::LoadFile((kTrees / id / "expect.yaml").string());
  testing::FakeTree tmp;
  fs::copy(kTrees / id / "sys", fs::path(tmp.root()) / "sys", fs::copy_options::recursive);
  const fs::path root = fs::path(tmp.root()) / "sys";
  RootedSysfs sys(root.string());
  Logger log;
  log.capture();

  // 1. Detection and binding.
  auto det = detect(sys, kDataDir);
  ASSERT_TRUE(det) << det.error().to_string();
  ASSERT_TRUE(det->device) << id << ": no device description matched";
  EXPECT_EQ(det->device->id, expect["device"].as<std::string>()) << det->why;
  auto loaded = config::load_policy_file(det->policy_path);
  ASSERT_TRUE(loaded.document) << loaded.errors.at(0).to_string();
  config::PolicyDocument doc = std::move(*loaded.document);
  auto roles = bind_roles(doc, *det, sys);
  ASSERT_TRUE(roles) << roles.error().to_string();
  for (const auto& r : *roles) {
    if (r.used_by.rfind("sensor", 0) == 0) {
      EXPECT_TRUE(r.bound) << id << ": " << r.role << " (" << r.used_by << "): " << r.missing;
    } else if (r.required) {
      EXPECT_TRUE(r.bound) << id << ": " << r.role << " (" << r.used_by << "): " << r.missing;
    }
  }
  // The level plan of every bound knob, as the runtime will compute it.
  std::map<std::string, KnobBinding> plans;
  for (const auto& d : doc.spec.devices) {
    const auto& k = doc.knobs.at(d.name);
    if (k.kind == config::DeviceKnob::Kind::none) continue;
    auto b = find_knob(sys, k, d.max_level, nullptr);
    if (b) plans.emplace(d.name, std::move(*b));
  }
  auto created = Runtime::create(doc, sys, log, {});
  ASSERT_TRUE(created) << created.error().to_string();
  Runtime& rt = **created;

  // 2. Idle: nothing throttled, nothing written.
  const Snapshot before = snapshot(root);
  policy::Time now{0};
  rt.start(now);
  run(rt, now, 120);
  for (const auto& d : doc.spec.devices) {
    EXPECT_EQ(rt.device_level(d.name).value_or(0), 0u) << id << ": " << d.name << " at idle";
  }
  EXPECT_EQ(diff(before, snapshot(root)), "") << id << ": files changed at idle";

  // 3. Hot: the power knob throttles; every knob holds a planned value.
  std::vector<std::string> hot;
  for (const auto& h : expect["hot"]) {
    const std::string path = h["path"].as<std::string>();
    hot.push_back(path);
    std::ofstream(root / path) << h["value"].as<std::int64_t>() << "\n";
  }
  run(rt, now, 600);
  bool power_throttled = false;
  bool has_power = false;
  for (const auto& [name, plan] : plans) {
    const auto level = rt.device_level(name).value_or(0);
    for (const auto& t : plan.targets) {
      auto cur = sys.read_integer(t.path);
      ASSERT_TRUE(cur) << t.path;
      EXPECT_EQ(*cur, t.values.at(level)) << id << ": " << t.path << " at level " << level;
    }
    if (doc.knobs.at(name).role == "apu_power") {
      has_power = true;
      power_throttled = level > 0;
      for (const auto& t : plan.targets) {
        EXPECT_LT(*sys.read_integer(t.path), t.original) << id << ": " << t.path;
      }
    }
  }
  if (has_power) {
    EXPECT_TRUE(power_throttled) << id << ": apu_power not throttled when hot";
  }

  // 4. Restore: every original back exactly.
  rt.restore_all();
  Snapshot after = snapshot(root);
  for (const auto& path : hot) after[path] = before.at(path);
  EXPECT_EQ(diff(before, after), "") << id << ": not restored";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string n = p.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Trees, DeviceTree, ::testing::ValuesIn(tree_ids()), test_name);

TEST(DeviceTrees, ThereAreTrees) {
  if (tree_ids().empty()) {
    if (std::getenv("CI") != nullptr) FAIL() << "no trees under " << kTrees;
    GTEST_SKIP() << "no trees under " << kTrees;
  }
  EXPECT_GE(tree_ids().size(), 9u);
}

}  // namespace
}  // namespace coolhand::daemon::device_trees_test

namespace coolhand::daemon::device_trees_test {
namespace {

// A required role the machine lacks stops the daemon (exit 3) naming it:
// the Deck's policy with battery_temp required (it ships optional), on a
// ROG Ally, which has no battery temperature.
TEST(DeviceTrees, MissingRequiredRoleIsAnErrorNamingIt) {
  if (!fs::exists(kTrees / "rog-ally")) GTEST_SKIP() << "no rog-ally tree";
  RootedSysfs sys((kTrees / "rog-ally/sys").string());
  auto det = detect(sys, kDataDir);
  ASSERT_TRUE(det && det->device);
  auto loaded = config::load_policy_file(kDataDir + "/policies/steam-deck.yaml");
  ASSERT_TRUE(loaded.document);
  loaded.document->sources.at("battery").required = true;
  Logger log;
  log.capture();
  auto s = bind_roles_logged(*loaded.document, *det, sys, log);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().what, "bind");
  EXPECT_NE(s.error().detail.find("battery_temp (sensor battery)"), std::string::npos)
      << s.error().to_string();
}

// A Steam Deck on a kernel without Valve's steamdeck_hwmon has no battery
// temperature. The shipped policy marks it optional: the daemon starts,
// reports the sensor lost (never "0 sensors lost"), and the grips estimate
// falls back on the APU (weighted_sum renormalised), so at idle nothing is
// throttled (not the safe levels a missing input would give) and when the
// APU is hot the power cap still throttles.
TEST(DeviceTrees, SteamDeckWithoutBatterySensorFallsBackOnTheApu) {
  if (!fs::exists(kTrees / "steam-deck-lcd")) GTEST_SKIP() << "no steam-deck-lcd tree";
  testing::FakeTree tmp;
  const fs::path root = fs::path(tmp.root()) / "sys";
  fs::copy(kTrees / "steam-deck-lcd/sys", root, fs::copy_options::recursive);
  fs::remove_all(root / "class/hwmon/hwmon6");  // steamdeck_hwmon
  RootedSysfs sys(root.string());
  Logger log;
  log.capture();
  auto det = detect(sys, kDataDir);
  ASSERT_TRUE(det && det->device);
  EXPECT_EQ(det->device->id, "steam-deck-lcd");
  auto loaded = config::load_policy_file(det->policy_path);
  ASSERT_TRUE(loaded.document);
  config::PolicyDocument doc = std::move(*loaded.document);
  auto roles = bind_roles_logged(doc, *det, sys, log);
  ASSERT_TRUE(roles) << roles.error().to_string();
  auto created = Runtime::create(doc, sys, log, {});
  ASSERT_TRUE(created) << created.error().to_string();
  Runtime& rt = **created;
  const Snapshot before = snapshot(root);
  policy::Time now{0};
  rt.start(now);
  run(rt, now, 120);
  EXPECT_TRUE(rt.sensor_lost("battery"));
  EXPECT_FALSE(rt.sensor_lost("apu"));
  for (const auto& d : doc.spec.devices) {
    EXPECT_EQ(rt.device_level(d.name).value_or(0), 0u) << d.name << " at idle";
  }
  EXPECT_EQ(diff(before, snapshot(root)), "") << "files changed at idle";
  std::ofstream(root / "class/hwmon/hwmon4/temp1_input") << 95000 << "\n";  // amdgpu edge
  run(rt, now, 600);
  EXPECT_GT(rt.device_level("apu_power").value_or(0), 0u) << "apu_power not throttled when hot";
  rt.restore_all();
}

// Without a matching description a policy that names roles cannot bind.
TEST(DeviceTrees, RolesWithoutADeviceAreAnError) {
  testing::FakeTree t;
  RootedSysfs sys(t.root());
  auto loaded = config::load_policy_file(kDataDir + "/policies/amd-handheld.yaml");
  ASSERT_TRUE(loaded.document);
  auto r = bind_roles(*loaded.document, Detection{}, sys);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().detail.find("no device description matches"), std::string::npos);
}

}  // namespace
}  // namespace coolhand::daemon::device_trees_test
