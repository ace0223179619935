// The virtual skin estimator's fit (fit.h: fit_skin): a policy `fir` sensor
// over the device's own sensors, fitted to a reference skin channel (a
// thermocouple on the cover, or a simulated trace's true skin node) the way
// a vendor characterises a virtual skin sensor.
//
// Method: linear least squares with a ridge penalty. Features are each
// input at now, now - tap_period, ..., now - (taps - 1) tap_period (the
// engine's fir taps, inputs held between samples; before the recording
// starts, its first reading), plus a constant; an input in newest_tap_only
// (a fast sensor, an ema: sim/src/fit_skin_inputs.h) at now alone, its
// other taps written as 0. Samples whose reference is
// above hot_c count hot_weight times, since that is where the estimate
// decides anything. The ridge penalty λ (not on the constant) keeps the
// many correlated taps from amplifying sensor noise. The taps of a
// non_negative input (a brightness) are held >= 0 (fit_nonneg.h). Every
// segment's first (1 - holdout) part is fitted; the rest is reported.
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "coolhand/sim/fit.h"
#include "fit_nonneg.h"

namespace coolhand::sim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An error about `what`: a data file (its segment's name), an option as
// given ("--taps 0") or the estimator of a reference; never an empty
// subject, which ConfigError::to_string would print as a bare ": ".
config::ConfigError err(std::string what, std::string msg) {
  if (what.empty()) what = "fit data";  // a segment made without a name
  return config::ConfigError{std::move(what), 0, 0, {}, std::move(msg)};
}

std::optional<std::size_t> index_of(const std::vector<std::string>& names,
                                    const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  return std::nullopt;
}

// A reading series as the engine's fir sees it: each reading held until the
// next (a recording's failed reads and lost sensors leave gaps), the gap before the first
// sample filled by it.
std::vector<double> filled(const std::vector<double>& v) {
  std::vector<double> out = v;
  double first = kNaN;
  for (double x : v)
    if (!std::isnan(x)) {
      first = x;
      break;
    }
  double held = first;
  for (auto& x : out) {
    if (std::isnan(x))
      x = held;
    else
      held = x;
  }
  return out;
}

// The series of estimator input `name`: a sensor's readings, else an
// extra column (a brightness, add_brightness); null when neither.
const std::vector<double>* input_series(const FitSegment& seg,
                                        const std::vector<std::string>& sensor_names,
                                        const std::string& name) {
  if (const auto i = index_of(sensor_names, name); i && *i < seg.reading_c.size())
    return &seg.reading_c[*i];
  if (const auto x = index_of(seg.extra_names, name)) return &seg.extra_c[*x];
  return nullptr;
}

std::size_t tap_shift(double tap_period_s, double step_s) {
  return static_cast<std::size_t>(std::lround(tap_period_s / step_s));
}

// Feature row of grid index k: input i at tap m, then 1.
void features(const std::vector<std::vector<double>>& inputs, std::size_t k, std::size_t shift,
              int taps, Eigen::VectorXd& row) {
  Eigen::Index c = 0;
  for (const auto& x : inputs)
    for (int m = 0; m < taps; ++m) {
      const std::size_t back = static_cast<std::size_t>(m) * shift;
      row(c++) = x[k >= back ? k - back : 0];
    }
  row(c) = 1.0;
}

SensorError error_of(const std::string& name, const std::vector<double>& e) {
  SensorError s;
  s.name = name;
  double sum2 = 0;
  for (double x : e) {
    sum2 += x * x;
    s.max_abs_c = std::max(s.max_abs_c, std::abs(x));
  }
  s.samples = e.size();
  s.rms_c = e.empty() ? 0.0 : std::sqrt(sum2 / static_cast<double>(e.size()));
  return s;
}

double rounded(double v, double scale) {
  return std::round(v * scale) / scale;
}

std::size_t train_end(const FitSegment& seg, double holdout) {
  const auto n = seg.time_s.size();
  return std::min(n, static_cast<std::size_t>(std::floor(static_cast<double>(n) * (1 - holdout))));
}

}  // namespace

std::vector<double> evaluate_skin(const SkinEstimator& est, const FitSegment& segment,
                                  const std::vector<std::string>& sensor_names) {
  std::vector<std::vector<double>> inputs;
  for (const auto& name : est.inputs) {
    const auto* series = input_series(segment, sensor_names, name);
    if (!series) return std::vector<double>(segment.time_s.size(), kNaN);
    inputs.push_back(filled(*series));
  }
  const auto taps = static_cast<int>(est.weights.empty() ? 0 : est.weights.front().size());
  const auto shift = tap_shift(est.tap_period_s, segment.step_s);
  Eigen::VectorXd w(static_cast<Eigen::Index>(inputs.size()) * taps + 1);
  Eigen::Index c = 0;
  for (const auto& row : est.weights)
    for (double x : row) w(c++) = x;
  w(c) = est.offset_c;
  std::vector<double> out(segment.time_s.size());
  Eigen::VectorXd f(w.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    features(inputs, k, shift, taps, f);
    out[k] = f.dot(w);
  }
  return out;
}

std::variant<std::vector<SkinEstimator>, config::ConfigError> fit_skin(
    const std::vector<FitSegment>& data, const std::vector<std::string>& references,
    const std::vector<std::string>& sensor_names, const SkinFitOptions& options) {
  if (data.empty()) return err("skin estimator", "no data to fit");
  if (options.taps < 1 || options.taps > 1024)
    return err(fmt::format("--taps {}", options.taps), "expected 1 to 1024");
  const double step = data.front().step_s;
  const auto shift = tap_shift(options.tap_period_s, step);
  if (shift < 1 || std::abs(static_cast<double>(shift) * step - options.tap_period_s) > 1e-9)
    return err(fmt::format("--tap-period {}", options.tap_period_s),
               fmt::format("must be a whole multiple of the fit step, {} s", step));
  if (options.inputs.empty())
    return err("skin estimator", "no input sensor (give --skin-inputs, or a model with sensors)");
  for (const auto& name : options.inputs)
    for (const auto& seg : data)
      if (!input_series(seg, sensor_names, name))
        return err(seg.name, "skin input '" + name +
                                 "' is neither a sensor of the skeleton nor a brightness "
                                 "(--brightness)");
  // The fitted coefficients: every input's taps, but only the newest of a
  // newest_tap_only input, then the offset.
  const auto n_all = static_cast<Eigen::Index>(options.inputs.size()) * options.taps + 1;
  std::vector<Eigen::Index> active;
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    const bool newest_only = index_of(options.newest_tap_only, options.inputs[i]).has_value();
    for (int m = 0; m < (newest_only ? 1 : options.taps); ++m)
      active.push_back(static_cast<Eigen::Index>(i) * options.taps + m);
  }
  active.push_back(n_all - 1);
  const auto nf = static_cast<Eigen::Index>(active.size());
  // The fitted coefficients held >= 0: every tap of a non_negative input.
  std::vector<bool> non_negative(active.size(), false);
  for (std::size_t c = 0; c + 1 < active.size(); ++c) {
    const auto input = static_cast<std::size_t>(active[c] / options.taps);
    non_negative[c] = index_of(options.non_negative, options.inputs[input]).has_value();
  }
  std::vector<SkinEstimator> out;
  for (const auto& ref : references) {
    Eigen::MatrixXd ata = Eigen::MatrixXd::Zero(nf, nf);
    Eigen::VectorXd aty = Eigen::VectorXd::Zero(nf);
    Eigen::VectorXd all(n_all);
    Eigen::VectorXd f(nf);
    std::size_t rows = 0;
    for (const auto& seg : data) {
      const auto r = index_of(seg.extra_names, ref);
      if (!r)
        return err(seg.name, "no column '" + ref +
                                 "' for the reference skin (the columns no sensor or device "
                                 "uses are the candidates)");
      std::vector<std::vector<double>> inputs;
      inputs.reserve(options.inputs.size());
      for (const auto& name : options.inputs)
        inputs.push_back(filled(*input_series(seg, sensor_names, name)));
      const auto end = train_end(seg, options.holdout);
      for (std::size_t k = 0; k < end; ++k) {
        const double y = seg.extra_c[*r][k];
        if (std::isnan(y)) continue;  // a recording's reference has gaps
        const double w = y > options.hot_c ? options.hot_weight : 1.0;
        features(inputs, k, shift, options.taps, all);
        for (Eigen::Index c = 0; c < nf; ++c) f(c) = all(active[static_cast<std::size_t>(c)]);
        ata.noalias() += (w * w) * f * f.transpose();
        aty += (w * w * y) * f;
        ++rows;
      }
    }
    if (rows <= static_cast<std::size_t>(nf))
      return err(fmt::format("skin estimator of '{}'", ref),
                 fmt::format("{} samples for {} coefficients: record longer", rows, nf));
    for (Eigen::Index c = 0; c + 1 < nf; ++c) ata(c, c) += options.ridge;
    const Eigen::VectorXd fitted = solve_non_negative(ata, aty, non_negative);
    Eigen::VectorXd w = Eigen::VectorXd::Zero(n_all);
    for (Eigen::Index c = 0; c < nf; ++c) w(active[static_cast<std::size_t>(c)]) = fitted(c);
    SkinEstimator est;
    est.reference = ref;
    std::string base = ref;
    if (base.size() > 2 && base.substr(base.size() - 2) == "_c") base.resize(base.size() - 2);
    est.name = base + "_fir";
    est.inputs = options.inputs;
    est.tap_period_s = options.tap_period_s;
    Eigen::Index c = 0;
    for (std::size_t i = 0; i < options.inputs.size(); ++i) {
      est.weights.emplace_back();
      for (int m = 0; m < options.taps; ++m) est.weights.back().push_back(rounded(w(c++), 1e6));
    }
    // The errors reported are those of the numbers skin_yaml writes.
    est.offset_c = rounded(w(c), 1e4);
    std::vector<double> e_train, e_held;
    for (const auto& seg : data) {
      const auto r = *index_of(seg.extra_names, ref);
      const auto v = evaluate_skin(est, seg, sensor_names);
      const auto end = train_end(seg, options.holdout);
      for (std::size_t k = 0; k < v.size(); ++k)
        if (!std::isnan(seg.extra_c[r][k]))
          (k < end ? e_train : e_held).push_back(v[k] - seg.extra_c[r][k]);
    }
    est.train = error_of(est.name, e_train);
    est.held_out = error_of(est.name, e_held);
    out.push_back(std::move(est));
  }
  return out;
}

std::optional<config::ConfigError> add_brightness(std::vector<FitSegment>& data,
                                                  const ModelSpec& model,
                                                  const std::vector<BrightnessInput>& inputs) {
  for (const auto& in : inputs) {
    const std::optional<std::size_t> dev = device_index(model, in.device);
    if (!dev)
      return err("--brightness " + in.sensor + "=" + in.device,
                 "the model has no device '" + in.device + "'");
    const DeviceModelSpec& device = model.devices[*dev];
    for (auto& seg : data) {
      if (*dev >= seg.load.size()) return err(seg.name, "no levels for device " + in.device);
      // load[l][k] is the interval mean of demand while at level l, and
      // the brightness is linear in demand at each level.
      std::vector<double> b(seg.time_s.size(), 0.0);
      const auto& load = seg.load[*dev];
      for (std::size_t l = 0; l < load.size(); ++l)
        for (std::size_t k = 0; k < b.size() && k < load[l].size(); ++k)
          b[k] += device.brightness(static_cast<std::uint32_t>(l), load[l][k]);
      if (const auto x = index_of(seg.extra_names, in.sensor)) {
        seg.extra_c[*x] = std::move(b);
      } else {
        seg.extra_names.push_back(in.sensor);
        seg.extra_c.push_back(std::move(b));
      }
    }
  }
  return std::nullopt;
}

std::string skin_yaml(const std::vector<SkinEstimator>& estimators) {
  std::string out;
  for (const auto& e : estimators) {
    out += fmt::format(
        "  # Fitted by coolhand-sim fit against '{}': rms {:.3f} °C on the fitted "
        "part, {:.3f} °C held out.\n",
        e.reference, e.train.rms_c, e.held_out.rms_c);
    out += fmt::format("  {}:\n    kind: fir\n    inputs: [", e.name);
    for (std::size_t i = 0; i < e.inputs.size(); ++i) out += (i ? ", " : "") + e.inputs[i];
    out += "]\n    weights:\n";
    for (std::size_t i = 0; i < e.weights.size(); ++i) {
      out += "      - [";
      for (std::size_t m = 0; m < e.weights[i].size(); ++m)
        out += fmt::format("{}{:.6f}", m ? ", " : "", e.weights[i][m]);
      out += "]  # " + e.inputs[i] + "\n";
    }
    const auto ms = std::lround(e.tap_period_s * 1000.0);
    out += ms % 1000 == 0 ? fmt::format("    tap_period: {}s\n", ms / 1000)
                          : fmt::format("    tap_period: {}ms\n", ms);
    out += fmt::format("    offset_c: {:.4f}\n", e.offset_c);
  }
  return out;
}

}  // namespace coolhand::sim
