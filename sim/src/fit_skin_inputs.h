// The virtual skin estimator's inputs (`coolhand-sim fit --reference-skin`):
// which sensors it reads by default, and which devices' heat none of its
// inputs sees. Docs: docs/simulator.md, "Learning a device" (the estimator's
// inputs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/sim/fit.h"
#include "coolhand/sim/model.h"

namespace coolhand::sim {

// One sensor per node that has any: the finest quantum (the first listed on
// a tie), whatever its period. A sensor on the node a device heats measures
// that heat (its rise over the board's is the power), which is what lets
// the estimate tell a device's heat from a warm ambient; a second sensor of
// one node adds its noise and nothing else.
[[nodiscard]] std::vector<std::string> default_skin_inputs(const ModelSpec& model);

// The inputs (model sensors) read more often than the engine's fir keeps
// their history: more than 8 readings per tap period (the engine keeps 8
// changes per tap, kFirChangesPerTap in policies/src/engine.cpp, and holds
// its oldest kept one for the older taps). They get their newest tap only
// (SkinFitOptions::newest_tap_only): the on-die sensor at 10 Hz, whose
// reading now against the board's is what carries the power.
[[nodiscard]] std::vector<std::string> newest_tap_only_inputs(
    const ModelSpec& model, const std::vector<std::string>& inputs, double tap_period_s);

// A policy `ema` sensor among the estimator's inputs (`fit --ema
// NAME=INPUT:TAU`): the exponential moving average of sensor INPUT with time
// constant TAU, as the engine computes it. It carries the input's history
// for many time constants in one number, which a fir's taps cannot for a
// sensor read at 10 Hz (see newest_tap_only_inputs): the on-die sensor's
// averages over a minute and over five are the SoC's recent and older heat,
// which the glass integrates. It is fitted on its newest tap only (its value
// moves at every engine step, so the engine's fir history of it would not
// reach the older taps either).
struct EmaInput {
  std::string name;
  std::string input;
  double tau_s = 0;
};

// Parses NAME=INPUT:TAU (TAU in s, > 0); an error says what was expected.
[[nodiscard]] std::optional<EmaInput> parse_ema_input(const std::string& text, std::string& error);

// Adds the column `name` of each ema to every segment, from the segment's
// readings of its input (held between readings, starting at the first); an
// error names an input that is not a sensor of the model.
[[nodiscard]] std::optional<config::ConfigError> add_ema_inputs(
    std::vector<FitSegment>& data, const std::vector<std::string>& sensor_names,
    const std::vector<EmaInput>& emas);

// Devices whose heat no estimator input sees: heat into nodes none of
// `inputs` reads, from a device that is not a brightness input
// (`brightness_devices`). Grouped by the node; `sensors` are the model's
// sensors on it (empty: none reads it).
struct UnseenHeat {
  std::string node;
  std::vector<std::string> devices;
  std::vector<std::string> sensors;
};
[[nodiscard]] std::vector<UnseenHeat> unseen_heat(
    const ModelSpec& model, const std::vector<std::string>& inputs,
    const std::vector<std::string>& brightness_devices);

// The warning for one unseen node, e.g. "skin estimator inputs: none sees
// the heat of cpu, gpu (node soc; cpu_therm, gpu_therm read it): ...".
[[nodiscard]] std::string unseen_heat_warning(const UnseenHeat& unseen);

}  // namespace coolhand::sim
