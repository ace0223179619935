// Helpers shared by the policy-language tests that feed policy text to the
// parser and compare its errors (errors_test, limits_test, brightness_test,
// robustness_test).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "coolhand/config/policy_file.h"

namespace coolhand::config::test_support {

// Every error of parsing `text` (named p.yaml), formatted
// file:line:column: key: message; empty when it parses. A document comes
// back exactly when there are no errors.
inline std::vector<std::string> errors_of(std::string_view text) {
  const LoadResult r = parse_policy(text, "p.yaml");
  EXPECT_EQ(r.document.has_value(), r.errors.empty());
  std::vector<std::string> out;
  for (const auto& e : r.errors) out.push_back(e.to_string());
  return out;
}

// A test's valid `base` policy with `extra` appended (keys it lacks).
inline std::string with(std::string_view base, std::string_view extra) {
  return std::string(base) + std::string(extra);
}

}  // namespace coolhand::config::test_support
