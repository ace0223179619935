// The offline-optimal throttle schedule as a linear programme (see bound.h
// for the formulation and what is guaranteed). Steps:
//   1. replay the workload as the runner applies it, one segment per row;
//   2. the lowest peak skin: every device at its lowest power, forward;
//   3. the coarse LP over decision steps, solved with GLPK's simplex;
//   4. the fine LP's Lagrangian dual value at the coarse skin multipliers,
//      one backward (adjoint) pass over every model step: the bound;
//   5. the coarse schedule replayed at every model step: its peak skin.
#include "coolhand/sim/bound.h"

#include <fmt/format.h>
#include <glpk.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "bound_fan.h"

namespace coolhand::sim {

namespace {

// The model's exact step, split by input: T' = ad T + idle_in + ba * ambient
// + sum_d h[:, d] * demand_d * p_d, with p_d the device's power at full
// demand (W) at its level, or the mix of levels the schedule gives it.
struct Dynamics {
  Eigen::MatrixXd ad;
  Eigen::VectorXd ba;
  Eigen::MatrixXd h;  // n x devices: one watt of the device, spread by its shares
  Eigen::VectorXd idle_in;
};

// The model's step per fan level held (BoundOptions::fan_schedule), or its
// one step (no fan held); Inputs::held says which applies at each step.
struct Linear {
  std::size_t n = 0;
  std::size_t devices = 0;
  std::vector<Dynamics> dyn;
  std::optional<std::size_t> held_fan;  // the held fan's device index
  Eigen::VectorXd t0;
  std::vector<std::size_t> skin;
  std::vector<std::vector<double>> power_w, performance;  // per device, per level
};

Dynamics dynamics_of(const ModelSpec& spec) {
  const ThermalModel model(spec);
  const auto m = model.step_matrices();
  const auto n = static_cast<Eigen::Index>(m.nodes);
  Dynamics dyn{Eigen::MatrixXd(n, n), Eigen::VectorXd(n), {}, {}};
  Eigen::MatrixXd bp(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      dyn.ad(i, j) = m.ad[static_cast<std::size_t>(i * n + j)];
      bp(i, j) = m.bd[static_cast<std::size_t>(i * (n + 1) + j)];
    }
    dyn.ba(i) = m.bd[static_cast<std::size_t>(i * (n + 1) + n)];
  }
  dyn.h = Eigen::MatrixXd::Zero(n, static_cast<Eigen::Index>(spec.devices.size()));
  Eigen::VectorXd idle = Eigen::VectorXd::Zero(n);
  for (std::size_t d = 0; d < spec.devices.size(); ++d)
    for (const auto& share : spec.devices[d].heat) {
      const auto node = static_cast<Eigen::Index>(*model.node_index(share.node));
      dyn.h.col(static_cast<Eigen::Index>(d)) += share.share * bp.col(node);
      idle(node) += share.share * spec.devices[d].idle_w;
    }
  dyn.idle_in = bp * idle;
  return dyn;
}

// `specs`: one model, or one per level of a held fan (the same nodes and
// devices, detail::hold_fan).
Linear linearise(const std::vector<ModelSpec>& specs) {
  const ModelSpec& spec = specs.front();
  const ThermalModel model(spec);
  Linear lin;
  lin.n = spec.nodes.size();
  lin.devices = spec.devices.size();
  for (const auto& s : specs) lin.dyn.push_back(dynamics_of(s));
  lin.t0.resize(static_cast<Eigen::Index>(lin.n));
  for (std::size_t i = 0; i < lin.n; ++i) lin.t0(static_cast<Eigen::Index>(i)) = model.node_c(i);
  for (const auto& dev : spec.devices) {
    lin.power_w.push_back(dev.power_w);
    lin.performance.push_back(dev.performance);
  }
  for (const auto& s : spec.skin_nodes) lin.skin.push_back(*model.node_index(s));
  return lin;
}

// The workload as the runner applies it (runner.cpp): a new segment at every
// step where seek() applied a row; the ambient holds when a row has none.
struct Inputs {
  std::uint64_t steps = 0;
  std::vector<std::uint64_t> first;  // first model step of each segment
  std::vector<double> demand;        // [segment * devices + device]
  std::vector<double> ambient_c;     // per segment
  std::vector<double> weight;        // per device
  double total_weighted_demand = 0;  // sum_d w_d sum_k demand_d(k)
  detail::FanCredit fan_credit;      // models with fans: bound_fan.h
  std::vector<std::size_t> held;     // per model step: the held fan's level (else empty)
  [[nodiscard]] std::size_t dyn(std::uint64_t k) const { return held.empty() ? 0 : held[k]; }
};

Inputs replay_inputs(const ModelSpec& spec, Workload workload) {
  Inputs in;
  const auto dt = spec.time_step.count();
  in.steps = static_cast<std::uint64_t>((workload.duration().count() + dt - 1) / dt);
  in.weight = workload.weights();
  double ambient = spec.ambient_c;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    if (!workload.seek(policy::Time(static_cast<std::int64_t>(k) * dt)) && k > 0) continue;
    if (const auto a = workload.ambient_c()) ambient = *a;
    in.first.push_back(k);
    in.demand.insert(in.demand.end(), workload.demand().begin(), workload.demand().end());
    in.ambient_c.push_back(ambient);
  }
  const std::size_t nd = in.weight.size();
  for (std::size_t s = 0; s < in.first.size(); ++s) {
    const std::uint64_t end = s + 1 < in.first.size() ? in.first[s + 1] : in.steps;
    for (std::size_t d = 0; d < nd; ++d)
      in.total_weighted_demand +=
          in.weight[d] * in.demand[s * nd + d] * static_cast<double>(end - in.first[s]);
  }
  return in;
}

// Steps the model forward over the whole run with device d drawing
// p(d, decision step) watts at full demand; visit(k, T) sees the node
// temperatures at the start of every step k, as the runner's metrics do.
template <typename Power, typename Visit>
void forward(const Linear& lin, const Inputs& in, std::uint64_t per_decision, Power p,
             Visit visit) {
  Eigen::VectorXd t = lin.t0;
  Eigen::VectorXd next(t.size());
  std::size_t seg = 0;
  std::size_t credit_cursor = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    while (seg + 1 < in.first.size() && in.first[seg + 1] <= k) ++seg;
    visit(k, t);
    const Dynamics& dyn = lin.dyn[in.dyn(k)];
    next.noalias() = dyn.ad * t;
    next += dyn.idle_in + dyn.ba * in.ambient_c[seg];
    for (std::size_t d = 0; d < lin.devices; ++d) {
      const double w = in.demand[seg * lin.devices + d] * p(d, k / per_decision);
      if (w != 0.0) next += w * dyn.h.col(static_cast<Eigen::Index>(d));
    }
    in.fan_credit.subtract(k, credit_cursor, next.data());
    t.swap(next);
  }
}

double peak_skin(const Linear& lin, const Eigen::VectorXd& t) {
  double peak = -1e300;
  for (const auto s : lin.skin) peak = std::max(peak, t(static_cast<Eigen::Index>(s)));
  return peak;
}

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

struct ProbDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// The coarse LP (bound.h). Columns (1-based, GLPK's convention): x[b][d][l]
// first, then the node temperatures at the start of decision steps 1..B-1.
// Rows: per decision step b < B-1 the n dynamics equalities giving the
// temperatures at the start of b+1; per b and device, sum_l x = 1.
class CoarseLp {
 public:
  CoarseLp(const Linear& lin, const Inputs& in, std::uint64_t per_decision, double limit_c)
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
      for (const auto s : lin.skin)
        glp_set_col_bnds(prob_.get(), t_col(b, s), GLP_UP, 0.0, limit_c);
    if (lin.held_fan)  // its level is the schedule's (held at decision-step starts)
      for (std::uint64_t b = 0; b < blocks_; ++b)
        for (std::size_t l = 0; l < lin.power_w[*lin.held_fan].size(); ++l) {
          const double x = l == in.held[b * m_] ? 1.0 : 0.0;
          glp_set_col_bnds(prob_.get(), x_col(b, *lin.held_fan, l), GLP_FX, x, x);
        }
    build();
  }

  [[nodiscard]] std::uint64_t blocks() const { return blocks_; }
  [[nodiscard]] std::uint64_t columns() const { return x_cols_ + (blocks_ - 1) * lin_.n; }
  [[nodiscard]] std::uint64_t rows() const {
    return static_cast<std::uint64_t>(glp_get_num_rows(prob_.get()));
  }

  // Empty on success, else why the solver stopped.
  std::string solve(const std::function<void(std::string_view)>& progress) {
    TermForward forward_to{&progress, {}};
    glp_term_hook(&TermForward::hook, &forward_to);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = progress ? GLP_MSG_ON : GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.out_frq = 5000;  // ms between iteration lines
    const int rc = glp_simplex(prob_.get(), &parm);
    glp_term_hook(nullptr, nullptr);
    if (rc != 0) return "GLPK simplex failed (glp_simplex returned " + std::to_string(rc) + ")";
    if (glp_get_status(prob_.get()) != GLP_OPT)
      return "GLPK found no optimum (status " + std::to_string(glp_get_status(prob_.get())) + ")";
    return {};
  }

  [[nodiscard]] double objective() const { return glp_get_obj_val(prob_.get()) / scale_obj(); }
  // Multiplier of "skin node s <= limit" at the start of decision step b.
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

  void build() {
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
};

// The fine LP's Lagrangian dual value (bound.h) for multipliers lambda on
// "skin node s <= limit at the start of step k", nonzero only at the starts
// of decision steps 1..B-1:
//   sum_{k,s} lambda(L - F_s(k))
//     + sum_{k,d} demand_d(k) max_l (w_d perf_l / W - power_l pi_d(k))
// with F the temperatures under idle power and ambient alone, and pi_d(k)
// the multiplier-weighted skin rise per watt of device d during step k,
// from the adjoint v(k-1) = ad^T v(k) + lambda(k), v(N-1) = 0.
double dual_bound(const Linear& lin, const Inputs& in, std::uint64_t m, double limit_c,
                  const CoarseLp& lp) {
  const std::uint64_t blocks = lp.blocks();
  const auto lambda = [&](std::uint64_t k, std::size_t s) {
    return k % m == 0 && k > 0 && k / m < blocks ? lp.skin_multiplier(k / m, s) : 0.0;
  };
  double value = 0;
  forward(
      lin, in, m, [](std::size_t, std::uint64_t) { return 0.0; },
      [&](std::uint64_t k, const Eigen::VectorXd& t) {
        if (k % m != 0 || k == 0) return;
        for (const auto s : lin.skin)
          value += lambda(k, s) * (limit_c - t(static_cast<Eigen::Index>(s)));
      });
  const std::size_t nd = lin.devices;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(lin.n));
  std::size_t seg = in.first.size() - 1;
  for (std::uint64_t k = in.steps; k-- > 0;) {
    while (in.first[seg] > k) --seg;
    const Dynamics& dyn = lin.dyn[in.dyn(k)];
    for (std::size_t d = 0; d < nd; ++d) {
      const double u = in.demand[seg * nd + d];
      if (u == 0.0) continue;
      const double pi = dyn.h.col(static_cast<Eigen::Index>(d)).dot(v);
      double best = -1e300;
      for (std::size_t l = 0; l < lin.power_w[d].size(); ++l) {
        if (lin.held_fan == d && l != in.held[k]) continue;  // the schedule's level only
        best = std::max(best, in.weight[d] * lin.performance[d][l] / in.total_weighted_demand -
                                  lin.power_w[d][l] * pi);
      }
      value += u * best;
    }
    if (k == 0) break;
    v = dyn.ad.transpose() * v;
    for (const auto s : lin.skin) v(static_cast<Eigen::Index>(s)) += lambda(k, s);
  }
  return value;
}

// The coarse LP's schedule per decision step (BoundOptions::schedule), its
// skin peaks from the same replay as BoundResult::schedule_peak_skin_c.
BoundSchedule schedule_of(const ModelSpec& spec, const Linear& lin, const Inputs& in,
                          std::uint64_t m, Millis model_step, const CoarseLp& lp) {
  BoundSchedule out;
  for (const auto& d : spec.devices) out.devices.push_back(d.name);
  out.skin_nodes = spec.skin_nodes;
  const std::size_t nd = lin.devices;
  out.steps.resize(lp.blocks());
  std::vector<double> weighted(lp.blocks(), 0.0), delivered(lp.blocks(), 0.0);
  std::size_t seg = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    while (seg + 1 < in.first.size() && in.first[seg + 1] <= k) ++seg;
    for (std::size_t d = 0; d < nd; ++d) {
      const double wu = in.weight[d] * in.demand[seg * nd + d];
      weighted[k / m] += wu;
      delivered[k / m] += wu * lp.scheduled_performance(d, k / m);
    }
  }
  for (std::uint64_t b = 0; b < lp.blocks(); ++b) {
    auto& step = out.steps[b];
    step.time_s = static_cast<double>(b * m) * static_cast<double>(model_step.count()) / 1000.0;
    for (std::size_t d = 0; d < nd; ++d) {
      step.power_w.push_back(lp.scheduled_power(d, b));
      step.performance.push_back(lp.scheduled_performance(d, b));
    }
    step.demand_share = weighted[b] / in.total_weighted_demand;
    step.step_performance = weighted[b] > 0 ? delivered[b] / weighted[b] : 1.0;
    step.peak_skin_c.assign(lin.skin.size(), -1e300);
  }
  forward(
      lin, in, m, [&](std::size_t d, std::uint64_t b) { return lp.scheduled_power(d, b); },
      [&](std::uint64_t k, const Eigen::VectorXd& t) {
        auto& peaks = out.steps[k / m].peak_skin_c;
        for (std::size_t s = 0; s < lin.skin.size(); ++s)
          peaks[s] = std::max(peaks[s], t(static_cast<Eigen::Index>(lin.skin[s])));
      });
  return out;
}

// Inputs::held from BoundOptions::fan_schedule; empty on success, else why
// the schedule cannot be followed.
std::string hold_levels(const std::vector<BoundOptions::FanHold>& schedule, const Linear& lin,
                        Millis model_step, Millis decision_step, Inputs& in) {
  const std::size_t levels = lin.power_w[*lin.held_fan].size();
  const auto decision_ms = decision_step.count();
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const auto from = schedule[i].from.count();
    if (i == 0 && from != 0)
      return fmt::format("the fan schedule must start at 0 s, not {:g} s", from / 1000.0);
    if (i > 0 && from <= schedule[i - 1].from.count())
      return fmt::format("the fan schedule's times must increase ({:g} s after {:g} s)",
                         from / 1000.0, schedule[i - 1].from.count() / 1000.0);
    if (from % decision_ms != 0)
      return fmt::format(
          "the fan schedule's time {:g} s is no whole number of {:g} s decision steps",
          from / 1000.0, decision_ms / 1000.0);
    if (schedule[i].level >= levels)
      return fmt::format("the fan has levels 0..{}, not {}", levels - 1, schedule[i].level);
  }
  in.held.resize(in.steps);
  std::size_t i = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    const auto t_ms = static_cast<std::int64_t>(k) * model_step.count();
    while (i + 1 < schedule.size() && schedule[i + 1].from.count() <= t_ms) ++i;
    in.held[k] = schedule[i].level;
  }
  return {};
}

}  // namespace

std::variant<BoundOptions::FanHold, std::string> parse_fan_hold(std::string_view text) {
  const auto bad = [&] {
    return fmt::format("'{}': expected S:LEVEL, a time in seconds and a fan level (e.g. 300:2)",
                       text);
  };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) return bad();
  const std::string s(text.substr(0, colon));
  const std::string l(text.substr(colon + 1));
  char* end = nullptr;
  const double seconds = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(seconds >= 0) || seconds > 1e9) return bad();
  const double ms = seconds * 1000.0;
  if (std::abs(ms - std::round(ms)) > 1e-6) return bad();
  if (l.find_first_not_of("0123456789") != std::string::npos || l.size() > 3) return bad();
  return BoundOptions::FanHold{Millis(static_cast<std::int64_t>(std::round(ms))),
                               static_cast<std::size_t>(std::stoul(l))};
}

std::string bound_schedule_csv(const BoundSchedule& schedule) {
  std::string csv = "time_s";
  for (const auto& d : schedule.devices) csv += fmt::format(",{0}_power_w,{0}_performance", d);
  csv += ",demand_share,performance";
  for (const auto& s : schedule.skin_nodes) csv += fmt::format(",{}_peak_c", s);
  csv += "\n";
  for (const auto& step : schedule.steps) {
    csv += fmt::format("{:g}", step.time_s);
    for (std::size_t d = 0; d < step.power_w.size(); ++d)
      csv += fmt::format(",{:.6g},{:.6g}", step.power_w[d], step.performance[d]);
    csv += fmt::format(",{:.6g},{:.6g}", step.demand_share, step.step_performance);
    for (const double c : step.peak_skin_c) csv += fmt::format(",{:.4f}", c);
    csv += "\n";
  }
  return csv;
}

std::variant<BoundResult, std::string> compute_bound(const ModelSpec& model,
                                                     const Workload& workload,
                                                     const BoundOptions& options) {
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  // From the workload's initial state; a model with fans is bounded through
  // its relaxation (bound_fan.cpp).
  const ModelSpec initial = workload.start(model);
  const bool held = !options.fan_schedule.empty();
  const bool fans = !held && std::any_of(initial.devices.begin(), initial.devices.end(),
                                         [](const auto& d) { return !d.cooling.empty(); });
  std::vector<ModelSpec> specs{fans ? detail::relax_fans(initial) : initial};
  std::optional<std::size_t> held_fan;
  if (held) {
    auto h = detail::hold_fan(initial);
    if (auto* e = std::get_if<std::string>(&h)) return *e;
    held_fan = std::get<detail::HeldFan>(h).device;
    specs = std::move(std::get<detail::HeldFan>(h).per_level);
  }
  Linear lin = linearise(specs);
  lin.held_fan = held_fan;
  for (const auto& dyn : lin.dyn)
    if ((dyn.ad.array() < -1e-12).any() || (dyn.h.array() < -1e-12).any())
      return std::string(
          "the model's step matrix has negative entries; the bound needs a "
          "monotone RC model");
  Inputs in = replay_inputs(model, workload);
  if (in.steps == 0) return std::string("the workload is 0 s long");
  BoundResult r;
  r.fan_held = held;
  if (fans) {
    auto credit = detail::fan_credit(initial, in.steps, in.first, in.demand, in.ambient_c);
    if (auto* e = std::get_if<std::string>(&credit)) return *e;
    in.fan_credit = std::move(std::get<detail::FanCredit>(credit));
    r.fan_relaxation = FanRelaxation{in.fan_credit.steps.size(), in.fan_credit.max_c};
  }
  r.limit_c = options.limit_c;
  r.steps = in.steps;

  const auto step_ms = model.time_step.count();
  std::uint64_t m =
      std::max<std::uint64_t>(1, (in.steps + kBoundMaxDecisionSteps - 1) / kBoundMaxDecisionSteps);
  if (options.decision_step) {
    const auto ms = options.decision_step->count();
    if (ms <= 0 || ms % step_ms != 0)
      return "the decision step must be a positive multiple of the model's " +
             std::to_string(step_ms) + " ms step, not " + std::to_string(ms) + " ms";
    m = static_cast<std::uint64_t>(ms / step_ms);
  }
  r.decision_step = Millis(static_cast<std::int64_t>(m) * step_ms);
  if (held) {
    if (auto e = hold_levels(options.fan_schedule, lin, model.time_step, r.decision_step, in);
        !e.empty())
      return e;
  }

  std::vector<double> lowest_power;
  for (const auto& p : lin.power_w) lowest_power.push_back(*std::min_element(p.begin(), p.end()));
  r.lowest_peak_skin_c = -1e300;
  forward(
      lin, in, 1,
      [&](std::size_t d, std::uint64_t k) {
        return lin.held_fan == d ? lin.power_w[d][in.held[k]] : lowest_power[d];
      },
      [&](std::uint64_t, const Eigen::VectorXd& t) {
        r.lowest_peak_skin_c = std::max(r.lowest_peak_skin_c, peak_skin(lin, t));
      });
  if (options.limit_c < r.lowest_peak_skin_c) return r;
  r.feasible = true;

  if (in.total_weighted_demand <= 0) {  // nothing demanded: the runner reports 1
    r.performance_bound = r.schedule_performance = 1.0;
    r.schedule_peak_skin_c = r.lowest_peak_skin_c;
    return r;
  }

  const auto start = std::chrono::steady_clock::now();
  CoarseLp lp(lin, in, m, options.limit_c);
  r.decision_steps = lp.blocks();
  r.variables = lp.columns();
  r.constraints = lp.rows();
  say("bound: " + std::to_string(in.steps) + " model steps in " + std::to_string(lp.blocks()) +
      " decision steps of " + std::to_string(r.decision_step.count()) + " ms; LP with " +
      std::to_string(r.variables) + " variables and " + std::to_string(r.constraints) +
      " constraints");
  if (auto e = lp.solve(options.progress); !e.empty()) return e;
  r.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.schedule_performance = lp.objective();
  r.performance_bound = dual_bound(lin, in, m, options.limit_c, lp);
  r.schedule_peak_skin_c = -1e300;
  forward(
      lin, in, m, [&](std::size_t d, std::uint64_t b) { return lp.scheduled_power(d, b); },
      [&](std::uint64_t, const Eigen::VectorXd& t) {
        r.schedule_peak_skin_c = std::max(r.schedule_peak_skin_c, peak_skin(lin, t));
      });
  if (options.schedule) r.schedule = schedule_of(initial, lin, in, m, model.time_step, lp);
  return r;
}

}  // namespace coolhand::sim
