// The backlight brightness source ({kind: backlight}): parsed into a
// brightness sensor that only a fir estimator may take as an input; every
// other use is an error naming file, line, column and key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coolhand/config/device_file.h"
#include "coolhand/config/policy_file.h"
#include "policy_test_support.h"

namespace coolhand::config::brightness_test {
namespace {

using test_support::errors_of;

using policy::SensorSpec;

// A front-glass estimate over a thermistor and the backlight's brightness.
constexpr std::string_view kSensors =
    "version: 1\n"
    "devices:\n"
    "  cpu: {max_level: 3}\n"
    "sensors:\n"
    "  board: {}\n"
    "  screen:\n"
    "    source: {kind: backlight, name: intel_backlight}\n"
    "  front:\n"
    "    kind: fir\n"
    "    inputs: [board, screen]\n"
    "    weights: [[1.0, 0.0], [2.5, 0.5]]\n"
    "    tap_period: 8s\n";

std::string with(std::string_view extra) {
  return test_support::with(kSensors, extra);
}

TEST(BacklightSource, ParsesIntoABrightnessSensorThatAFirTakes) {
  const LoadResult r = parse_policy(with(""), "p.yaml");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().to_string();
  const auto& doc = *r.document;
  const auto& src = doc.sources.at("screen");
  EXPECT_EQ(src.kind, SensorSource::Kind::backlight);
  EXPECT_EQ(src.name, "intel_backlight");
  EXPECT_TRUE(src.required);
  ASSERT_EQ(doc.spec.sensors.size(), 3U);
  EXPECT_EQ(doc.spec.sensors[0].quantity, SensorSpec::Quantity::temperature);
  EXPECT_EQ(doc.spec.sensors[1].quantity, SensorSpec::Quantity::brightness);
  EXPECT_EQ(doc.spec.sensors[1].kind, SensorSpec::Kind::physical);
  EXPECT_EQ(doc.spec.sensors[2].quantity, SensorSpec::Quantity::temperature);
}

TEST(BacklightSource, MayBeOptional) {
  const LoadResult r = parse_policy(
      "version: 1\nsensors:\n  board: {}\n  screen:\n"
      "    source: {kind: backlight, name: acpi_video0, required: false}\n"
      "  front: {kind: fir, inputs: [board, screen], weights: [[1], [2]], tap_period: 8s}\n",
      "p.yaml");
  ASSERT_TRUE(r.errors.empty()) << r.errors.front().to_string();
  EXPECT_FALSE(r.document->sources.at("screen").required);
  EXPECT_TRUE(r.document->spec.sensors[1].optional);
}

TEST(BacklightSource, NeedsAName) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  screen:\n    source: {kind: backlight}\n"),
            (std::vector<std::string>{"p.yaml:4:5: sensors.screen.source.name: missing required "
                                      "key (in the source of sensor 'screen')"}));
}

TEST(BacklightSource, TakesNoHwmonKeys) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  screen:\n"
                      "    source: {kind: backlight, name: b, label: x}\n"),
            (std::vector<std::string>{
                "p.yaml:4:40: sensors.screen.source.label: does not apply to a backlight source"}));
}

TEST(BacklightSource, HasNoTemperatureKeys) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  screen:\n"
                      "    source: {kind: backlight, name: b}\n    offset_c: 1\n"
                      "    quantum_c: 0.1\n"),
            (std::vector<std::string>{
                "p.yaml:5:15: sensors.screen.offset_c: a backlight source reads a brightness, "
                "not a temperature: no offset_c",
                "p.yaml:6:16: sensors.screen.quantum_c: a backlight source reads a brightness, "
                "not a temperature: no quantum_c"}));
}

TEST(BacklightSource, NoZoneWatchesIt) {
  EXPECT_EQ(errors_of(with("zones:\n  z:\n    sensor: screen\n")),
            (std::vector<std::string>{
                "p.yaml:15:13: zones.z.sensor: \"screen\" is a brightness, not a temperature: "
                "only a fir sensor may take it as an input, no zone watches it"}));
}

TEST(BacklightSource, NoControllerTakesIt) {
  EXPECT_EQ(errors_of(with("controllers:\n  c:\n    kind: step_wise\n    input: screen\n"
                           "    devices: [cpu]\n    threshold_c: 45\n")),
            (std::vector<std::string>{
                "p.yaml:16:12: controllers.c.input: \"screen\" is a brightness, not a "
                "temperature: only a fir sensor may take it as an input, no controller takes "
                "it as its input"}));
}

TEST(BacklightSource, NoOtherVirtualSensorTakesIt) {
  EXPECT_EQ(
      errors_of(with("  both: {kind: max, inputs: [board, screen]}\n")),
      (std::vector<std::string>{
          "p.yaml:13:29: sensors.both.inputs: inputs[1]: \"screen\" is a brightness, not a "
          "temperature: only a fir sensor may take it as an input, not a sensor of kind max"}));
  EXPECT_EQ(
      errors_of(with("  slow: {kind: ema, input: screen, time_constant: 10s}\n")),
      (std::vector<std::string>{
          "p.yaml:13:28: sensors.slow.input: inputs[0]: \"screen\" is a brightness, not a "
          "temperature: only a fir sensor may take it as an input, not a sensor of kind ema"}));
}

TEST(BacklightSource, IsNoTemperatureCandidateOfADeviceDescription) {
  const auto r = parse_device_description(
      "version: 1\nid: x\nname: X\npolicy: p\nmatch: {sys_vendor: X}\nsensors:\n"
      "  skin_temp:\n    cite: c\n    bind: [{kind: backlight, name: b}]\n",
      "d.yaml");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.front().to_string().find("cannot be a temperature sensor's candidate"),
            std::string::npos)
      << r.errors.front().to_string();
}

}  // namespace
}  // namespace coolhand::config::brightness_test
