// Actuator: writes, read-back checks and restore for one device's knobs.
#include "actuator.h"

#include <algorithm>
#include <limits>

namespace coolhand::daemon {

Actuator::Actuator(std::string device, KnobBinding binding, Sysfs& fs, Logger& log, bool dry_run)
    : device_(std::move(device)),
      binding_(std::move(binding)),
      fs_(fs),
      log_(log),
      dry_run_(dry_run) {}

namespace {

std::int32_t saturate32(std::int64_t v) {
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min() + 1;  // min is kNoValue
  constexpr std::int64_t hi = std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int32_t>(std::clamp(v, lo, hi));
}

}  // namespace

void Actuator::record_write(std::uint32_t level, std::int64_t written,
                            std::optional<std::int64_t> back) {
  if (ring_ == nullptr) return;
  ring_->put(recorder::Kind::knob_write, ring_index_, level, 0, saturate32(written),
             back ? saturate32(*back) : recorder::kNoValue);
}

Status Actuator::write_target(const KnobTarget& t, std::uint32_t level, std::int64_t value) {
  // A knob already holding the value is not written (issue 10: nothing is
  // written at start, where level 0 is the value found there; firmware
  // attributes may refuse writes with EBUSY in the wrong profile).
  if (auto cur = fs_.read_integer(t.path); cur && *cur == value) return Ok{};
  if (dry_run_) {
    log_.info("dry-run: would write {} to {}", value, fs_.absolute(t.path));
    return Ok{};
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (auto w = fs_.write_integer(t.path, value); !w) {
      record_write(level, value, std::nullopt);
      ++write_failures_;
      if (!failing_) {
        log_.error("device {}: {} (the device stays at its current value)", device_,
                   w.error().to_string());
        failing_ = true;
      }
      return w;
    }
    auto back = fs_.read_integer(t.path);
    record_write(level, value, back ? std::optional<std::int64_t>(*back) : std::nullopt);
    if (!back) return back.error();
    if (*back == value) {
      if (failing_) log_.info("device {}: {} writable again", device_, t.path);
      failing_ = false;
      return Ok{};
    }
    ++overrides_seen_;
    if (!warned_override_) {
      log_.warning(
          "device {}: {} reads {} after writing {} (kernel or firmware changed it); re-applying",
          device_, t.path, *back, value);
      warned_override_ = true;
    }
  }
  // Still different after re-applying: accept what the kernel keeps.
  failing_ = false;
  return Ok{};
}

Status Actuator::apply(std::uint32_t level) {
  Status result = Ok{};
  for (const KnobTarget& t : binding_.targets) {
    const std::int64_t v = t.values.at(std::min<std::size_t>(level, t.values.size() - 1));
    if (auto s = write_target(t, level, v); !s && result) result = s;
  }
  level_ = result ? std::optional<std::uint32_t>(level) : std::nullopt;
  return result;
}

Status Actuator::reapply() {
  if (!level_) return Ok{};
  return apply(*level_);
}

Status Actuator::verify() {
  if (!level_ || dry_run_) return Ok{};
  for (const KnobTarget& t : binding_.targets) {
    const std::int64_t want = t.values.at(std::min<std::size_t>(*level_, t.values.size() - 1));
    auto cur = fs_.read_integer(t.path);
    if (cur && *cur != want) {
      ++overrides_seen_;
      if (!warned_override_) {
        log_.warning(
            "device {}: {} changed to {} behind the daemon's back (wanted {}); re-applying",
            device_, t.path, *cur, want);
        warned_override_ = true;
      }
      return apply(*level_);
    }
  }
  return Ok{};
}

Status Actuator::restore() {
  Status result = Ok{};
  for (const KnobTarget& t : binding_.targets) {
    if (dry_run_) {
      log_.info("dry-run: would restore {} to {}", fs_.absolute(t.path), t.original);
      continue;
    }
    if (auto w = fs_.write_integer(t.path, t.original); !w) {
      log_.error("device {}: restoring original value {}: {}", device_, t.original,
                 w.error().to_string());
      if (result) result = w;
    }
  }
  level_.reset();
  return result;
}

}  // namespace coolhand::daemon
