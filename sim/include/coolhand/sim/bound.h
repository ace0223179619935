// The offline-optimal throttle schedule (`coolhand-sim bound`): the most
// performance any controller could deliver on a model and workload with the
// skin at or below a limit, and the lowest peak skin any schedule reaches.
//
// The model is linear (model.h), so with each device's level relaxed to time
// fractions over its levels (its (power, performance) points relaxed to their
// convex hull) the skin temperature at every step is affine in the schedule,
// and the best schedule is a linear programme, solved with GLPK:
//   variables  x[d][l][b] >= 0, the fraction of decision step b device d
//              spends at level l (sum over l = 1), and the node
//              temperatures at the start of each decision step;
//   dynamics   the simulator's own exact 100 ms step (ThermalModel::
//              step_matrices), applied to the workload's demand and ambient
//              step by step as the runner applies them; a decision step is
//              a whole number of model steps with x held;
//   limit      every skin node <= limit at the start of every decision step
//              (the runner's max skin is taken at the start of each step, so
//              the state after the last step is not checked);
//   objective  the runner's performance metric, sum_d w_d delivered_d /
//              sum_d w_d demanded_d.
//
// What is guaranteed. A real controller picks one level per device per
// 100 ms step; any run with max skin <= limit is a feasible point of the
// "fine" LP (decision step = model step, limit checked at every step). The
// coarse LP solved here is not a relaxation of the fine one (it holds x over
// a decision step, and checks the limit only at decision-step starts), so its
// optimum proves nothing by itself. The bound reported is instead the fine
// LP's Lagrangian dual value at the coarse LP's skin multipliers: for any
// multipliers >= 0 it is >= the fine LP's optimum (weak duality), so it is a
// true upper bound on every controller's performance with max skin <= limit,
// whatever the decision step; coarsening only loosens it (compare it with
// `schedule_performance`). The lowest peak skin is exact: the step matrices
// are elementwise >= 0 (the exponential of a Metzler matrix), so every
// node's temperature at every step is lowest when every device draws its
// lowest power at every step; that schedule's 100 ms peak is the minimum.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

struct BoundOptions {
  double limit_c = 45.0;  // skin limit, °C
  // Length of a decision step, a whole number of model steps. Unset: the
  // model step for runs of at most kBoundMaxDecisionSteps steps, else the
  // shortest whole number of model steps that keeps within that many.
  std::optional<Millis> decision_step;
  // Called with progress lines (the LP's size, the solver's iteration log
  // every few seconds, the solve time); may be empty.
  std::function<void(std::string_view)> progress;
  // Also return the LP's schedule (BoundResult::schedule; `bound --schedule`).
  bool schedule = false;
  // A model with one fan: hold the fan at `level` from `from` on (ascending,
  // the first from 0, each a whole number of decision steps; `bound
  // --fan-at`), its noise charged at every step. The model is then linear
  // and the bound exact as above, but only for the controllers whose fan
  // follows this schedule: it is no bound on any other. It measures how
  // loose the fan relaxation (below) is, never replaces it. Empty: the
  // relaxation.
  struct FanHold {
    Millis from{0};
    std::size_t level = 0;
  };
  std::vector<FanHold> fan_schedule;
  // A model with one fan (`bound --fan-bound tight`): instead of the
  // relaxation's figure, the tight bound (sim/src/bound_fan_tight.cpp):
  // max(floor, the per-level dual over state boxes tightened for the runs
  // that hold the limit and deliver >= floor). Valid for any floor; it is
  // tightest near the best performance a controller reaches.
  struct FanTight {
    double floor = 0;  // V, the performance floor the boxes are tightened for
    int rounds = 1;    // tightening rounds
  };
  std::optional<FanTight> fan_tight;
};

// "S:LEVEL" (seconds, a whole number of ms; a level index) as a FanHold, or
// why not.
[[nodiscard]] std::variant<BoundOptions::FanHold, std::string> parse_fan_hold(
    std::string_view text);

// The coarse LP's optimal schedule, one step per decision step, as the LP
// sees it (levels relaxed to fractions; for a model with fans, the
// relaxation's devices). `bound --schedule FILE` writes it as CSV.
struct BoundScheduleStep {
  double time_s = 0;                // the decision step's start
  std::vector<double> power_w;      // per device: its power at full demand, W
  std::vector<double> performance;  // per device: the fractions' performance
  // The step's share of the run's weighted demand (the shares sum to 1) and
  // its weighted performance: sum over steps of share * performance is the
  // schedule's performance (BoundResult::schedule_performance).
  double demand_share = 0;
  double step_performance = 1;
  std::vector<double> peak_skin_c;  // per skin node: its peak over the step, the schedule replayed
};
struct BoundSchedule {
  std::vector<std::string> devices, skin_nodes;  // the model's order
  std::vector<BoundScheduleStep> steps;
};

// The schedule as CSV: time_s, per device <name>_power_w and
// <name>_performance, demand_share, performance, per skin node <name>_peak_c.
[[nodiscard]] std::string bound_schedule_csv(const BoundSchedule& schedule);

// Decision steps above which the default decision step is coarsened: the LP
// then solves in seconds on one core (docs/benchmarks.md has the figures).
inline constexpr std::uint64_t kBoundMaxDecisionSteps = 360;

// A model with cooling devices (fans) is bounded through a relaxation
// (sim/src/bound_fan.cpp): every fan at its strongest cooling and lowest
// power with its noise cost dropped, and a cooling credit on the steps where
// a node may be below ambient (where more airflow warms it). The figures
// are then an upper bound on performance and a lower bound on the lowest
// peak skin (no longer exact), for every controller and fan schedule.
// BoundOptions::fan_tight replaces the performance figure by a tighter one
// (still a bound for every controller; sim/src/bound_fan_tight.cpp).
struct FanRelaxation {
  std::uint64_t credited_steps = 0;  // model steps with a below-ambient credit
  double max_credit_c = 0;           // its largest value on one node in one step, °C
};

// The tight fan bound's figures (BoundOptions::fan_tight).
struct FanTightResult {
  double floor = 0;          // V
  double dual = 0;           // the dual over the tightened boxes
  double relaxed = 0;        // the relaxation's figure it replaces
  std::uint64_t lps = 0;     // tightening LPs solved
  std::uint64_t failed = 0;  // of which without an optimum (their boxes left loose)
  double mean_gain_c = 0;    // mean rise of the tightened lower bounds, °C
  double seconds = 0;        // wall time of the tightening and the dual
  // The lower bounds the dual used, per model step k and node i at [k *
  // nodes + i], °C: every run that holds the limit and reaches the floor
  // starts step k with T_i >= it (tests check real runs against it).
  std::vector<double> lower_c;
};

struct BoundResult {
  double limit_c = 0;
  std::optional<FanRelaxation> fan_relaxation;  // set for models with fans, unless held
  // Set when the tight bound replaced the relaxation's performance figure.
  std::optional<FanTightResult> fan_tight;
  bool fan_held = false;  // BoundOptions::fan_schedule was followed
  // Lowest peak skin any schedule reaches: every device at its lowest-power
  // level throughout (exact at every 100 ms step, see above).
  double lowest_peak_skin_c = 0;
  // False when limit_c < lowest_peak_skin_c: no schedule holds the limit,
  // and the fields below are unset.
  bool feasible = false;
  // Upper bound on the performance of any controller whose max skin is at
  // most limit_c (the fine LP's dual value; guaranteed, see above).
  double performance_bound = 0;
  // The coarse LP's optimum: the performance of its schedule, whose skin is
  // checked only at decision-step starts, and that schedule's peak skin
  // replayed at every model step. When schedule_peak_skin_c <= limit_c the
  // fine LP's optimum lies in [schedule_performance, performance_bound].
  double schedule_performance = 0;
  double schedule_peak_skin_c = 0;
  Millis decision_step{0};
  std::uint64_t steps = 0;           // model steps in the run
  std::uint64_t decision_steps = 0;  // LP decision steps
  std::uint64_t variables = 0;
  std::uint64_t constraints = 0;
  double solve_s = 0;  // wall time of the LP solve
  // With BoundOptions::schedule, for a feasible run with some demand.
  std::optional<BoundSchedule> schedule;
};

// One line saying what the figures of a model with fans mean (above), for
// `bound` and `compare --bound`; empty for a model without fans.
[[nodiscard]] std::string fan_relaxation_note(const BoundResult& r);

// Errors (a decision step that is no whole number of model steps, a solver
// failure) come back as text. `workload` is copied and replayed from t = 0.
[[nodiscard]] std::variant<BoundResult, std::string> compute_bound(const ModelSpec& model,
                                                                   const Workload& workload,
                                                                   const BoundOptions& options);

}  // namespace coolhand::sim
