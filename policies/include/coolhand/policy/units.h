// Units used across coolhand: one strong temperature type in millidegrees
// Celsius, and std::chrono for time. The engine never reads a clock; callers
// pass `Time` values measured from any monotonic epoch they choose (the daemon
// uses CLOCK_MONOTONIC, the simulator its virtual clock).
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <limits>

namespace coolhand::policy {

// A temperature (or temperature difference) in millidegrees Celsius, the unit
// of the kernel's thermal ABI, hwmon and the coolhand module.
class MilliC {
 public:
  constexpr MilliC() = default;
  constexpr explicit MilliC(std::int32_t mc) : mc_(mc) {}

  [[nodiscard]] static constexpr MilliC from_celsius(double c) {
    const double scaled = c * 1000.0;
    return MilliC(static_cast<std::int32_t>(scaled < 0 ? scaled - 0.5 : scaled + 0.5));
  }
  [[nodiscard]] constexpr std::int32_t mc() const { return mc_; }
  [[nodiscard]] constexpr double celsius() const { return mc_ / 1000.0; }

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>.
  constexpr auto operator<=>(const MilliC&) const = default;
  constexpr MilliC operator+(MilliC o) const { return MilliC(mc_ + o.mc_); }
  constexpr MilliC operator-(MilliC o) const { return MilliC(mc_ - o.mc_); }
  constexpr MilliC operator-() const { return MilliC(-mc_); }
  constexpr MilliC& operator+=(MilliC o) {
    mc_ += o.mc_;
    return *this;
  }
  constexpr MilliC& operator-=(MilliC o) {
    mc_ -= o.mc_;
    return *this;
  }

  static constexpr MilliC max() { return MilliC(std::numeric_limits<std::int32_t>::max()); }
  static constexpr MilliC min() { return MilliC(std::numeric_limits<std::int32_t>::min()); }

 private:
  std::int32_t mc_ = 0;
};

// Durations. Millisecond resolution is finer than any thermal time constant.
using Millis = std::chrono::milliseconds;
// A point in time, as a duration since the caller's monotonic epoch.
using Time = std::chrono::milliseconds;

}  // namespace coolhand::policy
