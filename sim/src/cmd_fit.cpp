// `coolhand-sim fit`: learn a device's thermal model (and, with
// --reference-skin, its virtual skin estimator) from recorded data and a
// skeleton; report the fit per sensor on a held-out part, name numbers the
// data cannot determine, and optionally check the result on traces the fit
// never saw (--validate). Library: fit.h; docs: docs/simulator.md,
// "Learning a device".
#include "cmd_fit.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include "cmd_status.h"
#include "coolhand/recorder/file.h"
#include "coolhand/sim/fit.h"
#include "coolhand/sim/fit_recording.h"
#include "coolhand/sim/output.h"
#include "fit_skin_inputs.h"

namespace coolhand::sim {

namespace {

struct FitArgs {
  std::string skeleton;
  std::vector<std::string> data;
  std::vector<std::string> recordings;  // coolhandd .chrec files
  std::vector<std::string> demand;      // the workload of each recording, in order
  std::string ambient_sensor;
  std::vector<std::string> validate;
  std::string out = "fitted-model.yaml";
  std::string name;
  double step_s = 1.0;
  double holdout = 0.25;
  double ambient_c = NAN;
  int max_iterations = 200;
  bool quiet = false;
  std::vector<std::string> reference_skin;
  std::vector<std::string> skin_inputs;
  std::vector<std::string> newest_tap_only;
  std::vector<std::string> ema;         // NAME=INPUT:TAU
  std::vector<std::string> brightness;  // SENSOR=DEVICE
  int taps = 15;
  double tap_period_s = 8.0;
  double ridge = 1.0;
  std::string skin_out = "fitted-skin.yaml";
  bool hidden_skin = false;
  bool skin_only = false;
};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T>
T take(std::variant<T, config::ConfigError> v) {
  if (auto* e = std::get_if<config::ConfigError>(&v)) throw Failure(e->to_string());
  return std::get<T>(std::move(v));
}

void warn(const config::ConfigError& w) {
  std::cerr << "coolhand-sim: " << w.to_string() << "\n";
}

std::vector<FitSegment> load_all(const std::vector<std::string>& files, const ModelSpec& spec,
                                 const FitDataOptions& opt) {
  std::vector<FitSegment> out;
  for (const auto& f : files) {
    std::vector<config::ConfigError> warnings;
    out.push_back(take(load_fit_csv(f, spec, opt, warnings)));
    for (const auto& w : warnings) warn(w);
  }
  return out;
}

// Each recording with its workload (the i-th --demand, if any).
std::vector<FitSegment> load_recordings(const FitArgs& a, const ModelSpec& spec,
                                        const FitDataOptions& data_opt) {
  if (!a.demand.empty() && a.demand.size() != a.recordings.size())
    throw Failure(
        fmt::format("give one --demand per --recording, in the same order ({} "
                    "recording(s), {} workload(s))",
                    a.recordings.size(), a.demand.size()));
  std::vector<FitSegment> out;
  for (std::size_t i = 0; i < a.recordings.size(); ++i) {
    const std::string& path = a.recordings[i];
    std::string bytes;
    if (auto error = read_text(path, bytes); !error.empty()) throw Failure(error);
    const auto read = recorder::read_recording(bytes);
    if (read.error) throw Failure(path + ": " + read.error->to_string());
    RecordingFitOptions opt;
    opt.step_s = data_opt.step_s;
    opt.ambient_c = data_opt.ambient_c;
    opt.ambient_sensor = a.ambient_sensor;
    if (!a.demand.empty()) opt.demand = take(load_csv_file(a.demand[i]));
    std::vector<config::ConfigError> warnings;
    out.push_back(take(bind_fit_recording(*read.recording, path, spec, opt, warnings)));
    for (const auto& w : warnings) warn(w);
  }
  return out;
}

void print_errors(const char* what, const std::vector<SensorError>& errors) {
  for (const auto& e : errors)
    if (e.samples > 0)
      std::cout << fmt::format("  {:<9} {:<20} rms {:.3f} °C  worst {:.3f} °C  ({} samples)\n",
                               what, e.name, e.rms_c, e.max_abs_c, e.samples);
}

// Each validation trace: the fitted model open loop on its inputs against
// its readings and, where the trace has them (`<node>_c`), its true node
// temperatures; each estimator against its reference.
void validate(const std::string& file, const ModelSpec& model, bool nodes_too,
              const std::vector<SkinEstimator>& estimators, const FitDataOptions& opt,
              const std::vector<BrightnessInput>& brightness, const std::vector<EmaInput>& emas) {
  std::vector<config::ConfigError> warnings;
  std::vector<FitSegment> one{take(load_fit_csv(file, model, opt, warnings))};
  if (auto e = add_brightness(one, model, brightness)) throw Failure(e->to_string());
  std::vector<std::string> sensor_names;
  for (const auto& s : model.sensors) sensor_names.push_back(s.name);
  if (auto e = add_ema_inputs(one, sensor_names, emas)) throw Failure(e->to_string());
  const FitSegment& seg = one.front();
  const auto nodes = predict_nodes(model, seg);
  std::cout << "validate " << file << " (" << seg.time_s.size() << " points):\n";
  for (std::size_t i = 0; nodes_too && i < model.nodes.size(); ++i) {
    const std::string col = model.nodes[i].name + "_c";
    for (std::size_t x = 0; x < seg.extra_names.size(); ++x) {
      if (seg.extra_names[x] != col) continue;
      double sum2 = 0, worst = 0;
      for (std::size_t k = 0; k < seg.time_s.size(); ++k) {
        const double e = nodes[i][k] - seg.extra_c[x][k];
        sum2 += e * e;
        worst = std::max(worst, std::abs(e));
      }
      bool skin = false;
      for (const auto& s : model.skin_nodes) skin = skin || s == model.nodes[i].name;
      std::cout << fmt::format("  {} {:<14} rms {:.3f} °C  worst {:.3f} °C\n",
                               skin ? "skin node" : "node     ", model.nodes[i].name,
                               std::sqrt(sum2 / static_cast<double>(seg.time_s.size())), worst);
    }
  }
  std::vector<std::string> names;
  for (const auto& s : model.sensors) names.push_back(s.name);
  for (const auto& est : estimators) {
    std::size_t x = 0;
    while (x < seg.extra_names.size() && seg.extra_names[x] != est.reference) ++x;
    if (x == seg.extra_names.size()) {
      std::cout << "  estimator " << est.name << ": no column '" << est.reference << "'\n";
      continue;
    }
    const auto v = evaluate_skin(est, seg, names);
    double sum2 = 0, worst = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      const double e = v[k] - seg.extra_c[x][k];
      sum2 += e * e;
      worst = std::max(worst, std::abs(e));
    }
    std::cout << fmt::format("  estimator {:<14} rms {:.3f} °C  worst {:.3f} °C  (against {})\n",
                             est.name, std::sqrt(sum2 / static_cast<double>(v.size())), worst,
                             est.reference);
  }
}

// The model fit, its report on stdout and warnings on stderr, and the
// model file; returns the fitted model (without the reference channels).
ModelSpec fit_and_report(const FitArgs& a, const FitSkeleton& with_refs,
                         const std::vector<FitSegment>& fit_data, std::size_t device_sensors) {
  FitOptions fopt;
  fopt.holdout = a.holdout;
  fopt.max_iterations = a.max_iterations;
  if (!a.quiet)
    fopt.progress = [](int it, double rms) {
      std::cerr << fmt::format("coolhand-sim: fit: iteration {}: rms residual {:.4f}\n", it, rms);
    };
  auto result = take(fit_model(with_refs, fit_data, fopt));
  if (!a.name.empty()) result.model.name = a.name;
  result.model.sensors.resize(device_sensors);  // the device has no thermocouple

  std::cout << fmt::format("fit: {} iterations, rms residual {:.4f} -> {:.4f}\n", result.iterations,
                           std::sqrt(result.cost_start), std::sqrt(result.cost_end));
  print_errors("fitted", result.train);
  print_errors("held-out", result.held_out);
  std::cout << "fitted numbers (± 1 sigma, relative):\n";
  for (std::size_t p = 0; p < with_refs.free.size(); ++p) {
    const double s = result.rel_stddev[p];
    std::cout << fmt::format(
        "  {:<36} {:>10.4g}  {}\n", with_refs.free[p].name, result.values[p],
        std::isfinite(s) ? fmt::format("± {:.1f} %", 100 * s) : std::string("undetermined"));
  }
  for (const auto& w : result.unidentifiable) {
    std::string names;
    for (const auto& n : w.params) names += (names.empty() ? "" : ", ") + n;
    std::cerr << "coolhand-sim: " << a.skeleton << ": warning: not identifiable: " << names << ": "
              << w.why << "\n";
  }

  std::string header = fmt::format(
      "Fitted by coolhand-sim fit from the skeleton {} and {} data file(s).\n"
      "Held-out rms error per sensor:",
      a.skeleton, fit_data.size());
  for (const auto& e : result.held_out)
    if (e.samples > 0) header += fmt::format(" {} {:.3f} °C", e.name, e.rms_c);
  if (auto err = write_text(model_yaml(result.model, header), a.out); !err.empty())
    throw Failure(err);
  std::cout << "wrote " << a.out << "\n";

  return result.model;
}

int run_fit(const FitArgs& a) {
  const auto started = std::chrono::steady_clock::now();
  const auto skeleton = take(load_skeleton_file(a.skeleton));
  FitDataOptions dopt;
  dopt.step_s = a.step_s;
  if (!std::isnan(a.ambient_c)) dopt.ambient_c = a.ambient_c;
  if (a.data.empty() && a.recordings.empty()) throw Failure("give --data CSV or --recording FILE");
  if (!a.ambient_sensor.empty() && !std::isnan(a.ambient_c))
    throw Failure("give --ambient or --ambient-sensor, not both");
  if (!a.demand.empty() && a.recordings.empty())
    throw Failure("--demand goes with --recording (a CSV has <device>_demand columns)");
  if (!a.ambient_sensor.empty() && a.recordings.empty())
    throw Failure("--ambient-sensor goes with --recording (a CSV has an ambient_c column)");
  std::vector<BrightnessInput> brightness;
  for (const auto& b : a.brightness) {
    const auto eq = b.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == b.size())
      throw Failure("--brightness " + b + ": expected SENSOR=DEVICE");
    brightness.push_back({b.substr(0, eq), b.substr(eq + 1)});
  }
  std::vector<EmaInput> emas;
  emas.reserve(a.ema.size());
  for (const auto& text : a.ema) {
    std::string why;
    const auto e = parse_ema_input(text, why);
    if (!e) throw Failure(why);
    emas.push_back(*e);
  }
  if (!emas.empty() && a.reference_skin.empty())
    throw Failure("--ema goes with --reference-skin (it is an input of the estimator)");
  if (!brightness.empty() && a.reference_skin.empty())
    throw Failure("--brightness goes with --reference-skin (it is an input of the estimator)");
  auto data = load_all(a.data, skeleton.spec, dopt);
  for (auto& seg : load_recordings(a, skeleton.spec, dopt)) data.push_back(std::move(seg));
  // COLUMN or COLUMN=NODE; COLUMN alone names the node `COLUMN` less `_c`.
  std::vector<ReferenceChannel> refs;
  std::vector<std::string> ref_columns;
  for (const auto& r : a.reference_skin) {
    ReferenceChannel ch;
    const auto eq = r.find('=');
    ch.column = r.substr(0, eq);
    ch.node = eq != std::string::npos ? r.substr(eq + 1)
              : ch.column.size() > 2 && ch.column.ends_with("_c")
                  ? ch.column.substr(0, ch.column.size() - 2)
                  : ch.column;
    refs.push_back(ch);
    ref_columns.push_back(ch.column);
  }
  FitSkeleton with_refs = skeleton;
  auto fit_data = data;
  if (!a.hidden_skin)
    if (auto e = add_reference_channels(with_refs, fit_data, refs)) throw Failure(e->to_string());
  if (!a.quiet)
    std::cerr << fmt::format("coolhand-sim: fit: {} free numbers, {} data file(s)\n",
                             skeleton.free.size(), data.size());
  ModelSpec model = skeleton.spec;
  if (!a.skin_only) model = fit_and_report(a, with_refs, fit_data, skeleton.spec.sensors.size());
  std::vector<SkinEstimator> estimators;
  if (!a.reference_skin.empty()) {
    SkinFitOptions sopt;
    sopt.taps = a.taps;
    sopt.tap_period_s = a.tap_period_s;
    sopt.ridge = a.ridge;
    sopt.holdout = a.holdout;
    sopt.hot_c = skeleton.spec.skin_limit_c - 7.0;
    sopt.inputs = a.skin_inputs;
    if (sopt.inputs.empty()) {
      sopt.inputs = default_skin_inputs(skeleton.spec);
      if (!a.quiet) {
        std::string list;
        for (const auto& s : sopt.inputs) list += (list.empty() ? "" : ", ") + s;
        std::cerr << "coolhand-sim: fit: skin estimator inputs (one sensor per node): " << list
                  << "\n";
      }
    }
    sopt.newest_tap_only = newest_tap_only_inputs(skeleton.spec, sopt.inputs, sopt.tap_period_s);
    sopt.newest_tap_only.insert(sopt.newest_tap_only.end(), a.newest_tap_only.begin(),
                                a.newest_tap_only.end());
    std::vector<std::string> lit;
    lit.reserve(brightness.size());
    for (const auto& b : brightness) {
      lit.push_back(b.device);
      sopt.non_negative.push_back(b.sensor);
    }
    std::vector<std::string> read = sopt.inputs;  // an ema reads its input's node
    read.reserve(read.size() + emas.size());
    sopt.newest_tap_only.reserve(sopt.newest_tap_only.size() + emas.size());
    for (const auto& e : emas) {
      read.push_back(e.input);
      sopt.newest_tap_only.push_back(e.name);
    }
    for (const auto& u : unseen_heat(skeleton.spec, read, lit))
      std::cerr << "coolhand-sim: fit: warning: " << unseen_heat_warning(u) << "\n";
    std::vector<std::string> names;
    for (const auto& s : skeleton.spec.sensors) names.push_back(s.name);
    if (auto e = add_brightness(data, model, brightness)) throw Failure(e->to_string());
    if (auto e = add_ema_inputs(data, names, emas)) throw Failure(e->to_string());
    estimators = take(fit_skin(data, ref_columns, names, sopt));
    for (const auto& e : estimators)
      std::cout << fmt::format(
          "  estimator {:<14} rms {:.3f} °C fitted, {:.3f} °C held out (worst {:.3f} °C)\n", e.name,
          e.train.rms_c, e.held_out.rms_c, e.held_out.max_abs_c);
    if (auto err = write_text(skin_yaml(estimators), a.skin_out); !err.empty()) throw Failure(err);
    std::cout << "wrote " << a.skin_out << " (paste under a policy's sensors:)\n";
  }
  for (const auto& v : a.validate)
    validate(v, model, !a.skin_only, estimators, dopt, brightness, emas);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!a.quiet) std::cerr << fmt::format("coolhand-sim: fit: done in {:.1f} s\n", wall);
  return 0;
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto args = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand(
      "fit",
      "learn a device's thermal model from data (CSV: time_s, ambient_c, sensor readings, "
      "device levels and demands; the simulator's trace.csv works; or coolhandd recordings "
      "with --recording) and a skeleton (a model "
      "YAML whose unknown numbers are `free`); with --reference-skin also a virtual skin "
      "sensor (policy fir) for it");
  cmd->add_option("--skeleton,-s", args->skeleton, "skeleton model YAML")->required();
  cmd->add_option("--data,-d", args->data, "data CSV (repeatable: one segment each)");
  cmd->add_option("--recording,-r", args->recordings,
                  "a coolhandd flight recording (.chrec; repeatable: one segment each): sensors "
                  "and devices matched by name, levels from its knob writes");
  cmd->add_option("--demand", args->demand,
                  "the workload CSV that ran during each --recording (repeatable, in the same "
                  "order): its demand and, without --ambient, its ambient_c");
  cmd->add_option("--ambient-sensor", args->ambient_sensor,
                  "a physical sensor of the recordings that reads the ambient");
  cmd->add_option("--out,-o", args->out, "fitted model YAML")->capture_default_str();
  cmd->add_option("--name", args->name, "name of the fitted model (default: the skeleton's)");
  cmd->add_option("--step", args->step_s, "fit step, s (inputs averaged over it)")
      ->capture_default_str();
  cmd->add_option("--holdout", args->holdout,
                  "fraction at the end of each data file kept out of the fit and reported")
      ->capture_default_str();
  cmd->add_option("--ambient", args->ambient_c, "ambient, °C, for data without ambient_c");
  cmd->add_option("--max-iterations", args->max_iterations, "Levenberg-Marquardt iterations")
      ->capture_default_str();
  cmd->add_option("--validate", args->validate,
                  "a trace the fit never saw: report the fitted model's (and estimators') error "
                  "on it (repeatable)");
  cmd->add_option("--reference-skin", args->reference_skin,
                  "COLUMN[=NODE]: a reference skin temperature (a thermocouple on NODE; a "
                  "simulated trace's <node>_c): the model fit uses it as a sensor of NODE, and a "
                  "fir estimator is fitted to it (repeatable)");
  cmd->add_flag("--skin-only", args->skin_only,
                "fit only the skin estimator (the skeleton may be a complete model, e.g. a "
                "fitted one whose simulated traces are the data)");
  cmd->add_flag("--hidden-skin", args->hidden_skin,
                "fit the model without the reference channels (they then only train the "
                "estimator)");
  cmd->add_option("--skin-inputs", args->skin_inputs,
                  "sensors the estimator reads (default: one per node, the finest; a device's "
                  "heat no input sees is warned about)")
      ->delimiter(',');
  cmd->add_option("--brightness", args->brightness,
                  "SENSOR=DEVICE: the estimator input SENSOR (a policy sensor with source "
                  "{kind: backlight}) is model device DEVICE's brightness fraction, from the "
                  "data's levels and demand (repeatable; name SENSOR in --skin-inputs)");
  cmd->add_option("--newest-tap-only", args->newest_tap_only,
                  "estimator inputs fitted on their newest tap only (default: the sensors read "
                  "more than 8 times a tap period, whose older taps the engine cannot hold)")
      ->delimiter(',');
  cmd->add_option("--ema", args->ema,
                  "NAME=INPUT:TAU: the estimator input NAME (a policy sensor of kind ema) is "
                  "the moving average of sensor INPUT over TAU s; fitted on its newest tap "
                  "(repeatable; name it in --skin-inputs)");
  cmd->add_option("--taps", args->taps, "fir taps per input")->capture_default_str();
  cmd->add_option("--tap-period", args->tap_period_s, "fir tap period, s")->capture_default_str();
  cmd->add_option("--ridge", args->ridge, "ridge penalty of the estimator fit")
      ->capture_default_str();
  cmd->add_option("--skin-out", args->skin_out, "estimator YAML snippet")->capture_default_str();
  cmd->add_flag("--quiet,-q", args->quiet, "no progress on stderr");
  run_in_callback(*cmd, "fit: ", [args] { return run_fit(*args); });
}

}  // namespace coolhand::sim
