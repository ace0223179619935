// The bound's coarse LP over decision steps (bound.h), solved with GLPK.
#pragma once

#include <glpk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bound_linear.h"

namespace coolhand::sim::detail {

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// The coarse LP (bound.h). Columns (1-based, GLPK's convention): x[b][d][l]
// first, then the node temperatures at the start of decision steps 1..B-1.
// Rows: per decision step b < B-1 the n dynamics equalities giving the
// temperatures at the start of b+1; per b and device, sum_l x = 1.
class CoarseLp {
 public:
  CoarseLp(const Linear& lin, const Inputs& in, std::uint64_t per_decision, double limit_c);

  [[nodiscard]] std::uint64_t blocks() const { return blocks_; }
  [[nodiscard]] std::uint64_t columns() const { return x_cols_ + (blocks_ - 1) * lin_.n; }
  [[nodiscard]] std::uint64_t rows() const {
    return static_cast<std::uint64_t>(glp_get_num_rows(prob_.get()));
  }

  // Empty on success, else why the solver stopped. The first solve
  // presolves; later ones (after the objective or the floor changed) start
  // from the last optimal basis.
  std::string solve(const std::function<void(std::string_view)>& progress);

  // For the fan bound's boxes (bound_fan_tight.cpp): a row "performance >=
  // floor" (metric units; added once, then moved), and the objective set to
  // minimise node i's temperature at the start of decision step b >= 1
  // instead of maximising performance (restore_performance undoes it).
  void set_performance_floor(double floor);
  void minimise_node(std::uint64_t b, std::size_t i);
  void restore_performance();
  // After minimise_node: the multiplier (>= 0, °C per °C) of "skin node s
  // <= limit" at decision step b, and that of the performance floor (°C
  // per unit of the metric), both for the unscaled objective -T_i.
  [[nodiscard]] double node_skin_multiplier(std::uint64_t b, std::size_t s) const {
    return std::max(0.0, glp_get_col_dual(prob_.get(), t_col(b, s)));
  }
  [[nodiscard]] double node_floor_multiplier() const {
    return std::max(0.0, -glp_get_row_dual(prob_.get(), floor_row_)) * scale_obj();
  }
  // The decision step's temperature of node i in the last solution, °C.
  [[nodiscard]] double node_value(std::uint64_t b, std::size_t i) const {
    return glp_get_col_prim(prob_.get(), t_col(b, i));
  }

  [[nodiscard]] double objective() const { return glp_get_obj_val(prob_.get()) / scale_obj(); }
  // Multiplier of "skin node s <= limit" at the start of decision step b (s a
  // node index, one of Linear::skin).
  [[nodiscard]] double skin_multiplier(std::uint64_t b, std::size_t s) const {
    return std::max(0.0, glp_get_col_dual(prob_.get(), t_col(b, s))) / scale_obj();
  }
  // The schedule's power at full demand for device d in decision step b, W.
  [[nodiscard]] double scheduled_power(std::size_t d, std::uint64_t b) const {
    double p = 0;
    for (std::size_t l = 0; l < lin_.power_w[d].size(); ++l)
      p += glp_get_col_prim(prob_.get(), x_col(b, d, l)) * lin_.power_w[d][l];
    return p;
  }
  // The same fractions' performance.
  [[nodiscard]] double scheduled_performance(std::size_t d, std::uint64_t b) const {
    double p = 0;
    for (std::size_t l = 0; l < lin_.performance[d].size(); ++l)
      p += glp_get_col_prim(prob_.get(), x_col(b, d, l)) * lin_.performance[d][l];
    return p;
  }

 private:
  const Linear& lin_;
  const Inputs& in_;
  std::uint64_t m_;
  std::unique_ptr<glp_prob, ProbDeleter> prob_;
  std::uint64_t blocks_ = 0;
  std::uint64_t levels_per_block_ = 0;
  std::uint64_t x_cols_ = 0;
  bool solved_ = false;
  int floor_row_ = 0;              // 0: no floor row yet
  std::vector<double> perf_coef_;  // the x columns' objective coefficients
  int node_col_ = 0;               // minimise_node's column, 0 when none
  // The objective is the performance metric times the number of decision
  // steps, so its coefficients are near 1: as the metric itself they were
  // 1e-4..1e-6, and GLPK (1e-7 reduced-cost tolerance after scaling)
  // stopped short of the optimum (0.90 where 1.0 is feasible, on a 60 s
  // workload at 200 ms decision steps; BoundTest.NothingBinding...).
  double scale_ = 0;  // decision steps / total weighted demand
  [[nodiscard]] double scale_obj() const { return static_cast<double>(blocks_); }

  [[nodiscard]] int x_col(std::uint64_t b, std::size_t d, std::size_t l) const {
    std::uint64_t c = b * levels_per_block_;
    for (std::size_t e = 0; e < d; ++e) c += lin_.power_w[e].size();
    return static_cast<int>(c + l + 1);
  }
  [[nodiscard]] int t_col(std::uint64_t b, std::size_t i) const {
    return static_cast<int>(x_cols_ + (b - 1) * lin_.n + i + 1);
  }

  void build();
};

}  // namespace coolhand::sim::detail
