// `coolhand-sim run --record FILE`: the run's control loop recorded into a
// coolhandd flight recording (docs/recording-format.md) through the
// recorder library the daemon uses (LoopRecorder, write_recording), so the
// file is the daemon's format, replays exactly with `replay --recording`
// and is what `fit --recording` reads. Docs: docs/simulator.md, "Recording
// a run".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coolhand/config/policy_file.h"
#include "coolhand/recorder/ring.h"
#include "coolhand/sim/policy_loop.h"

namespace coolhand::sim {

class RunRecording {
 public:
  // `policy_path`: the policy file (its text goes into the recording and
  // its hash into loop_created); `duration_s`: the run's length, which
  // sizes the ring at the start (it grows if needed). Throws
  // std::runtime_error naming the file when the policy cannot be read.
  RunRecording(const std::string& policy_path, double duration_s);

  [[nodiscard]] LoopRecording loop() { return {ring_.get(), hash_}; }
  // Writes the recording (header, names of `policy`'s spec, every record)
  // to `file`; "" or an error naming the file.
  [[nodiscard]] std::string write(const config::PolicyDocument& policy, const std::string& file);
  [[nodiscard]] std::uint64_t records() const { return ring_->total(); }

 private:
  std::string text_;
  std::uint64_t hash_ = 0;
  std::unique_ptr<recorder::Ring> ring_;
};

}  // namespace coolhand::sim
