// The simulator's side of the shared control loop (coolhand/policy/loop.h):
// the loop coolhandd runs, with its ports implemented over the simulated
// platform instead of sysfs and netlink.
//
// The simulated platform behaves like the coolhand module's emulated EC in
// window mode (kmod/README 3.3), or like a plain polled sensor:
//  - Delivery::pushed (the default): every fresh sample of a sensor that
//    lies outside the window the loop last set (T <= low or T >= high) is
//    pushed to the loop, as EVENT_TEMP would be; before a window is set,
//    nothing is pushed (the loop reads every sensor when it starts). Setting
//    a window never reports by itself, as WINDOW_SET does not.
//  - Delivery::polled: the loop reads the latest sample at its adaptive
//    poll interval, as coolhandd reads a hwmon attribute.
//  - A brightness sensor (a policy sensor whose source is {kind: backlight,
//    name: D}) reads model device D's brightness (DeviceModelSpec::brightness,
//    in thousandths, as coolhandd reads actual_brightness over
//    max_brightness) and is always polled, as coolhandd polls that file.
//  - Reads never fail and knobs always take their level: the model has no
//    faulty hardware.
// - Recording (LoopRecording): the loop is a recorder::LoopRecorder on the
//   caller's ring, so every call, port answer and decision goes into it as
//   in coolhandd, and each knob write adds a knob_write record as the
//   daemon's actuator does (written = read back = the level: the simulated
//   knob takes levels). The ring grows (doubling) between calls when it is
//   three quarters full, so a run's recording loses nothing.
// advance() is called once per model step. The loop is ticked when a
// reading was pushed or the wake-up it asked for is due; like the daemon's
// timer, a wake-up falls on the first model step at or after it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/policy/loop.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/ring.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim {

// How the simulated platform delivers each sensor's readings.
struct Feed {
  policy::Delivery delivery = policy::Delivery::pushed;  // every sensor's, unless
  std::map<std::string, policy::Delivery> per_sensor;    // named here
};

// Record the loop into `ring` (owned by the caller, outliving the loop), as
// coolhandd's flight recorder does; `policy_hash` is recorder::policy_hash
// of the policy file's text (loop_created and checkpoints carry it).
struct LoopRecording {
  recorder::Ring* ring = nullptr;
  std::uint64_t policy_hash = 0;
};

class PolicyLoop {
 public:
  using SensorOutput = ThermalModel::SensorOutput;

  // Physical sensors and devices of the policy are matched by name to the
  // model's `sensors` (model order) and `devices` (name and max_level). An
  // error (as text) names what does not match.
  [[nodiscard]] static std::variant<std::unique_ptr<PolicyLoop>, std::string> create(
      const config::PolicyDocument& policy, const std::vector<std::string>& sensors,
      const std::vector<std::pair<std::string, std::uint32_t>>& devices, const Feed& feed = {},
      const LoopRecording& record = {});
  [[nodiscard]] static std::variant<std::unique_ptr<PolicyLoop>, std::string> create(
      const config::PolicyDocument& policy, const ModelSpec& model, const Feed& feed = {},
      const LoopRecording& record = {});
  ~PolicyLoop();
  PolicyLoop(const PolicyLoop&) = delete;
  PolicyLoop& operator=(const PolicyLoop&) = delete;

  // One model step at `now`: `outputs[s]` is model sensor s's latest sample
  // (`sampled`: taken at `now`). `levels` (one per model device) receives
  // the levels the loop has applied. `brightness` (one per model device, or
  // empty when the policy reads none) is each device's brightness fraction
  // (DeviceModelSpec::brightness) at `now`.
  void advance(policy::Time now, std::span<const SensorOutput> outputs,
               std::span<std::uint32_t> levels, std::span<const double> brightness = {});

  [[nodiscard]] const policy::ControlLoop& loop() const {
    return recorder_ ? recorder_->loop() : *loop_;
  }
  // Engine steps so far.
  [[nodiscard]] std::uint64_t steps() const { return loop().counters().steps; }
  // Whether the policy has a brightness sensor, i.e. whether advance()
  // needs its `brightness`.
  [[nodiscard]] bool reads_brightness() const;
  // Switches the engine's profile (as coolhandctl's profile command does;
  // "" is the policy as written) and ticks the loop at the next advance(),
  // where the switch takes effect. False if the policy has no such profile.
  bool set_profile(std::string_view name);

 private:
  struct Ports;
  PolicyLoop() = default;
  void start(policy::Time now);
  std::optional<policy::Time> tick(policy::Time now);

  std::unique_ptr<Ports> ports_;
  std::unique_ptr<policy::ControlLoop> loop_;         // not recording, or
  std::unique_ptr<recorder::LoopRecorder> recorder_;  // recording
  bool started_ = false;
  bool profile_switched_ = false;  // tick at the next advance()
  std::optional<policy::Time> wake_;
};

}  // namespace coolhand::sim
