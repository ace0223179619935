// Good policies read into the expected PolicySpec and bindings: every key
// of the schema lands in the right field with the right unit conversion.
#include <gtest/gtest.h>

#include "coolhand/config/policy_file.h"

namespace coolhand::config::parse_test {
namespace {

using policy::ControllerSpec;
using policy::MilliC;
using policy::Millis;
using policy::SensorSpec;
using KnobValue = coolhand::config::KnobValue;

PolicyDocument parse_ok(std::string_view text) {
  LoadResult r = parse_policy(text, "test.yaml");
  for (const auto& e : r.errors) ADD_FAILURE() << e.to_string();
  EXPECT_TRUE(r.document.has_value());
  return r.document ? std::move(*r.document) : PolicyDocument{};
}

constexpr std::string_view kFull = R"(
version: 1
sampling:
  fine_granularity_c: 0.25
  coarse_granularity_c: 4
  near_distance_c: 3.5
  min_interval: 100ms
  max_interval: 1min
daemon:
  lost_after_failures: 5
  recorder: {records: 4096}
sensors:
  soc:
    source: {kind: hwmon, name: k10temp, label: Tctl, required: false}
    stale_after: 5s
    offset_c: -1.25
  bat:
    source: {kind: power_supply, name: BAT0}
  mix:
    kind: weighted_sum
    inputs: [soc, bat]
    weights: [0.25, 0.75]
    offset_c: 1
  top:
    kind: max
    inputs: [soc, bat]
  low:
    kind: min
    inputs: [soc, bat]
  smooth:
    kind: ema
    input: mix
    time_constant: 20s
  fir:
    kind: fir
    inputs: [soc, bat]
    weights: [[0.5, 0.25, 0.125], [0.1, 0.2, 0.3]]
    tap_period: 10s
  ahead:
    kind: predictor
    input: smooth
    horizon: 30s
    window: 1min
zones:
  skin:
    sensor: smooth
    trips:
      warm: {type: passive, threshold_c: 42.5, hysteresis_c: 1.5}
      force: {type: hot, threshold_c: 48, action: force_deepest, devices: [cpu], debounce_samples: 2}
      off: {type: critical, threshold_c: 60, action: shutdown}
    severities:
      light: {threshold_c: 40, hysteresis_c: 1}
      severe: {threshold_c: 45}
devices:
  cpu:
    max_level: 3
    power_mw: [4000, 3000, 2000, 1000]
    performance: [1, 0.75, 0.5, 0.25]
    min_level: 1
    limit_level: 2
    max_step_up: 1
    max_step_down: 2
    min_dwell: 1.5s
    release_dwell: 1min
    knob: {kind: cpufreq, deepest: 800MHz}
  gpu:
    max_level: 2
    power_mw: [3000, 2000, 1000]
    knob: {kind: rapl, name: "intel-rapl:0", constraint: 1, values: [10W, 5500mW]}
  fan:
    max_level: 2
controllers:
  steps:
    kind: step_wise
    input: skin
    devices: [cpu]
    safe_level: 2
    threshold_c: 44
    hysteresis_c: 2
    period: 2s
  rows:
    kind: table
    input: top
    devices: [fan]
    table:
      - {up_c: 45, down_c: 43, level: 1}
      - {up_c: 50, level: 2}
  loop:
    kind: pid
    input: mix
    devices: [gpu]
    setpoint_c: 43
    kp: 0.5
    ki: 0.01
    kd: 2
    engage_below_c: 3
    period: 250ms
  budget:
    kind: power_budget
    input: skin
    devices: [{device: cpu, weight: 2}, gpu]
    setpoint_c: 44
    sustainable_power_mw: 3500
    kp_over_mw: 100
    kp_under_mw: 50
    ki_mw: 5
    kd_mw: 1
    switch_on_c: 40
  onoff:
    kind: bang_bang
    input: bat
    devices: [fan]
    threshold_c: 40
    hysteresis_c: 5
    on_level: 1
profiles:
  quiet:
    limit_offset_c: -2
    controllers:
      steps: {threshold_c: 42, enabled: true}
      loop: {setpoint_c: 41}
    devices:
      cpu: {min_level: 0, limit_level: 3}
  balanced: {}
default_profile: quiet
)";

TEST(Parse, TopLevelSettings) {
  const PolicyDocument doc = parse_ok(kFull);
  EXPECT_EQ(doc.spec.sampling.fine_granularity, MilliC(250));
  EXPECT_EQ(doc.spec.sampling.coarse_granularity, MilliC(4000));
  EXPECT_EQ(doc.spec.sampling.near_distance, MilliC(3500));
  EXPECT_EQ(doc.spec.sampling.min_interval, Millis(100));
  EXPECT_EQ(doc.spec.sampling.max_interval, Millis(60000));
  EXPECT_EQ(doc.daemon.lost_after_failures, 5u);
  EXPECT_EQ(doc.daemon.recorder_records, 4096u);
  EXPECT_EQ(doc.spec.default_profile, "quiet");
}

TEST(Parse, SensorsKeepFileOrderAndConvertUnits) {
  const PolicyDocument doc = parse_ok(kFull);
  const auto& s = doc.spec.sensors;
  ASSERT_EQ(s.size(), 8u);
  const char* names[] = {"soc", "bat", "mix", "top", "low", "smooth", "fir", "ahead"};
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].name, names[i]);

  EXPECT_EQ(s[0].kind, SensorSpec::Kind::physical);
  EXPECT_EQ(s[0].stale_after, Millis(5000));
  EXPECT_EQ(s[0].offset, MilliC(-1250));
  EXPECT_EQ(s[1].stale_after, Millis(0));

  EXPECT_EQ(s[2].kind, SensorSpec::Kind::weighted_sum);
  EXPECT_EQ(s[2].inputs, (std::vector<std::string>{"soc", "bat"}));
  EXPECT_EQ(s[2].weights, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(s[2].offset, MilliC(1000));
  EXPECT_EQ(s[3].kind, SensorSpec::Kind::max);
  EXPECT_EQ(s[4].kind, SensorSpec::Kind::min);

  EXPECT_EQ(s[5].kind, SensorSpec::Kind::ema);
  EXPECT_EQ(s[5].inputs, (std::vector<std::string>{"mix"}));
  EXPECT_EQ(s[5].time_constant, Millis(20000));

  EXPECT_EQ(s[6].kind, SensorSpec::Kind::fir);
  EXPECT_EQ(s[6].taps, 3u);
  EXPECT_EQ(s[6].weights, (std::vector<double>{0.5, 0.25, 0.125, 0.1, 0.2, 0.3}));
  EXPECT_EQ(s[6].tap_period, Millis(10000));

  EXPECT_EQ(s[7].kind, SensorSpec::Kind::predictor);
  EXPECT_EQ(s[7].inputs, (std::vector<std::string>{"smooth"}));
  EXPECT_EQ(s[7].horizon, Millis(30000));
  EXPECT_EQ(s[7].window, Millis(60000));
}

TEST(Parse, SourcesForEveryPhysicalSensor) {
  const PolicyDocument doc = parse_ok(kFull);
  ASSERT_EQ(doc.sources.size(), 2u);
  const SensorSource& soc = doc.sources.at("soc");
  EXPECT_EQ(soc.kind, SensorSource::Kind::hwmon);
  EXPECT_EQ(soc.name, "k10temp");
  EXPECT_EQ(soc.label, "Tctl");
  EXPECT_FALSE(soc.index.has_value());
  EXPECT_FALSE(soc.required);
  const SensorSource& bat = doc.sources.at("bat");
  EXPECT_EQ(bat.kind, SensorSource::Kind::power_supply);
  EXPECT_EQ(bat.name, "BAT0");
  EXPECT_TRUE(bat.required);
}

TEST(Parse, ZonesTripsAndSeverities) {
  const PolicyDocument doc = parse_ok(kFull);
  ASSERT_EQ(doc.spec.zones.size(), 1u);
  const policy::ZoneSpec& z = doc.spec.zones[0];
  EXPECT_EQ(z.name, "skin");
  EXPECT_EQ(z.sensor, "smooth");
  ASSERT_EQ(z.trips.size(), 3u);
  EXPECT_EQ(z.trips[0].name, "warm");
  EXPECT_EQ(z.trips[0].type, policy::TripSpec::Type::passive);
  EXPECT_EQ(z.trips[0].threshold, MilliC(42500));
  EXPECT_EQ(z.trips[0].hysteresis, MilliC(1500));
  EXPECT_EQ(z.trips[0].action, policy::TripAction::none);
  EXPECT_EQ(z.trips[0].debounce_samples, 1u);
  EXPECT_EQ(z.trips[1].type, policy::TripSpec::Type::hot);
  EXPECT_EQ(z.trips[1].action, policy::TripAction::force_deepest);
  EXPECT_EQ(z.trips[1].devices, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(z.trips[1].debounce_samples, 2u);
  EXPECT_EQ(z.trips[2].type, policy::TripSpec::Type::critical);
  EXPECT_EQ(z.trips[2].action, policy::TripAction::shutdown);
  ASSERT_EQ(z.severities.size(), 2u);
  EXPECT_EQ(z.severities[0].level, policy::Severity::light);
  EXPECT_EQ(z.severities[0].threshold, MilliC(40000));
  EXPECT_EQ(z.severities[0].hysteresis, MilliC(1000));
  EXPECT_EQ(z.severities[1].level, policy::Severity::severe);
  EXPECT_EQ(z.severities[1].hysteresis, MilliC(0));
}

TEST(Parse, DevicesAndKnobs) {
  const PolicyDocument doc = parse_ok(kFull);
  const auto& d = doc.spec.devices;
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name, "cpu");
  EXPECT_EQ(d[0].max_level, 3u);
  EXPECT_EQ(d[0].power_mw, (std::vector<std::uint32_t>{4000, 3000, 2000, 1000}));
  EXPECT_EQ(d[0].performance, (std::vector<double>{1, 0.75, 0.5, 0.25}));
  EXPECT_EQ(d[0].min_level, 1u);
  EXPECT_EQ(d[0].limit_level, 2u);
  EXPECT_EQ(d[0].max_step_up, 1u);
  EXPECT_EQ(d[0].max_step_down, 2u);
  EXPECT_EQ(d[0].min_dwell, Millis(1500));
  EXPECT_EQ(d[0].release_dwell, Millis(60000));
  EXPECT_EQ(d[1].release_dwell, Millis(0));  // not written: min_dwell only
  EXPECT_FALSE(d[1].limit_level.has_value());

  ASSERT_EQ(doc.knobs.size(), 3u);
  const DeviceKnob& cpu = doc.knobs.at("cpu");
  EXPECT_EQ(cpu.kind, DeviceKnob::Kind::cpufreq);
  EXPECT_EQ(cpu.name, "all");
  EXPECT_EQ(cpu.deepest, (KnobValue{KnobValue::Unit::frequency_khz, 800000}));
  EXPECT_TRUE(cpu.values.empty());
  const DeviceKnob& gpu = doc.knobs.at("gpu");
  EXPECT_EQ(gpu.kind, DeviceKnob::Kind::rapl);
  EXPECT_EQ(gpu.name, "intel-rapl:0");
  EXPECT_EQ(gpu.constraint, 1u);
  // Levels 1..2 (level 0 is the value found at start), in µW.
  EXPECT_EQ(gpu.values, (std::vector<KnobValue>{{KnobValue::Unit::power_uw, 10000000},
                                                {KnobValue::Unit::power_uw, 5500000}}));
  EXPECT_EQ(doc.knobs.at("fan").kind, DeviceKnob::Kind::none);
}

TEST(Parse, Controllers) {
  const PolicyDocument doc = parse_ok(kFull);
  const auto& c = doc.spec.controllers;
  ASSERT_EQ(c.size(), 5u);

  EXPECT_EQ(c[0].name, "steps");
  EXPECT_EQ(c[0].kind, ControllerSpec::Kind::step_wise);
  EXPECT_EQ(c[0].input, "skin");
  ASSERT_EQ(c[0].devices.size(), 1u);
  EXPECT_EQ(c[0].devices[0].device, "cpu");
  EXPECT_EQ(c[0].devices[0].weight, 1.0);
  EXPECT_EQ(c[0].safe_level, 2u);
  EXPECT_EQ(c[0].threshold, MilliC(44000));
  EXPECT_EQ(c[0].hysteresis, MilliC(2000));
  EXPECT_EQ(c[0].period, Millis(2000));

  EXPECT_EQ(c[1].kind, ControllerSpec::Kind::table);
  EXPECT_FALSE(c[1].safe_level.has_value());
  ASSERT_EQ(c[1].table.size(), 2u);
  EXPECT_EQ(c[1].table[0].up, MilliC(45000));
  EXPECT_EQ(c[1].table[0].down, MilliC(43000));
  EXPECT_EQ(c[1].table[0].level, 1u);
  EXPECT_EQ(c[1].table[1].down, MilliC(50000));  // down_c defaults to up_c

  EXPECT_EQ(c[2].kind, ControllerSpec::Kind::pid);
  EXPECT_EQ(c[2].setpoint, MilliC(43000));
  EXPECT_EQ(c[2].kp, 0.5);
  EXPECT_EQ(c[2].ki, 0.01);
  EXPECT_EQ(c[2].kd, 2.0);
  EXPECT_EQ(c[2].engage_below, MilliC(3000));
  EXPECT_EQ(c[2].period, Millis(250));

  EXPECT_EQ(c[3].kind, ControllerSpec::Kind::power_budget);
  ASSERT_EQ(c[3].devices.size(), 2u);
  EXPECT_EQ(c[3].devices[0].device, "cpu");
  EXPECT_EQ(c[3].devices[0].weight, 2.0);
  EXPECT_EQ(c[3].devices[1].device, "gpu");
  EXPECT_EQ(c[3].devices[1].weight, 1.0);
  EXPECT_EQ(c[3].sustainable_power_mw, 3500u);
  EXPECT_EQ(c[3].kp_over_mw, 100.0);
  EXPECT_EQ(c[3].kp_under_mw, 50.0);
  EXPECT_EQ(c[3].ki_mw, 5.0);
  EXPECT_EQ(c[3].kd_mw, 1.0);
  EXPECT_EQ(c[3].switch_on, MilliC(40000));
  EXPECT_EQ(c[3].period, Millis(1000));  // the spec's default

  EXPECT_EQ(c[4].kind, ControllerSpec::Kind::bang_bang);
  EXPECT_EQ(c[4].on_level, 1u);
  EXPECT_EQ(c[4].hysteresis, MilliC(5000));
}

TEST(Parse, Profiles) {
  const PolicyDocument doc = parse_ok(kFull);
  const auto& p = doc.spec.profiles;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].name, "quiet");
  EXPECT_EQ(p[0].limit_offset, MilliC(-2000));
  ASSERT_EQ(p[0].controllers.size(), 2u);
  EXPECT_EQ(p[0].controllers[0].controller, "steps");
  EXPECT_EQ(p[0].controllers[0].threshold, MilliC(42000));
  EXPECT_EQ(p[0].controllers[0].enabled, true);
  EXPECT_FALSE(p[0].controllers[0].setpoint.has_value());
  EXPECT_EQ(p[0].controllers[1].setpoint, MilliC(41000));
  ASSERT_EQ(p[0].devices.size(), 1u);
  EXPECT_EQ(p[0].devices[0].device, "cpu");
  EXPECT_EQ(p[0].devices[0].min_level, 0u);
  EXPECT_EQ(p[0].devices[0].limit_level, 3u);
  EXPECT_EQ(p[1].name, "balanced");
  EXPECT_TRUE(p[1].controllers.empty());
}

TEST(Parse, DefaultsWhenSectionsAreOmitted) {
  const PolicyDocument doc = parse_ok("version: 1\n");
  const policy::SamplingSpec defaults;
  EXPECT_EQ(doc.spec.sampling.fine_granularity, defaults.fine_granularity);
  EXPECT_EQ(doc.spec.sampling.max_interval, defaults.max_interval);
  EXPECT_EQ(doc.daemon.lost_after_failures, 3u);
  EXPECT_EQ(doc.daemon.recorder_records, DaemonSettings::kDefaultRecorderRecords);
  EXPECT_TRUE(doc.spec.sensors.empty());
  EXPECT_TRUE(doc.spec.default_profile.empty());
}

TEST(Parse, PhysicalSensorWithoutSourceIsUnbound) {
  const PolicyDocument doc = parse_ok("version: 1\nsensors:\n  t: {}\n");
  ASSERT_EQ(doc.sources.count("t"), 1u);
  EXPECT_EQ(doc.sources.at("t").kind, SensorSource::Kind::none);
}

TEST(Parse, KnobNamesAndDefaults) {
  const PolicyDocument doc = parse_ok(
      "version: 1\ndevices:\n"
      "  a: {max_level: 1, knob: {kind: amdgpu_power, deepest: 5W}}\n"
      "  b: {max_level: 1, knob: {kind: amdgpu_power, name: amdgpu-1, deepest: 5W}}\n"
      "  c: {max_level: 1, knob: {kind: cpufreq, name: '4'}}\n"
      "  d: {max_level: 1, knob: {kind: rapl, name: 'intel-rapl:0', deepest: 4W}}\n");
  EXPECT_EQ(doc.knobs.at("a").name, "");
  EXPECT_EQ(doc.knobs.at("a").deepest, (KnobValue{KnobValue::Unit::power_uw, 5000000}));
  EXPECT_EQ(doc.knobs.at("b").name, "amdgpu-1");
  EXPECT_EQ(doc.knobs.at("c").name, "4");
  EXPECT_EQ(doc.knobs.at("d").constraint, 0u);
  EXPECT_TRUE(doc.knobs.at("d").required);
}

TEST(Parse, ByteOrderMarkAndCrLfAreAccepted) {
  const PolicyDocument doc = parse_ok("\xEF\xBB\xBFversion: 1\r\nsensors:\r\n  t: {}\r\n");
  ASSERT_EQ(doc.spec.sensors.size(), 1u);
  EXPECT_EQ(doc.spec.sensors[0].name, "t");
}

}  // namespace
}  // namespace coolhand::config::parse_test
