// Parsers for sysfs attribute text.
#include "parse.h"

#include <charconv>

namespace coolhand::daemon {

namespace {
constexpr std::int64_t kMinTempMc = -100'000;
constexpr std::int64_t kMaxTempMc = 400'000;

SysError parse_error(std::string_view path, std::string detail) {
  return SysError{"parse", std::string(path), 0, std::move(detail)};
}
}  // namespace

std::string trim_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

Result<std::int64_t> parse_integer(std::string_view text, std::string_view path) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) return parse_error(path, "empty value");
  std::int64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) {
    return parse_error(path, "number out of range: '" + std::string(text.substr(0, 32)) + "'");
  }
  if (ec != std::errc() || ptr != last) {
    return parse_error(path, "not a number: '" + std::string(text.substr(0, 32)) + "'");
  }
  return v;
}

Result<policy::MilliC> parse_temperature(std::string_view text, std::int32_t scale_to_mc,
                                         std::string_view path) {
  auto v = parse_integer(text, path);
  if (!v) return v.error();
  // Range check before scaling so the multiplication cannot overflow.
  const std::int64_t lo = kMinTempMc / scale_to_mc;
  const std::int64_t hi = kMaxTempMc / scale_to_mc;
  if (*v < lo || *v > hi) {
    return parse_error(path, "temperature out of range: " + std::to_string(*v));
  }
  return policy::MilliC(static_cast<std::int32_t>(*v * scale_to_mc));
}

Result<policy::MilliC> parse_brightness(std::string_view text, std::int64_t max_brightness,
                                        std::string_view path) {
  auto v = parse_integer(text, path);
  if (!v) return v.error();
  if (max_brightness <= 0 || max_brightness > kMaxBrightness)
    return parse_error(path, "max_brightness out of range: " + std::to_string(max_brightness));
  if (*v < 0 || *v > max_brightness) {
    return parse_error(path, "brightness out of range: " + std::to_string(*v) + " of " +
                                 std::to_string(max_brightness));
  }
  const std::int64_t thousandths = (*v * 1000 + max_brightness / 2) / max_brightness;
  return policy::MilliC(static_cast<std::int32_t>(thousandths));
}

}  // namespace coolhand::daemon
