// Workload traces: what the user asks of each device over time, and the
// ambient temperature. CSV with a header row:
//   time_s,<device>,<device>,...[,ambient_c]
// Demands are in [0,1] and held until the next row (zero-order hold); the
// run ends at the last row's time. Lines starting with '#' are comments; one
// of them may set the performance weights: "# weights: gpu=0.6 cpu=0.3",
// and one the state the device starts in (docs/simulator.md, "Workloads"):
//   "# initial: steady"  every node at the steady state of the first row's
//                        ambient and demands with every device at level 0
//   "# initial: 42"      every node at 42 °C (in [-40, 125])
// Without it every node starts at its model initial_c, else the model's
// ambient_c.
// Sensor-trace CSVs for replay share the reader: time_s then one column per
// sensor in °C.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/policy/units.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim {

// A numeric CSV table: a header and rows of doubles, each with its line.
struct CsvTable {
  std::string file;
  int header_line = 0;
  std::vector<std::string> columns;                     // columns[0] == "time_s"
  std::vector<double> times_s;                          // strictly increasing, >= 0
  std::vector<std::vector<double>> rows;                // values for columns[1..]
  std::vector<int> lines;                               // 1-based line of each row
  std::vector<std::pair<std::string, double>> weights;  // from "# weights:"
  int weights_line = 0;
  std::string initial;  // the text after "# initial:" (empty: none)
  int initial_line = 0;
};

[[nodiscard]] std::variant<CsvTable, config::ConfigError> parse_csv(std::string_view text,
                                                                    std::string_view file);
[[nodiscard]] std::variant<CsvTable, config::ConfigError> load_csv_file(const std::string& path);

// A workload bound to a model: per-step inputs without lookups by name.
class Workload {
 public:
  // Checks every column names a model device or "ambient_c", every model
  // device has a column, there are at least two rows (the run ends at the
  // last one), demands are in [0,1] and weights name devices. Errors name
  // the file and line. Without an ambient_c column the model's ambient_c is
  // used throughout, and warnings() says so. A "# initial:" line must say
  // "steady" or give a temperature in [-40, 125] °C; "steady" needs a model
  // whose every node has a path to ambient.
  [[nodiscard]] static std::variant<Workload, config::ConfigError> bind(CsvTable table,
                                                                        const ModelSpec& model);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] policy::Time duration() const { return duration_; }
  // Performance weight of each model device for this workload.
  [[nodiscard]] const std::vector<double>& weights() const { return weights_; }
  // `model` (the spec bind() checked against) with the nodes' initial_c set
  // to the workload's initial state; unchanged without a "# initial:" line.
  // Every run of the workload builds its ThermalModel from this.
  [[nodiscard]] ModelSpec start(ModelSpec model) const;
  // Things bind() accepted but the user should know (file:line: warning: ...).
  [[nodiscard]] const std::vector<config::ConfigError>& warnings() const { return warnings_; }

  // Inputs in force at `now` (callers advance time monotonically). Returns
  // whether a row was applied, i.e. demand or ambient may have changed.
  bool seek(policy::Time now);
  [[nodiscard]] const std::vector<double>& demand() const { return demand_; }
  [[nodiscard]] std::optional<double> ambient_c() const { return ambient_; }

 private:
  std::string name_;
  CsvTable table_;
  std::vector<int> column_device_;  // per value column: device index, -1 ambient
  std::vector<double> weights_;
  std::vector<double> initial_c_;  // per model node; empty: the model's own
  std::vector<config::ConfigError> warnings_;
  std::vector<double> demand_;
  std::optional<double> ambient_;
  std::size_t cursor_ = 0;
  bool started_ = false;
  policy::Time duration_{0};
  void apply(std::size_t row);
};

// A time within a run as the command line writes it (`bound --fan-at
// S:LEVEL`, `run --profile-at S=PROFILE`): the whole text a number of
// seconds from 0 to 1e9 that is a whole number of milliseconds; nothing
// otherwise.
[[nodiscard]] std::optional<Millis> parse_run_seconds(std::string_view text);

}  // namespace coolhand::sim
