// Fit data from a coolhandd flight recording (`coolhand-sim fit
// --recording`): the recording's sensor readings and knob writes mapped by
// name onto a skeleton's sensors and devices, resampled onto the fit's grid
// like a CSV (fit.h). A recording has neither ambient nor demand: the
// ambient is a number, a sensor of the recording, or the demand workload's;
// demand comes from the workload that ran (a workload CSV as `run` takes),
// or is 1 with a warning. Rules: docs/simulator.md, "Fitting from a
// recording".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/recorder/file.h"
#include "coolhand/sim/fit.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

struct RecordingFitOptions {
  double step_s = 1.0;
  std::optional<double> ambient_c;  // a constant ambient, °C
  std::string ambient_sensor;       // or a physical sensor of the recording read as ambient
  // The workload that ran (a workload CSV, as `run` takes; bound to the
  // skeleton here): its demand per device and, when neither of the above is
  // given, its ambient_c. Its time 0 is the first loop_created record used.
  // Not given: every demand 1 (with a warning).
  std::optional<CsvTable> demand;
};

// Readings: port_read records that read (flags bit 1) and call_push records,
// of the slots the segment's slot_map records bind to the sensor; on the
// grid, sensor s at t_k is its latest reading at or before t_k (a CSV's
// rule: the value the daemon held then; in window mode the reading stayed
// inside its window until the next push), none (NaN) before the first,
// after a failed read or call_sensor_gone until the next reading, and
// after its loop's end. A reading whose window (the first port_watch after
// it) is wider than 0.5 °C does not hold: it counts at its nearest grid
// point only; a window widened past that later ends the hold.
// Levels: knob_write records whose read-back succeeded, held until the
// next (level 0 before the first). Only complete segments of the policy
// the recording names are used (an older policy's device indexes may
// differ; a head the ring cut has lost its slot map); the others are
// skipped with a warning. Physical sensors of the recording that are not
// the skeleton's become extra columns (sampled the same way), usable as
// reference skin channels (a lab's thermocouple configured as a policy
// sensor). Errors name the file (and the record and byte where one is at
// fault).
[[nodiscard]] std::variant<FitSegment, config::ConfigError> bind_fit_recording(
    const recorder::Recording& recording, std::string_view file, const ModelSpec& skeleton,
    RecordingFitOptions options, std::vector<config::ConfigError>& warnings);

}  // namespace coolhand::sim
