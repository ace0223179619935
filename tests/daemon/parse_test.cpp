// Parsers of sysfs attribute text: numbers, temperatures and garbage.
#include "parse.h"

#include <gtest/gtest.h>

namespace coolhand::daemon::parse_test {
namespace {

TEST(ParseInteger, AcceptsSysfsFormatting) {
  EXPECT_EQ(*parse_integer("45000\n", "p"), 45000);
  EXPECT_EQ(*parse_integer("-5000", "p"), -5000);
  EXPECT_EQ(*parse_integer("+7", "p"), 7);
}

TEST(ParseInteger, EmptyIsAnError) {
  auto r = parse_integer("", "class/x/temp");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path, "class/x/temp");
  EXPECT_NE(r.error().to_string().find("empty"), std::string::npos);
  EXPECT_FALSE(parse_integer("\n", "p"));
}

TEST(ParseInteger, NonNumericIsAnError) {
  EXPECT_FALSE(parse_integer("hot\n", "p"));
  EXPECT_FALSE(parse_integer("45000 mC", "p"));
  EXPECT_FALSE(parse_integer("45.5", "p"));
  EXPECT_FALSE(parse_integer("0x10", "p"));
  EXPECT_FALSE(parse_integer(std::string("45\0"
                                         "00",
                                         5),
                             "p"));
}

TEST(ParseInteger, HugeIsAnError) {
  auto r = parse_integer("99999999999999999999999", "p");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().detail.find("out of range"), std::string::npos);
}

TEST(ParseTemperature, ScalesTenthsOfCelsius) {
  auto r = parse_temperature("315\n", 100, "class/power_supply/BAT0/temp");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->mc(), 31500);
  EXPECT_EQ(parse_temperature("-25", 100, "p")->mc(), -2500);
  EXPECT_EQ(parse_temperature("45123", 1, "p")->mc(), 45123);
}

TEST(ParseTemperature, ImpossibleValuesAreErrors) {
  EXPECT_FALSE(parse_temperature("2147483647", 1, "p"));
  EXPECT_FALSE(parse_temperature("-274000", 1, "p"));
  EXPECT_FALSE(parse_temperature("400001", 1, "p"));
  EXPECT_FALSE(parse_temperature("4001", 100, "p"));  // 400.1 °C in tenths
  EXPECT_TRUE(parse_temperature("400000", 1, "p"));
}

TEST(TrimLine, StripsTrailingNewlineAndBlanks) {
  EXPECT_EQ(trim_line("x86_pkg_temp\n"), "x86_pkg_temp");
  EXPECT_EQ(trim_line("acpitz \n"), "acpitz");
  EXPECT_EQ(trim_line(""), "");
}

}  // namespace
}  // namespace coolhand::daemon::parse_test
