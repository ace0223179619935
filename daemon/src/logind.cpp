// logind client: resume notification and power actions.
#include "logind.h"

#include <systemd/sd-bus.h>

namespace coolhand::daemon {

namespace {
constexpr const char* kService = "org.freedesktop.login1";
constexpr const char* kPath = "/org/freedesktop/login1";
constexpr const char* kManager = "org.freedesktop.login1.Manager";
}  // namespace

Result<std::unique_ptr<Logind>> Logind::connect(sd_event* loop, std::function<void()> on_resume) {
  std::unique_ptr<Logind> l(new Logind());
  l->on_resume_ = std::move(on_resume);
  if (int r = sd_bus_open_system(&l->bus_); r < 0) return errno_error("sd-bus", "system bus", -r);
  int r = sd_bus_match_signal(
      l->bus_, &l->slot_, kService, kPath, kManager, "PrepareForSleep",
      [](sd_bus_message* m, void* u, sd_bus_error*) -> int {
        int going_down = 0;
        if (sd_bus_message_read(m, "b", &going_down) >= 0 && !going_down) {
          static_cast<Logind*>(u)->on_resume_();
        }
        return 0;
      },
      l.get());
  if (r < 0) return errno_error("sd-bus", "match PrepareForSleep", -r);
  if (r = sd_bus_attach_event(l->bus_, loop, 0); r < 0) return errno_error("sd-bus", "attach", -r);
  return l;
}

Logind::~Logind() {
  if (slot_) sd_bus_slot_unref(slot_);
  if (bus_) sd_bus_flush_close_unref(bus_);
}

Status Logind::request(policy::TripAction action) {
  const char* method = action == policy::TripAction::shutdown ? "PowerOff" : "Suspend";
  sd_bus_error err{};  // SD_BUS_ERROR_NULL, without its C compound literal
  const int r = sd_bus_call_method(bus_, kService, kPath, kManager, method, &err, nullptr, "b", 0);
  Status s = Ok{};
  if (r < 0) s = SysError{"logind", method, -r, err.message ? err.message : ""};
  sd_bus_error_free(&err);
  return s;
}

}  // namespace coolhand::daemon
