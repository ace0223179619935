// End-to-end test of D-Bus Explain and `coolhandctl explain` (issue 11): the
// real coolhandd on the private bus (private_bus.h) against a fake tree,
// asked by an unprivileged caller why the fan is at its level. The policy's
// table puts the fan at level 1 from 45 °C (row up 45) and at 2 from 48 °C
// (row up 48), so a change of temperature must change the answer's level,
// limit, input value and since.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "private_bus.h"

namespace {

using namespace coolhand::e2e_testing;  // NOLINT(google-build-using-namespace)
using namespace std::chrono_literals;

class ExplainEndToEnd : public DbusEndToEnd {
 protected:
  nlohmann::json explain(const std::string& device = "") {
    std::vector<std::string> args{"explain", "--json"};
    if (!device.empty()) args.push_back(device);
    const CtlRun r = ctl(args, true);  // as the unauthorised uid: reading is open
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
  }
};

TEST_F(ExplainEndToEnd, NamesTheControllerItsInputTheLimitAndSinceWhen) {
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 1; }, 3s)) << daemon_log();
  const nlohmann::json a = explain("fan");
  ASSERT_EQ(a["devices"].size(), 1U) << a.dump();
  const nlohmann::json& d = a["devices"][0];
  EXPECT_EQ(d["name"], "fan");
  EXPECT_EQ(d["level"], 1);
  EXPECT_EQ(d["max_level"], 3);
  EXPECT_EQ(d["reason"], "controller");
  EXPECT_EQ(d["controller"], "guard");
  EXPECT_EQ(d["controller_kind"], "table");
  EXPECT_EQ(d["input"], "skin");
  EXPECT_EQ(d["input_mc"], 46000);
  EXPECT_EQ(d["limit_kind"], "table row");
  EXPECT_EQ(d["limit_mc"], 45000);
  ASSERT_TRUE(d["since_ms"].is_number()) << a.dump();
  const std::int64_t first_since = d["since_ms"];
  EXPECT_LE(first_since, a["now_ms"].get<std::int64_t>());

  set_temp(49000);
  ASSERT_TRUE(wait_until([&] { return fan() == 2; }, 3s)) << daemon_log();
  const nlohmann::json b = explain();  // every device
  ASSERT_EQ(b["devices"].size(), 1U) << b.dump();
  const nlohmann::json& e = b["devices"][0];
  EXPECT_EQ(e["level"], 2);
  EXPECT_EQ(e["input_mc"], 49000);
  EXPECT_EQ(e["limit_mc"], 48000);
  EXPECT_GT(e["since_ms"].get<std::int64_t>(), first_since) << "the level change moves since";

  const CtlRun text = ctl({"explain", "fan"}, true);
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("fan: level 2 of 3 since "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("by table controller guard: input skin = 49.0 °C, table row 48.0 °C"),
            std::string::npos)
      << text.out;
}

TEST_F(ExplainEndToEnd, ReleasedAndUnknownDevice) {
  set_temp(30000);
  start_daemon();
  ASSERT_TRUE(wait_until([&] { return fan() == 0; }, 3s)) << daemon_log();
  const nlohmann::json a = explain("fan");
  ASSERT_EQ(a["devices"].size(), 1U) << a.dump();
  EXPECT_EQ(a["devices"][0]["reason"], "released");
  EXPECT_TRUE(a["devices"][0]["controller"].is_null());
  EXPECT_TRUE(a["devices"][0]["limit_mc"].is_null());

  const CtlRun bad = ctl({"explain", "gpu"}, true);
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.err,
            "coolhandctl: explain: the running policy has no device 'gpu' (devices: fan)\n");
}

}  // namespace
