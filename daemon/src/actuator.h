// An Actuator applies one engine device's levels to its knob attributes.
//
// Rules, for every knob:
// - The value found before the daemon first touched the knob (the original)
//   is kept by the caller across reloads and written back by restore().
// - After each write the attribute is read back. If the value differs (the
//   kernel rounded it, or firmware overrode it) the daemon logs that once per
//   knob and writes again; if it still differs, the read-back value is taken
//   as the truth and the daemon moves on (no write loops).
// - A failing write (read-only knob, device gone) is an error value, logged
//   once until a write succeeds again; the daemon keeps running.
// - In dry-run mode nothing is written: each change is logged as
//   "would write".
// - With a recorder ring attached (record_into), every write attempt is
//   recorded as a knob_write record: the level, the raw value written and
//   the value read back (kNoValue when the write or the read failed), each
//   saturated to 32 bits (docs/recording-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "coolhand/recorder/ring.h"
#include "discovery.h"
#include "log.h"
#include "result.h"
#include "sysfs.h"

namespace coolhand::daemon {

class Actuator {
 public:
  Actuator(std::string device, KnobBinding binding, Sysfs& fs, Logger& log, bool dry_run);

  [[nodiscard]] const std::string& device() const { return device_; }
  [[nodiscard]] const KnobBinding& binding() const { return binding_; }
  // The level last applied successfully; nullopt before the first apply or
  // after a failure left the knob in an unknown state.
  [[nodiscard]] std::optional<std::uint32_t> level() const { return level_; }
  [[nodiscard]] std::uint64_t write_failures() const { return write_failures_; }
  [[nodiscard]] std::uint64_t overrides_seen() const { return overrides_seen_; }

  // Record every write attempt into `ring` as device `device` (the
  // engine's DeviceId::index). The ring must outlive the actuator.
  void record_into(recorder::Ring& ring, std::uint16_t device) {
    ring_ = &ring;
    ring_index_ = device;
  }

  // Write the values of `level` to every target.
  Status apply(std::uint32_t level);
  // Write the current level again (after resume from suspend).
  Status reapply();
  // Check that the knob still holds what was written; re-apply if not.
  Status verify();
  // Write every target's original value back.
  Status restore();

 private:
  Status write_target(const KnobTarget& t, std::uint32_t level, std::int64_t value);
  void record_write(std::uint32_t level, std::int64_t written, std::optional<std::int64_t> back);

  std::string device_;
  KnobBinding binding_;
  Sysfs& fs_;
  Logger& log_;
  bool dry_run_;
  std::optional<std::uint32_t> level_;
  bool failing_ = false;  // a write failed; logged once until one succeeds
  bool warned_override_ = false;
  std::uint64_t write_failures_ = 0;
  std::uint64_t overrides_seen_ = 0;
  recorder::Ring* ring_ = nullptr;
  std::uint16_t ring_index_ = 0;
};

}  // namespace coolhand::daemon
