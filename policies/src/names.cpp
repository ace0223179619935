// The names of the policy language's enums (engine.h: to_string,
// severity_from_string): the words the config, the logs, the status output
// and the recordings' exports write for a severity, an event, a trip action
// and a controller's or a sensor's kind. No engine state.
#include <array>
#include <string_view>

#include "coolhand/policy/engine.h"

namespace coolhand::policy {

using Kind = SensorSpec::Kind;

namespace {
constexpr std::array<std::string_view, kSeverityCount> kSeverityNames = {
    "none", "light", "moderate", "severe", "critical", "emergency", "shutdown"};
}

std::string_view to_string(Severity s) {
  const auto i = static_cast<std::size_t>(s);
  return i < kSeverityNames.size() ? kSeverityNames[i] : "invalid";
}

std::optional<Severity> severity_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kSeverityNames.size(); ++i) {
    if (kSeverityNames[i] == s) return static_cast<Severity>(i);
  }
  return std::nullopt;
}

std::string_view to_string(Event::Kind k) {
  switch (k) {
    case Event::Kind::trip_up:
      return "trip_up";
    case Event::Kind::trip_down:
      return "trip_down";
    case Event::Kind::severity_change:
      return "severity_change";
    case Event::Kind::sensor_unknown:
      return "sensor_unknown";
    case Event::Kind::sensor_known:
      return "sensor_known";
    case Event::Kind::action_fired:
      return "action_fired";
    case Event::Kind::profile_change:
      return "profile_change";
  }
  return "invalid";
}

std::string_view to_string(TripAction a) {
  switch (a) {
    case TripAction::none:
      return "none";
    case TripAction::shutdown:
      return "shutdown";
    case TripAction::suspend:
      return "suspend";
    case TripAction::force_deepest:
      return "force_deepest";
  }
  return "invalid";
}

std::string_view to_string(ControllerSpec::Kind k) {
  switch (k) {
    case ControllerSpec::Kind::step_wise:
      return "step_wise";
    case ControllerSpec::Kind::table:
      return "table";
    case ControllerSpec::Kind::pid:
      return "pid";
    case ControllerSpec::Kind::power_budget:
      return "power_budget";
    case ControllerSpec::Kind::bang_bang:
      return "bang_bang";
  }
  return "invalid";
}

std::string_view to_string(SensorSpec::Kind k) {
  switch (k) {
    case Kind::physical:
      return "physical";
    case Kind::weighted_sum:
      return "weighted_sum";
    case Kind::max:
      return "max";
    case Kind::min:
      return "min";
    case Kind::ema:
      return "ema";
    case Kind::fir:
      return "fir";
    case Kind::predictor:
      return "predictor";
    case Kind::dequantise:
      return "dequantise";
  }
  return "invalid";
}

}  // namespace coolhand::policy
