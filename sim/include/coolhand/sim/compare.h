// `coolhand-sim compare`: several controllers (coolhand policies and kernel
// governors) on one model and a suite of workloads, every run from the same
// initial state with the same seed. Produces the side-by-side table (text
// and Markdown) and checks the project's targets for each coolhand policy.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/sim/bound.h"
#include "coolhand/sim/runner.h"

namespace coolhand::sim {

// °C over the skin limit a coolhand policy may reach (the first target of
// check_targets); `tune` holds its candidates to the same.
inline constexpr double kOvershootAllowedC = 0.5;
// check_targets passes a °C·s or performance within this of its baseline's
// (rounding, not a margin); `tune`'s target_misses allows the same.
inline constexpr double kCompareSlack = 1e-9;

struct ControllerChoice {
  std::string label;                 // column label: policy file stem or governor name
  std::optional<Governor> governor;  // set for kernel baselines and "none"
  std::optional<config::PolicyDocument> policy;
  KernelVersion kernel = KernelVersion::v6_1;  // the governor's core and rules
};

// Which performance bound `compare --bound` gives a model with one fan
// (`--fan-bound`; docs/simulator.md, "The tight bound"): the relaxation
// (bound_fan.cpp), or the tight bound min(relaxation, max(V, dual))
// with V the best performance of the compared controllers that hold the
// limit on the workload. Fanless models have one bound, exact, either way;
// a model with several fans gets the relaxation.
enum class FanBoundChoice { relaxed, tight };
[[nodiscard]] std::string_view to_string(FanBoundChoice c);
// Whether the tight bound applies to `model`: exactly one cooling device.
[[nodiscard]] bool tight_fan_bound_applies(const ModelSpec& model);

struct CompareCell {
  Metrics metrics;
  // For the overlay plot only: time_s, max_skin_c and performance, thinned
  // to at most 1200 buckets (highest skin, lowest performance per bucket);
  // the other fields are empty. Its size does not grow with run length.
  Trace trace;
};

struct CompareResult {
  std::vector<std::string> scenarios;
  std::vector<std::string> controllers;
  std::vector<std::vector<CompareCell>> cells;  // [scenario][controller]
  double skin_limit_c = 0;
  // Per scenario, when run_compare was asked for it: the performance bound
  // at the skin limit (bound.h); each controller's fraction of it is shown.
  std::vector<std::optional<BoundResult>> bounds;
  FanBoundChoice fan_bound = FanBoundChoice::tight;  // what --fan-bound asked for
  double wall_s = 0;                                 // the runs, bounds excluded
  double bounds_wall_s = 0;                          // the bounds
  std::uint64_t steps = 0;
};

// Errors (a policy not matching the model, a failed bound) come back as
// text. With `bound` set, each workload's performance bound at the model's
// skin limit is computed too, after its runs (default decision step; the
// tight fan bound's floor is tight_floor of those runs; `progress` as in
// BoundOptions).
[[nodiscard]] std::variant<CompareResult, std::string> run_compare(
    const ModelSpec& model, const std::vector<Workload>& workloads,
    const std::vector<ControllerChoice>& controllers, std::uint64_t seed,
    std::optional<FanBoundChoice> bound = std::nullopt,
    const std::function<void(std::string_view)>& progress = {});

// The tight fan bound's floor V on scenario `s`: the best performance of
// the controllers whose max skin is at most the limit there, and which of
// them (unset, and V = 0, when none holds it).
struct TightFloor {
  double performance = 0;
  std::optional<std::size_t> controller;
};
[[nodiscard]] TightFloor tight_floor(const CompareResult& r, std::size_t s);

// The targets for each coolhand policy against the kernel baselines, per
// scenario: never more than 0.5 °C over the limit (where the scenario's
// bound was computed and says no schedule holds the limit: never more than
// 0.5 °C over the lowest peak skin any schedule reaches); degree-seconds over the
// limit <= every kernel baseline's; performance >= the best kernel baseline
// that holds the limit (max skin <= limit: the 0.5 °C tolerance is the
// policy's only); fewer level changes per minute than step_wise. One line
// per check that fails; empty when all hold. With no kernel baseline among
// the controllers (e.g. `compare -p` without `-g`) only the first target can
// be checked; format_text and format_markdown then say so instead of
// claiming that all targets hold.
[[nodiscard]] std::vector<std::string> check_targets(const CompareResult& r);
// Whether a kernel governor other than "none" is among the controllers.
[[nodiscard]] bool has_kernel_baseline(const CompareResult& r);

[[nodiscard]] std::string format_text(const CompareResult& r);
[[nodiscard]] std::string format_markdown(const CompareResult& r);

}  // namespace coolhand::sim
