// Workload and sensor-trace CSV reading: values, zero-order hold, weights,
// and errors naming file and line.
#include "coolhand/sim/workload.h"

#include <gtest/gtest.h>

namespace coolhand::sim::workload_test {
namespace {

ModelSpec small_model() {
  auto r = parse_model(
      "name: m\nskin: {nodes: [a], limit_c: 45}\nnodes: [{name: a, capacity_j_per_k: 1}]\n"
      "devices:\n"
      "  - {name: cpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}\n"
      "  - {name: gpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}], weight: 2}\n",
      "m.yaml");
  return std::get<ModelSpec>(r);
}

config::ConfigError csv_err(const std::string& text) {
  auto r = parse_csv(text, "w.csv");
  EXPECT_TRUE(std::holds_alternative<config::ConfigError>(r));
  if (auto* e = std::get_if<config::ConfigError>(&r)) return *e;
  return {};
}

TEST(WorkloadTest, HoldsValuesBetweenRows) {
  auto t = parse_csv("# a comment\ntime_s,cpu,gpu,ambient_c\n0,0.5,0,25\n10,1.0,0,30\n20,0,0,30\n",
                     "w.csv");
  ASSERT_TRUE(std::holds_alternative<CsvTable>(t));
  auto b = Workload::bind(std::get<CsvTable>(t), small_model());
  ASSERT_TRUE(std::holds_alternative<Workload>(b));
  auto w = std::get<Workload>(b);
  EXPECT_EQ(w.name(), "w");
  EXPECT_EQ(w.duration(), policy::Time(20000));
  EXPECT_TRUE(w.seek(policy::Time(0)));  // the first row applies
  EXPECT_DOUBLE_EQ(w.demand()[0], 0.5);
  EXPECT_DOUBLE_EQ(w.demand()[1], 0.0);
  EXPECT_DOUBLE_EQ(*w.ambient_c(), 25.0);
  EXPECT_FALSE(w.seek(policy::Time(9900)));  // no new row: nothing changed
  EXPECT_DOUBLE_EQ(w.demand()[0], 0.5);
  EXPECT_TRUE(w.seek(policy::Time(10000)));
  EXPECT_DOUBLE_EQ(w.demand()[0], 1.0);
  EXPECT_DOUBLE_EQ(*w.ambient_c(), 30.0);
}

TEST(WorkloadTest, WeightsComeFromModelAndComment) {
  auto t =
      std::get<CsvTable>(parse_csv("# weights: cpu=3\ntime_s,cpu,gpu\n0,1,1\n5,1,1\n", "w.csv"));
  auto w = std::get<Workload>(Workload::bind(t, small_model()));
  EXPECT_DOUBLE_EQ(w.weights()[0], 3.0);
  EXPECT_DOUBLE_EQ(w.weights()[1], 2.0);
}

TEST(WorkloadErrorTest, NotANumberNamesLine) {
  const auto e = csv_err("time_s,cpu\n0,0.5\n1,abc\n");
  EXPECT_EQ(e.file, "w.csv");
  EXPECT_EQ(e.line, 3);
  EXPECT_NE(e.message.find("abc"), std::string::npos);
}

TEST(WorkloadErrorTest, WrongFieldCountNamesLine) {
  EXPECT_EQ(csv_err("time_s,cpu\n0,0.5\n1,0.5,7\n").line, 3);
}

TEST(WorkloadErrorTest, TimeMustIncrease) {
  EXPECT_EQ(csv_err("time_s,cpu\n0,0.5\n5,0.5\n5,0.1\n").line, 4);
}

TEST(WorkloadErrorTest, HeaderMustStartWithTime) {
  EXPECT_EQ(csv_err("\ncpu,time_s\n0,0.5\n").line, 2);
}

TEST(WorkloadErrorTest, NoRowsIsAnError) {
  EXPECT_NE(csv_err("time_s,cpu\n").message.find("no data"), std::string::npos);
}

TEST(WorkloadErrorTest, BadWeightNamesLine) {
  EXPECT_EQ(csv_err("time_s,cpu\n# weights: cpu=x\n0,1\n").line, 2);
}

TEST(WorkloadErrorTest, UnknownDeviceColumnNamesHeaderLine) {
  auto t = std::get<CsvTable>(parse_csv("# c\ntime_s,cpu,gpu,npu\n0,1,1,1\n", "w.csv"));
  auto b = Workload::bind(t, small_model());
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(b));
  EXPECT_EQ(std::get<config::ConfigError>(b).line, 2);
  EXPECT_NE(std::get<config::ConfigError>(b).message.find("npu"), std::string::npos);
}

TEST(WorkloadErrorTest, DemandOutOfRangeNamesLine) {
  auto t = std::get<CsvTable>(parse_csv("time_s,cpu,gpu\n0,1,0\n1,1.5,0\n", "w.csv"));
  auto b = Workload::bind(t, small_model());
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(b));
  EXPECT_EQ(std::get<config::ConfigError>(b).line, 3);
}

TEST(WorkloadErrorTest, MissingFileIsAnError) {
  auto r = load_csv_file("/nonexistent/w.csv");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).line, 0);
}

// --- issue 12, "Honest input": each bad input gets an exact message. ---

config::ConfigError bind_err(const std::string& text) {
  auto t = parse_csv(text, "w.csv");
  EXPECT_TRUE(std::holds_alternative<CsvTable>(t));
  if (!std::holds_alternative<CsvTable>(t)) return {};
  auto b = Workload::bind(std::get<CsvTable>(t), small_model());
  EXPECT_TRUE(std::holds_alternative<config::ConfigError>(b));
  if (auto* e = std::get_if<config::ConfigError>(&b)) return *e;
  return {};
}

TEST(WorkloadInputTest, MissingDeviceColumnIsAnError) {
  EXPECT_EQ(bind_err("# c\ntime_s,cpu,ambient_c\n0,1,25\n10,1,25\n").to_string(),
            "w.csv:2: no column for device 'gpu' of model 'm' (give its demand in [0,1]; a "
            "column of 0 keeps it idle)");
}

TEST(WorkloadInputTest, OneRowIsAnError) {
  EXPECT_EQ(bind_err("time_s,cpu,gpu,ambient_c\n0,1,1,25\n").to_string(),
            "w.csv:2: a workload needs at least two rows: the run ends at the last row's time_s");
  EXPECT_EQ(bind_err("time_s,cpu,gpu\n60,1,1\n").to_string(),
            "w.csv:2: a workload needs at least two rows: the run ends at the last row's time_s");
}

// The model's own ambient_c is range-checked (model_parse.cpp, as_celsius);
// a workload's ambient column is held to the same range, and a value beyond
// it would overflow the sensors' int32 m°C.
TEST(WorkloadInputTest, AmbientOutOfRangeNamesLine) {
  EXPECT_EQ(bind_err("# c\ntime_s,cpu,gpu,ambient_c\n0,1,1,25\n10,1,1,1000.5\n").to_string(),
            "w.csv:4: column 'ambient_c': 1000.5 °C is out of range (-1000 to 1000 °C)");
  EXPECT_EQ(bind_err("time_s,ambient_c,cpu,gpu\n0,-1e6,1,1\n10,25,1,1\n").to_string(),
            "w.csv:2: column 'ambient_c': -1e+06 °C is out of range (-1000 to 1000 °C)");
  // The range's ends are in it.
  auto t = parse_csv("time_s,cpu,gpu,ambient_c\n0,1,1,-1000\n10,1,1,1000\n", "w.csv");
  ASSERT_TRUE(std::holds_alternative<CsvTable>(t));
  EXPECT_TRUE(
      std::holds_alternative<Workload>(Workload::bind(std::get<CsvTable>(t), small_model())));
}

TEST(WorkloadInputTest, MistypedColumnSuggestsTheDevice) {
  EXPECT_EQ(bind_err("time_s,cpu,gpuu\n0,1,1\n10,1,1\n").to_string(),
            "w.csv:1: column 'gpuu' is neither a device of model 'm' nor ambient_c (did you mean "
            "'gpu'?)");
  EXPECT_EQ(bind_err("time_s,cpu,gpu,ambient\n0,1,1,25\n10,1,1,25\n").to_string(),
            "w.csv:1: column 'ambient' is neither a device of model 'm' nor ambient_c (did you "
            "mean 'ambient_c'?)");
}

TEST(WorkloadInputTest, ByteOrderMarkIsAccepted) {
  auto t = parse_csv("\xEF\xBB\xBFtime_s,cpu,gpu\n0,1,0.5\n1,1,0.5\n", "w.csv");
  ASSERT_TRUE(std::holds_alternative<CsvTable>(t)) << std::get<config::ConfigError>(t).to_string();
  EXPECT_EQ(std::get<CsvTable>(t).columns.front(), "time_s");
  EXPECT_EQ(std::get<CsvTable>(t).header_line, 1);
}

TEST(WorkloadInputTest, SemicolonSeparatorIsNamed) {
  EXPECT_EQ(csv_err("time_s;cpu;gpu\n0;1;1\n").to_string(),
            "w.csv:1: fields are separated by ';'; coolhand CSV files use ','");
  EXPECT_EQ(csv_err("\xEF\xBB\xBFtime_s;cpu\n0;1\n").to_string(),
            "w.csv:1: fields are separated by ';'; coolhand CSV files use ','");
  EXPECT_EQ(csv_err("time_s,cpu\n0;1\n").to_string(),
            "w.csv:2: expected 2 fields, got 1 (fields are separated by ';'; coolhand CSV files "
            "use ',')");
}

TEST(WorkloadInputTest, HeaderErrorQuotesWhatItFound) {
  EXPECT_EQ(csv_err("\ncpu,time_s\n0,0.5\n").to_string(),
            "w.csv:2: header must start with 'time_s', got 'cpu'");
}

TEST(WorkloadInputTest, MissingAmbientWarnsOnce) {
  auto t = std::get<CsvTable>(parse_csv("time_s,cpu,gpu\n0,1,1\n5,1,1\n9,1,1\n", "w.csv"));
  auto w = std::get<Workload>(Workload::bind(t, small_model()));
  ASSERT_EQ(w.warnings().size(), 1U);
  EXPECT_EQ(w.warnings()[0].to_string(),
            "w.csv:1: warning: no ambient_c column; using the model's ambient_c, 25 °C");
  EXPECT_FALSE(w.ambient_c().has_value());
}

TEST(WorkloadInputTest, AmbientColumnGivesNoWarning) {
  auto t = std::get<CsvTable>(parse_csv("time_s,cpu,gpu,ambient_c\n0,1,1,30\n5,1,1,30\n", "w.csv"));
  EXPECT_TRUE(std::get<Workload>(Workload::bind(t, small_model())).warnings().empty());
}

TEST(WorkloadInputTest, MissingFileNamesErrno) {
  auto r = load_csv_file("/nonexistent/w.csv");
  ASSERT_TRUE(std::holds_alternative<config::ConfigError>(r));
  EXPECT_EQ(std::get<config::ConfigError>(r).to_string(),
            "/nonexistent/w.csv: cannot open: No such file or directory");
}

// The command line's times within a run (bound --fan-at, run --profile-at).
TEST(WorkloadTest, RunSecondsAreWholeMillisecondsFromZeroToABillionSeconds) {
  EXPECT_EQ(parse_run_seconds("0"), Millis(0));
  EXPECT_EQ(parse_run_seconds("300"), Millis(300000));
  EXPECT_EQ(parse_run_seconds("0.125"), Millis(125));
  EXPECT_EQ(parse_run_seconds("1e9"), Millis(1000000000000));
  for (const char* bad : {"", "-5", "1.5e9", "0.0005", "5x", "x5", "nan", "inf"})
    EXPECT_FALSE(parse_run_seconds(bad).has_value()) << "'" << bad << "'";
}

}  // namespace
}  // namespace coolhand::sim::workload_test
