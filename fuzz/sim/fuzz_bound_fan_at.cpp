// libFuzzer entry point for `coolhand-sim bound --fan-at S:LEVEL`'s reader
// (parse_fan_hold, bound.cpp). Any bytes must give either a message that
// quotes the argument, or a hold whose time is a whole, non-negative number
// of ms that prints back to the same value and a level of at most 3 digits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "coolhand/sim/bound.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = coolhand::sim::parse_fan_hold(text);
  if (const auto* e = std::get_if<std::string>(&r)) {
    if (e->empty() || e->find("expected S:LEVEL") == std::string::npos) __builtin_trap();
    return 0;
  }
  const auto& hold = std::get<coolhand::sim::BoundOptions::FanHold>(r);
  if (hold.from.count() < 0 || hold.level > 999) __builtin_trap();
  // What was accepted reads back: the time as whole ms, the level after the colon.
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) __builtin_trap();
  const std::string back = std::to_string(hold.from.count() / 1000) + "." +
                           std::to_string(hold.from.count() % 1000 + 1000).substr(1) + ":" +
                           std::to_string(hold.level);
  const auto again = coolhand::sim::parse_fan_hold(back);
  const auto* h2 = std::get_if<coolhand::sim::BoundOptions::FanHold>(&again);
  if (h2 == nullptr || h2->from != hold.from || h2->level != hold.level) __builtin_trap();
  return 0;
}
