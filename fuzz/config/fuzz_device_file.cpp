// libFuzzer entry point for the device-description parser
// (config/devices/*.yaml). Any bytes must give either a description or
// located errors: a crash, sanitizer report, hang or broken invariant below
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coolhand/config/device_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = coolhand::config::parse_device_description(text, "fuzz.yaml");
  if (r.description.has_value() == !r.errors.empty()) __builtin_trap();
  for (const auto& e : r.errors) {
    if (e.message.empty() || e.file != "fuzz.yaml") __builtin_trap();
  }
  if (r.description) {
    for (const auto& [role, sensor] : r.description->sensors) {
      if (role.empty() || sensor.candidates.empty()) __builtin_trap();
    }
    for (const auto& [role, knob] : r.description->knobs) {
      if (role.empty() || knob.candidates.empty()) __builtin_trap();
    }
  }
  return 0;
}
