// Replaying a coolhandd flight recording (recorder/, docs/recording-format.md)
// on the desktop: `coolhand-sim replay --recording FILE [--policy P]`.
//
// Exact mode (the policy embedded in the recording): every complete replay
// segment that ran that policy is replayed through a fresh ControlLoop with
// ports answering from the recording (recorder::replay_segment), and every
// record the replay produces must equal the recorded one: the same calls,
// the same port questions, the same steps at the same times, the same levels
// and winning controllers, the same virtual sensor values. The first record
// that differs is an error. A segment whose start the ring overwrote, or
// that ran an older policy (before a reload), is skipped with a note; a
// recording with nothing to replay is an error.
//
// Exact mode with another policy (--policy P --exact): the same check with
// P instead of the embedded policy, for every complete segment: does P
// still make every decision the daemon made? (A threshold moved by 0.1 °C
// must fail it; the test suite checks that it does.)
//
// What-if mode (a candidate policy): open loop. The candidate's own
// ControlLoop gets the recorded inputs: each recorded call at its time,
// with sensor reads answered by the latest value the daemon read or was
// pushed for that sensor (zero-order hold; a recorded failed read fails),
// plus the ticks the candidate's loop asks for in between; a window it sets
// is taken as the daemon's last one was. Its levels are
// compared with the daemon's recorded levels over time, device by device
// (matched by name).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/file.h"
#include "coolhand/sim/sensor_series.h"

namespace coolhand::sim {

// A stretch of time where the candidate's level differs from the daemon's.
struct LevelDifference {
  std::string device;
  double from_s = 0;  // monotonic s (the recording's clock)
  double to_s = 0;    // end of the stretch (the last step's time when it lasts to the end)
  std::uint32_t daemon = 0;
  std::uint32_t candidate = 0;
};

// Levels over time for the plot and levels.csv: at each step of the replay,
// the replay's level and the daemon's level in force at that time.
struct LevelTracks {
  std::vector<std::string> devices;
  std::vector<double> time_s;
  std::vector<std::vector<double>> replay;  // [device][step]
  std::vector<std::vector<double>> daemon;  // [device][step]; NaN where the daemon had no level
};

struct RecordingReplay {
  bool what_if = false;
  std::size_t segments = 0;        // replayed
  std::size_t steps = 0;           // engine steps of the replay
  std::size_t compared = 0;        // exact mode: records compared
  std::vector<std::string> notes;  // segments skipped, devices not compared
  std::string decisions_csv;       // time_s, segment, severity, <device>_level, <device>_cause
  SensorSeries sensors;
  LevelTracks levels;
  std::vector<LevelDifference> differences;  // what-if mode
  [[nodiscard]] std::string levels_csv() const;
  [[nodiscard]] std::string differences_csv() const;
};

// `file` names the recording in messages. `policy`: that policy instead
// of the embedded one; `exact`: compare every record (always so without
// `policy`), else what-if. Errors are one line without the program name,
// e.g. "rec.bin: record 1234 (byte 40312): the replay differs ...".
[[nodiscard]] std::variant<RecordingReplay, std::string> replay_recording(
    const recorder::Recording& rec, const std::string& file,
    const std::optional<config::PolicyDocument>& policy, bool exact);

// The replay plot: each virtual sensor next to its inputs (as
// plot_sensors_svg), then one panel per device with the daemon's level
// (solid) and the replay's (dashed).
[[nodiscard]] std::string plot_recording_svg(const RecordingReplay& r,
                                             const policy::PolicySpec& spec,
                                             const std::string& title);

// The recording's embedded policy, parsed; errors name "FILE (embedded policy)".
[[nodiscard]] std::variant<config::PolicyDocument, std::string> embedded_policy(
    const recorder::Recording& rec, const std::string& file);

}  // namespace coolhand::sim
