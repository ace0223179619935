// libFuzzer entry point for coolhand-sim's side of flight recordings
// (issue 11): any bytes the recording reader accepts go through `export`
// (export_tables) and `replay --recording` in its three modes (embedded
// policy, --policy --exact, --policy what-if, with a fixed candidate whose
// names match the seeds'). Nothing may crash or trip a sanitizer; a replay
// gives one error line or a result whose tables agree in size.
// Seeds: fuzz/recorder/corpus (recordings of the recorder tests' toy plant).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/file.h"
#include "coolhand/sim/recording_export.h"
#include "coolhand/sim/recording_replay.h"

namespace {

using coolhand::sim::RecordingReplay;

const coolhand::config::PolicyDocument& candidate() {
  static const coolhand::config::PolicyDocument doc = [] {
    auto r = coolhand::config::parse_policy(
        "version: 1\n"
        "sensors:\n"
        "  cpu: {source: {kind: thermal_zone, name: cpu-therm}}\n"
        "  skin: {source: {kind: thermal_zone, name: skin-therm}}\n"
        "  cpu_ema: {kind: ema, input: cpu, time_constant: 2s}\n"
        "devices:\n"
        "  gpu: {max_level: 3}\n"
        "  fan: {max_level: 4}\n"
        "controllers:\n"
        "  tab:\n"
        "    kind: table\n"
        "    input: cpu_ema\n"
        "    devices: [gpu]\n"
        "    table: [{up_c: 50, down_c: 48, level: 1}]\n"
        "  sw: {kind: step_wise, input: skin, devices: [fan], threshold_c: 45, "
        "hysteresis_c: 1, period: 1s}\n"
        "profiles:\n"
        "  quiet: {limit_offset_c: -2}\n",
        "candidate.yaml");
    if (!r.document) std::abort();
    return *r.document;
  }();
  return doc;
}

void check(const std::variant<RecordingReplay, std::string>& r) {
  if (const auto* e = std::get_if<std::string>(&r)) {
    if (e->empty()) __builtin_trap();
    return;
  }
  const auto& o = std::get<RecordingReplay>(r);
  if (o.sensors.time_s.size() != o.steps || o.segments == 0) __builtin_trap();
  const auto& l = o.levels;
  if (l.replay.size() != l.devices.size() || l.daemon.size() != l.devices.size()) __builtin_trap();
  for (std::size_t d = 0; d < l.devices.size(); ++d)
    if (l.replay[d].size() != l.time_s.size() || l.daemon[d].size() != l.time_s.size())
      __builtin_trap();
  for (const auto& diff : o.differences)
    if (!(diff.from_s <= diff.to_s) || diff.daemon == diff.candidate) __builtin_trap();
  (void)o.levels_csv();
  (void)o.differences_csv();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto read = coolhand::recorder::read_recording(bytes);
  if (!read.recording) return 0;
  const auto& rec = *read.recording;
  const auto tables = coolhand::sim::export_tables(rec);
  if (!tables.contains("recording.csv") || !tables.contains("policy.yaml")) __builtin_trap();
  check(coolhand::sim::replay_recording(rec, "fuzz.chrec", std::nullopt, false));
  check(coolhand::sim::replay_recording(rec, "fuzz.chrec", candidate(), true));
  check(coolhand::sim::replay_recording(rec, "fuzz.chrec", candidate(), false));
  return 0;
}
