// Lawson-Hanson on the normal equations (fit_nonneg.h). The passive set P
// holds the unconstrained coefficients and the constrained ones currently
// free; the others are 0. Each outer step frees the constrained
// coefficient whose gradient most wants it positive; the inner loop solves
// on P and, where that would take a constrained coefficient to 0 or below,
// moves only as far as the first bound and fixes the coefficients there.
#include "fit_nonneg.h"

#include <algorithm>
#include <cstddef>

namespace coolhand::sim {

namespace {

// The solution of H_PP z_P = g_P, 0 elsewhere.
Eigen::VectorXd solve_on(const Eigen::MatrixXd& h, const Eigen::VectorXd& g,
                         const std::vector<bool>& passive) {
  std::vector<Eigen::Index> p;
  for (Eigen::Index i = 0; i < g.size(); ++i)
    if (passive[static_cast<std::size_t>(i)]) p.push_back(i);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(g.size());
  if (p.empty()) return z;
  const auto n = static_cast<Eigen::Index>(p.size());
  Eigen::MatrixXd hp(n, n);
  Eigen::VectorXd gp(n);
  for (Eigen::Index a = 0; a < n; ++a) {
    gp(a) = g(p[static_cast<std::size_t>(a)]);
    for (Eigen::Index b = 0; b < n; ++b)
      hp(a, b) = h(p[static_cast<std::size_t>(a)], p[static_cast<std::size_t>(b)]);
  }
  const Eigen::VectorXd zp = hp.ldlt().solve(gp);
  for (Eigen::Index a = 0; a < n; ++a) z(p[static_cast<std::size_t>(a)]) = zp(a);
  return z;
}

}  // namespace

Eigen::VectorXd solve_non_negative(const Eigen::MatrixXd& h, const Eigen::VectorXd& g,
                                   const std::vector<bool>& non_negative) {
  const auto n = static_cast<std::size_t>(g.size());
  std::vector<bool> passive(n);
  std::vector<bool> stuck(n, false);  // freed, and at once fixed again
  for (std::size_t i = 0; i < n; ++i) passive[i] = !non_negative[i];
  // Every constrained coefficient at 0: feasible.
  Eigen::VectorXd x = solve_on(h, g, passive);
  const double tol = 1e-10 * (1.0 + g.cwiseAbs().maxCoeff());
  // Each outer step frees one coefficient; a coefficient fixed again costs
  // an inner step. The cap only guards against rounding cycling.
  for (std::size_t outer = 0; outer < 4 * n + 4; ++outer) {
    const Eigen::VectorXd want = g - h * x;  // minus the gradient
    std::ptrdiff_t best = -1;
    for (std::size_t i = 0; i < n; ++i) {
      if (passive[i] || stuck[i] || want(static_cast<Eigen::Index>(i)) <= tol) continue;
      if (best < 0 || want(static_cast<Eigen::Index>(i)) > want(best))
        best = static_cast<std::ptrdiff_t>(i);
    }
    if (best < 0) break;  // KKT: no fixed coefficient wants to rise
    passive[static_cast<std::size_t>(best)] = true;
    for (std::size_t inner = 0; inner <= n; ++inner) {
      const Eigen::VectorXd z = solve_on(h, g, passive);
      double alpha = 1.0;
      for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<Eigen::Index>(i);
        if (!passive[i] || !non_negative[i] || z(k) > 0) continue;
        const double d = x(k) - z(k);
        alpha = std::min(alpha, d > 0 ? x(k) / d : 0.0);
      }
      x += alpha * (z - x);
      if (alpha >= 1.0) break;
      for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<Eigen::Index>(i);
        if (passive[i] && non_negative[i] && x(k) <= 0) {
          passive[i] = false;
          x(k) = 0;
        }
      }
    }
    // In exact arithmetic the freed coefficient rises; if rounding fixed
    // it again, freeing it once more would only repeat this step.
    if (!passive[static_cast<std::size_t>(best)]) stuck[static_cast<std::size_t>(best)] = true;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (non_negative[i] && x(static_cast<Eigen::Index>(i)) < 0) x(static_cast<Eigen::Index>(i)) = 0;
  return x;
}

}  // namespace coolhand::sim
