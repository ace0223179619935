// Random attribute text through the sysfs parsers: no crash, no UB, a
// successful temperature parse is always inside the accepted range, and a
// successful brightness parse (actual_brightness of a max_brightness) is
// always within 0..1000 thousandths.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)coolhand::daemon::parse_integer(text, "fuzz");
  for (std::int32_t scale : {1, 100}) {
    auto t = coolhand::daemon::parse_temperature(text, scale, "fuzz");
    if (t && (t->mc() < -100'000 || t->mc() > 400'000)) std::abort();
  }
  for (std::int64_t max : {std::int64_t{1}, std::int64_t{255}, std::int64_t{96000},
                           coolhand::daemon::kMaxBrightness}) {
    auto b = coolhand::daemon::parse_brightness(text, max, "fuzz");
    if (b && (b->mc() < 0 || b->mc() > 1000)) std::abort();
  }
  (void)coolhand::daemon::trim_line(text);
  return 0;
}
