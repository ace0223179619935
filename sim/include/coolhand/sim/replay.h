// Open-loop replay: a recorded sensor trace (CSV: time_s, then one column
// per physical sensor of the policy, in °C) goes through the policy engine.
// No model. The engine is stepped at every row (all sensors fed) and at
// every Decision::next_step that falls between rows, as the daemon would.
// A column is named after its sensor, or after it with "_reading_c" (the
// simulator's own trace.csv); other columns are ignored, with one warning.
#pragma once

#include <string>
#include <variant>

#include "coolhand/config/error.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/sim/sensor_series.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

struct ReplayOutput {
  std::string decisions_csv;  // time_s, severity, then level and cause per device
  std::string events_csv;     // time_s, kind, subject, detail, temperature_c
  std::size_t steps = 0;
  std::size_t events = 0;
  std::string max_severity;
  SensorSeries sensors;  // every sensor's value after each step
  // Accepted but worth a line on stderr: "file:line: warning: ignoring ...".
  std::vector<config::ConfigError> warnings;
};

// Errors (a physical sensor without a column, two columns for one sensor,
// or a policy that does not compile) name the trace file and header line.
[[nodiscard]] std::variant<ReplayOutput, config::ConfigError> replay(
    const CsvTable& trace, const config::PolicyDocument& policy);

}  // namespace coolhand::sim
