// Which value units each knob kind accepts, and how a value prints.
#include <optional>
#include <string>

#include "coolhand/config/policy_file.h"

namespace coolhand::config {

namespace {

using Kind = DeviceKnob::Kind;
using Unit = KnobValue::Unit;

// The quantity a knob kind is measured in, besides percentages of its
// maximum; raw: a plain number in the attribute's own unit.
struct Accepts {
  bool raw = false;
  bool percent = false;
  std::optional<Unit> quantity;
  const char* what = "";
};

Accepts accepts(Kind k) {
  switch (k) {
    case Kind::cooling_device:
    case Kind::coolhand:
    case Kind::sysfs:
      return {true, false, std::nullopt, "a raw number (state)"};
    case Kind::cpufreq:
    case Kind::gpu_freq:
      return {false, true, Unit::frequency_khz, "a frequency or a percentage of the maximum"};
    case Kind::intel_pstate:
    case Kind::charge_threshold:
      return {false, true, std::nullopt, "a percentage"};
    case Kind::rapl:
    case Kind::amdgpu_power:
      return {false, true, Unit::power_uw, "a power or a percentage of the maximum"};
    case Kind::firmware_attribute:
      return {true, true, Unit::power_uw,
              "a power (ppt_* attributes are in W), a percentage of max_value or a raw number"};
    case Kind::hwmon_attribute:
    case Kind::backlight:
      return {true, true, std::nullopt, "a raw number or a percentage of the maximum"};
    case Kind::charge_current:
      return {false, true, Unit::current_ua, "a current or a percentage of the maximum"};
    case Kind::none:
      break;
  }
  return {true, true, std::nullopt, ""};
}

}  // namespace

std::string check_knob_unit(Kind k, const KnobValue& v) {
  if (k == Kind::none) return {};  // a role: checked once the device binds it
  const Accepts a = accepts(k);
  const bool ok = (v.unit == Unit::raw && a.raw) || (v.unit == Unit::percent && a.percent) ||
                  (a.quantity && v.unit == *a.quantity);
  return ok ? std::string{} : std::string("this knob takes ") + a.what;
}

std::string to_string(const KnobValue& v) {
  switch (v.unit) {
    case Unit::percent:
      return std::to_string(v.amount) + "%";
    case Unit::power_uw:
      return std::to_string(v.amount) + "µW";
    case Unit::frequency_khz:
      return std::to_string(v.amount) + "kHz";
    case Unit::current_ua:
      return std::to_string(v.amount) + "µA";
    case Unit::raw:
      break;
  }
  return std::to_string(v.amount);
}

}  // namespace coolhand::config
