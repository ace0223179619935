// Model YAML input honesty (issue 12 "Honest input", issue 9 "one YAML front
// end"): the model loader goes through config's YAML front end (UTF-8, depth
// and node-count guards), gives "did you mean" for key typos, and reports
// list-length mismatches at the list that is short. Exact messages.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "coolhand/sim/model.h"

namespace coolhand::sim::model_input_test {
namespace {

constexpr const char* kHead =
    "name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n";

std::string error_of(const std::string& yaml) {
  auto r = parse_model(yaml, "bad.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) return e->to_string();
  ADD_FAILURE() << "expected an error for:\n" << yaml;
  return {};
}

TEST(ModelInputTest, TopLevelTypoSuggestsKey) {
  EXPECT_EQ(error_of(std::string(kHead) + "ambiant_c: 30\n"),
            "bad.yaml:5:1: model: unknown key 'ambiant_c' (did you mean 'ambient_c'?)");
}

TEST(ModelInputTest, NestedTypoSuggestsKey) {
  EXPECT_EQ(error_of("name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n"
                     "  - {name: a, capacity_j_per_kk: 1}\n"),
            "bad.yaml:4:15: node: unknown key 'capacity_j_per_kk' (did you mean "
            "'capacity_j_per_k'?)");
}

TEST(ModelInputTest, DroppedUnitSuffixSuggestsKey) {
  EXPECT_EQ(error_of(std::string(kHead) + "time_step: 100\n"),
            "bad.yaml:5:1: model: unknown key 'time_step' (did you mean 'time_step_ms'?)");
}

TEST(ModelInputTest, UnknownKeyWithoutNeighbourListsValidKeys) {
  EXPECT_EQ(error_of("name: x\nskin: {nodes: [a], limit_c: 45}\nnodes:\n  - name: a\n"
                     "    capacity_j_per_k: 1\n    colour: red\n"),
            "bad.yaml:6:5: node: unknown key 'colour' (valid here: name capacity_j_per_k "
            "to_ambient_w_per_k initial_c)");
}

TEST(ModelInputTest, ShortPowerListIsReportedAtPowerKey) {
  EXPECT_EQ(error_of(std::string(kHead) + "devices:\n  - name: d\n    power_w: [1, 0]\n"
                                          "    performance: [1, 0.5, 0]\n    heat: [{node: a}]\n"),
            "bad.yaml:7:5: power_w: need one power per level: 2 given, performance has 3");
}

TEST(ModelInputTest, ShortPerformanceListIsReportedAtPerformanceKey) {
  EXPECT_EQ(error_of(std::string(kHead) + "devices:\n  - name: d\n    power_w: [1, 0.5, 0]\n"
                                          "    performance: [1, 0]\n    heat: [{node: a}]\n"),
            "bad.yaml:8:5: performance: need one entry per level: 2 given, power_w has 3");
}

// A trip temperature past int32 m°C made the loader's conversion undefined
// (fuzz_sim_skeleton, fuzz/sim/corpus-skeleton/trip-temp-overflow.yaml):
// trips take the policy language's ±1000 °C.
TEST(ModelInputTest, TripTemperaturesOutOfRangeAreErrors) {
  const std::string zone = std::string(kHead) +
                           "sensors: [{name: s, node: a}]\n"
                           "kernel_zones:\n  - name: z\n    sensor: s\n    trips:\n";
  EXPECT_EQ(error_of(zone + "      - {name: t, type: passive, temp_c: 9.5e68}\n"),
            "bad.yaml:10:42: temp_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(zone + "      - {name: t, type: passive, temp_c: -1000.5}\n"),
            "bad.yaml:10:42: temp_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(zone + "      - {name: t, type: passive, temp_c: .nan}\n"),
            "bad.yaml:10:42: temp_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(zone + "      - {name: t, type: passive, temp_c: 85, hyst_c: 3e9}\n"),
            "bad.yaml:10:54: hyst_c: out of range (-1000 to 1000 °C)");
  auto ok = parse_model(zone + "      - {name: t, type: passive, temp_c: -1000, hyst_c: 1000}\n",
                        "ok.yaml");
  ASSERT_TRUE(std::holds_alternative<ModelSpec>(ok))
      << std::get<config::ConfigError>(ok).to_string();
  EXPECT_EQ(std::get<ModelSpec>(ok).kernel_zones[0].trips[0].temp.mc(), -1000000);
}

// The temperatures a sensor reads through (ambient, initial, a sensor's
// offset and noise) take the same range: a reading is int32 m°C, and one
// from 1e10 °C made the model's conversion undefined.
TEST(ModelInputTest, AmbientInitialAndSensorTemperaturesOutOfRangeAreErrors) {
  const std::string head = "name: x\nskin: {nodes: [a], limit_c: 45}\n";
  EXPECT_EQ(error_of(head + "ambient_c: 1e10\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"),
            "bad.yaml:3:12: ambient_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(head + "ambient_c: -1000.5\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"),
            "bad.yaml:3:12: ambient_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(head + "ambient_c: .nan\nnodes:\n  - {name: a, capacity_j_per_k: 1}\n"),
            "bad.yaml:3:12: ambient_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(head + "nodes:\n  - {name: a, capacity_j_per_k: 1, initial_c: 3e9}\n"),
            "bad.yaml:4:47: initial_c: out of range (-1000 to 1000 °C)");
  const std::string sensor = std::string(kHead) + "sensors:\n  - {name: s, node: a, ";
  EXPECT_EQ(error_of(sensor + "offset_c: -2e9}\n"),
            "bad.yaml:6:34: offset_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(sensor + "noise_c: 1e300}\n"),
            "bad.yaml:6:33: noise_c: out of range (-1000 to 1000 °C)");
  EXPECT_EQ(error_of(sensor + "noise_c: -1}\n"), "bad.yaml:6:33: noise_c: must be >= 0");
  auto ok = parse_model(head +
                            "ambient_c: -1000\nnodes:\n  - {name: a, capacity_j_per_k: 1, "
                            "initial_c: 1000}\nsensors:\n  - {name: s, node: a, offset_c: 1000, "
                            "noise_c: 1000}\n",
                        "ok.yaml");
  ASSERT_TRUE(std::holds_alternative<ModelSpec>(ok))
      << std::get<config::ConfigError>(ok).to_string();
  EXPECT_EQ(std::get<ModelSpec>(ok).ambient_c, -1000.0);
}

TEST(ModelInputTest, InvalidUtf8IsRejectedWithPosition) {
  EXPECT_EQ(error_of("name: x\xff\n"), "bad.yaml:1:8: model text is not valid UTF-8");
}

TEST(ModelInputTest, NulByteIsRejected) {
  EXPECT_EQ(error_of(std::string("name: x\n\0", 9)), "bad.yaml:2:1: NUL byte in model text");
}

TEST(ModelInputTest, DeepNestingIsRejectedBeforeBuildingNodes) {
  const std::string yaml = "name: " + std::string(40, '[') + std::string(40, ']') + "\n";
  EXPECT_EQ(error_of(yaml), "bad.yaml:1:38: nesting is deeper than 32 levels");
}

TEST(ModelInputTest, EmptyModelIsAnError) {
  EXPECT_EQ(error_of(""), "bad.yaml:1:1: model is empty");
  EXPECT_EQ(error_of("# only a comment\n"), "bad.yaml:1:1: model is empty");
}

TEST(ModelInputTest, ModelMustBeAMapping) {
  EXPECT_EQ(error_of("- a\n"),
            "bad.yaml:1:1: the model must be a mapping of keys (name: ..., nodes: ...)");
}

TEST(ModelInputTest, SecondDocumentIsRejected) {
  EXPECT_EQ(error_of(std::string(kHead) + "---\nname: y\n"),
            "bad.yaml:5:1: more than one YAML document ('---'); a model is one document");
}

TEST(ModelInputTest, MissingFileNamesErrno) {
  auto r = load_model_file("/nonexistent/model.yaml");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).to_string(),
            "/nonexistent/model.yaml: cannot open: No such file or directory");
}

}  // namespace
}  // namespace coolhand::sim::model_input_test
