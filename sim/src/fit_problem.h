// The fit's simulation (internal to fit_model.cpp and fit_identify.cpp):
// a ModelSpec with some numbers replaced by parameters, simulated open loop
// on a FitSegment's inputs, giving the sensor predictions the fit compares
// with the readings.
//
// State: every node's temperature, then one state per sensor with a lag
// (its first-order filter of its node). Inputs per interval: node powers
// and the ambient. Discretised exactly for inputs held over the fit step
// (Van Loan, as the simulator's own model), so a prediction differs from the
// simulator's only by what the fit step averages (inputs that change within
// an interval) and what the fit leaves out (sensor noise and quantisation).
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <vector>

#include "coolhand/sim/fit.h"

namespace coolhand::sim::detail {

class FitProblem {
 public:
  FitProblem(const FitSkeleton& skeleton, const std::vector<FitSegment>& data, double holdout);

  // Parameter vector: the log of each free number (they are all > 0), then
  // the start temperature (°C) of every node no sensor reads, per segment.
  [[nodiscard]] std::size_t size() const { return model_params_ + hidden_starts_; }
  [[nodiscard]] std::size_t model_params() const { return model_params_; }
  [[nodiscard]] Eigen::VectorXd initial_guess() const;

  // The spec with the parameters' values in it.
  [[nodiscard]] ModelSpec apply(const Eigen::VectorXd& theta) const;

  // Residuals on the fitted part of every segment: sensor prediction minus
  // reading (°C) for every reading, then measured powers (W); with a prior
  // set, then prior_weight x (theta - prior) for each model parameter.
  [[nodiscard]] Eigen::VectorXd residuals(const Eigen::VectorXd& theta) const;
  // A weak pull of the model parameters towards `prior` (log units), so
  // that numbers the data do not determine stay where they started instead
  // of drifting along with noise. fit_model.cpp says how strong.
  void set_prior(const Eigen::VectorXd& prior, double weight) {
    prior_ = prior.head(static_cast<Eigen::Index>(model_params_));
    prior_weight_ = weight;
  }

  // Per sensor: rms and worst error on the fitted and on the held-out part.
  void errors(const Eigen::VectorXd& theta, std::vector<SensorError>& train,
              std::vector<SensorError>& held_out) const;

  // Open-loop node temperatures of `spec` on `segment`, [node][k]. A node a
  // sensor reads starts at its first reading; any other at its initial_c,
  // else at the mean of every sensor's first reading.
  static std::vector<std::vector<double>> simulate_nodes(const ModelSpec& spec,
                                                         const FitSegment& segment);

 private:
  void run(const ModelSpec& spec, std::size_t seg, const double* hidden_start,
           std::vector<std::vector<double>>& sensor_pred,
           std::vector<std::vector<double>>& device_power) const;

  const FitSkeleton& skeleton_;
  const std::vector<FitSegment>& data_;
  std::vector<std::size_t> train_end_;  // per segment: first held-out grid index
  std::vector<std::size_t> hidden_;     // nodes no sensor reads
  std::size_t model_params_ = 0;
  std::size_t hidden_starts_ = 0;
  Eigen::VectorXd prior_;
  double prior_weight_ = 0;
};

}  // namespace coolhand::sim::detail
