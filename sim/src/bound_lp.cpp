// The bound's coarse LP; see bound_lp.h and bound.h.
#include "bound_lp.h"

#include <cmath>

namespace coolhand::sim::detail {

namespace {

// GLPK's terminal output, forwarded line by line to BoundOptions::progress.
struct TermForward {
  const std::function<void(std::string_view)>* sink;
  std::string line;
  static int hook(void* info, const char* s) {
    auto* self = static_cast<TermForward*>(info);
    if (!*self->sink) return 1;  // no progress wanted: print nothing
    for (; *s; ++s) {
      if (*s != '\n') {
        self->line += *s;
        continue;
      }
      (*self->sink)("glpk: " + self->line);
      self->line.clear();
    }
    return 1;  // consumed: GLPK prints nothing itself
  }
};

}  // namespace

CoarseLp::CoarseLp(const Linear& lin, const Inputs& in, std::uint64_t per_decision, double limit_c)
    : lin_(lin), in_(in), m_(per_decision), prob_(glp_create_prob()) {
  blocks_ = (in.steps + m_ - 1) / m_;
  scale_ = static_cast<double>(blocks_) / in.total_weighted_demand;
  for (const auto& levels : lin.power_w) levels_per_block_ += levels.size();
  x_cols_ = blocks_ * levels_per_block_;
  glp_set_obj_dir(prob_.get(), GLP_MAX);
  glp_add_cols(prob_.get(), static_cast<int>(x_cols_ + (blocks_ - 1) * lin.n));
  for (std::uint64_t c = 1; c <= x_cols_; ++c)
    glp_set_col_bnds(prob_.get(), static_cast<int>(c), GLP_DB, 0.0, 1.0);
  for (std::uint64_t b = 1; b < blocks_; ++b)
    for (std::size_t i = 0; i < lin.n; ++i)
      glp_set_col_bnds(prob_.get(), t_col(b, i), GLP_FR, 0.0, 0.0);
  for (std::uint64_t b = 1; b < blocks_; ++b)
    for (const auto s : lin.skin) glp_set_col_bnds(prob_.get(), t_col(b, s), GLP_UP, 0.0, limit_c);
  if (lin.held_fan)  // its level is the schedule's (held at decision-step starts)
    for (std::uint64_t b = 0; b < blocks_; ++b)
      for (std::size_t l = 0; l < lin.power_w[*lin.held_fan].size(); ++l) {
        const double x = l == in.held[b * m_] ? 1.0 : 0.0;
        glp_set_col_bnds(prob_.get(), x_col(b, *lin.held_fan, l), GLP_FX, x, x);
      }
  build();
}

std::string CoarseLp::solve(const std::function<void(std::string_view)>& progress) {
  TermForward forward_to{&progress, {}};
  glp_term_hook(&TermForward::hook, &forward_to);
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = progress ? GLP_MSG_ON : GLP_MSG_OFF;
  parm.presolve = solved_ ? GLP_OFF : GLP_ON;
  parm.out_frq = 5000;  // ms between iteration lines
  int rc = glp_simplex(prob_.get(), &parm);
  if (rc != 0 && solved_) {  // the warm start failed: from scratch
    parm.presolve = GLP_ON;
    rc = glp_simplex(prob_.get(), &parm);
  }
  glp_term_hook(nullptr, nullptr);
  if (rc != 0) return "GLPK simplex failed (glp_simplex returned " + std::to_string(rc) + ")";
  if (glp_get_status(prob_.get()) != GLP_OPT)
    return "GLPK found no optimum (status " + std::to_string(glp_get_status(prob_.get())) + ")";
  solved_ = true;
  return {};
}

void CoarseLp::set_performance_floor(double floor) {
  if (floor_row_ == 0) {
    perf_coef_.resize(x_cols_ + 1);
    std::vector<int> ind{0};
    std::vector<double> val{0.0};
    for (std::uint64_t c = 1; c <= x_cols_; ++c) {
      perf_coef_[c] = glp_get_obj_coef(prob_.get(), static_cast<int>(c));
      if (perf_coef_[c] == 0.0) continue;
      ind.push_back(static_cast<int>(c));
      val.push_back(perf_coef_[c]);
    }
    floor_row_ = glp_add_rows(prob_.get(), 1);
    glp_set_mat_row(prob_.get(), floor_row_, static_cast<int>(ind.size() - 1), ind.data(),
                    val.data());
  }
  glp_set_row_bnds(prob_.get(), floor_row_, GLP_LO, floor * scale_obj(), 0.0);
}

void CoarseLp::minimise_node(std::uint64_t b, std::size_t i) {
  if (perf_coef_.empty()) set_performance_floor(-1e9);  // saves the coefficients
  for (std::uint64_t c = 1; c <= x_cols_; ++c)
    glp_set_obj_coef(prob_.get(), static_cast<int>(c), 0.0);
  if (node_col_ != 0) glp_set_obj_coef(prob_.get(), node_col_, 0.0);
  node_col_ = t_col(b, i);
  glp_set_obj_coef(prob_.get(), node_col_, -1.0);
}

void CoarseLp::restore_performance() {
  if (node_col_ != 0) glp_set_obj_coef(prob_.get(), node_col_, 0.0);
  node_col_ = 0;
  for (std::uint64_t c = 1; c < perf_coef_.size(); ++c)
    glp_set_obj_coef(prob_.get(), static_cast<int>(c), perf_coef_[c]);
}

void CoarseLp::build() {
  const auto n = static_cast<Eigen::Index>(lin_.n);
  const std::size_t nd = lin_.devices;
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  const auto add = [&](int row, int col, double v) {
    if (std::abs(v) < 1e-12) return;  // below the solver's tolerances
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  Eigen::MatrixXd ad_block = Eigen::MatrixXd::Identity(n, n);
  std::uint64_t ad_block_len = 0;
  std::size_t ad_block_dyn = 0;
  std::size_t seg = 0;
  std::size_t credit_cursor = 0;
  for (std::uint64_t b = 0; b < blocks_; ++b) {
    const std::uint64_t first = b * m_;
    const std::uint64_t end = std::min(in_.steps, first + m_);
    // Over the block: c = response to idle power and ambient from zero,
    // g[:, d] = response to one watt of device d at full demand.
    Eigen::VectorXd c = Eigen::VectorXd::Zero(n);
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(nd));
    std::vector<double> demand_sum(nd, 0.0);
    // A held fan's level is the same over a block (held from decision-step starts).
    const Dynamics& dyn = lin_.dyn[in_.dyn(first)];
    for (std::uint64_t k = first; k < end; ++k) {
      while (seg + 1 < in_.first.size() && in_.first[seg + 1] <= k) ++seg;
      c = dyn.ad * c + dyn.idle_in + dyn.ba * in_.ambient_c[seg];
      in_.fan_credit.subtract(k, credit_cursor, c.data());
      g = dyn.ad * g;
      for (std::size_t d = 0; d < nd; ++d) {
        const double u = in_.demand[seg * nd + d];
        g.col(static_cast<Eigen::Index>(d)) += u * dyn.h.col(static_cast<Eigen::Index>(d));
        demand_sum[d] += u;
      }
    }
    for (std::size_t d = 0; d < nd; ++d)
      for (std::size_t l = 0; l < lin_.power_w[d].size(); ++l)
        glp_set_obj_coef(prob_.get(), x_col(b, d, l),
                         in_.weight[d] * demand_sum[d] * lin_.performance[d][l] * scale_);
    const int sum_rows = glp_add_rows(prob_.get(), static_cast<int>(nd));
    for (std::size_t d = 0; d < nd; ++d) {
      const int row = sum_rows + static_cast<int>(d);
      glp_set_row_bnds(prob_.get(), row, GLP_FX, 1.0, 1.0);
      for (std::size_t l = 0; l < lin_.power_w[d].size(); ++l) add(row, x_col(b, d, l), 1.0);
    }
    if (b + 1 == blocks_) break;  // the state after the last block is not checked
    if (ad_block_len != end - first || ad_block_dyn != in_.dyn(first)) {
      ad_block = Eigen::MatrixXd::Identity(n, n);
      for (std::uint64_t k = first; k < end; ++k) ad_block = dyn.ad * ad_block;
      ad_block_len = end - first;
      ad_block_dyn = in_.dyn(first);
    }
    // T[b+1] - ad_block T[b] - sum g p x = c (+ ad_block T0 when b = 0).
    const Eigen::VectorXd rhs = b == 0 ? Eigen::VectorXd(c + ad_block * lin_.t0) : c;
    const int dyn_rows = glp_add_rows(prob_.get(), static_cast<int>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      const int row = dyn_rows + static_cast<int>(i);
      glp_set_row_bnds(prob_.get(), row, GLP_FX, rhs(i), rhs(i));
      add(row, t_col(b + 1, static_cast<std::size_t>(i)), 1.0);
      if (b > 0)
        for (Eigen::Index j = 0; j < n; ++j)
          add(row, t_col(b, static_cast<std::size_t>(j)), -ad_block(i, j));
      for (std::size_t d = 0; d < nd; ++d)
        for (std::size_t l = 0; l < lin_.power_w[d].size(); ++l)
          add(row, x_col(b, d, l), -g(i, static_cast<Eigen::Index>(d)) * lin_.power_w[d][l]);
    }
  }
  glp_load_matrix(prob_.get(), static_cast<int>(ia.size() - 1), ia.data(), ja.data(), ar.data());
}

}  // namespace coolhand::sim::detail
