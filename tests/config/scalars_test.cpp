// Scalar conversions of the policy language: numbers, temperatures,
// durations and knob quantities, with their error texts.
#include "scalars.h"

#include <gtest/gtest.h>

namespace coolhand::config::detail::scalars_test {
namespace {

using policy::MilliC;
using policy::Millis;

TEST(Scalars, Numbers) {
  EXPECT_EQ(parse_number("0.25").value, 0.25);
  EXPECT_EQ(parse_number("+3").value, 3.0);
  EXPECT_EQ(parse_number("-1e-3").value, -0.001);
  EXPECT_EQ(parse_number("abc").error, "expected a number, got 'abc'");
  EXPECT_EQ(parse_number("1.5x").error, "expected a number, got '1.5x'");
  EXPECT_EQ(parse_number("1e999").error, "number '1e999' is out of range");
  EXPECT_EQ(parse_number("nan").error, "expected a number, got 'nan'");
  EXPECT_EQ(parse_number("").error, "expected a number, got ''");
}

TEST(Scalars, WholeNumbers) {
  EXPECT_EQ(parse_uint32("42").value, 42u);
  EXPECT_EQ(parse_uint32("4294967295").value, 4294967295u);
  EXPECT_EQ(parse_uint32("4294967296").error, "number '4294967296' is out of range");
  EXPECT_EQ(parse_uint32("-1").error, "must be >= 0, got '-1'");
  EXPECT_EQ(parse_uint32("1.0").error, "expected a whole number, got '1.0'");
  EXPECT_EQ(parse_uint32("99999999999999999999999").error,
            "number '99999999999999999999999' is out of range");
  EXPECT_EQ(parse_int64("-9223372036854775808").value, INT64_MIN);
  EXPECT_EQ(parse_int64("0x10").error, "expected a whole number, got '0x10'");
}

TEST(Scalars, Celsius) {
  EXPECT_EQ(parse_celsius("45").value, MilliC(45000));
  EXPECT_EQ(parse_celsius("42.5").value, MilliC(42500));
  EXPECT_EQ(parse_celsius("-0.0005").value, MilliC(-1));  // rounds half away from zero
  EXPECT_EQ(parse_celsius("0.0004").value, MilliC(0));
  EXPECT_EQ(parse_celsius("1000").value, MilliC(1000000));
  EXPECT_EQ(parse_celsius("1000.5").error,
            "temperature '1000.5' °C is out of range (-1000 to 1000)");
  EXPECT_EQ(parse_celsius("1e300").error, "temperature '1e300' °C is out of range (-1000 to 1000)");
  EXPECT_EQ(parse_celsius("45C").error,
            "expected a plain number of °C (the key says the unit), got '45C'");
  EXPECT_EQ(parse_celsius("warm").error, "expected a temperature in °C, got 'warm'");
}

TEST(Scalars, Durations) {
  EXPECT_EQ(parse_duration("250ms").value, Millis(250));
  EXPECT_EQ(parse_duration("2s").value, Millis(2000));
  EXPECT_EQ(parse_duration("1.5s").value, Millis(1500));
  EXPECT_EQ(parse_duration("0.1s").value, Millis(100));
  EXPECT_EQ(parse_duration("2min").value, Millis(120000));
  EXPECT_EQ(parse_duration("1h").value, Millis(3600000));
  EXPECT_EQ(parse_duration("500 ms").value, Millis(500));
  EXPECT_EQ(parse_duration("0s").value, Millis(0));
  EXPECT_EQ(parse_duration("500").error,
            "duration '500' needs a unit: ms, s, min or h (e.g. 500ms, 2s)");
  EXPECT_EQ(parse_duration("5sec").error, "unknown duration unit 'sec' (use ms, s, min or h)");
  EXPECT_EQ(parse_duration("0.5ms").error,
            "duration '0.5ms' is not a whole number of milliseconds");
  EXPECT_EQ(parse_duration("-1s").error, "duration '-1s' is negative");
  EXPECT_EQ(parse_duration("1000h").error,
            "duration '1000h' is out of range (at most 1000000000ms)");
  EXPECT_EQ(parse_duration("1e308h").error,
            "duration '1e308h' is out of range (at most 1000000000ms)");
  EXPECT_EQ(parse_duration("soon").error, "expected a duration such as 500ms or 2s, got 'soon'");
}

TEST(Scalars, Quantities) {
  EXPECT_EQ(parse_quantity("800MHz", kFrequency).value, 800000);
  EXPECT_EQ(parse_quantity("2.8GHz", kFrequency).value, 2800000);
  EXPECT_EQ(parse_quantity("1200000kHz", kFrequency).value, 1200000);
  EXPECT_EQ(parse_quantity("15W", kPower).value, 15000000);
  EXPECT_EQ(parse_quantity("750mW", kPower).value, 750000);
  EXPECT_EQ(parse_quantity("5µW", kPower).value, 5);
  EXPECT_EQ(parse_quantity("5uW", kPower).value, 5);
  EXPECT_EQ(parse_quantity("1500mA", kCurrent).value, 1500000);
  EXPECT_EQ(parse_quantity("85%", kPercent).value, 85);
  EXPECT_EQ(parse_quantity("800", kFrequency).error,
            "frequency '800' needs a unit (kHz, MHz, GHz)");
  EXPECT_EQ(parse_quantity("8Hz", kFrequency).error,
            "unknown frequency unit 'Hz' (use kHz, MHz, GHz)");
  EXPECT_EQ(parse_quantity("0.5kHz", kFrequency).error,
            "frequency '0.5kHz' is not a whole number of kHz");
  EXPECT_EQ(parse_quantity("-3W", kPower).error, "power '-3W' is negative");
  EXPECT_EQ(parse_quantity("1e300W", kPower).error, "power '1e300W' is out of range");
  EXPECT_EQ(parse_quantity("lots", kCurrent).error,
            "expected a current with a unit (µA, mA, A), got 'lots'");
}

TEST(Scalars, EditDistance) {
  EXPECT_EQ(edit_distance("threshold_c", "threshold_c"), 0u);
  EXPECT_EQ(edit_distance("treshold_c", "threshold_c"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

}  // namespace
}  // namespace coolhand::config::detail::scalars_test
