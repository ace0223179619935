// solve_non_negative (sim/src/fit_nonneg.h): the skin estimator's
// least-squares solve with a brightness's taps held >= 0. Checked against
// the optimality (KKT) conditions and against trying every set of
// coefficients at their bound, on random positive definite problems.
#include "../../sim/src/fit_nonneg.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <random>

namespace coolhand::sim::fit_nonneg_test {
namespace {

struct Problem {
  Eigen::MatrixXd h;
  Eigen::VectorXd g;
  std::vector<bool> non_negative;
};

// H = A'A + 0.1 I from a random tall A; half the coefficients constrained.
Problem random_problem(std::mt19937& rng, Eigen::Index n) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd a(3 * n, n);
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < n; ++j) a(i, j) = normal(rng);
  // Collinear columns, as a fir's neighbouring taps are.
  for (Eigen::Index j = 1; j < n; j += 2) a.col(j) = a.col(j - 1) + 0.05 * a.col(j);
  Problem p;
  p.h = a.transpose() * a + 0.1 * Eigen::MatrixXd::Identity(n, n);
  p.g = Eigen::VectorXd(n);
  for (Eigen::Index j = 0; j < n; ++j) p.g(j) = 3.0 * normal(rng);
  for (Eigen::Index j = 0; j < n; ++j) p.non_negative.push_back(j % 2 == 1);
  return p;
}

double objective(const Problem& p, const Eigen::VectorXd& x) {
  return 0.5 * x.dot(p.h * x) - p.g.dot(x);
}

// The best of every choice of constrained coefficients fixed at 0 (the
// others solved for) that is feasible: the constrained optimum.
double brute_force(const Problem& p) {
  std::vector<std::size_t> c;
  for (std::size_t i = 0; i < p.non_negative.size(); ++i)
    if (p.non_negative[i]) c.push_back(i);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t mask = 0; mask < (std::size_t{1} << c.size()); ++mask) {
    std::vector<Eigen::Index> free;
    for (std::size_t i = 0; i < p.non_negative.size(); ++i) {
      bool fixed = false;
      for (std::size_t k = 0; k < c.size(); ++k) fixed = fixed || (c[k] == i && (mask >> k & 1U));
      if (!fixed) free.push_back(static_cast<Eigen::Index>(i));
    }
    const auto m = static_cast<Eigen::Index>(free.size());
    Eigen::MatrixXd hf(m, m);
    Eigen::VectorXd gf(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      gf(a) = p.g(free[static_cast<std::size_t>(a)]);
      for (Eigen::Index b = 0; b < m; ++b)
        hf(a, b) = p.h(free[static_cast<std::size_t>(a)], free[static_cast<std::size_t>(b)]);
    }
    const Eigen::VectorXd zf = hf.ldlt().solve(gf);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(p.g.size());
    bool feasible = true;
    for (Eigen::Index a = 0; a < m; ++a) {
      const auto i = free[static_cast<std::size_t>(a)];
      x(i) = zf(a);
      feasible = feasible && !(p.non_negative[static_cast<std::size_t>(i)] && x(i) < 0);
    }
    if (feasible) best = std::min(best, objective(p, x));
  }
  return best;
}

TEST(FitNonNegative, MeetsTheOptimalityConditionsAndMatchesEveryActiveSet) {
  std::mt19937 rng(7);
  int bound_somewhere = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Problem p = random_problem(rng, 8);
    const Eigen::VectorXd x = solve_non_negative(p.h, p.g, p.non_negative);
    const Eigen::VectorXd want = p.g - p.h * x;  // minus the gradient
    const double tol = 1e-7 * (1.0 + p.g.cwiseAbs().maxCoeff());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (!p.non_negative[static_cast<std::size_t>(i)] || x(i) > 0) {
        EXPECT_NEAR(want(i), 0.0, tol) << "trial " << trial << " coefficient " << i;
      } else {
        EXPECT_EQ(x(i), 0.0);
        EXPECT_LE(want(i), tol) << "trial " << trial << ": coefficient " << i << " wants to rise";
        ++bound_somewhere;
      }
    }
    EXPECT_NEAR(objective(p, x), brute_force(p), 1e-8 * (1.0 + std::abs(brute_force(p))))
        << "trial " << trial;
  }
  // The cases exercise the bounds, not only interior optima.
  EXPECT_GT(bound_somewhere, 200);
}

TEST(FitNonNegative, WithNothingConstrainedItIsTheLeastSquaresSolve) {
  std::mt19937 rng(11);
  Problem p = random_problem(rng, 6);
  p.non_negative.assign(6, false);
  const Eigen::VectorXd x = solve_non_negative(p.h, p.g, p.non_negative);
  const Eigen::VectorXd ls = p.h.ldlt().solve(p.g);
  EXPECT_LT((x - ls).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT(ls.minCoeff(), 0.0);  // so a bound, had it applied, would show
}

}  // namespace
}  // namespace coolhand::sim::fit_nonneg_test
