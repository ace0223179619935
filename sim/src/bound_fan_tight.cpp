// The tight performance bound for a model with one fan (`bound --fan-bound
// tight`). Why it is an upper bound on every controller's performance with
// max skin <= limit:
//
//   1. The per-level form. With the fan at level l during model step k the
//      exact step is T(k+1) = Ad_l T(k) + idle_l + ba_l a(k) + sum_d u_d(k)
//      h_ld p_d(k) (bound_linear.h; per level, the fan's conductances folded
//      in, bound_fan.cpp's hold_fan), the fan's noise its level's
//      performance. A real run picks one level per step.
//   2. Boxes. Fix a floor V. Let S_V be the runs that keep every skin node
//      <= limit at the start of every step and deliver performance >= V.
//      A box [lo(k), hi(k)] is valid if every run in S_V has lo(k) <= T(k)
//      <= hi(k). interval_boxes() gives boxes valid for every run (Ad_l,
//      h_ld >= 0: each node is lowest, highest, with the lowest, highest
//      state and powers at the level that minimises, maximises it), and
//      stays valid when started from a raised lower bound that is valid
//      for S_V (the same argument from there on).
//   3. The dual. For multipliers mu(k, s) >= 0 on the skin rows, nu >= 0 on
//      "performance >= V" and any adjoint v(k), the Lagrangian of "maximise
//      alpha perf (- T_i(k*))" over S_V with the dynamics dualised splits
//      into one term per step: a maximum over the fan's level l, the other
//      devices' levels and T(k) in its box of a function linear in T(k)
//      and in each device's level. Every run in S_V is a point of each
//      step's set (its level, its levels, its state in the box), and the
//      dualised rows vanish on it, so the sum of the per-step maxima (plus
//      mu * limit - nu V) is >= the run's objective (weak duality). fan_dual
//      computes that sum exactly: with v(k) = Ad_r^T v(k+1) - S^T mu(k)
//      (r the strongest level) T(k)'s coefficient is (Ad_l - Ad_r)^T v(k+1)
//      at level l, maximised over the box node by node. This is the
//      McCormick/perspective relaxation of the per-level state copies,
//      taken in its dual form: it charges a slower fan the cooling it did
//      not give at the coolest the box allows.
//   4. Tightening. Minimising T_i(k*) over S_V is bounded below the same
//      way (objective -T_i(k*)), so -fan_dual(...) is a valid lower bound
//      on T_i(k*) over S_V; the multipliers come from the relaxation's
//      coarse LP re-solved with "performance >= V" and that objective (any
//      multipliers are valid; the LP only makes them good). Rounds repeat
//      it over the tightened boxes.
//   5. The bound. Every run holding the limit either delivers < V or is in
//      S_V, where its performance is <= fan_dual(alpha = 1) over the
//      tightened boxes: max(V, that) bounds every controller, any V.
//
// Nothing here relies on the coarse LP being a relaxation (it is not, see
// bound.h): it only supplies multipliers; every figure is a dual value over
// every 100 ms step.
#include "bound_fan_tight.h"

#include <fmt/format.h>

#include <chrono>

namespace coolhand::sim::detail {

namespace {

// One power table per device at its lowest and highest power, W at full demand.
std::vector<double> extreme_power(const Linear& lin, bool highest) {
  std::vector<double> p;
  for (const auto& w : lin.power_w)
    p.push_back(highest ? *std::max_element(w.begin(), w.end())
                        : *std::min_element(w.begin(), w.end()));
  return p;
}

}  // namespace

FanBoxes interval_boxes(const Linear& lin, const Inputs& in, const std::vector<double>& floor_lo) {
  const auto n = static_cast<Eigen::Index>(lin.n);
  FanBoxes box{lin.n, std::vector<double>(in.steps * lin.n), std::vector<double>(in.steps * lin.n)};
  const auto p_lo = extreme_power(lin, false);
  const auto p_hi = extreme_power(lin, true);
  Eigen::VectorXd lo = lin.t0, hi = lin.t0, next_lo(n), next_hi(n), step(n);
  std::size_t seg = 0;
  for (std::uint64_t k = 0; k < in.steps; ++k) {
    while (seg + 1 < in.first.size() && in.first[seg + 1] <= k) ++seg;
    if (!floor_lo.empty())
      for (Eigen::Index i = 0; i < n; ++i)
        lo(i) = std::max(lo(i), floor_lo[k * lin.n + static_cast<std::size_t>(i)]);
    std::copy(lo.data(), lo.data() + n, box.lo.begin() + static_cast<std::ptrdiff_t>(k * lin.n));
    std::copy(hi.data(), hi.data() + n, box.hi.begin() + static_cast<std::ptrdiff_t>(k * lin.n));
    next_lo.setConstant(1e300);
    next_hi.setConstant(-1e300);
    for (const auto& dyn : lin.dyn) {
      const Eigen::VectorXd base = dyn.idle_in + dyn.ba * in.ambient_c[seg];
      step = dyn.ad * lo + base;
      for (std::size_t d = 0; d < lin.devices; ++d)
        step +=
            in.demand[seg * lin.devices + d] * p_lo[d] * dyn.h.col(static_cast<Eigen::Index>(d));
      next_lo = next_lo.cwiseMin(step);
      step = dyn.ad * hi + base;
      for (std::size_t d = 0; d < lin.devices; ++d)
        step +=
            in.demand[seg * lin.devices + d] * p_hi[d] * dyn.h.col(static_cast<Eigen::Index>(d));
      next_hi = next_hi.cwiseMax(step);
    }
    lo.swap(next_lo);
    hi.swap(next_hi);
  }
  return box;
}

double fan_dual(const Linear& lin, const Inputs& in, const FanBoxes& box, double limit_c,
                const std::function<double(std::uint64_t, std::size_t)>& skin,
                const FanDualTerms& t) {
  const auto n = static_cast<Eigen::Index>(lin.n);
  const std::size_t nd = lin.devices;
  const std::size_t fan = *lin.held_fan;
  const std::size_t levels = lin.dyn.size();
  const std::size_t strongest = levels - 1;  // the reference level r (conductances grow)
  const double per_unit = (t.performance_weight + t.floor_multiplier) / in.total_weighted_demand;
  std::vector<Eigen::MatrixXd> ad_t;
  for (const auto& dyn : lin.dyn) ad_t.push_back(dyn.ad.transpose());

  double value = -t.floor_multiplier * t.floor;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);  // v(k+1); 0 past the last step
  std::vector<Eigen::VectorXd> a(levels, Eigen::VectorXd(n));
  std::size_t seg = in.first.size() - 1;
  // Until the backward pass meets its first nonzero multiplier (or the
  // minimised node) the adjoint is exactly 0: every product with it, and
  // every box term, is then 0 and is skipped (the same value to the bit).
  bool live = false;
  for (std::uint64_t k = in.steps; k-- > 0;) {
    while (in.first[seg] > k) --seg;
    const double amb = in.ambient_c[seg];
    double best = -1e300;
    live = live || !(w.array() == 0.0).all();
    for (std::size_t l = 0; l < levels; ++l)
      if (live) a[l].noalias() = ad_t[l] * w;
    for (std::size_t l = 0; l < levels; ++l) {
      const auto& dyn = lin.dyn[l];
      double v = live ? w.dot(dyn.idle_in) + amb * w.dot(dyn.ba) : 0.0;
      for (std::size_t d = 0; d < nd; ++d) {
        const double u = in.demand[seg * nd + d];
        if (u == 0.0) continue;
        const double unit = per_unit * in.weight[d] * u;
        if (d == fan) {
          v += unit * lin.performance[d][l];
          continue;
        }
        const double pi = live ? u * dyn.h.col(static_cast<Eigen::Index>(d)).dot(w) : 0.0;
        double dev = -1e300;
        for (std::size_t j = 0; j < lin.power_w[d].size(); ++j)
          dev = std::max(dev, unit * lin.performance[d][j] + lin.power_w[d][j] * pi);
        v += dev;
      }
      if (!live) {
        // 0 * the box's bound: nothing to add
      } else if (k == 0) {
        v += a[l].dot(lin.t0);
      } else {
        const double* lo = box.lo.data() + k * lin.n;
        const double* hi = box.hi.data() + k * lin.n;
        for (Eigen::Index i = 0; i < n; ++i) {
          const double g = a[l](i) - a[strongest](i);
          v += g * (g > 0 ? hi[i] : lo[i]);
        }
      }
      best = std::max(best, v);
    }
    value += best;
    if (k == 0) break;
    if (live) w = a[strongest];  // v(k) = Ad_r^T v(k+1) - S^T mu(k) (- e_i at k*)
    for (std::size_t s = 0; s < lin.skin.size(); ++s) {
      const double mu = skin(k, s);
      if (mu == 0.0) continue;
      w(static_cast<Eigen::Index>(lin.skin[s])) -= mu;
      value += mu * limit_c;
    }
    if (t.minimise_node && k == t.node_step) w(static_cast<Eigen::Index>(t.node)) -= 1.0;
  }
  return value;
}

std::variant<FanTightResult, std::string> tight_fan_bound(
    const Linear& lin, const Inputs& in, CoarseLp& lp,
    const std::vector<std::vector<double>>& skin_multiplier, std::uint64_t m, double limit_c,
    double floor, const std::vector<std::size_t>& nodes, int rounds,
    const std::function<void(std::string_view)>& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  FanTightResult out;
  out.floor = floor;
  const std::uint64_t blocks = lp.blocks();
  std::vector<double> floor_lo(in.steps * lin.n, -1e300);
  FanBoxes box = interval_boxes(lin, in, {});
  const FanBoxes loose = box;
  // With every final multiplier 0 the final dual's adjoint is 0 at every
  // step, so the boxes' terms vanish and tightening cannot change it: the
  // relaxation's limit never binds (its figure is then 1), no LP is solved.
  bool binds = false;
  for (const auto& row : skin_multiplier)
    for (const double x : row) binds = binds || x != 0.0;
  if (!binds) {
    rounds = 0;
    say("bound: fan boxes not tightened: every skin multiplier of the relaxation's LP is 0");
  }
  if (rounds > 0) lp.set_performance_floor(floor);
  std::vector<double> mu(blocks * lin.skin.size());
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t b = 1; b < blocks; ++b)
      for (const auto i : nodes) {
        lp.minimise_node(b, i);
        // No coarse solution with "performance >= V" proves nothing (the
        // coarse LP is no relaxation): the box is then left as it is.
        if (auto e = lp.solve({}); !e.empty()) {
          ++out.failed;
          continue;
        }
        for (std::uint64_t c = 0; c < blocks; ++c)
          for (std::size_t s = 0; s < lin.skin.size(); ++s)
            mu[c * lin.skin.size() + s] = c == 0 ? 0.0 : lp.node_skin_multiplier(c, lin.skin[s]);
        FanDualTerms t;
        t.performance_weight = 0;
        t.floor = floor;
        t.floor_multiplier = lp.node_floor_multiplier();
        t.minimise_node = true;
        t.node_step = b * m;
        t.node = i;
        const double d = fan_dual(
            lin, in, box, limit_c,
            [&](std::uint64_t k, std::size_t s) {
              return k % m == 0 && k > 0 && k / m < blocks ? mu[(k / m) * lin.skin.size() + s]
                                                           : 0.0;
            },
            t);
        auto& lo = floor_lo[b * m * lin.n + i];
        lo = std::max(lo, -d);
        ++out.lps;
      }
    box = interval_boxes(lin, in, floor_lo);
    double gain = 0;
    for (std::uint64_t b = 1; b < blocks; ++b)
      for (const auto i : nodes) gain += box.lo[b * m * lin.n + i] - loose.lo[b * m * lin.n + i];
    out.mean_gain_c = gain / static_cast<double>((blocks - 1) * nodes.size());
    say(fmt::format(
        "bound: fan boxes round {}: {} LPs, lower bounds raised by {:.3f} °C on average, {:.1f} s",
        r + 1, (blocks - 1) * nodes.size(), out.mean_gain_c,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  }
  if (rounds > 0) lp.restore_performance();
  FanDualTerms t;
  out.dual = fan_dual(
      lin, in, box, limit_c,
      [&](std::uint64_t k, std::size_t s) {
        return k % m == 0 && k > 0 && k / m < blocks ? skin_multiplier[k / m][s] : 0.0;
      },
      t);
  out.lower_c = std::move(box.lo);
  return out;
}

}  // namespace coolhand::sim::detail
