// The tuner's search: candidate evaluation on a thread pool, the global
// stage (a seeded Halton sequence) and the local stage (NLopt's COBYLA with
// one constraint per workload); see tune.h for the rules.
//
// Threads (parallel.h). Each task is one (candidate, workload) run: its own policy
// controller, ThermalModel and Workload copy, writing only its own result
// slot; the shared model, workloads and parsed policies are read-only. So
// results are the same for any thread count, and the search (serial
// between batches) is too.
#include <fmt/format.h>
#include <nlopt.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/tune.h"
#include "parallel.h"

namespace coolhand::sim {

namespace {

using Clock = std::chrono::steady_clock;

double elapsed_s(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The radical inverse of i in base b: the Halton sequence's coordinate.
double radical_inverse(std::size_t i, unsigned b) {
  double f = 1, r = 0;
  while (i > 0) {
    f /= b;
    r += f * static_cast<double>(i % b);
    i /= b;
  }
  return r;
}

constexpr unsigned kPrimes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41,
                                43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97};

// Progress lines: candidates done, best so far, time used and left.
struct Progress {
  const TuneSettings& settings;
  Clock::time_point start;
  Clock::time_point last{};
  void report(std::string_view stage, std::size_t done, std::size_t total, const TuneEval& best,
              std::size_t evals_left, double s_per_eval, bool force = false) {
    if (!settings.progress) return;
    const auto now = Clock::now();
    if (!force && now - last < std::chrono::seconds(2)) return;
    last = now;
    const double used = elapsed_s(start);
    double left = static_cast<double>(evals_left) * s_per_eval;
    if (settings.time_budget_s)
      left = std::min(left, std::max(0.0, *settings.time_budget_s - used));
    settings.progress(fmt::format(
        "tune: {} {}/{}: best suite performance {:.4f}{}, {:.0f} s used, ~{:.0f} s left", stage,
        done, total, best.suite_performance,
        best.violation_c > 0 ? fmt::format(" (misses its targets by {:.2f})", best.violation_c)
                             : std::string(" (meets every target)"),
        used, left));
  }
};

}  // namespace

std::array<double, kMissesPerWorkload> target_misses(const TuneSettings& settings,
                                                     const TuneEval& e, std::size_t w) {
  constexpr double kMet = -1.0;  // a target that does not apply: always met
  // Each skin node against its own allowance; the worst is the skin's miss.
  double skin = -std::numeric_limits<double>::infinity();
  const auto& nodes = e.node_max_skin_c.at(w);
  for (std::size_t n = 0; n < nodes.size(); ++n)
    skin = std::max(skin, nodes[n] - skin_allowed_c(settings, w, n));
  if (settings.targets.empty()) return {skin, kMet, kMet};
  const TuneTarget& t = settings.targets[w];
  // °C·s and performance with compare's slack (check_targets: a miss of at
  // most kCompareSlack passes), so a candidate compare passes meets them here.
  return {
      skin,
      t.allowed_degree_seconds
          ? (e.degree_seconds[w] - *t.allowed_degree_seconds - kCompareSlack) / kDegreeSecondsPerC
          : kMet,
      t.baseline_performance ? performance_miss(settings, e, w) / kPerformancePerC : kMet};
}

double performance_miss(const TuneSettings& settings, const TuneEval& e, std::size_t w) {
  const TuneTarget& t = settings.targets.at(w);
  const double baseline = t.baseline_performance.value_or(0.0);
  const double bias = w < settings.performance_bias.size() ? settings.performance_bias[w] : 0.0;
  // Written so that an uncapped target's miss is bit for bit the one
  // before the cap (baseline - (performance + bias)).
  if (baseline - bias > kFullPerformance)
    return kFullPerformance - e.performance.at(w) - kCompareSlack;
  return baseline - judged_performance(settings, e, w) - kCompareSlack;
}

double judged_performance(const TuneSettings& settings, const TuneEval& e, std::size_t w) {
  const double bias = w < settings.performance_bias.size() ? settings.performance_bias[w] : 0.0;
  return e.performance.at(w) + bias;
}

double bound_shortfall(const TuneSettings& settings, const TuneEval& e, std::size_t w) {
  if (w >= settings.targets.size() || !settings.targets[w].performance_bound) return 0.0;
  return std::max(0.0, kBoundShare * *settings.targets[w].performance_bound -
                           judged_performance(settings, e, w));
}

void score(const TuneSettings& settings, TuneEval& e) {
  const std::size_t nw = e.performance.size();
  double perf = 0, over = 0, short_of_bound = 0;
  for (std::size_t w = 0; w < nw; ++w) {
    perf += e.performance[w];
    for (double miss : target_misses(settings, e, w)) over += std::max(0.0, miss);
    short_of_bound += bound_shortfall(settings, e, w);
  }
  e.suite_performance = nw > 0 ? perf / static_cast<double>(nw) : 0.0;
  e.violation_c = over;
  e.objective = e.suite_performance - kBoundShortfallWeight * short_of_bound;
}

bool better(const TuneEval& a, const TuneEval& b) {
  if (a.error.empty() != b.error.empty()) return a.error.empty();
  if (!a.error.empty()) return false;
  if (a.violation_c != b.violation_c) return a.violation_c < b.violation_c;
  return a.objective > b.objective;
}

std::size_t global_count(const TuneProblem& problem, const TuneSettings& s) {
  if (s.global_candidates) return *s.global_candidates;
  return std::max<std::size_t>(32, 16 * problem.params.size());
}

std::size_t local_count(const TuneProblem& problem, const TuneSettings& s) {
  if (s.local_evaluations) return *s.local_evaluations;
  return std::max<std::size_t>(40, 30 * problem.params.size());
}

std::vector<double> global_candidate(const TuneProblem& problem, std::uint64_t seed,
                                     std::size_t index) {
  std::vector<double> x;
  std::mt19937_64 shift_rng(seed);  // mt19937_64's output is fixed by the standard
  for (std::size_t j = 0; j < problem.params.size(); ++j) {
    const auto& p = problem.params[j];
    const double shift = static_cast<double>(shift_rng() >> 11) * 0x1.0p-53;
    if (index == 0) {
      x.push_back(quantize(p, p.start));
      continue;
    }
    const unsigned base = kPrimes[j % std::size(kPrimes)];
    // Past 25 dimensions the bases repeat; the seed's shifts still differ.
    double u = radical_inverse(index, base) + shift;
    u -= std::floor(u);
    x.push_back(quantize(p, p.lo + u * (p.hi - p.lo)));
  }
  return x;
}

std::vector<TuneEval> evaluate_candidates(const TuneJob& job, const TuneSettings& settings,
                                          const std::vector<std::vector<double>>& xs) {
  const auto& workloads = *job.workloads;
  const std::size_t nw = workloads.size();
  std::vector<TuneEval> out(xs.size());
  std::vector<std::optional<config::PolicyDocument>> docs(xs.size());
  for (std::size_t c = 0; c < xs.size(); ++c) {
    out[c].x = xs[c];
    out[c].max_skin_c.assign(nw, 0.0);
    out[c].node_max_skin_c.assign(nw, std::vector<double>(job.model->skin_nodes.size(), 0.0));
    out[c].performance.assign(nw, 0.0);
    out[c].degree_seconds.assign(nw, 0.0);
    auto parsed = config::parse_policy(substitute(*job.problem, xs[c]), job.problem->policy_file);
    if (!parsed.errors.empty())
      out[c].error = parsed.errors.front().to_string();
    else
      docs[c] = std::move(*parsed.document);
  }
  // One run per (candidate, workload, noise seed); each writes its own slot.
  const std::size_t ns = std::max<std::size_t>(1, settings.noise_seeds);
  struct Run {
    double max_skin_c = 0, performance = 0, degree_seconds = 0;
    std::vector<double> node_max_skin_c;
  };
  std::vector<Run> runs(xs.size() * nw * ns);
  std::vector<std::string> run_errors(xs.size() * nw);
  parallel_for(runs.size(), worker_threads(settings.threads), [&](std::size_t task) {
    const std::size_t c = task / (nw * ns), w = task / ns % nw, k = task % ns;
    if (!docs[c]) return;
    auto made = make_policy_controller(*job.model, *docs[c], "candidate");
    if (auto* e = std::get_if<std::string>(&made)) {
      if (k == 0) run_errors[c * nw + w] = *e;
      return;
    }
    // From the workload's start state (a soaked start), as compare runs it;
    // its °C·s counted from the skin limit - limit_margin_c (tune.h).
    ModelSpec spec = workloads[w].start(*job.model);
    spec.skin_limit_c -= settings.limit_margin_c;
    ThermalModel model(std::move(spec), settings.seed + k);
    Workload wl = workloads[w];
    RunOptions options;
    options.record_trace = false;
    const auto r = run(model, wl, *std::get<std::unique_ptr<Controller>>(made), options);
    runs[task] = Run{r.metrics.max_skin_c, r.metrics.performance,
                     r.metrics.degree_seconds_over_limit, r.metrics.max_skin_by_node_c};
  });
  // Over the noise seeds, the worst of each: the hottest peak, the most
  // °C·s, the least performance.
  for (std::size_t c = 0; c < xs.size(); ++c)
    for (std::size_t w = 0; w < nw; ++w)
      for (std::size_t k = 0; k < ns; ++k) {
        const Run& r = runs[(c * nw + w) * ns + k];
        auto& e = out[c];
        e.max_skin_c[w] = k == 0 ? r.max_skin_c : std::max(e.max_skin_c[w], r.max_skin_c);
        for (std::size_t n = 0; n < r.node_max_skin_c.size(); ++n)
          e.node_max_skin_c[w][n] = k == 0
                                        ? r.node_max_skin_c[n]
                                        : std::max(e.node_max_skin_c[w][n], r.node_max_skin_c[n]);
        e.degree_seconds[w] =
            k == 0 ? r.degree_seconds : std::max(e.degree_seconds[w], r.degree_seconds);
        e.performance[w] = k == 0 ? r.performance : std::min(e.performance[w], r.performance);
      }
  for (std::size_t c = 0; c < xs.size(); ++c) {
    for (std::size_t w = 0; w < nw && out[c].error.empty(); ++w)
      if (!run_errors[c * nw + w].empty()) out[c].error = run_errors[c * nw + w];
    if (!out[c].error.empty()) continue;
    score(settings, out[c]);
  }
  return out;
}

GlobalStage run_global_stage(const TuneJob& job, const TuneSettings& settings,
                             std::size_t shard_index, std::size_t shard_count) {
  const auto start = Clock::now();
  Progress progress{settings, start};
  GlobalStage stage;
  stage.candidates = global_count(*job.problem, settings);
  stage.evals.resize(stage.candidates);
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < stage.candidates; ++i)
    if (i % shard_count + 1 == shard_index) mine.push_back(i);
  // Batches of a few candidates per thread keep every core busy while the
  // time budget is checked between them.
  const std::size_t batch = 4 * static_cast<std::size_t>(worker_threads(settings.threads));
  std::optional<TuneEval> best;
  std::size_t done = 0;
  for (std::size_t b = 0; b < mine.size(); b += batch) {
    // The first batch always runs: it holds candidate 0, the policy as written.
    if (b > 0 && settings.time_budget_s &&
        elapsed_s(settings.started) > *settings.time_budget_s / 2) {
      stage.stopped_by_budget = true;
      break;
    }
    std::vector<std::vector<double>> xs;
    const std::size_t end = std::min(mine.size(), b + batch);
    for (std::size_t k = b; k < end; ++k)
      xs.push_back(global_candidate(*job.problem, settings.seed, mine[k]));
    auto evals = evaluate_candidates(job, settings, xs);
    for (std::size_t k = b; k < end; ++k) {
      auto& e = evals[k - b];
      if (!best || better(e, *best)) best = e;
      stage.evals[mine[k]] = std::move(e);
    }
    done = end;
    const double per = elapsed_s(start) / static_cast<double>(done);
    progress.report("global stage", done, mine.size(), *best,
                    mine.size() - done + local_count(*job.problem, settings), per,
                    done == mine.size());
  }
  if (stage.stopped_by_budget && shard_count == 1) {
    // The completed prefix is the global stage (rerun with --global <done>).
    stage.candidates = done;
    stage.evals.resize(done);
  }
  return stage;
}

namespace {

// COBYLA's view of the problem: minimise -objective (tune.h) subject to
// target_misses(w) <= 0 for every workload w (three constraints each). NLopt asks for
// the objective and the constraints at the same x one after the other; both
// come from one evaluation, cached by x.
struct LocalState {
  const TuneJob* job;
  const TuneSettings* settings;
  Clock::time_point start;
  std::size_t budget_evals;
  std::vector<TuneEval>* log;
  std::map<std::vector<double>, std::size_t> by_x;  // quantized x -> index in log
  Progress* progress;
  TuneEval* best;
  nlopt_opt opt = nullptr;
  bool stopped_by_budget = false;
  bool stopped_by_count = false;

  const TuneEval& at(const double* x) {
    std::vector<double> q(job->problem->params.size());
    for (std::size_t j = 0; j < q.size(); ++j) q[j] = quantize(job->problem->params[j], x[j]);
    if (auto it = by_x.find(q); it != by_x.end()) return (*log)[it->second];
    auto e = evaluate_candidates(*job, *settings, {q}).front();
    if (better(e, *best)) *best = e;
    log->push_back(std::move(e));
    by_x.emplace(q, log->size() - 1);
    const double used = elapsed_s(start);
    progress->report("local stage", log->size(), budget_evals, *best,
                     budget_evals - std::min(budget_evals, log->size()),
                     used / static_cast<double>(log->size()), log->size() == budget_evals);
    if (log->size() >= budget_evals) {
      stopped_by_count = true;
      nlopt_force_stop(opt);
    }
    if (settings->time_budget_s && elapsed_s(settings->started) > *settings->time_budget_s) {
      stopped_by_budget = true;
      nlopt_force_stop(opt);
    }
    return log->back();
  }
};

double objective(unsigned /*n*/, const double* x, double* grad, void* data) {
  (void)grad;  // COBYLA is derivative-free: never asked for a gradient
  auto* s = static_cast<LocalState*>(data);
  const TuneEval& e = s->at(x);
  return e.error.empty() ? -e.objective : 10.0;
}

void constraints(unsigned m, double* result, unsigned /*n*/, const double* x, double* grad,
                 void* data) {
  (void)grad;
  auto* s = static_cast<LocalState*>(data);
  const TuneEval& e = s->at(x);
  for (unsigned i = 0; i < m; ++i) result[i] = 100.0;
  if (!e.error.empty()) return;
  for (std::size_t w = 0; w < m / kMissesPerWorkload; ++w) {
    const auto misses = target_misses(*s->settings, e, w);
    std::copy(misses.begin(), misses.end(), result + w * kMissesPerWorkload);
  }
}

}  // namespace

std::variant<TuneOutcome, std::string> finish_tune(const TuneJob& job, const TuneSettings& settings,
                                                   GlobalStage global) {
  const auto& problem = *job.problem;
  if (global.candidates == 0) return std::string("the global stage evaluated no candidate");
  for (std::size_t i = 0; i < global.candidates; ++i)
    if (!global.evals[i]) return fmt::format("global stage: candidate {} was not evaluated", i);
  TuneOutcome out;
  std::size_t best_i = 0;
  for (std::size_t i = 1; i < global.candidates; ++i)
    if (better(*global.evals[i], *global.evals[best_i])) best_i = i;
  out.best_global_index = best_i;
  out.best = *global.evals[best_i];
  out.global = std::move(global);

  const std::size_t n = problem.params.size();
  const std::size_t budget = local_count(problem, settings);
  Progress progress{settings, Clock::now()};
  LocalState state{&job, &settings, Clock::now(), budget, &out.local, {}, &progress, &out.best};
  nlopt_opt opt = nlopt_create(NLOPT_LN_COBYLA, static_cast<unsigned>(n));
  if (!opt) return std::string("NLopt: cannot create the COBYLA optimiser");
  state.opt = opt;
  std::vector<double> lo(n), hi(n), step(n), x(n);
  for (std::size_t j = 0; j < n; ++j) {
    const auto& p = problem.params[j];
    lo[j] = p.lo;
    hi[j] = p.hi;
    // settings.local_step of the range first; COBYLA scales each variable by it.
    step[j] = (p.hi - p.lo) * settings.local_step;
    x[j] = out.best.x[j];
  }
  const std::size_t nw = job.workloads->size() * kMissesPerWorkload;
  std::vector<double> tol(nw, 1e-3);
  nlopt_set_lower_bounds(opt, lo.data());
  nlopt_set_upper_bounds(opt, hi.data());
  nlopt_set_initial_step(opt, step.data());
  nlopt_set_min_objective(opt, objective, &state);
  nlopt_add_inequality_mconstraint(opt, static_cast<unsigned>(nw), constraints, &state, tol.data());
  nlopt_set_maxeval(opt, static_cast<int>(budget) + 1);
  nlopt_set_xtol_rel(opt, 1e-4);
  double f = 0;
  const bool skip = budget == 0 || (settings.time_budget_s &&
                                    elapsed_s(settings.started) >= *settings.time_budget_s);
  nlopt_result result = NLOPT_SUCCESS;
  if (!skip) result = nlopt_optimize(opt, x.data(), &f);
  nlopt_destroy(opt);
  out.local_stopped_by_budget = state.stopped_by_budget || (skip && budget > 0);
  if (out.local_stopped_by_budget)
    out.local_stop = "time budget";
  else if (state.stopped_by_count || budget == 0)
    out.local_stop = "evaluation limit";
  else
    out.local_stop = nlopt_result_to_string(result);
  return out;
}

}  // namespace coolhand::sim
