// Named limits: reading `limit ± number` temperatures; see limit_expr.h.
#include "limit_expr.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "scalars.h"

namespace coolhand::config::detail {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

TemperatureParse fail(std::size_t offset, std::string why) {
  TemperatureParse out;
  out.error = std::move(why);
  out.offset = offset;
  return out;
}

std::string format_celsius(double c) {
  std::string s = std::to_string(c);
  // std::to_string gives 6 decimals; drop the trailing zeros (and the dot).
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::string limit_hint(std::string_view name, std::span<const NamedLimit> limits) {
  if (limits.empty()) return {};
  const NamedLimit* best = nullptr;
  std::size_t best_distance = 3;
  for (const NamedLimit& l : limits) {
    const std::size_t d = edit_distance(name, l.name);
    if (d < best_distance) {
      best_distance = d;
      best = &l;
    }
  }
  if (best != nullptr) return "did you mean '" + best->name + "'?";
  std::string out = "limits defined:";
  for (const NamedLimit& l : limits) out += " " + l.name;
  return out;
}

TemperatureParse parse_temperature(std::string_view text, std::span<const NamedLimit> limits) {
  std::size_t i = skip_spaces(text, 0);
  if (i >= text.size() || !name_start(text[i])) {
    // A plain number: the scalar rules, with their messages.
    Parsed<policy::MilliC> p = parse_celsius(text);
    TemperatureParse out;
    out.value = p.value;
    out.error = std::move(p.error);
    return out;
  }
  const std::size_t name_at = i;
  while (i < text.size() && name_char(text[i])) ++i;
  const std::string_view name = text.substr(name_at, i - name_at);
  const NamedLimit* limit = nullptr;
  for (const NamedLimit& l : limits) {
    if (l.name == name) limit = &l;
  }
  if (limit == nullptr) {
    if (limits.empty()) {
      return fail(name_at, "expected a temperature in °C, got '" + std::string(text) +
                               "' (a name here must be one of the policy's `limits`, and it "
                               "defines none)");
    }
    return fail(name_at,
                "unknown limit '" + std::string(name) + "' (" + limit_hint(name, limits) + ")");
  }
  i = skip_spaces(text, i);
  std::int64_t mc = limit->value.mc();
  if (i < text.size()) {
    const char op = text[i];
    if (op != '+' && op != '-') {
      return fail(i, "expected '+' or '-' after limit '" + limit->name + "', got '" +
                         std::string(text.substr(i)) + "'");
    }
    const std::size_t number_at = skip_spaces(text, i + 1);
    const std::string_view rest = text.substr(number_at);
    if (rest.empty()) {
      return fail(i, "expected a number of °C after '" + std::string(1, op) + "'");
    }
    if (name_start(rest.front())) {
      return fail(number_at, "only one limit per temperature: '" + std::string(rest) +
                                 "' must be a number of °C");
    }
    if (rest.front() == '+' || rest.front() == '-') {
      return fail(number_at, "expected a number of °C after '" + std::string(1, op) + "', got '" +
                                 std::string(rest) + "'");
    }
    const Parsed<policy::MilliC> delta = parse_celsius(rest);
    if (!delta.value) return fail(number_at, delta.error);
    mc += op == '+' ? delta.value->mc() : -static_cast<std::int64_t>(delta.value->mc());
  }
  const double celsius = static_cast<double>(mc) / 1000.0;
  if (std::fabs(celsius) > kMaxAbsCelsius) {
    return fail(name_at, "'" + std::string(text) + "' is " + format_celsius(celsius) +
                             " °C, out of range (-1000 to 1000)");
  }
  TemperatureParse out;
  out.value = policy::MilliC{static_cast<std::int32_t>(mc)};
  out.named_limit = true;
  return out;
}

}  // namespace coolhand::config::detail
