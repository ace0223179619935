// `coolhand-sim tune`: searches a policy's tunable parameters for the most
// suite performance with the skin held on every workload, and writes the
// tuned policy (docs/simulator.md, "Tuning a policy").
//
// Parameters. Each is a scalar of the policy YAML addressed by a PATH:
// mapping keys joined by '.', list elements as [i], e.g.
// `controllers.skin_pid_cpu.kp`, `controllers.skin_charge.table[0].up_c`,
// `sensors.skin_ctl.weights[1]`. Its range comes from the policy's `tune:`
// block (`tune: {params: {PATH: [LO, HI]}}`) or `--param PATH=LO..HI`
// (which wins). What is tuned depends on the scalar:
//   number          the number (an integer when the scalar and both bounds
//                   are written without a decimal point: level, samples);
//   limit + offset  `skin - 0.15`: the signed offset, in °C, against the
//                   named limit (the limit itself stays as written);
//   duration        `2s`, `500ms`: seconds.
// The tuned policy is the original text with only those scalars rewritten,
// so comments and layout survive.
//
// Search (tune_search.cpp). Candidate 0 is the policy as written; candidates
// 1..G-1 a Halton sequence over the box, shifted by the seed (a
// deterministic quasi-random global stage). The best of them starts NLopt's
// COBYLA (local stage) with three inequality constraints per workload,
// one per part of its TuneTarget (max skin, °C·s, performance against the
// baselines; without targets only the skin against limit + tolerance). The
// skin part judges each skin node's own peak against its own allowance:
// max over nodes of (node's peak - (floor + that node's tolerance)) <= 0, so
// a cover whose model error is small may come closer to the limit than one
// whose error is large (the port chain's per-cover margin). Every evaluation runs the
// policy on every workload through the shared loop (runner.h, as `compare` does), in parallel over
// candidates x workloads; results are indexed, so they do not depend on the thread count. The
// result is the best evaluation of both stages by `better`: feasible first, then the objective.
//
// Objective (TuneEval::objective; COBYLA minimises its negative): the
// suite's mean performance less kBoundShortfallWeight x the sum over
// workloads of max(0, kBoundShare x that workload's performance bound -
// its judged performance), where the bound is the one the header reports
// (BoundResult::performance_bound on the model tuned against; on a model
// with one fan compare's: the tight fan bound, unless --fan-bound relaxed,
// its floor the best kernel baseline that holds the limit on that model,
// else 0; compare.h, FanBoundChoice) and the judged
// performance the candidate's plus the workload's performance bias (below).
// So the mean no longer buys one workload's fall below 0.97 of its bound
// (issue 13's target (b)) with gains elsewhere unless they are
// 1 + nw x kBoundShortfallWeight times as large. It only ranks candidates
// of equal violation: the hard targets (skin, °C·s, performance against the
// baselines) still come first. Workloads without a feasible bound (none
// computed: --no-bound; or no schedule holds the limit) have no share term.
//
// Performance bias (TuneSettings::performance_bias, `--performance-bias
// WORKLOAD=D`): a per-workload correction of the model's performance
// prediction, measured as (device - model) by the port chain's device check
// (constraint-bias modifier adaptation; scripts/port-device.sh): the
// baselines' performance targets are device measurements (--baselines-model)
// while the candidates run on the model. The baseline target and the bound
// share judge performance + D; the suite mean (what the policy delivers on
// the model) does not include it.
//
// Sharding. The global stage's candidates are split round robin
// (candidate i is shard (i mod N) + 1's); each shard writes a shard file
// (tune_shard.cpp); merging the N files gives the same global stage as one
// machine, and the local stage then runs from the merged best. A
// single-machine run is the same computation with N = 1.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/config/error.h"
#include "coolhand/sim/bound.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/kernel_thermal.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

// One tunable scalar of the policy text.
struct TuneParam {
  enum class Kind : std::uint8_t { number, integer, limit_offset, duration_s };
  std::string path;  // as given: "controllers.skin_pid_cpu.kp"
  Kind kind = Kind::number;
  std::string limit;  // limit_offset: the limit's name ("skin")
  std::string unit;   // duration_s: the unit written ("s" or "ms")
  double lo = 0, hi = 0;
  double start = 0;        // the value as written in the policy
  std::size_t offset = 0;  // byte offset of the scalar's text in the policy text
  std::size_t length = 0;  // its length in bytes
  std::string text;        // the scalar's text as written
};

struct TuneProblem {
  std::string policy_file;
  std::string policy_text;
  std::vector<TuneParam> params;
  // The named skin limit of the policy (`limits: {skin_c: ...}`), if any.
  std::optional<double> policy_skin_limit_c;
};

// Reads the `tune:` block of `text` and the `--param PATH=LO..HI` strings
// (which replace a block entry of the same path) and resolves every PATH
// against the policy. Errors name file:line:column (the block) or the
// argument and character (--param), with a did-you-mean for unknown keys.
// No parameter at all is an error.
[[nodiscard]] std::variant<TuneProblem, std::vector<config::ConfigError>> make_tune_problem(
    std::string_view text, std::string_view file, const std::vector<std::string>& cli_params);

// The value of `p` as the tuned text writes it: rounded to what the text
// keeps (m°C for offsets, ms for durations, 5 significant digits otherwise).
[[nodiscard]] double quantize(const TuneParam& p, double v);
// The policy text with each parameter set to x[i] (quantized).
[[nodiscard]] std::string substitute(const TuneProblem& problem, std::span<const double> x);

// What one candidate achieved, per workload and over the suite.
struct TuneEval {
  std::vector<double> x;           // quantized parameter values
  std::vector<double> max_skin_c;  // per workload: the hottest skin node's peak
  // Per workload, each skin node's peak (ModelSpec::skin_nodes order).
  std::vector<std::vector<double>> node_max_skin_c;
  std::vector<double> performance;     // per workload
  std::vector<double> degree_seconds;  // per workload: °C·s over the model's skin limit
  double suite_performance = 0;        // mean over workloads
  // suite_performance - kBoundShortfallWeight x the sum of bound_shortfall
  // over the workloads: what `better` ranks candidates of equal violation by.
  double objective = 0;
  // Sum over workloads of how far the candidate misses its TuneTarget:
  // the most °C any skin node's peak is over its own allowance (see
  // target_misses), plus °C·s over
  // allowed_degree_seconds / kDegreeSecondsPerC, plus performance below
  // baseline_performance x kPerformancePerC^-1 (see TuneTarget); 0: every
  // target holds.
  double violation_c = 0;
  std::string error;  // set when the substituted policy is invalid (never better)
};

// How far evaluation `e` misses workload w's target, each part <= 0 when
// met: the largest over skin nodes n of node n's peak - (skin_floor_c +
// tolerance of n) (°C; skin_allowed_c); (°C·s - allowed_degree_seconds -
// kCompareSlack) / kDegreeSecondsPerC; performance_miss / kPerformancePerC.
// A part without a target is -1. Without
// settings.targets the floor is the limit and the other parts are -1. These
// are the local stage's constraints; their positive parts sum to violation_c.
inline constexpr std::size_t kMissesPerWorkload = 3;
struct TuneSettings;
[[nodiscard]] std::array<double, kMissesPerWorkload> target_misses(const TuneSettings& settings,
                                                                   const TuneEval& e,
                                                                   std::size_t w);
// How far evaluation e's performance on workload w falls short of w's
// baseline target (<= 0: met), kCompareSlack included: the baseline's
// performance - (e's performance + w's performance bias), but never asking
// the model for more than full performance (kFullPerformance): a negative
// bias where the baseline delivers 1 (it never throttles: on-off, web)
// would ask for more than any candidate delivers, a target no search can
// meet and so one it trades away for any other miss; capped, it asks the
// model not to throttle there at all. `settings.targets` must have w.
[[nodiscard]] double performance_miss(const TuneSettings& settings, const TuneEval& e,
                                      std::size_t w);
// Evaluation e's performance on workload w plus w's performance bias: what
// the bound share and an uncapped baseline target judge.
[[nodiscard]] double judged_performance(const TuneSettings& settings, const TuneEval& e,
                                        std::size_t w);
// max(0, kBoundShare x w's performance bound - judged_performance); 0
// where w has no bound.
[[nodiscard]] double bound_shortfall(const TuneSettings& settings, const TuneEval& e,
                                     std::size_t w);
// Sets e's suite_performance, violation_c and objective from its
// per-workload results (evaluate_candidates does this for every candidate).
void score(const TuneSettings& settings, TuneEval& e);
// The peak skin node `n` may reach on workload w: its floor (the limit, or
// the bound's lowest peak where no schedule holds it) + node n's tolerance.
[[nodiscard]] double skin_allowed_c(const TuneSettings& settings, std::size_t w, std::size_t n);

// Whether `a` ranks strictly above `b` in the search's order: no error
// before an error, less violation, then the larger objective (suite
// performance less the bound-share penalty). Ties keep the earlier
// evaluation.
[[nodiscard]] bool better(const TuneEval& a, const TuneEval& b);

// What a candidate must achieve on one workload for `compare` to pass it
// (compare.h, check_targets), fixed before the search (tune_targets.cpp):
//   skin_floor_c            max(limit, the bound's lowest peak skin): where
//                           no schedule holds the limit (`bound` infeasible:
//                           a soaked start, a hot car) the floor is the
//                           lowest peak any schedule reaches; each skin node
//                           may peak at the floor + its own tolerance
//                           (compare judges the hottest node against the
//                           floor + 0.5, so one floor serves every node);
//   allowed_degree_seconds  the fewest °C·s over the limit of the kernel
//                           baselines (unset: no baseline ran);
//   baseline_performance    the best performance of a kernel baseline whose
//                           skin never exceeds the limit (unset: none does);
//   performance_bound       the bound's upper bound on performance where a
//                           schedule holds the limit (unset: no bound
//                           computed, or infeasible): the objective's share
//                           term (kBoundShare).
struct TuneTarget {
  double skin_floor_c = 0;
  std::optional<double> allowed_degree_seconds;
  std::optional<double> baseline_performance;
  std::string baseline;  // the governor whose performance is baseline_performance
  std::optional<double> performance_bound;
};
// How the three misses add up in TuneEval::violation_c: 60 °C·s over count
// as 1 °C over the peak, and 0.01 of performance short as 1 °C. They only
// rank candidates that miss; a candidate that meets every target has 0.
inline constexpr double kDegreeSecondsPerC = 60.0;
inline constexpr double kPerformancePerC = 0.01;
// A run's performance (delivered / demanded work) is at most this: every
// device at full performance throughout.
inline constexpr double kFullPerformance = 1.0;
// The objective's share term: each workload's judged performance below
// kBoundShare of its bound costs kBoundShortfallWeight per unit, on top of
// the 1/nw it already weighs in the mean. 1: on the 11-workload suite a
// workload short of 0.97 costs 12x its weight in the mean, so the search
// gives it up only for 12x as much gained elsewhere, yet the term stays
// one of the same scale as the mean's differences (a candidate 0.003
// short on three workloads loses ~0.009, about what the local stage moves
// the mean), where a far larger weight would turn the objective into a
// cliff COBYLA's linear models step over badly.
inline constexpr double kBoundShare = 0.97;
inline constexpr double kBoundShortfallWeight = 1.0;

struct TuneSettings {
  std::uint64_t seed = 1;  // Halton shift and the sensor-noise seed of every run ...
  // ... or, with K > 1, every candidate runs each workload with the noise
  // seeds seed .. seed+K-1 and counts its worst: the hottest peak, the most
  // °C·s, the least performance (the baselines' targets use `seed`). One
  // seed can favour a policy that rides the tolerance's edge by luck.
  std::size_t noise_seeds = 1;
  double limit_c = 45.0;  // max skin allowed on every workload ...
  // ... plus, on each skin node, its own tolerance (°C), in the model's
  // ModelSpec::skin_nodes order; one value: every node's (by default
  // compare's kOvershootAllowedC). The port chain gives each cover 0.5 less
  // twice the fit's held-out error on it (scripts/port-device.sh).
  std::vector<double> tolerance_c{0.5};
  // Per workload and skin node (empty, or parallel to the workloads, each
  // parallel to the skin nodes): that workload's own tolerance for that
  // node where set, winning over tolerance_c (`--tolerance
  // WORKLOAD:NODE=T`). The port chain's device check sets one for each
  // constraint it measured close to binding, from that constraint's own
  // device - model bias (constraint-bias modifiers, one per constraint:
  // scripts/port-device.sh).
  std::vector<std::vector<std::optional<double>>> workload_tolerance_c;
  // Per workload (parallel to the workloads); empty: the allowed skin is
  // limit + tolerance everywhere and there is no baseline to meet.
  std::vector<TuneTarget> targets;
  // Per workload (parallel to the workloads; empty: 0 everywhere): added to
  // a candidate's performance where it is judged against a target, the
  // baseline's and the bound share's (judged_performance); see the header.
  std::vector<double> performance_bias;
  // °C: a candidate's °C·s over the limit are counted from the model's
  // skin limit - limit_margin_c (evaluate_candidates runs them on a copy
  // of the model with that limit, which only the runner's °C·s read; the
  // peaks are judged against limit_c, and the baselines' allowed °C·s stay
  // over the limit itself): the port chain's device check measures how much hotter
  // the device runs than the fitted model near the limit and gives it, plus
  // a margin, here (scripts/port-device.sh). Negative: above the limit.
  double limit_margin_c = 0.0;
  // G, including the start; unset: 16 per parameter, at least 32.
  std::optional<std::size_t> global_candidates;
  // COBYLA's evaluations; unset: 30 per parameter, at least 40; 0: none.
  std::optional<std::size_t> local_evaluations;
  // COBYLA's first step, as a fraction of each parameter's range: a
  // quarter explores from a global stage's best; a re-tune from a tuned
  // policy (the port chain's device check) takes a smaller one so that it
  // searches that policy's neighbourhood, not the range's far side.
  double local_step = 0.25;
  unsigned threads = 0;  // 0: every core
  // Wall time from `started`: the global stage starts no batch after half
  // of it, the local stage stops at all of it. A run stopped by it says so;
  // rerun with --global/--local at the counts it reached to reproduce it.
  std::optional<double> time_budget_s;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::function<void(std::string_view)> progress;  // stderr lines; may be empty
};

// The inputs every evaluation shares.
struct TuneJob {
  const ModelSpec* model = nullptr;
  const std::vector<Workload>* workloads = nullptr;
  const TuneProblem* problem = nullptr;
};

// Evaluates `xs` (each one vector of parameter values) on every workload,
// in parallel; results in the order of `xs`.
[[nodiscard]] std::vector<TuneEval> evaluate_candidates(const TuneJob& job,
                                                        const TuneSettings& settings,
                                                        const std::vector<std::vector<double>>& xs);

// The global stage's candidate `index` (0: the start point).
[[nodiscard]] std::vector<double> global_candidate(const TuneProblem& problem, std::uint64_t seed,
                                                   std::size_t index);
[[nodiscard]] std::size_t global_count(const TuneProblem& problem, const TuneSettings& s);
[[nodiscard]] std::size_t local_count(const TuneProblem& problem, const TuneSettings& s);

// The global stage's evaluations, by candidate index; a shard holds only
// its own (the others are absent).
struct GlobalStage {
  std::size_t candidates = 0;                  // G
  std::vector<std::optional<TuneEval>> evals;  // size G
  bool stopped_by_budget = false;
};

// Runs the candidates of shard `shard_index` of `shard_count` (1-based);
// with 1 of 1, all of them. Stops early (stopped_by_budget) when the time
// budget's half is used.
[[nodiscard]] GlobalStage run_global_stage(const TuneJob& job, const TuneSettings& settings,
                                           std::size_t shard_index, std::size_t shard_count);

struct TuneOutcome {
  GlobalStage global;
  std::vector<TuneEval> local;  // in evaluation order
  TuneEval best;
  std::size_t best_global_index = 0;  // the local stage's start
  bool local_stopped_by_budget = false;
  // Why the local stage ended: "evaluation limit", "time budget", or
  // NLopt's result ("XTOL_REACHED": converged).
  std::string local_stop;
};

// The local stage from the best of `global` (complete: every candidate
// evaluated), and the best of both stages.
[[nodiscard]] std::variant<TuneOutcome, std::string> finish_tune(const TuneJob& job,
                                                                 const TuneSettings& settings,
                                                                 GlobalStage global);

// -- targets (tune_targets.cpp)

// The TuneTarget of each workload: `governors` (kernel baselines, `kernel`'s
// rules) run once on every workload from its start state with `seed`, as
// compare runs them, and `bounds` (parallel to the workloads; nullopt: the
// floor is the limit). A baseline holds the limit when its max skin is at
// most `limit_c`, as in compare. Runs spread over `threads` (0: every core).
[[nodiscard]] std::vector<TuneTarget> tune_targets(
    const ModelSpec& model, const std::vector<Workload>& workloads,
    const std::vector<Governor>& governors, KernelVersion kernel,
    const std::vector<std::optional<BoundResult>>& bounds, double limit_c, std::uint64_t seed,
    unsigned threads);
// Sets each target's bound parts (skin_floor_c and performance_bound) from
// `bounds` (parallel; nullopt: the floor is the limit, no bound share), the
// rest kept: tune computes a one-fan model's tight bound after the
// baselines ran, with the best of them that holds the limit as its floor.
void apply_bounds(std::vector<TuneTarget>& targets,
                  const std::vector<std::optional<BoundResult>>& bounds, double limit_c);

// `tune --tolerance` (repeatable): `T` sets every skin node's tolerance,
// `NODE=T` one node's (which wins over a plain T), `WORKLOAD:NODE=T` that
// node's on one workload (its file's stem; wins over both there); T in °C,
// a finite number. Returns one tolerance per skin node of `skin_nodes`
// (nodes not named: the plain T, else `fallback_c`) and the per-workload
// ones (TuneSettings::workload_tolerance_c; empty when none is given), or
// an error naming the argument: an unknown node (with the model's skin
// nodes) or workload (with the suite's), a node, workload's node or plain T
// given twice, a T that is not a number.
struct TuneTolerances {
  std::vector<double> node_c;
  std::vector<std::vector<std::optional<double>>> workload_node_c;
};
[[nodiscard]] std::variant<TuneTolerances, std::string> parse_tolerances(
    const std::vector<std::string>& args, const std::vector<std::string>& skin_nodes,
    const std::vector<std::string>& workload_names, double fallback_c);

// `tune --performance-bias WORKLOAD=D` (repeatable): workload WORKLOAD's
// performance bias (a number, e.g. -0.0012), WORKLOAD as the workload's name
// (its file's stem). Returns one bias per workload of `workload_names` (0
// where not named), or an error naming the argument: no '=', an unknown
// workload (with the suite's names), a workload given twice, a D that is not
// a finite number.
[[nodiscard]] std::variant<std::vector<double>, std::string> parse_performance_biases(
    const std::vector<std::string>& args, const std::vector<std::string>& workload_names);

// -- output (tune_output.cpp)

// The tuned policy: a header comment (model, suite, limit, settings, per
// workload max skin, performance and fraction of the bound, the values
// chosen) and the original text with the tuned values. `bounds` is parallel
// to the workloads (nullopt: not computed).
struct TuneReportInputs {
  std::string model_name;
  std::vector<std::string> workload_names;
  std::vector<std::optional<BoundResult>> bounds;
  std::string baselines;  // the kernel baselines run for the targets, e.g. "step_wise, bang_bang"
  std::vector<std::string> skin_nodes;  // the model's, parallel to the tolerances
  // Which bound `bounds` are on a model with a fan (`tune --fan-bound`), a
  // line of the header; empty on a fanless model (one bound, exact).
  std::string bound_note;
};
[[nodiscard]] std::string tuned_policy_text(const TuneJob& job, const TuneSettings& settings,
                                            const TuneOutcome& outcome,
                                            const TuneReportInputs& report);
// Suite performance and the skin's worst miss (target_misses' skin part:
// the most °C any skin node is over its own allowance on any workload; <= 0
// holds) of every evaluation in order (global stage, then local), with the
// best so far: an SVG (plot.cpp).
[[nodiscard]] std::string convergence_svg(const TuneOutcome& outcome, const TuneSettings& settings,
                                          const std::string& title);

// -- shards (tune_shard.cpp); format in docs/simulator.md, "Tuning on many
// machines". Version 2 carries each skin node's peak per workload; a
// version-1 file (without them) is refused with a message to re-run it.
// Version 3 carries each evaluation's objective (the bound share's penalty
// is new); version 4 names the bound that objective's share is of (run
// "fan_bound": compare's tight fan bound is tune's default, where version 3
// had the relaxation); an older file is refused the same way.
inline constexpr int kTuneShardVersion = 4;

// `identity` is the run's identity (inputs' digests and settings), equal in
// every shard of one run; the text is the shard file.
[[nodiscard]] std::string tune_shard_json(const std::string& identity, std::size_t shard_index,
                                          std::size_t shard_count, const GlobalStage& stage);

// Checks that `shard_texts` are the N shards of one run (same identity,
// each index 1..N once, every candidate present exactly once) and returns
// the complete global stage, or an error naming the file at fault.
// `names` (parallel) are for messages. `identity`, when non-empty, must
// match the shards' (the merging command's own inputs).
struct MergedTuneShards {
  std::string identity;
  GlobalStage global;
};
[[nodiscard]] std::variant<MergedTuneShards, std::string> merge_tune_shards(
    const std::vector<std::string>& shard_texts, const std::vector<std::string>& names,
    const std::string& identity);

}  // namespace coolhand::sim
