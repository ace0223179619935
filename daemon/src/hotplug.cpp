// libudev monitor for the subsystems coolhand binds to.
#include "hotplug.h"

#include <libudev.h>

#include <cerrno>

namespace coolhand::daemon {

namespace {
constexpr const char* kSubsystems[] = {"thermal", "hwmon", "power_supply", "backlight"};
}

Result<std::unique_ptr<HotplugMonitor>> HotplugMonitor::open(Callback cb) {
  std::unique_ptr<HotplugMonitor> m(new HotplugMonitor(std::move(cb)));
  m->udev_ = udev_new();
  if (!m->udev_) return errno_error("udev", "udev_new", errno ? errno : ENOMEM);
  m->mon_ = udev_monitor_new_from_netlink(m->udev_, "udev");
  if (!m->mon_) return errno_error("udev", "monitor", errno ? errno : EPROTONOSUPPORT);
  for (const char* s : kSubsystems) {
    if (int e = udev_monitor_filter_add_match_subsystem_devtype(m->mon_, s, nullptr); e < 0) {
      return errno_error("udev", std::string("filter ") + s, -e);
    }
  }
  if (int e = udev_monitor_enable_receiving(m->mon_); e < 0)
    return errno_error("udev", "enable", -e);
  return m;
}

HotplugMonitor::~HotplugMonitor() {
  if (mon_) udev_monitor_unref(mon_);
  if (udev_) udev_unref(udev_);
}

int HotplugMonitor::fd() const {
  return udev_monitor_get_fd(mon_);
}

void HotplugMonitor::receive() {
  while (udev_device* d = udev_monitor_receive_device(mon_)) {
    const char* subsystem = udev_device_get_subsystem(d);
    const char* action = udev_device_get_action(d);
    cb_(subsystem ? subsystem : "", action ? action : "");
    udev_device_unref(d);
  }
}

}  // namespace coolhand::daemon
