// KernelHooks for tests: each hook is a function the test sets (or leaves
// empty for KernelHooks' default behaviour).
#pragma once

#include <functional>
#include <string>

#include "runtime.h"

namespace coolhand::daemon::testing {

struct TestHooks final : KernelHooks {
  std::function<bool(std::uint32_t, const policy::Window&)> thresholds;
  std::function<Status(std::uint32_t, const policy::Window&)> module_window;
  std::function<void(policy::TripAction, const std::string&)> action;

  bool set_thresholds(std::uint32_t tz_id, const policy::Window& w) override {
    return thresholds ? thresholds(tz_id, w) : KernelHooks::set_thresholds(tz_id, w);
  }
  Status set_module_window(std::uint32_t zone_id, const policy::Window& w) override {
    return module_window ? module_window(zone_id, w) : KernelHooks::set_module_window(zone_id, w);
  }
  void request_action(policy::TripAction a, const std::string& zone) override {
    if (action) action(a, zone);
  }
};

}  // namespace coolhand::daemon::testing
