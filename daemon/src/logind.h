// systemd-logind over sd-bus (system bus): the PrepareForSleep(false) signal
// tells the daemon it has resumed, and critical trips ask logind to power
// off or suspend. Optional: without a system bus (containers, tests) the
// daemon falls back to ResumeDetector and logs trip actions only.
#pragma once

#include <functional>
#include <memory>

#include "coolhand/policy/spec.h"
#include "result.h"

struct sd_bus;
struct sd_bus_slot;
struct sd_event;

namespace coolhand::daemon {

class Logind {
 public:
  [[nodiscard]] static Result<std::unique_ptr<Logind>> connect(sd_event* loop,
                                                               std::function<void()> on_resume);
  ~Logind();
  Logind(const Logind&) = delete;
  Logind& operator=(const Logind&) = delete;

  // PowerOff(false) or Suspend(false).
  Status request(policy::TripAction action);

 private:
  Logind() = default;
  std::function<void()> on_resume_;
  sd_bus* bus_ = nullptr;
  sd_bus_slot* slot_ = nullptr;
};

}  // namespace coolhand::daemon
