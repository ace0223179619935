// Named limits and the temperatures written against them.
//
// A policy names its hardware limits once, `limits: {skin_c: 45}`, and
// writes absolute temperatures as a limit plus or minus a number of °C:
// `setpoint_c: skin - 0.15`, `threshold_c: skin + 1`, or just `skin`.
// Porting the policy to a device with another limit changes one number.
// The loader resolves every expression to a plain temperature, so the
// engine never sees a name. This is a pure function on strings so it can be
// tested (and fuzzed) without YAML; the caller adds file, line and key.
//
// Grammar (spaces between tokens are optional):
//   temperature := number | limit [ ('+' | '-') number ]
// where `number` is a plain decimal of °C and `limit` the name of a limit
// without its `_c` suffix. One limit at most, added, never subtracted: a
// sum of two temperatures is not a temperature.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "coolhand/policy/units.h"

namespace coolhand::config::detail {

// One entry of `limits`: the name as expressions write it ("skin" for the
// key `skin_c`) and its value.
struct NamedLimit {
  std::string name;
  policy::MilliC value{0};
};

// The outcome of reading one temperature: the value, or why not and the
// byte offset in `text` of the token at fault (for the error's column).
struct TemperatureParse {
  std::optional<policy::MilliC> value;
  std::string error;         // set iff !value
  std::size_t offset = 0;    // 0-based byte offset of the offending token
  bool named_limit = false;  // the text names a limit (set on success too)
};

// Reads `text` as an absolute temperature against `limits`. Results outside
// ±kMaxAbsCelsius are errors that show the arithmetic.
[[nodiscard]] TemperatureParse parse_temperature(std::string_view text,
                                                 std::span<const NamedLimit> limits);

// A "did you mean" hint for an unknown limit name, or the list of the
// defined ones; empty when no limit is defined.
[[nodiscard]] std::string limit_hint(std::string_view name, std::span<const NamedLimit> limits);

}  // namespace coolhand::config::detail
