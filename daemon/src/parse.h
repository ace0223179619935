// Parsers for sysfs attribute text, separated from file reading so they are
// tested on strings. Each returns an error value for garbage: empty text,
// non-numeric text, trailing junk, out-of-range numbers. One trailing newline
// (as sysfs emits) is accepted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "coolhand/policy/units.h"
#include "result.h"

namespace coolhand::daemon {

// A decimal integer as sysfs prints it ("45000\n", "-5000").
[[nodiscard]] Result<std::int64_t> parse_integer(std::string_view text, std::string_view path);

// Sensor readings converted to m°C. `scale_to_mc` is 1 for m°C sources
// (thermal zones, hwmon, the coolhand module) and 100 for power_supply `temp`
// (tenths of °C). Values outside [-100 °C, 400 °C] are rejected: no handheld
// sensor reports them and they are typical of a broken driver (e.g. -274000 or
// 0x7fffffff).
[[nodiscard]] Result<policy::MilliC> parse_temperature(std::string_view text,
                                                       std::int32_t scale_to_mc,
                                                       std::string_view path);

// A backlight's actual_brightness of `max_brightness` (> 0) as the engine's
// brightness value: thousandths of full, rounded to nearest (1000 is full).
// A value outside [0, max_brightness] is an error: the driver is broken.
[[nodiscard]] Result<policy::MilliC> parse_brightness(std::string_view text,
                                                      std::int64_t max_brightness,
                                                      std::string_view path);

// max_brightness values accepted (the largest 6.1 drivers use are well under
// 2^20; this keeps brightness * 1000 far from overflow).
inline constexpr std::int64_t kMaxBrightness = std::int64_t{1} << 40;

// A single-line string attribute ("x86_pkg_temp\n" -> "x86_pkg_temp").
[[nodiscard]] std::string trim_line(std::string_view text);

}  // namespace coolhand::daemon
