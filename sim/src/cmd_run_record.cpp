// RunRecording (cmd_run_record.h): a ring for the run's LoopRecorder and
// the dump at the end, as coolhandd's FlightRecorder dumps its ring.
#include "cmd_run_record.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "coolhand/recorder/file.h"
#include "coolhand/sim/output.h"

namespace coolhand::sim {

namespace {

// Records per simulated second to start with: reference-umpc, the busiest
// shipped policy, makes 145 a second (docs/recording-format.md); the ring
// doubles between calls if a policy makes more.
constexpr double kStartRecordsPerSecond = 200;

}  // namespace

RunRecording::RunRecording(const std::string& policy_path, double duration_s) {
  if (auto error = read_text(policy_path, text_); !error.empty()) throw std::runtime_error(error);
  hash_ = recorder::policy_hash(text_);
  const double want = std::clamp(duration_s * kStartRecordsPerSecond, 4096.0,
                                 static_cast<double>(recorder::Ring::kMaxCapacity));
  ring_ = std::make_unique<recorder::Ring>(static_cast<std::size_t>(want));
}

std::string RunRecording::write(const config::PolicyDocument& policy, const std::string& file) {
  if (ring_->lost() != 0)
    return file + ": the run made more records than a recording holds (" +
           std::to_string(recorder::Ring::kMaxCapacity) + "): " + std::to_string(ring_->lost()) +
           " lost; record a shorter workload";
  ring_->put(recorder::Kind::dump, 0);  // where the dump was taken, as coolhandd marks it
  recorder::Metadata meta;
  meta.daemon_version = "coolhand-sim " COOLHAND_SIM_VERSION;
  meta.policy_text = text_;
  meta.reason = "coolhand-sim run --record";
  meta.dump_time_ns = ring_->time();
  recorder::set_names(meta, policy.spec);
  recorder::StringSink sink;
  (void)recorder::write_recording(*ring_, meta, sink);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return file + ": cannot open for writing: " + std::strerror(errno);
  out.write(sink.out.data(), static_cast<std::streamsize>(sink.out.size()));
  out.close();
  if (!out) return file + ": write failed: " + std::strerror(errno);
  return {};
}

}  // namespace coolhand::sim
