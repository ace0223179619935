// Conversion of YAML scalar text into the policy language's typed values:
// plain numbers, whole numbers, temperatures in °C, durations with a unit
// ("500ms", "2s") and knob quantities with a unit ("800MHz", "15W"). These
// are pure functions on strings so they can be tested without YAML; the
// caller adds file, line and key to the error text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "coolhand/policy/units.h"

namespace coolhand::config::detail {

// A converted value, or the reason it could not be converted.
template <typename T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // set iff !value

  static Parsed ok(T v) { return Parsed{std::move(v), {}}; }
  static Parsed fail(std::string why) { return Parsed{std::nullopt, std::move(why)}; }
};

// Largest magnitude accepted for a temperature or temperature difference.
inline constexpr double kMaxAbsCelsius = 1000.0;
// Longest duration accepted (about 11.5 days): far above any thermal time
// constant, far below overflow.
inline constexpr std::int64_t kMaxDurationMs = 1'000'000'000;

// A finite decimal number ("0.25", "-3", "1e-3").
[[nodiscard]] Parsed<double> parse_number(std::string_view text);
// A non-negative whole number that fits in 32 bits.
[[nodiscard]] Parsed<std::uint32_t> parse_uint32(std::string_view text);
// A whole number that fits in 64 bits.
[[nodiscard]] Parsed<std::int64_t> parse_int64(std::string_view text);
// Degrees Celsius as a decimal, within ±kMaxAbsCelsius, rounded to m°C.
[[nodiscard]] Parsed<policy::MilliC> parse_celsius(std::string_view text);
// A duration with a unit: ms, s, min or h ("250ms", "1.5s", "2min"). Must be a
// whole number of milliseconds, >= 0 and <= kMaxDurationMs.
[[nodiscard]] Parsed<policy::Millis> parse_duration(std::string_view text);

// One accepted unit of a quantity and its factor to the base unit.
struct Unit {
  std::string_view suffix;
  double factor;
};

// A quantity family for knob values, e.g. frequencies in kHz.
struct QuantityKind {
  std::string_view what;        // "frequency"
  std::string_view base;        // the knob's unit, e.g. "kHz"
  std::span<const Unit> units;  // accepted suffixes (the base among them)
};

inline constexpr Unit kFrequencyUnits[] = {{"kHz", 1.0}, {"MHz", 1e3}, {"GHz", 1e6}};
inline constexpr Unit kPowerUnits[] = {{"uW", 1.0}, {"µW", 1.0}, {"mW", 1e3}, {"W", 1e6}};
inline constexpr Unit kCurrentUnits[] = {{"uA", 1.0}, {"µA", 1.0}, {"mA", 1e3}, {"A", 1e6}};
inline constexpr Unit kPercentUnits[] = {{"%", 1.0}};

inline constexpr QuantityKind kFrequency{"frequency", "kHz", kFrequencyUnits};
inline constexpr QuantityKind kPower{"power", "µW", kPowerUnits};
inline constexpr QuantityKind kCurrent{"current", "µA", kCurrentUnits};
inline constexpr QuantityKind kPercent{"percentage", "%", kPercentUnits};

// "1.2GHz" -> 1200000 (kHz). The number must give a whole count of the base
// unit, be >= 0 and fit in 53 bits (exact in a double).
[[nodiscard]] Parsed<std::int64_t> parse_quantity(std::string_view text, const QuantityKind& kind);

// Edit distance between two short strings (for "did you mean" hints).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace coolhand::config::detail
