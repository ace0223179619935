// Bad policies: each kind of mistake gives exactly the expected errors,
// each naming file, line, column, key and what is wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "coolhand/config/policy_file.h"
#include "policy_test_support.h"

namespace coolhand::config::errors_test {
namespace {

using test_support::errors_of;

// A valid base the cases below break in one place each.
constexpr std::string_view kSensorDevice =
    "version: 1\n"
    "sensors:\n"
    "  skin: {}\n"
    "devices:\n"
    "  cpu: {max_level: 3}\n";

std::string with(std::string_view extra) {
  return test_support::with(kSensorDevice, extra);
}

struct Case {
  const char* name;
  std::string text;
  std::vector<std::string> errors;
};

// gtest prints the case by name instead of as bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class BadPolicy : public testing::TestWithParam<Case> {};

TEST_P(BadPolicy, GivesExactlyTheseErrors) {
  EXPECT_EQ(errors_of(GetParam().text), GetParam().errors);
}

const Case kCases[] = {
    // ---------------------------------------------------------- keys --
    {"UnknownTopLevelKeyWithHint",
     "version: 1\nsensor:\n  skin: {}\n",
     {"p.yaml:2:1: sensor: unknown key (did you mean 'sensors'?)"}},
    {"UnknownKeyListsValidKeys",
     "version: 1\nsampling:\n  whatever: 1\n",
     {"p.yaml:3:3: sampling.whatever: unknown key (valid here: fine_granularity_c "
      "coarse_granularity_c near_distance_c min_interval max_interval)"}},
    {"UnitSuffixHint",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skin\n    devices: [cpu]\n"
          "    threshold: 45\n"),
     {"p.yaml:7:3: controllers.c.threshold_c: missing required key (in controller 'c')",
      "p.yaml:11:5: controllers.c.threshold: unknown key (did you mean 'threshold_c'?)"}},
    {"KeyOfAnotherKind",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skin\n    devices: [cpu]\n"
          "    threshold_c: 45\n    kp: 1\n"),
     {"p.yaml:12:5: controllers.c.kp: does not apply to a step_wise controller"}},
    {"SourceOnVirtualSensor",
     "version: 1\nsensors:\n  a: {}\n  b:\n    kind: max\n    inputs: [a]\n"
     "    source: {kind: none}\n",
     {"p.yaml:7:5: sensors.b.source: does not apply to a max sensor"}},
    {"DuplicateName",
     "version: 1\nsensors:\n  skin: {}\n  skin: {}\n",
     {"p.yaml:4:3: sensors.skin: duplicate key (first at line 3, column 3)"}},
    {"DuplicateField",
     "version: 1\nversion: 1\n",
     {"p.yaml:2:1: version: duplicate key (first at line 1, column 1)"}},
    {"NonScalarKey",
     "version: 1\n? [a, b]\n: 1\n",
     {"p.yaml:2:3: keys must be plain names, got a list"}},

    // -------------------------------------------------------- types --
    {"WrongTypeMappingForNumber",
     with("controllers:\n  c:\n    kind: bang_bang\n    input: skin\n    devices: [cpu]\n"
          "    threshold_c: {value: 45}\n"),
     {"p.yaml:11:18: controllers.c.threshold_c: expected a temperature in °C, got a mapping"}},
    {"QuotedNumberIsAString",
     "version: 1\ndevices:\n  cpu: {max_level: \"3\"}\n",
     {"p.yaml:3:20: devices.cpu.max_level: expected a whole number, got the quoted string '3'"}},
    {"ListExpected",
     "version: 1\nsensors:\n  a: {}\n  m: {kind: max, inputs: a}\n",
     {"p.yaml:4:26: sensors.m.inputs: expected a list, got 'a'"}},
    {"ListItemWrongType",
     "version: 1\ndevices:\n  cpu: {max_level: 2, power_mw: [3000, lots, 1000]}\n",
     {"p.yaml:3:40: devices.cpu.power_mw[1]: expected a whole number, got 'lots'"}},
    {"SectionNotAMapping",
     "version: 1\nsensors: [a, b]\n",
     {"p.yaml:2:10: sensors: expected a mapping of keys for 'sensors' (name: {...} pairs), "
      "got a list"}},
    {"NotABoolean",
     "version: 1\nsensors:\n  t:\n    source: {kind: thermal_zone, name: x, required: yes}\n",
     {"p.yaml:4:53: sensors.t.source.required: expected true or false, got 'yes'"}},
    {"UnknownKindWithHint",
     with("controllers:\n  c:\n    kind: step_wize\n    input: skin\n    devices: [cpu]\n"),
     {"p.yaml:8:11: controllers.c.kind: unknown controller kind 'step_wize' (did you mean "
      "'step_wise'?)"}},
    {"UnknownKindListsKinds",
     "version: 1\nsensors:\n  t: {kind: average}\n",
     {"p.yaml:3:13: sensors.t.kind: unknown sensor kind 'average' (one of: physical "
      "weighted_sum max min ema fir predictor dequantise)"}},
    {"UnknownSeverity",
     "version: 1\nsensors:\n  t: {}\nzones:\n  z:\n    sensor: t\n    severities:\n"
     "      warm: {threshold_c: 40}\n",
     {"p.yaml:8:7: zones.z.severities.warm: unknown severity (one of: light moderate severe "
      "critical emergency shutdown)"}},

    // ------------------------------------------------ required keys --
    {"MissingVersion",
     "sensors: {}\n",
     {"p.yaml:1:1: version: missing required key (in the policy)"}},
    {"MissingMaxLevel",
     "version: 1\ndevices:\n  cpu: {}\n",
     {"p.yaml:3:3: devices.cpu.max_level: missing required key (in device 'cpu')"}},
    {"MissingControllerKeys",
     "version: 1\ncontrollers:\n  c:\n    kind: pid\n",
     {"p.yaml:3:3: controllers.c.input: missing required key (in controller 'c')",
      "p.yaml:3:3: controllers.c.devices: missing required key (in controller 'c')",
      "p.yaml:3:3: controllers.c.setpoint_c: missing required key (in controller 'c')"}},
    {"MissingTripThreshold",
     "version: 1\nsensors:\n  t: {}\nzones:\n  z:\n    sensor: t\n    trips:\n"
     "      hot: {type: hot}\n",
     {"p.yaml:8:7: zones.z.trips.hot.threshold_c: missing required key (in trip 'hot')"}},
    {"EmptyEntryBody",
     "version: 1\nzones:\n  z:\n",
     {"p.yaml:3:3: zones.z.sensor: missing required key (in zone 'z')"}},

    // -------------------------------------------------------- units --
    {"DurationWithoutUnit",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skin\n    devices: [cpu]\n"
          "    threshold_c: 45\n    period: 1000\n"),
     {"p.yaml:12:13: controllers.c.period: duration '1000' needs a unit: ms, s, min or h "
      "(e.g. 500ms, 2s)"}},
    {"UnknownDurationUnit",
     "version: 1\nsampling: {max_interval: 30sec}\n",
     {"p.yaml:2:26: sampling.max_interval: unknown duration unit 'sec' (use ms, s, min or h)"}},
    {"TemperatureWithUnitInValue",
     "version: 1\nsensors:\n  t: {offset_c: 2C}\n",
     {"p.yaml:3:17: sensors.t.offset_c: expected a plain number of °C (the key says the unit), "
      "got '2C'"}},
    {"KnobValueWithoutUnit",
     "version: 1\ndevices:\n  cpu:\n    max_level: 1\n"
     "    knob: {kind: cpufreq, deepest: 800000}\n",
     {"p.yaml:5:36: devices.cpu.knob.deepest: '800000': this knob takes a frequency or a "
      "percentage of the maximum"}},
    {"KnobValueWrongUnitFamily",
     "version: 1\ndevices:\n  cpu:\n    max_level: 1\n"
     "    knob: {kind: rapl, name: x, values: [10W, 5A]}\n",
     {"p.yaml:5:41: devices.cpu.knob.values: has 2 values but the device has levels 1..1 (level 0 "
      "is always the value found at start)",
      "p.yaml:5:47: devices.cpu.knob.values[1]: '5A': this knob takes a power or a percentage of "
      "the maximum"}},

    // -------------------------------------------------------- range --
    {"TemperatureOutOfRange",
     "version: 1\nsampling: {near_distance_c: 5000}\n",
     {"p.yaml:2:29: sampling.near_distance_c: temperature '5000' °C is out of range (-1000 to "
      "1000)"}},
    {"HugeInteger",
     "version: 1\ndevices:\n  cpu: {max_level: 123456789012345678901234567890}\n",
     {"p.yaml:3:20: devices.cpu.max_level: number '123456789012345678901234567890' is out of "
      "range"}},
    {"NegativeLevel",
     "version: 1\ndevices:\n  cpu: {max_level: -2}\n",
     {"p.yaml:3:20: devices.cpu.max_level: must be >= 0, got '-2'"}},
    {"UnsupportedVersion",
     "version: 2\n",
     {"p.yaml:1:10: version: unsupported version 2 (this coolhand reads version 1)"}},
    {"LostAfterZeroFailures",
     "version: 1\ndaemon: {lost_after_failures: 0}\n",
     {"p.yaml:2:31: daemon.lost_after_failures: must be >= 1"}},
    {"RecorderRecordsTooFew",
     "version: 1\ndaemon:\n  recorder: {records: 10}\n",
     {"p.yaml:3:23: daemon.recorder.records: must be in [1024, 16777216] (32-byte records)"}},
    {"RecorderUnknownKey",
     "version: 1\ndaemon:\n  recorder: {size: 10}\n",
     {"p.yaml:3:14: daemon.recorder.size: unknown key (valid here: records)"}},

    // ---------------------------------------------- hardware bindings --
    {"HwmonNeedsLabelOrIndex",
     "version: 1\nsensors:\n  t:\n    source: {kind: hwmon, name: k10temp}\n",
     {"p.yaml:4:5: sensors.t.source.label: missing required key (a hwmon source needs label "
      "(tempN_label) or index (N of tempN_input))"}},
    {"HwmonLabelAndIndex",
     "version: 1\nsensors:\n  t:\n    source: {kind: hwmon, name: k, label: a, index: 1}\n",
     {"p.yaml:4:53: sensors.t.source.index: give label or index, not both"}},
    {"SourceNeedsName",
     "version: 1\nsensors:\n  t:\n    source: {kind: thermal_zone}\n",
     {"p.yaml:4:5: sensors.t.source.name: missing required key (in the source of sensor 't')"}},
    {"SysfsKnobNeedsPathAndValues",
     "version: 1\ndevices:\n  m:\n    max_level: 2\n    knob: {kind: sysfs}\n",
     {"p.yaml:5:5: devices.m.knob.path: missing required key (in the knob of device 'm')",
      "p.yaml:5:5: devices.m.knob.values: missing required key (a sysfs knob needs one value "
      "per level)"}},
    {"SysfsKnobPathMustStayInSysfs",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n"
     "    knob: {kind: sysfs, path: ../etc/passwd, values: [0]}\n",
     {"p.yaml:5:31: devices.m.knob.path: path must not contain '..'"}},
    {"KnobValuesPerLevel",
     "version: 1\ndevices:\n  m:\n    max_level: 2\n"
     "    knob: {kind: backlight, name: b, values: [50]}\n",
     {"p.yaml:5:46: devices.m.knob.values: has 1 values but the device has levels 1..2 (level "
      "0 is always the value found at start)"}},
    {"KnobValuesOrRange",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n"
     "    knob: {kind: backlight, name: b, values: [50], deepest: 10}\n",
     {"p.yaml:5:46: devices.m.knob.values: give either values or deepest, not both"}},
    {"KnobKeyOfAnotherKind",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n    knob: {kind: intel_pstate, name: x}\n",
     {"p.yaml:5:32: devices.m.knob.name: does not apply to a intel_pstate knob"}},
    {"BacklightNeedsAFloor",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n    knob: {kind: backlight, name: b}\n",
     {"p.yaml:5:5: devices.m.knob.deepest: missing required key (a backlight knob needs deepest "
      "or values: its floor cannot be discovered safely)"}},
    {"RaplNeedsAFloor",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n    knob: {kind: rapl, name: x}\n",
     {"p.yaml:5:5: devices.m.knob.deepest: missing required key (a rapl knob needs deepest "
      "or values: its floor cannot be discovered safely)"}},
    {"CpufreqPolicyName",
     "version: 1\ndevices:\n  m:\n    max_level: 1\n    knob: {kind: cpufreq, name: big}\n",
     {"p.yaml:5:33: devices.m.knob.name: expected 'all' or a cpufreq policy number, got 'big'"}},

    // ------------------------------- errors found by Engine::compile --
    {"UnknownDeviceReference",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skin\n"
          "    devices: [cpu, gpu]\n    threshold_c: 45\n"),
     {"p.yaml:10:20: controllers.c.devices[1]: unknown device \"gpu\""}},
    {"UnknownDeviceInBindingMapping",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skin\n"
          "    devices:\n      - {device: fan, weight: 2}\n    threshold_c: 45\n"),
     {"p.yaml:11:18: controllers.c.devices[0].device: unknown device \"fan\""}},
    {"UnknownInput",
     with("controllers:\n  c:\n    kind: step_wise\n    input: skni\n    devices: [cpu]\n"
          "    threshold_c: 45\n"),
     {"p.yaml:9:12: controllers.c.input: unknown sensor or zone \"skni\""}},
    {"UnknownZoneSensor",
     "version: 1\nzones:\n  z:\n    sensor: nowhere\n",
     {"p.yaml:4:13: zones.z.sensor: unknown sensor \"nowhere\""}},
    {"UnknownSensorInput",
     "version: 1\nsensors:\n  m: {kind: max, inputs: [ghost]}\n",
     {"p.yaml:3:26: sensors.m.inputs: inputs[0]: unknown sensor \"ghost\""}},
    {"NegativeHysteresis",
     "version: 1\nsensors:\n  t: {}\nzones:\n  z:\n    sensor: t\n    trips:\n"
     "      warm: {type: passive, threshold_c: 40, hysteresis_c: -1}\n",
     {"p.yaml:8:60: zones.z.trips.warm.hysteresis_c: must be >= 0"}},
    {"NegativeReleaseDwell",
     "version: 1\ndevices:\n  cpu: {max_level: 3, release_dwell: -1s}\n",
     {"p.yaml:3:38: devices.cpu.release_dwell: duration '-1s' is negative"}},
    {"LevelBeyondMax",
     "version: 1\ndevices:\n  cpu: {max_level: 3, limit_level: 5}\n",
     {"p.yaml:3:36: devices.cpu.limit_level: exceeds max_level"}},
    {"ThresholdsOutOfOrder",
     "version: 1\nsensors:\n  t: {}\nzones:\n  z:\n    sensor: t\n    severities:\n"
     "      light: {threshold_c: 45}\n      moderate: {threshold_c: 40}\n",
     {"p.yaml:9:31: zones.z.severities.moderate.threshold_c: severity thresholds must be "
      "strictly increasing"}},
    {"SeverityLevelsOutOfOrder",
     "version: 1\nsensors:\n  t: {}\nzones:\n  z:\n    sensor: t\n    severities:\n"
     "      severe: {threshold_c: 40}\n      light: {threshold_c: 45}\n",
     {"p.yaml:9:7: zones.z.severities.light: severity levels must be strictly increasing "
      "(light after severe)"}},
    {"TableRowsDownAboveUp",
     with("controllers:\n  c:\n    kind: table\n    input: skin\n    devices: [cpu]\n"
          "    table:\n      - {up_c: 45, down_c: 47, level: 1}\n"),
     {"p.yaml:12:28: controllers.c.table[0].down_c: must be <= up"}},
    {"ZoneNamedLikeSensor",
     "version: 1\nsensors:\n  t: {}\nzones:\n  t: {sensor: t}\n",
     {"p.yaml:5:3: zones.t: zone name \"t\" is also a sensor name; controller inputs would be "
      "ambiguous"}},
    {"UnknownDefaultProfile",
     "version: 1\nprofiles:\n  quiet: {}\ndefault_profile: qiet\n",
     {"p.yaml:4:18: default_profile: unknown profile \"qiet\""}},
    {"ProfileOverridesUnknownController",
     "version: 1\nprofiles:\n  quiet:\n    controllers:\n      ghost: {enabled: false}\n",
     {"p.yaml:5:7: profiles.quiet.controllers.ghost: unknown controller \"ghost\""}},
    {"EmaTimeConstantMustBePositive",
     "version: 1\nsensors:\n  a: {}\n  e: {kind: ema, input: a, time_constant: 0s}\n",
     {"p.yaml:4:43: sensors.e.time_constant: must be > 0"}},

    // ------------------------------------------------------ syntax --
    {"UnclosedFlowSequence",
     "version: 1\nsensors: [a, b\n",
     {"p.yaml:3:1: end of sequence flow not found"}},
    {"BadIndentation",
     "version: 1\nsensors:\n  a: {}\n b: {}\n",
     {"p.yaml:4:2: end of map not found"}},
    {"TabIndentation", "version: 1\nsensors:\n\ta: {}\n", {"p.yaml:3:3: illegal map value"}},
    {"RootIsAList",
     "- version: 1\n",
     {"p.yaml:1:1: the policy must be a mapping of keys (version: 1, ...)"}},
    {"EmptyFile", "", {"p.yaml:1:1: policy is empty"}},
    {"OnlyComments", "# nothing here\n", {"p.yaml:1:1: policy is empty"}},
};

INSTANTIATE_TEST_SUITE_P(Errors, BadPolicy, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& p) { return p.param.name; });

TEST(Errors, AllErrorsAreCollectedInFileOrder) {
  const std::vector<std::string> got = errors_of(
      "version: 1\n"
      "devices:\n"
      "  cpu: {max_level: x}\n"
      "sensors:\n"
      "  t: {offset_c: y}\n"
      "sampling: {min_interval: z}\n");
  EXPECT_EQ(got, (std::vector<std::string>{
                     "p.yaml:3:20: devices.cpu.max_level: expected a whole number, got 'x'",
                     "p.yaml:5:17: sensors.t.offset_c: expected a temperature in °C, got 'y'",
                     "p.yaml:6:26: sampling.min_interval: expected a duration such as 500ms or "
                     "2s, got 'z'"}));
}

TEST(Errors, FieldsAreFilledIndividually) {
  const LoadResult r = parse_policy("version: 1\nsampling: {min_interval: 5}\n", "dir/p.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  const ConfigError& e = r.errors[0];
  EXPECT_EQ(e.file, "dir/p.yaml");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.column, 26);
  EXPECT_EQ(e.key, "sampling.min_interval");
  EXPECT_EQ(e.message, "duration '5' needs a unit: ms, s, min or h (e.g. 500ms, 2s)");
  EXPECT_FALSE(r.document.has_value());
}

TEST(Errors, MissingFile) {
  const LoadResult r = load_policy_file("/nonexistent/coolhand/policy.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].to_string(),
            "/nonexistent/coolhand/policy.yaml: cannot open: No such file or directory (ENOENT)");
  EXPECT_EQ(r.errors[0].line, 0);
}

// The reader stops one byte past the 1 MiB limit whatever the file's size,
// so an oversized file is an error naming the file, never a huge buffer.
TEST(Errors, OversizedFileIsRefusedByTheReader) {
  const auto path = std::filesystem::temp_directory_path() / "coolhand-oversized-policy.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(std::size_t{3} << 20, '#');
  }
  const LoadResult r = load_policy_file(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(r.errors.size(), 1U);
  EXPECT_EQ(r.errors[0].to_string(), path.string() + ":1:1: file is larger than 1048576 bytes");
}

TEST(Errors, DirectoryIsNotAPolicy) {
  const LoadResult r = load_policy_file("/");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].to_string(), "/: is a directory, not a policy file");
}

}  // namespace
}  // namespace coolhand::config::errors_test
