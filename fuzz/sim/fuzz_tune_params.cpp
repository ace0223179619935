// libFuzzer entry point for the tuner's parameter reader (tune_params.cpp):
// the first line of the input is a `--param` argument, the rest a policy
// text with or without a `tune:` block. Any bytes must give either located
// errors or parameters that keep the reader's promises: each names a span
// of the text holding its scalar, has lo < hi with its value inside, and the
// text with every parameter at either end of its range can be substituted
// (and handed to the policy loader, which must not crash either).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/tune.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nl = all.find('\n');
  std::vector<std::string> params;
  std::string_view text = all;
  if (nl != std::string_view::npos) {
    if (nl > 0) params.emplace_back(all.substr(0, nl));
    text = all.substr(nl + 1);
  }
  auto r = coolhand::sim::make_tune_problem(text, "fuzz.yaml", params);
  if (const auto* errors = std::get_if<std::vector<coolhand::config::ConfigError>>(&r)) {
    if (errors->empty()) __builtin_trap();
    for (const auto& e : *errors)
      if (e.message.empty() || e.file.empty() || e.line < 0 || e.column < 0) __builtin_trap();
    return 0;
  }
  const auto& p = std::get<coolhand::sim::TuneProblem>(r);
  if (p.params.empty()) __builtin_trap();
  std::vector<double> lo, hi;
  for (const auto& t : p.params) {
    if (!(t.lo < t.hi) || t.start < t.lo || t.start > t.hi) __builtin_trap();
    if (t.offset + t.length > text.size() || text.substr(t.offset, t.length) != t.text)
      __builtin_trap();
    lo.push_back(t.lo);
    hi.push_back(t.hi);
  }
  for (const auto* x : {&lo, &hi}) {
    const std::string out = coolhand::sim::substitute(p, *x);
    (void)coolhand::config::parse_policy(out, "fuzz.yaml");
  }
  return 0;
}
