// Model identification (fit.h): simulation-error minimisation by
// Levenberg-Marquardt over the log of every free number, then an
// identifiability check on the Jacobian at the optimum.
//
// Method.
//  1. Start: powers from a linear least-squares fit of the measured power
//     (the total `power_w` and any `<device>_power_w`) on each interval's
//     time-at-level x demand, which is exact because power is linear in
//     them; thermal numbers from fixed, physically plausible values (20 J/K,
//     1 W/K between nodes, 0.2 W/K to ambient); a node no sensor reads
//     starts at the mean first reading (its start is fitted too). A level
//     the data never use gets a guess (fill_unused_levels).
//  2. Minimise the sum of squared differences between the readings and
//     the open-loop simulation of the whole fitted part (the model's own
//     exact discretisation, sensor lags included), plus the measured powers'
//     residuals, by Levenberg-Marquardt with Marquardt's diagonal scaling,
//     a forward-difference Jacobian (columns computed on every core) and a
//     trust region: a step that would change any number by more than a
//     factor e^2 is damped further. Parameters are logs, so all stay
//     positive and steps are relative.
//  3. Identifiability: at the optimum, JᵀJ with the nodes' start
//     temperatures eliminated (its Schur complement) is the information on
//     the model's numbers. A number no reading depends on (a level never
//     used) is named alone; every other direction of the information
//     matrix whose 1-sigma spread exceeds 30 % (or is numerically zero)
//     names the numbers that make it up. Their values are what the damped
//     steps left them at: near the start, not learned.
//
// Without any measured power the temperatures determine the numbers only up
// to one common factor (all capacities, conductances and powers x k give
// the same temperatures): step 3 reports that direction, and the fix is to
// give one power in the skeleton or a power column in the data.
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <thread>

#include "coolhand/sim/fit.h"
#include "fit_problem.h"

namespace coolhand::sim {

namespace {

using detail::FitProblem;

constexpr double kMinLog = -9.2;  // e^-9.2 ~ 1e-4
constexpr double kMaxLog = 11.5;  // e^11.5 ~ 1e5
constexpr double kMaxStep = 2.0;  // per iteration, in log units
constexpr double kSpreadLimit = 0.3;
// The prior's weight: a number a factor e from its start costs as much as
// one reading 0.1 °C off, which the thousands of readings of a useful
// recording outweigh wherever they say anything about it.
constexpr double kPriorWeight = 0.1;

// Forward-difference Jacobian, columns split over the machine's cores.
Eigen::MatrixXd jacobian(const FitProblem& problem, const Eigen::VectorXd& theta,
                         const Eigen::VectorXd& r0) {
  const auto p = theta.size();
  Eigen::MatrixXd j(r0.size(), p);
  const auto workers = std::max<unsigned>(
      1, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(p)));
  auto column = [&](Eigen::Index c) {
    Eigen::VectorXd t = theta;
    const double h = static_cast<std::size_t>(c) < problem.model_params() ? 1e-6 : 1e-4;
    t(c) += h;
    j.col(c) = (problem.residuals(t) - r0) / h;
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (Eigen::Index c = w; c < p; c += workers) column(c);
    });
  for (Eigen::Index c = 0; c < p; c += workers) column(c);
  for (auto& t : threads) t.join();
  return j;
}

// Step 1's powers: least squares of the measured powers on the loads.
void initial_powers(const FitSkeleton& sk, const std::vector<FitSegment>& data,
                    Eigen::VectorXd& theta) {
  std::vector<Eigen::Index> cols;  // theta index of each power-type free number
  for (std::size_t p = 0; p < sk.free.size(); ++p)
    if (sk.free[p].kind == FreeParam::Kind::idle || sk.free[p].kind == FreeParam::Kind::power)
      cols.push_back(static_cast<Eigen::Index>(p));
  if (cols.empty()) return;
  std::vector<std::vector<double>> rows;
  std::vector<double> rhs;
  auto add_row = [&](const FitSegment& seg, std::size_t k, const std::vector<bool>& devices,
                     double measured) {
    std::vector<double> row(cols.size(), 0.0);
    double known = 0;
    for (std::size_t d = 0; d < sk.spec.devices.size(); ++d) {
      if (!devices[d]) continue;
      const auto& dev = sk.spec.devices[d];
      bool idle_free = false;
      std::vector<bool> level_free(dev.power_w.size(), false);
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const auto& f = sk.free[static_cast<std::size_t>(cols[c])];
        if (f.index != d) continue;
        if (f.kind == FreeParam::Kind::idle) {
          row[c] = 1.0;
          idle_free = true;
        } else {
          row[c] = seg.load[d][f.level][k];
          level_free[f.level] = true;
        }
      }
      if (!idle_free) known += dev.idle_w;
      for (std::size_t l = 0; l < dev.power_w.size(); ++l)
        if (!level_free[l]) known += seg.load[d][l][k] * dev.power_w[l];
    }
    rows.push_back(std::move(row));
    rhs.push_back(measured - known);
  };
  for (const auto& seg : data)
    for (std::size_t k = 0; k + 1 < seg.time_s.size(); ++k) {
      if (!seg.total_power_w.empty())
        add_row(seg, k, std::vector<bool>(sk.spec.devices.size(), true), seg.total_power_w[k]);
      for (std::size_t d = 0; d < seg.power_w.size(); ++d)
        if (!seg.power_w[d].empty()) {
          std::vector<bool> only(sk.spec.devices.size(), false);
          only[d] = true;
          add_row(seg, k, only, seg.power_w[d][k]);
        }
    }
  if (rows.empty()) return;
  const auto n = static_cast<Eigen::Index>(cols.size());
  Eigen::MatrixXd ata = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd atb = Eigen::VectorXd::Zero(n);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Eigen::Map<const Eigen::VectorXd> a(rows[r].data(), n);
    ata.noalias() += a * a.transpose();
    atb += a * rhs[r];
  }
  ata.diagonal().array() += 1e-9 * (1.0 + ata.diagonal().maxCoeff());
  const Eigen::VectorXd x = ata.ldlt().solve(atb);
  for (Eigen::Index c = 0; c < n; ++c)
    if (ata(c, c) > 1e-6 * ata.diagonal().maxCoeff())
      theta(cols[static_cast<std::size_t>(c)]) = std::log(std::max(x(c), 0.01));
}

// Levels no data row uses carry no information: their power is the nearest
// used level's power scaled by performance, p[l] = p[u] x perf[l] / perf[u],
// set at the start (from the starting powers) and again after the fit (from
// the fitted ones: nothing else moves it). Real power falls faster
// than performance (dynamic power goes as f V^2), so the guess errs towards
// too much heat: a controller tuned on the model throttles a little more
// than it needs to, never less.
void fill_unused_levels(const FitSkeleton& sk, const std::vector<FitSegment>& data,
                        Eigen::VectorXd& theta) {
  for (std::size_t d = 0; d < sk.spec.devices.size(); ++d) {
    const auto& dev = sk.spec.devices[d];
    std::vector<double> use(dev.power_w.size(), 0.0);
    for (const auto& seg : data)
      for (std::size_t l = 0; l < use.size(); ++l)
        for (double x : seg.load[d][l]) use[l] += x;
    std::vector<int> param(dev.power_w.size(), -1);
    for (std::size_t p = 0; p < sk.free.size(); ++p)
      if (sk.free[p].kind == FreeParam::Kind::power && sk.free[p].index == d)
        param[sk.free[p].level] = static_cast<int>(p);
    const double most = *std::max_element(use.begin(), use.end());
    auto used = [&](std::size_t l) { return use[l] > 1e-9 * most; };
    for (std::size_t l = 0; l < use.size(); ++l) {
      if (used(l) || param[l] < 0) continue;
      std::size_t best = use.size();
      for (std::size_t u = 0; u < use.size(); ++u)
        if (used(u) && dev.performance[u] > 0 &&
            (best == use.size() ||
             std::abs(static_cast<double>(u) - static_cast<double>(l)) <
                 std::abs(static_cast<double>(best) - static_cast<double>(l))))
          best = u;
      if (best == use.size()) continue;
      const double ref = param[best] >= 0 ? std::exp(theta(param[best])) : dev.power_w[best];
      theta(param[l]) = std::log(std::max(ref * dev.performance[l] / dev.performance[best], 1e-3));
    }
  }
}

// Step 3.
void identifiability(const FitSkeleton& sk, const FitProblem& problem, const Eigen::MatrixXd& j,
                     double cost, FitResult& out) {
  const auto m = static_cast<Eigen::Index>(problem.model_params());
  const auto total = j.cols();
  const Eigen::MatrixXd h = j.transpose() * j;
  out.rel_stddev.assign(static_cast<std::size_t>(m), std::numeric_limits<double>::infinity());
  if (m == 0) return;
  const double sigma2 = cost / std::max<double>(1.0, static_cast<double>(j.rows() - total));
  Eigen::MatrixXd info = h.topLeftCorner(m, m);
  if (total > m) {
    Eigen::MatrixXd hh = h.bottomRightCorner(total - m, total - m);
    hh.diagonal().array() += 1e-12 * (1.0 + hh.diagonal().maxCoeff());
    info -= h.topRightCorner(m, total - m) * hh.ldlt().solve(h.bottomLeftCorner(total - m, m));
  }
  const double scale = std::max(info.diagonal().maxCoeff(), 1e-300);
  std::vector<Eigen::Index> kept;
  ParamWarning unused;
  for (Eigen::Index c = 0; c < m; ++c) {
    if (info(c, c) <= 1e-12 * scale) {
      unused.params.push_back(sk.free[static_cast<std::size_t>(c)].name);
      continue;
    }
    kept.push_back(c);
  }
  if (!unused.params.empty()) {
    unused.why =
        "no reading depends on them (levels the data never use): a level's power is scaled "
        "from the nearest used level's by performance, any other number keeps its starting value";
    out.unidentifiable.push_back(std::move(unused));
  }
  const auto nk = static_cast<Eigen::Index>(kept.size());
  Eigen::MatrixXd sub(nk, nk);
  for (Eigen::Index a = 0; a < nk; ++a)
    for (Eigen::Index b = 0; b < nk; ++b) sub(a, b) = info(kept[a], kept[b]);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(sub);
  const auto& ev = eig.eigenvalues();
  const double top = nk > 0 ? ev.maxCoeff() : 0.0;
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(nk, nk);
  for (Eigen::Index e = 0; e < nk; ++e) {
    const Eigen::VectorXd v = eig.eigenvectors().col(e);
    const bool null = ev(e) <= 1e-10 * top;
    const double spread =
        null ? std::numeric_limits<double>::infinity() : std::sqrt(sigma2 / ev(e));
    if (!null) cov += (sigma2 / ev(e)) * v * v.transpose();
    if (spread <= kSpreadLimit) continue;
    ParamWarning w;
    const std::string amount =
        null ? std::string("not at all") : fmt::format("only to ±{:.0f} %", 100.0 * spread);
    // Every number x the same factor: the temperatures' common scale
    // (every parameter is a capacity, conductance or power).
    const double along_scale = std::abs(v.sum()) / std::sqrt(static_cast<double>(nk));
    if (nk > 1 && along_scale > 0.9) {
      w.params.push_back("every capacity, conductance and power together");
      w.why = "the data determine their common scale " + amount +
              ": give a measured power (a power_w or <device>_power_w column) or write one "
              "power in the skeleton";
      out.unidentifiable.push_back(std::move(w));
      continue;
    }
    std::vector<std::pair<double, std::string>> parts;
    const double biggest = v.cwiseAbs().maxCoeff();
    for (Eigen::Index a = 0; a < nk; ++a)
      if (std::abs(v(a)) >= 0.5 * biggest)
        parts.emplace_back(std::abs(v(a)), sk.free[static_cast<std::size_t>(kept[a])].name);
    std::sort(parts.rbegin(), parts.rend());
    for (auto& p : parts) w.params.push_back(p.second);
    w.why = w.params.size() == 1 ? "the data determine it " + amount
                                 : "the data determine only a combination of these, " + amount +
                                       " (they can change together without changing the readings)";
    out.unidentifiable.push_back(std::move(w));
  }
  for (Eigen::Index a = 0; a < nk; ++a)
    out.rel_stddev[static_cast<std::size_t>(kept[a])] = std::sqrt(cov(a, a));
  for (Eigen::Index e = 0; e < nk; ++e)
    if (ev(e) <= 1e-10 * top)
      for (Eigen::Index a = 0; a < nk; ++a)
        if (std::abs(eig.eigenvectors()(a, e)) >= 0.25)
          out.rel_stddev[static_cast<std::size_t>(kept[a])] =
              std::numeric_limits<double>::infinity();
}

}  // namespace

std::variant<FitResult, config::ConfigError> fit_model(const FitSkeleton& skeleton,
                                                       const std::vector<FitSegment>& data,
                                                       const FitOptions& options) {
  // Errors name their subject: an empty file would print as a bare ": ".
  if (data.empty()) return config::ConfigError{"model fit", 0, 0, {}, "no data to fit"};
  if (!(options.holdout >= 0 && options.holdout < 0.9))
    return config::ConfigError{
        fmt::format("--holdout {}", options.holdout), 0, 0, {}, "expected a fraction in [0, 0.9)"};
  FitProblem problem(skeleton, data, options.holdout);
  Eigen::VectorXd theta = problem.initial_guess();
  initial_powers(skeleton, data, theta);
  fill_unused_levels(skeleton, data, theta);
  problem.set_prior(theta, kPriorWeight);
  Eigen::VectorXd r = problem.residuals(theta);
  if (r.size() <= static_cast<Eigen::Index>(problem.size()))
    return config::ConfigError{
        data.front().name,
        0,
        0,
        {},
        fmt::format("{} readings for {} unknowns: record longer", r.size(), problem.size())};
  FitResult out;
  double cost = r.squaredNorm();
  out.cost_start = cost / static_cast<double>(r.size());
  double lambda = 1e-2;
  int stalled = 0;
  Eigen::MatrixXd j = jacobian(problem, theta, r);
  for (int it = 1; it <= options.max_iterations; ++it) {
    const Eigen::MatrixXd h = j.transpose() * j;
    const Eigen::VectorXd g = j.transpose() * r;
    const double floor = 1e-12 * (1.0 + h.diagonal().maxCoeff());
    bool accepted = false;
    double new_cost = cost;
    for (int tries = 0; tries < 40 && !accepted; ++tries) {
      Eigen::MatrixXd hd = h;
      for (Eigen::Index c = 0; c < h.rows(); ++c)
        hd(c, c) += lambda * std::max(h(c, c), floor) + floor;
      Eigen::VectorXd step = -hd.ldlt().solve(g);
      const auto mp = static_cast<Eigen::Index>(problem.model_params());
      const double biggest = mp > 0 ? step.head(mp).cwiseAbs().maxCoeff() : 0.0;
      if (biggest > kMaxStep) step *= kMaxStep / biggest;
      Eigen::VectorXd trial = theta + step;
      for (Eigen::Index c = 0; c < mp; ++c) trial(c) = std::clamp(trial(c), kMinLog, kMaxLog);
      const Eigen::VectorXd rt = problem.residuals(trial);
      const double ct = rt.squaredNorm();
      if (std::isfinite(ct) && ct < cost) {
        accepted = true;
        new_cost = ct;
        theta = trial;
        r = rt;
        lambda = std::max(lambda / 3.0, 1e-9);
      } else {
        lambda *= 4.0;
      }
    }
    out.iterations = it;
    if (!accepted) break;
    const double gain = (cost - new_cost) / cost;
    cost = new_cost;
    if (options.progress) options.progress(it, std::sqrt(cost / static_cast<double>(r.size())));
    stalled = gain < 1e-7 ? stalled + 1 : 0;
    j = jacobian(problem, theta, r);
    if (stalled >= 3) break;
  }
  // A level the data never use is scaled again from its used neighbour's
  // FITTED power: scaled from the start (1 W where no power was measured)
  // it kept that guess, e.g. a backlight's dimmed levels at 0.93-0.66 W
  // under a fitted 2.1 W full brightness, which credits dimming with more
  // heat saved than the device gives (docs/results.md, "gaming-7's chain on
  // hot-car, re-measured"). No reading depends on it, so the fit is unchanged.
  fill_unused_levels(skeleton, data, theta);
  out.model = problem.apply(theta);
  for (std::size_t p = 0; p < problem.model_params(); ++p)
    out.values.push_back(std::exp(theta(static_cast<Eigen::Index>(p))));
  problem.errors(theta, out.train, out.held_out);
  // The information the data alone carry: without the prior's rows.
  const auto prior_rows = static_cast<Eigen::Index>(problem.model_params());
  const Eigen::VectorXd r_data = r.head(r.size() - prior_rows);
  out.cost_end = r_data.squaredNorm() / static_cast<double>(r_data.size());
  identifiability(skeleton, problem, j.topRows(j.rows() - prior_rows), r_data.squaredNorm(), out);
  return out;
}

std::vector<std::vector<double>> predict_nodes(const ModelSpec& model, const FitSegment& segment) {
  return FitProblem::simulate_nodes(model, segment);
}

}  // namespace coolhand::sim
