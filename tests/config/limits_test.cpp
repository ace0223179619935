// Named limits: the `limit ± number` temperatures (limit_expr.h) on their
// own, then through the loader with positioned errors, and the worked port
// of docs/policy-language.md ("Porting to a new device"): the shipped
// reference policy with its one skin number changed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "limit_expr.h"
#include "policy_test_support.h"

namespace coolhand::config::limits_test {
namespace {

using test_support::errors_of;

using detail::NamedLimit;
using detail::parse_temperature;
using policy::MilliC;

const std::vector<NamedLimit> kLimits = {
    {"skin", MilliC(45000)}, {"battery", MilliC(45000)}, {"soc", MilliC(90000)}};

TEST(LimitExpr, PlainNumbersAndLimits) {
  EXPECT_EQ(parse_temperature("42.5", kLimits).value, MilliC(42500));
  EXPECT_FALSE(parse_temperature("42.5", kLimits).named_limit);
  EXPECT_EQ(parse_temperature("skin", kLimits).value, MilliC(45000));
  EXPECT_TRUE(parse_temperature("skin", kLimits).named_limit);
  EXPECT_EQ(parse_temperature("skin - 0.3", kLimits).value, MilliC(44700));
  EXPECT_EQ(parse_temperature("skin+2", kLimits).value, MilliC(47000));
  EXPECT_EQ(parse_temperature("soc -  5", kLimits).value, MilliC(85000));
  EXPECT_EQ(parse_temperature("skin - 0.0005", kLimits).value, MilliC(44999));
}

TEST(LimitExpr, ErrorsNameTheTokenAtFault) {
  const auto typo = parse_temperature("skn - 1", kLimits);
  EXPECT_EQ(typo.error, "unknown limit 'skn' (did you mean 'skin'?)");
  EXPECT_EQ(typo.offset, 0U);
  EXPECT_EQ(parse_temperature("skin_c", kLimits).error,
            "unknown limit 'skin_c' (did you mean 'skin'?)");
  EXPECT_EQ(parse_temperature("ambient", kLimits).error,
            "unknown limit 'ambient' (limits defined: skin battery soc)");
  EXPECT_EQ(parse_temperature("skin", {}).error,
            "expected a temperature in °C, got 'skin' (a name here must be one of the policy's "
            "`limits`, and it defines none)");
  const auto op = parse_temperature("skin * 2", kLimits);
  EXPECT_EQ(op.error, "expected '+' or '-' after limit 'skin', got '* 2'");
  EXPECT_EQ(op.offset, 5U);
  EXPECT_EQ(parse_temperature("skin -", kLimits).error, "expected a number of °C after '-'");
  const auto two = parse_temperature("skin - battery", kLimits);
  EXPECT_EQ(two.error, "only one limit per temperature: 'battery' must be a number of °C");
  EXPECT_EQ(two.offset, 7U);
  EXPECT_EQ(parse_temperature("skin - -1", kLimits).error,
            "expected a number of °C after '-', got '-1'");
  const auto unit = parse_temperature("skin - 2C", kLimits);
  EXPECT_EQ(unit.error, "expected a plain number of °C (the key says the unit), got '2C'");
  EXPECT_EQ(unit.offset, 7U);
  EXPECT_EQ(parse_temperature("soc + 999", kLimits).error,
            "'soc + 999' is 1089 °C, out of range (-1000 to 1000)");
  EXPECT_EQ(parse_temperature("45 + 1", kLimits).error,
            "expected a plain number of °C (the key says the unit), got '45 + 1'");
}

constexpr std::string_view kBase =
    "version: 1\n"
    "limits: {skin_c: 45}\n"
    "sensors:\n"
    "  t: {}\n"
    "devices:\n"
    "  cpu: {max_level: 3, power_mw: [4, 3, 2, 1]}\n";

std::string with(std::string_view extra) {
  return test_support::with(kBase, extra);
}

TEST(Limits, ResolveEverywhereAnAbsoluteTemperatureIsWritten) {
  const LoadResult r = parse_policy(
      with("zones:\n"
           "  z:\n"
           "    sensor: t\n"
           "    trips: {hot: {type: hot, threshold_c: skin + 1, hysteresis_c: 1}}\n"
           "    severities: {severe: {threshold_c: skin}}\n"
           "controllers:\n"
           "  p: {kind: pid, input: t, devices: [cpu], setpoint_c: skin - 0.15, kp: 1}\n"
           "  s: {kind: step_wise, input: t, devices: [cpu], threshold_c: skin - 2}\n"
           "  b: {kind: power_budget, input: t, devices: [cpu], setpoint_c: skin,\n"
           "      sustainable_power_mw: 1, switch_on_c: skin - 4}\n"
           "  tb: {kind: table, input: t, devices: [cpu], table: [{up_c: skin - 1, down_c: skin "
           "- 1.5, level: 1}]}\n"
           "profiles:\n"
           "  quiet: {controllers: {s: {threshold_c: skin - 3}, p: {setpoint_c: skin - 1}}}\n"),
      "p.yaml");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().to_string() << " (" << r.errors.size()
                                << " errors)";
  const policy::PolicySpec& s = r.document->spec;
  EXPECT_EQ(r.document->limits.at("skin"), MilliC(45000));
  EXPECT_EQ(s.zones[0].trips[0].threshold, MilliC(46000));
  EXPECT_EQ(s.zones[0].severities[0].threshold, MilliC(45000));
  EXPECT_EQ(s.controllers[0].setpoint, MilliC(44850));
  EXPECT_EQ(s.controllers[1].threshold, MilliC(43000));
  EXPECT_EQ(s.controllers[2].setpoint, MilliC(45000));
  EXPECT_EQ(s.controllers[2].switch_on, MilliC(41000));
  EXPECT_EQ(s.controllers[3].table[0].up, MilliC(44000));
  EXPECT_EQ(s.controllers[3].table[0].down, MilliC(43500));
  EXPECT_EQ(s.profiles[0].controllers[0].threshold, MilliC(42000));
  EXPECT_EQ(s.profiles[0].controllers[1].setpoint, MilliC(44000));
}

TEST(Limits, PositionedErrors) {
  EXPECT_EQ(
      errors_of(with("controllers:\n"
                     "  s: {kind: step_wise, input: t, devices: [cpu], threshold_c: skn - 2}\n")),
      std::vector<std::string>{"p.yaml:8:63: controllers.s.threshold_c: unknown limit 'skn' "
                               "(did you mean 'skin'?)"});
  EXPECT_EQ(
      errors_of(with("controllers:\n"
                     "  s: {kind: step_wise, input: t, devices: [cpu], threshold_c: skin / 2}\n")),
      std::vector<std::string>{"p.yaml:8:68: controllers.s.threshold_c: expected '+' or '-' "
                               "after limit 'skin', got '/ 2'"});
  EXPECT_EQ(errors_of(with("controllers:\n"
                           "  s:\n"
                           "    kind: step_wise\n"
                           "    input: t\n"
                           "    devices: [cpu]\n"
                           "    threshold_c: skin + 990\n")),
            std::vector<std::string>{"p.yaml:12:18: controllers.s.threshold_c: 'skin + 990' is "
                                     "1035 °C, out of range (-1000 to 1000)"});
  // A difference cannot be a limit.
  EXPECT_EQ(errors_of(with("controllers:\n"
                           "  s: {kind: step_wise, input: t, devices: [cpu], threshold_c: skin,\n"
                           "      hysteresis_c: skin - 44}\n")),
            std::vector<std::string>{"p.yaml:9:21: controllers.s.hysteresis_c: 'skin - 44': a "
                                     "temperature difference is a plain number of °C (limits name "
                                     "absolute temperatures only)"});
}

TEST(Limits, BadLimitSection) {
  EXPECT_EQ(errors_of("version: 1\nlimits: {skin: 45, 2x_c: 3, hot_c: 45C, ok_c: 1}\n"),
            (std::vector<std::string>{
                "p.yaml:2:10: limits.skin: a limit's name is a word ending in _c, the unit (e.g. "
                "skin_c: 45)",
                "p.yaml:2:20: limits.2x_c: a limit's name is a word ending in _c, the unit (e.g. "
                "skin_c: 45)",
                "p.yaml:2:36: limits.hot_c: expected a plain number of °C (the key says the unit), "
                "got '45C'"}));
  EXPECT_EQ(errors_of("version: 1\nlimits: {skin_c: skin}\n"),
            std::vector<std::string>{
                "p.yaml:2:18: limits.skin_c: expected a temperature in °C, got 'skin'"});
  EXPECT_EQ(errors_of("version: 1\nlimits: [45]\n"),
            std::vector<std::string>{"p.yaml:2:9: limits: expected a mapping of keys for "
                                     "'limits' (name_c: temperature pairs), got a list"});
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// docs/policy-language.md, "Porting to a new device": the reference policy
// on the 10" tablet whose skin limit is 41 °C. Only the `skin_c` line
// changes; every temperature written against `skin` moves by -4 °C and
// nothing else moves.
TEST(Limits, PortingTheReferencePolicyChangesOneNumber) {
  const std::string path =
      std::string(COOLHAND_SOURCE_DIR) + "/config/policies/reference-umpc.yaml";
  const std::string original = read(path);
  const std::string line = "  skin_c: 45 ";
  const auto at = original.find(line);
  ASSERT_NE(at, std::string::npos) << "the policy names its skin limit on one line";
  std::string tablet = original;
  tablet.replace(at, line.size(), "  skin_c: 41 ");

  const LoadResult a = parse_policy(original, "reference-umpc.yaml");
  const LoadResult b = parse_policy(tablet, "tablet.yaml");
  ASSERT_TRUE(a.errors.empty()) << a.errors.front().to_string();
  ASSERT_TRUE(b.errors.empty()) << b.errors.front().to_string();
  const policy::PolicySpec& x = a.document->spec;
  const policy::PolicySpec& y = b.document->spec;
  EXPECT_EQ(b.document->limits.at("skin"), MilliC(41000));

  // The values the docs' example lists, resolved on the tablet.
  const auto zone = [&](const policy::PolicySpec& s, std::string_view name) {
    for (const auto& z : s.zones)
      if (z.name == name) return z;
    ADD_FAILURE() << "no zone " << name;
    return policy::ZoneSpec{};
  };
  const auto controller = [&](const policy::PolicySpec& s, std::string_view name) {
    for (const auto& c : s.controllers)
      if (c.name == name) return c;
    ADD_FAILURE() << "no controller " << name;
    return policy::ControllerSpec{};
  };
  EXPECT_EQ(zone(y, "skin_zone").trips[0].threshold, MilliC(42000));
  EXPECT_EQ(zone(y, "skin_zone").severities[2].threshold, MilliC(41000));
  EXPECT_EQ(controller(y, "skin_pid_cpu").setpoint, MilliC(40850));
  EXPECT_EQ(controller(y, "skin_pid_gpu").setpoint, MilliC(40850));
  EXPECT_EQ(controller(y, "skin_charge").table[0].up, MilliC(40300));

  // Everything on the skin moved by exactly -4 °C; battery and SoC did not.
  const MilliC shift(-4000);
  for (std::size_t i = 0; i < x.zones.size(); ++i) {
    const MilliC d = x.zones[i].sensor == "skin" ? shift : MilliC(0);
    for (std::size_t j = 0; j < x.zones[i].trips.size(); ++j) {
      EXPECT_EQ(y.zones[i].trips[j].threshold, x.zones[i].trips[j].threshold + d);
      EXPECT_EQ(y.zones[i].trips[j].hysteresis, x.zones[i].trips[j].hysteresis);
    }
    for (std::size_t j = 0; j < x.zones[i].severities.size(); ++j) {
      EXPECT_EQ(y.zones[i].severities[j].threshold, x.zones[i].severities[j].threshold + d);
    }
  }
  for (std::size_t i = 0; i < x.controllers.size(); ++i) {
    const bool skin = x.controllers[i].input.starts_with("skin");
    const MilliC d = skin ? shift : MilliC(0);
    EXPECT_EQ(y.controllers[i].setpoint,
              x.controllers[i].setpoint +
                  (x.controllers[i].kind == policy::ControllerSpec::Kind::pid ? d : MilliC(0)))
        << x.controllers[i].name;
    EXPECT_EQ(
        y.controllers[i].threshold,
        x.controllers[i].threshold +
            (x.controllers[i].kind == policy::ControllerSpec::Kind::step_wise ? d : MilliC(0)))
        << x.controllers[i].name;
    for (std::size_t j = 0; j < x.controllers[i].table.size(); ++j) {
      EXPECT_EQ(y.controllers[i].table[j].up, x.controllers[i].table[j].up + d);
      EXPECT_EQ(y.controllers[i].table[j].down, x.controllers[i].table[j].down + d);
    }
  }
}

}  // namespace
}  // namespace coolhand::config::limits_test
