// libFuzzer entry point for the policy loader. Any bytes must give either a
// document or located errors: a crash, sanitizer report, hang or broken
// invariant below is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coolhand/config/policy_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const coolhand::config::LoadResult r = coolhand::config::parse_policy(text, "fuzz.yaml");
  if (r.document.has_value() == !r.errors.empty()) __builtin_trap();
  for (const auto& e : r.errors) {
    if (e.line < 1 || e.column < 1 || e.message.empty() || e.file != "fuzz.yaml") __builtin_trap();
    if (e.to_string().empty()) __builtin_trap();
  }
  return 0;
}
