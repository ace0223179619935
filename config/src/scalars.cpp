// Scalar conversions for the policy language; see scalars.h.
#include "scalars.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace coolhand::config::detail {
namespace {

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

// Reads the longest decimal number at the start of `text` (an optional
// leading '+' is allowed, as in YAML). Returns the value and the rest.
struct NumberPrefix {
  double value = 0.0;
  std::string_view rest;
  bool found = false;
};

NumberPrefix number_prefix(std::string_view text) {
  NumberPrefix out;
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return out;
  const auto* first = s.data();
  const auto* last = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(first, last, out.value, std::chars_format::general);
  if (ec == std::errc::invalid_argument) return out;
  if (ec == std::errc::result_out_of_range) {
    // A finite text that overflows a double: report it as infinite so the
    // callers' range checks reject it.
    out.value = HUGE_VAL;
  }
  out.found = true;
  out.rest = std::string_view(ptr, static_cast<std::size_t>(last - ptr));
  return out;
}

// Whole-number check with a tolerance for decimal fractions that do not
// round-trip exactly (0.1s * 1000 == 100.00000000000001).
std::optional<std::int64_t> whole(double x) {
  const double r = std::round(x);
  if (std::fabs(x - r) > 1e-6 * std::max(1.0, std::fabs(x))) return std::nullopt;
  return static_cast<std::int64_t>(r);
}

}  // namespace

Parsed<double> parse_number(std::string_view text) {
  const NumberPrefix n = number_prefix(text);
  if (!n.found || !n.rest.empty() || std::isnan(n.value)) {
    return Parsed<double>::fail("expected a number, got " + quoted(text));
  }
  if (!std::isfinite(n.value))
    return Parsed<double>::fail("number " + quoted(text) + " is out of range");
  return Parsed<double>::ok(n.value);
}

Parsed<std::int64_t> parse_int64(std::string_view text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return Parsed<std::int64_t>::fail("number " + quoted(text) + " is out of range");
  }
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return Parsed<std::int64_t>::fail("expected a whole number, got " + quoted(text));
  }
  return Parsed<std::int64_t>::ok(v);
}

Parsed<std::uint32_t> parse_uint32(std::string_view text) {
  const Parsed<std::int64_t> p = parse_int64(text);
  if (!p.value) return Parsed<std::uint32_t>::fail(p.error);
  if (*p.value < 0) return Parsed<std::uint32_t>::fail("must be >= 0, got " + quoted(text));
  if (*p.value > 0xffffffffLL)
    return Parsed<std::uint32_t>::fail("number " + quoted(text) + " is out of range");
  return Parsed<std::uint32_t>::ok(static_cast<std::uint32_t>(*p.value));
}

Parsed<policy::MilliC> parse_celsius(std::string_view text) {
  const NumberPrefix n = number_prefix(text);
  if (!n.found || !std::isfinite(n.value)) {
    return Parsed<policy::MilliC>::fail("expected a temperature in °C, got " + quoted(text));
  }
  if (!n.rest.empty()) {
    return Parsed<policy::MilliC>::fail(
        "expected a plain number of °C (the key says the unit), got " + quoted(text));
  }
  if (std::fabs(n.value) > kMaxAbsCelsius) {
    return Parsed<policy::MilliC>::fail("temperature " + quoted(text) +
                                        " °C is out of range (-1000 to 1000)");
  }
  return Parsed<policy::MilliC>::ok(policy::MilliC::from_celsius(n.value));
}

Parsed<policy::Millis> parse_duration(std::string_view text) {
  struct DurationUnit {
    std::string_view suffix;
    double ms;
  };
  static constexpr DurationUnit kUnits[] = {{"ms", 1.0}, {"s", 1e3}, {"min", 60e3}, {"h", 3600e3}};
  const NumberPrefix n = number_prefix(text);
  if (!n.found || !std::isfinite(n.value)) {
    return Parsed<policy::Millis>::fail("expected a duration such as 500ms or 2s, got " +
                                        quoted(text));
  }
  std::string_view unit = n.rest;
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    return Parsed<policy::Millis>::fail("duration " + quoted(text) +
                                        " needs a unit: ms, s, min or h (e.g. 500ms, 2s)");
  }
  for (const DurationUnit& u : kUnits) {
    if (unit != u.suffix) continue;
    const double ms = n.value * u.ms;
    if (ms < 0) return Parsed<policy::Millis>::fail("duration " + quoted(text) + " is negative");
    if (ms > static_cast<double>(kMaxDurationMs)) {
      return Parsed<policy::Millis>::fail("duration " + quoted(text) +
                                          " is out of range (at most 1000000000ms)");
    }
    const auto w = whole(ms);
    if (!w) {
      return Parsed<policy::Millis>::fail("duration " + quoted(text) +
                                          " is not a whole number of milliseconds");
    }
    return Parsed<policy::Millis>::ok(policy::Millis(*w));
  }
  return Parsed<policy::Millis>::fail("unknown duration unit " + quoted(unit) +
                                      " (use ms, s, min or h)");
}

Parsed<std::int64_t> parse_quantity(std::string_view text, const QuantityKind& kind) {
  std::string units;
  for (const Unit& u : kind.units) {
    if (u.suffix == "uW" || u.suffix == "uA") continue;  // listed via their µ spelling
    if (!units.empty()) units += ", ";
    units += u.suffix;
  }
  const NumberPrefix n = number_prefix(text);
  if (!n.found || !std::isfinite(n.value)) {
    return Parsed<std::int64_t>::fail("expected a " + std::string(kind.what) + " with a unit (" +
                                      units + "), got " + quoted(text));
  }
  std::string_view unit = n.rest;
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    return Parsed<std::int64_t>::fail(std::string(kind.what) + " " + quoted(text) +
                                      " needs a unit (" + units + ")");
  }
  for (const Unit& u : kind.units) {
    if (unit != u.suffix) continue;
    const double base = n.value * u.factor;
    if (base < 0)
      return Parsed<std::int64_t>::fail(std::string(kind.what) + " " + quoted(text) +
                                        " is negative");
    if (base > 9007199254740992.0) {
      return Parsed<std::int64_t>::fail(std::string(kind.what) + " " + quoted(text) +
                                        " is out of range");
    }
    const auto w = whole(base);
    if (!w) {
      return Parsed<std::int64_t>::fail(std::string(kind.what) + " " + quoted(text) +
                                        " is not a whole number of " + std::string(kind.base));
    }
    return Parsed<std::int64_t>::ok(*w);
  }
  return Parsed<std::int64_t>::fail("unknown " + std::string(kind.what) + " unit " + quoted(unit) +
                                    " (use " + units + ")");
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Levenshtein distance, one row at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace coolhand::config::detail
