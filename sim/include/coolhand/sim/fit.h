// Model identification (`coolhand-sim fit`): learn a device's thermal model
// from a recording of its sensors, device levels and ambient, given a
// skeleton that says which nodes exist, which device heats which node,
// which sensor reads which node and which links are present. Also the
// virtual skin estimator (a policy `fir` sensor) against a reference skin
// channel. Method and formats: docs/simulator.md, "Learning a device".
//
// A skeleton is a model YAML (the simulator's own format, parsed by
// parse_model) in which the numbers to fit are written `free`:
// capacity_j_per_k, to_ambient_w_per_k, a link's w_per_k, a device's idle_w
// and any entry of its power_w list. Every other number is held as given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

// ------------------------------------------------------------ skeleton --

// One number of the skeleton the fit chooses.
struct FreeParam {
  enum class Kind : std::uint8_t { capacity, to_ambient, link, idle, power };
  Kind kind = Kind::capacity;
  std::size_t index = 0;  // node, link or device index in the spec
  std::size_t level = 0;  // power only
  std::string name;       // e.g. "board.capacity_j_per_k", "cpu.power_w[3]"
};

struct FitSkeleton {
  ModelSpec spec;               // free numbers hold a placeholder until fitted
  std::vector<FreeParam> free;  // in file order
};

[[nodiscard]] std::variant<FitSkeleton, config::ConfigError> parse_skeleton(std::string_view text,
                                                                            std::string_view file);
[[nodiscard]] std::variant<FitSkeleton, config::ConfigError> load_skeleton_file(
    const std::string& path);

// ---------------------------------------------------------------- data --

// One contiguous recording resampled onto a regular grid of `step_s`: the
// inputs averaged over each interval [t_k, t_k + step), the readings taken
// at each grid time (the latest sample at or before it).
struct FitSegment {
  std::string name;  // file name, for messages
  double step_s = 1.0;
  std::vector<double> time_s;     // grid, K entries
  std::vector<double> ambient_c;  // interval means, K
  // Interval means of demand while at each level: [device][level][k]
  // (demand x the fraction of the interval spent at that level).
  std::vector<std::vector<std::vector<double>>> load;
  std::vector<std::vector<double>> reading_c;  // [sensor][k]; NaN: none yet
  std::vector<std::vector<double>> power_w;    // [device][k] measured, empty if none
  std::vector<double> total_power_w;           // K measured, empty if none
  // Other numeric columns by name (true node temperatures of a simulated
  // trace, a lab's thermocouple), sampled like readings; for the skin fit
  // and validation only, never for the model fit.
  std::vector<std::string> extra_names;
  std::vector<std::vector<double>> extra_c;
};

struct FitDataOptions {
  double step_s = 1.0;
  std::optional<double> ambient_c;  // when the data has no ambient_c column
};

// A CSV (the simulator's trace.csv works as it is): time_s; ambient_c; one
// column per skeleton sensor (`<sensor>` or `<sensor>_reading_c`, °C); per
// device `<device>_level`, optionally `<device>_demand` (default 1) and
// `<device>_power_w`; optionally `power_w`, the measured total. Errors name
// file and line.
[[nodiscard]] std::variant<FitSegment, config::ConfigError> load_fit_csv(
    const std::string& path, const ModelSpec& skeleton, const FitDataOptions& options,
    std::vector<config::ConfigError>& warnings);
// The same for a table already read (parse_csv), e.g. from memory.
[[nodiscard]] std::variant<FitSegment, config::ConfigError> bind_fit_csv(
    const CsvTable& table, const ModelSpec& skeleton, const FitDataOptions& options,
    std::vector<config::ConfigError>& warnings);

// A reference channel: a column measuring a node no device sensor reads
// (the thermocouple a lab tapes to the back cover while characterising the
// device; a simulated trace's `<node>_c`). The model fit uses it as one
// more sensor of that node (no lag, no offset); the fitted model does not
// get it (the device has no such sensor).
struct ReferenceChannel {
  std::string column;
  std::string node;
};

// Appends each channel as a sensor of the skeleton and its column as that
// sensor's readings in every segment.
[[nodiscard]] std::optional<config::ConfigError> add_reference_channels(
    FitSkeleton& skeleton, std::vector<FitSegment>& data,
    const std::vector<ReferenceChannel>& channels);

// --------------------------------------------------------------- model fit --

struct FitOptions {
  double holdout = 0.25;     // last fraction of each segment kept for the report
  int max_iterations = 200;  // Levenberg-Marquardt iterations
  // Called after each iteration with its number and the rms residual (°C).
  std::function<void(int, double)> progress;
};

struct SensorError {
  std::string name;
  double rms_c = 0;
  double max_abs_c = 0;
  std::size_t samples = 0;
};

struct ParamWarning {
  std::vector<std::string> params;  // the parameters involved
  std::string why;
};

struct FitResult {
  ModelSpec model;                    // the skeleton with every free number fitted
  std::vector<double> values;         // per FreeParam, in its unit
  std::vector<double> rel_stddev;     // per FreeParam: 1-sigma relative uncertainty (inf: none)
  std::vector<SensorError> train;     // per sensor on the fitted part
  std::vector<SensorError> held_out;  // per sensor on the held-out part
  std::vector<ParamWarning> unidentifiable;
  int iterations = 0;
  double cost_start = 0, cost_end = 0;  // mean squared residual
};

[[nodiscard]] std::variant<FitResult, config::ConfigError> fit_model(
    const FitSkeleton& skeleton, const std::vector<FitSegment>& data, const FitOptions& options);

// Open-loop prediction of `model` on a segment's inputs, starting every node
// at the first reading of a sensor on it, else at the mean first reading:
// [node][k] in °C. Used for validation on data the fit never saw.
[[nodiscard]] std::vector<std::vector<double>> predict_nodes(const ModelSpec& model,
                                                             const FitSegment& segment);

// ------------------------------------------------------- skin estimator --

struct SkinFitOptions {
  // Sensors, or brightness columns (add_brightness); required (`fit`'s
  // default: default_skin_inputs, sim/src/fit_skin_inputs.h).
  std::vector<std::string> inputs;
  int taps = 15;
  // Inputs fitted on their newest tap only (the others written as 0): a
  // sensor read faster than the engine's fir history keeps (fit_skin_inputs.h).
  std::vector<std::string> newest_tap_only;
  // Inputs whose taps are held >= 0 (`fit` gives its brightness inputs):
  // a backlight only heats the glass, and an estimate whose newest taps on
  // it are negative rises when the screen dims, which a controller dimming
  // the screen on that estimate answers by dimming further.
  std::vector<std::string> non_negative;
  double tap_period_s = 8.0;
  double ridge = 1.0;
  double hot_c = 38.0;  // samples whose reference is above this count hot_weight times
  double hot_weight = 3.0;
  double holdout = 0.25;
};

struct SkinEstimator {
  std::string name;       // the policy sensor's name, e.g. back_skin_fir
  std::string reference;  // the reference column
  std::vector<std::string> inputs;
  std::vector<std::vector<double>> weights;  // [input][tap], newest first
  double tap_period_s = 8.0;
  double offset_c = 0;
  SensorError train, held_out;
};

// Fits one estimator per reference column (`<col>` of the data's extra
// columns), least squares with a ridge penalty, on every segment's first
// (1 - holdout) part.
[[nodiscard]] std::variant<std::vector<SkinEstimator>, config::ConfigError> fit_skin(
    const std::vector<FitSegment>& data, const std::vector<std::string>& references,
    const std::vector<std::string>& sensor_names, const SkinFitOptions& options);

// A brightness input of the estimators: the policy's brightness sensor
// `sensor` (source {kind: backlight}) reading model device `device`.
struct BrightnessInput {
  std::string sensor;
  std::string device;
};

// Adds to every segment the extra column `sensor` of each input: the
// interval mean of the device's brightness fraction (0..1,
// DeviceModelSpec::brightness, what the simulator's brightness sensor
// reads) from the segment's levels and demand and `model`'s power table. A
// column of that name already there (a recording's readings of the sensor)
// is replaced, so every source of data gives the estimator the same series.
// An error names a device `model` lacks.
[[nodiscard]] std::optional<config::ConfigError> add_brightness(
    std::vector<FitSegment>& data, const ModelSpec& model,
    const std::vector<BrightnessInput>& inputs);

// The estimator's value at each grid time of a segment, as the engine's fir
// computes it (inputs held between samples); NaN before every input has a reading.
[[nodiscard]] std::vector<double> evaluate_skin(const SkinEstimator& est, const FitSegment& segment,
                                                const std::vector<std::string>& sensor_names);

// The estimators as policy `sensors:` entries, ready to paste.
[[nodiscard]] std::string skin_yaml(const std::vector<SkinEstimator>& estimators);

// ---------------------------------------------------------------- output --

// A model as YAML in the format parse_model reads (round-trips exactly up to
// the 6 significant digits written).
[[nodiscard]] std::string model_yaml(const ModelSpec& model, std::string_view header_comment);

}  // namespace coolhand::sim
