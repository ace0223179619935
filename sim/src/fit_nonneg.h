// A least-squares solve with some coefficients held non-negative, for the
// skin estimator's fit (fit_skin.cpp): a backlight's taps. A screen only
// heats the glass, so an estimate must not fall when the backlight
// brightens; unconstrained, collinear taps can (docs/simulator.md, "A
// brightness input's taps are non-negative").
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace coolhand::sim {

// Minimises 1/2 x'Hx - g'x over x with x_i >= 0 wherever non_negative[i]
// (H symmetric positive definite, as a ridge-penalised A'A is): the
// Lawson-Hanson active-set method on the normal equations. With no
// coefficient constrained it is H's LDLT solve. Coefficients that end at
// a bound are exactly 0.
[[nodiscard]] Eigen::VectorXd solve_non_negative(const Eigen::MatrixXd& h, const Eigen::VectorXd& g,
                                                 const std::vector<bool>& non_negative);

}  // namespace coolhand::sim
