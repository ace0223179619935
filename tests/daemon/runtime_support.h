// Helpers shared by the tests that run a Runtime on a temp-dir sysfs with a
// virtual clock (runtime_test, status_test, backlight_sensor_test): parse a
// policy text, create and start a Runtime, and advance the clock through
// every wake-up the runtime asks for.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "coolhand/config/policy_file.h"
#include "runtime.h"

namespace coolhand::daemon::testing {

// `text` as a policy; a parse error fails the test with every error.
inline config::PolicyDocument parse_policy_text(std::string_view text) {
  auto r = config::parse_policy(text, "test.yaml");
  std::string errors;
  for (const auto& e : r.errors) errors += e.to_string() + "\n";
  EXPECT_TRUE(r.document) << errors;
  return r.document ? std::move(*r.document) : config::PolicyDocument{};
}

// A Runtime of `doc` on `fs`, started at `now`; nullptr (and a failed test)
// when it cannot be created.
inline std::unique_ptr<Runtime> start_runtime(config::PolicyDocument doc, Sysfs& fs, Logger& log,
                                              policy::Time now, RuntimeOptions opts = {},
                                              KernelHooks* hooks = nullptr) {
  auto r = Runtime::create(std::move(doc), fs, log, opts, hooks);
  EXPECT_TRUE(r) << r.error().to_string();
  if (!r) return nullptr;
  auto rt = std::move(*r);
  rt->start(now);
  return rt;
}

// Advances the virtual clock `now` through every wake-up `rt` asks for up
// to `until`, then ticks once at `until` (where `now` is left).
inline void run_until(Runtime& rt, policy::Time& now, policy::Time until) {
  std::optional<policy::Time> wake = rt.tick(now);
  while (wake && *wake <= until) {
    now = std::max(now, *wake);
    wake = rt.tick(now);
  }
  now = until;
  (void)rt.tick(now);
}

}  // namespace coolhand::daemon::testing
