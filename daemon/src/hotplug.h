// Hot-plug of thermal, hwmon, power_supply and backlight devices through a
// libudev monitor. Each add/remove/change event makes the runtime
// resynchronise: a sensor or device that appeared is bound, one that vanished
// fails its next read and is marked lost.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "result.h"

struct udev;
struct udev_monitor;

namespace coolhand::daemon {

class HotplugMonitor {
 public:
  using Callback = std::function<void(const std::string& subsystem, const std::string& action)>;
  // Listens to udevd's events ("udev" source); an error where no udevd runs
  // (containers) or libudev cannot open its netlink socket.
  [[nodiscard]] static Result<std::unique_ptr<HotplugMonitor>> open(Callback cb);
  ~HotplugMonitor();
  HotplugMonitor(const HotplugMonitor&) = delete;
  HotplugMonitor& operator=(const HotplugMonitor&) = delete;

  [[nodiscard]] int fd() const;
  // Drain pending events, calling the callback once per relevant event.
  void receive();

 private:
  explicit HotplugMonitor(Callback cb) : cb_(std::move(cb)) {}
  Callback cb_;
  udev* udev_ = nullptr;
  udev_monitor* mon_ = nullptr;
};

}  // namespace coolhand::daemon
