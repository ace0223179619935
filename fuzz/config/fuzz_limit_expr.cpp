// libFuzzer entry point for the named-limit expressions (`skin - 0.5`,
// config/src/limit_expr.h) on their own: many more inputs per second than
// through the whole loader. Any text must give either a temperature within
// ±1000 °C or an error pointing inside the text; a crash, sanitizer report or
// broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "../../config/src/limit_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using coolhand::config::detail::NamedLimit;
  using coolhand::policy::MilliC;
  // Limits near the range ends, so sums can leave it either way.
  static const std::vector<NamedLimit> limits = {{"skin", MilliC(45000)},
                                                 {"hot", MilliC(999000)},
                                                 {"cold", MilliC(-999000)},
                                                 {"_x1", MilliC(0)}};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& set : {std::vector<NamedLimit>{}, limits}) {
    const auto r = coolhand::config::detail::parse_temperature(text, set);
    if (r.value.has_value() == !r.error.empty()) __builtin_trap();
    if (r.value && (r.value->mc() > 1'000'000 || r.value->mc() < -1'000'000)) __builtin_trap();
    if (!r.value && r.offset > size) __builtin_trap();
  }
  return 0;
}
