// coolhand-sim: the command line. `run` (closed loop, the default with no
// arguments: the bundled reference scenario), `compare` (policies and
// governors over a workload suite) and `bound` (the offline-optimal
// schedule's performance, bound.h) are here; compare and bound take
// --shard K/N, and `merge` combines the shard files (shard.h, merge.h;
// cmd_merge.cpp). `replay` and `export` are in cmd_replay.cpp, `fit` in
// cmd_fit.cpp, `tune` in cmd_tune.cpp, `port` in cmd_port.cpp. Bundled data
// (models, workloads, the reference policy) is looked up as cmd_common.h
// says.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmd_common.h"
#include "cmd_fan_bound.h"
#include "cmd_fit.h"
#include "cmd_merge.h"
#include "cmd_port.h"
#include "cmd_replay.h"
#include "cmd_run_record.h"
#include "cmd_status.h"
#include "cmd_tune.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/sim/bound.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/report.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/shard.h"

namespace fs = std::filesystem;
using namespace coolhand;
using namespace coolhand::sim;

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Governor parse_governor(const std::string& name) {
  auto g = governor_from_string(name);
  if (!g)
    throw Failure("unknown governor '" + name +
                  "' (one of: none, step_wise, bang_bang, fair_share, power_allocator)");
  return *g;
}

KernelVersion parse_kernel(const std::string& name) {
  auto k = kernel_version_from_string(name);
  if (!k) throw Failure("unknown kernel '" + name + "' (one of: 6.1, 7.3)");
  return *k;
}

// Writes a shard's file (--shard K/N; shard.h) to `file`, or its default name.
int write_shard(std::variant<std::string, ShardError> made, std::string_view kind,
                const ShardSpec& s, std::string file) {
  if (auto* e = std::get_if<ShardError>(&made)) throw Failure(e->message);
  if (file.empty()) file = default_shard_file(kind, s);
  check(write_text(std::get<std::string>(made), file));
  std::cout << fmt::format("{} shard {}/{}: wrote {}\n", kind, s.index, s.count, file);
  return 0;
}

ShardSpec shard_spec(const std::string& text) {
  auto s = parse_shard_spec(text);
  if (auto* e = std::get_if<std::string>(&s)) throw Failure(*e);
  return std::get<ShardSpec>(s);
}

// ------------------------------------------------------------------- run --

struct RunArgs {
  std::string model, workload, policy, governor, out = "coolhand-sim-out", kernel = "6.1";
  std::uint64_t seed = 1;
  bool no_trace = false;
  std::string record;  // --record FILE: a coolhandd recording of the loop (cmd_run_record.h)
  std::vector<std::string> profile_at;  // --profile-at SECONDS=PROFILE, repeatable
};

// --profile-at SECONDS=PROFILE: a profile switch (runner.h, ProfileSwitch).
ProfileSwitch parse_profile_at(const std::string& arg) {
  const auto eq = arg.find('=');
  const auto at = eq == std::string::npos ? std::nullopt : parse_run_seconds(arg.substr(0, eq));
  if (!at)
    throw Failure("--profile-at '" + arg +
                  "': expected SECONDS=PROFILE, SECONDS a number of seconds from 0 to 1e9 "
                  "(PROFILE empty: the policy as written)");
  return {*at, arg.substr(eq + 1)};
}

int cmd_run(const RunArgs& a) {
  if (!a.policy.empty() && !a.governor.empty())
    throw Failure("give --policy or --governor, not both");
  const std::string model_path = a.model.empty() ? need_data(kReferenceModel) : a.model;
  const std::string workload_path = a.workload.empty() ? need_data(kReferenceWorkload) : a.workload;
  const ModelSpec spec = load_model(model_path);
  const Workload workload = load_workload(workload_path, spec);
  std::unique_ptr<Controller> controller;
  std::optional<RunRecording> recording;
  std::optional<config::PolicyDocument> doc;
  if (!a.governor.empty()) {
    if (!a.record.empty())
      throw Failure("--record needs a policy: a governor runs no coolhandd loop");
    if (!a.profile_at.empty())
      throw Failure("--profile-at needs a policy: a governor has no profiles");
    controller = make_governor_controller(spec, parse_governor(a.governor), parse_kernel(a.kernel));
  } else {
    const std::string policy_path = a.policy.empty() ? need_data(kReferencePolicy) : a.policy;
    doc = load_policy(policy_path);
    if (!a.record.empty())
      recording.emplace(policy_path, std::chrono::duration<double>(workload.duration()).count());
    std::vector<ProfileSwitch> switches;
    for (const auto& p : a.profile_at) switches.push_back(parse_profile_at(p));
    auto made = make_policy_controller(spec, *doc, stem(policy_path), policy::Delivery::pushed,
                                       recording ? recording->loop() : LoopRecording{},
                                       std::move(switches));
    if (auto* e = std::get_if<std::string>(&made)) throw Failure(policy_path + ": " + *e);
    controller = std::move(std::get<std::unique_ptr<Controller>>(made));
  }
  RunOptions opts;
  opts.record_trace = !a.no_trace;
  const RunResult r = run_from_start(spec, workload, *controller, a.seed, opts);
  ensure_dir(a.out);
  const std::string dir = fs::path(a.out).string();
  if (!a.no_trace) {
    check(write_trace_csv(r.trace, dir + "/trace.csv"));
    check(write_text(
        plot_run_svg(r.trace, spec,
                     fmt::format("{} / {} / {}", spec.name, workload.name(), controller->name())),
        dir + "/plot.svg"));
  }
  check(write_text(metrics_json(r.metrics), dir + "/metrics.json"));
  if (recording) {
    check(recording->write(*doc, a.record));
    std::cout << fmt::format("recorded {} records to {}\n", recording->records(), a.record);
  }
  const auto& m = r.metrics;
  std::cout << fmt::format(
      "{} on {} ({}), {:.0f} s simulated:\n"
      "  max skin {:.2f} °C (limit {:.1f}), {:.1f} s and {:.1f} °C·s over the limit\n"
      "  performance {:.4f}, {:.2f} level changes/min, {} controller decisions\n"
      "  {} steps in {:.3f} s wall: {:.0f} steps/s\n"
      "  wrote {}/{{{}metrics.json}}\n",
      m.controller, m.scenario, spec.name, m.duration_s, m.max_skin_c, m.skin_limit_c,
      m.seconds_over_limit, m.degree_seconds_over_limit, m.performance, m.level_changes_per_min,
      m.decisions, m.steps, m.wall_s, m.steps_per_s, dir, a.no_trace ? "" : "trace.csv,plot.svg,");
  return 0;
}

// ----------------------------------------------------------------- bound --

struct BoundArgs {
  std::string model, shard, shard_file, schedule;
  std::vector<std::string> workloads;
  std::vector<std::string> fan_at;  // --fan-at S:LEVEL (BoundOptions::fan_schedule)
  std::optional<double> limit_c, step_s;
  bool quiet = false;
  FanBoundChoice fan_bound = FanBoundChoice::relaxed;  // --fan-bound (cmd_fan_bound.h)
  std::optional<double> fan_floor;                     // --fan-floor V (BoundOptions::FanTight)
  int fan_rounds = 1;                                  // --fan-rounds N
};

int cmd_bound(const BoundArgs& a) {
  const std::string model_path = a.model.empty() ? need_data(kReferenceModel) : a.model;
  std::vector<std::string> paths = a.workloads;
  if (paths.empty()) paths.push_back(need_data(kReferenceWorkload));
  const ModelSpec spec = load_model(model_path);
  std::vector<Workload> workloads;
  workloads.reserve(paths.size());
  for (const auto& w : paths) workloads.push_back(load_workload(w, spec));
  BoundOptions opts;
  opts.limit_c = a.limit_c.value_or(spec.skin_limit_c);
  if (a.step_s) {
    const double ms = *a.step_s * 1000.0;
    if (!(ms > 0) || std::abs(ms - std::round(ms)) > 1e-6)
      throw Failure(fmt::format(
          "--step {}: the decision step must be a positive whole number of ms", *a.step_s));
    opts.decision_step = Millis(static_cast<std::int64_t>(std::round(ms)));
  }
  if (!a.quiet) opts.progress = [](std::string_view line) { std::cerr << line << "\n"; };
  opts.schedule = !a.schedule.empty();
  for (const auto& f : a.fan_at) {
    auto hold = parse_fan_hold(f);
    if (auto* e = std::get_if<std::string>(&hold)) throw Failure("--fan-at " + *e);
    opts.fan_schedule.push_back(std::get<BoundOptions::FanHold>(hold));
  }
  if (a.fan_bound == FanBoundChoice::tight) {
    const double floor = a.fan_floor.value_or(0.0);
    if (!(floor >= 0) || floor > 1)
      throw Failure(fmt::format("--fan-floor {}: a performance in [0, 1]", floor));
    opts.fan_tight = BoundOptions::FanTight{floor, a.fan_rounds};
  } else if (a.fan_floor) {
    throw Failure("--fan-floor needs --fan-bound tight");
  }
  if (opts.schedule && workloads.size() != 1)
    throw Failure(fmt::format("bound --schedule: one workload, not {}", workloads.size()));
  if (!a.shard.empty())
    return write_shard(
        run_bound_shard({&spec, model_path, &workloads, paths, opts}, shard_spec(a.shard)), "bound",
        shard_spec(a.shard), a.shard_file);
  for (const auto& workload : workloads) {
    auto res = compute_bound(spec, workload, opts);
    if (auto* e = std::get_if<std::string>(&res))
      throw Failure("bound: " + workload.name() + ": " + *e);
    const auto& r = std::get<BoundResult>(res);
    if (!r.feasible) throw Failure(bound_infeasible_message(r, workload.name()));
    std::cout << format_bound_report(r, workload.name(), spec.name, spec.time_step);
    if (opts.schedule) {
      if (!r.schedule)
        throw Failure("bound --schedule: " + workload.name() +
                      " demands nothing of any device: no LP, no schedule");
      check(write_text(bound_schedule_csv(*r.schedule), a.schedule));
      std::cout << fmt::format("  wrote the LP's schedule ({} decision steps) to {}\n",
                               r.schedule->steps.size(), a.schedule);
    }
  }
  return 0;
}

// --------------------------------------------------------------- compare --

struct CompareArgs {
  std::string model, markdown, out = "coolhand-sim-compare", kernel = "6.1", shard, shard_file;
  std::vector<std::string> workloads, policies, governors;
  std::uint64_t seed = 1;
  bool bound = false;
  FanBoundChoice fan_bound = FanBoundChoice::tight;  // --fan-bound (cmd_fan_bound.h)
};

int cmd_compare(CompareArgs a) {
  const std::string model_path = a.model.empty() ? need_data(kReferenceModel) : a.model;
  const ModelSpec spec = load_model(model_path);
  if (a.workloads.empty()) {
    const auto dir = fs::path(need_data(kReferenceWorkload)).parent_path();
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv") a.workloads.push_back(e.path().string());
    std::sort(a.workloads.begin(), a.workloads.end());
  }
  if (a.policies.empty() && a.governors.empty()) {
    a.policies.push_back(need_data(kReferencePolicy));
    a.governors = {"step_wise", "bang_bang", "fair_share", "power_allocator", "none"};
  }
  std::vector<Workload> workloads;
  for (const auto& w : a.workloads) workloads.push_back(load_workload(w, spec));
  std::vector<ControllerChoice> choices;
  for (const auto& p : a.policies) choices.push_back({stem(p), std::nullopt, load_policy(p)});
  for (const auto& g : a.governors)
    choices.push_back({g, parse_governor(g), std::nullopt, parse_kernel(a.kernel)});
  const auto bound = a.bound ? std::optional(a.fan_bound) : std::nullopt;
  if (!a.shard.empty()) {
    a.policies.resize(choices.size());  // governors have no policy file
    const auto progress = [](std::string_view line) { std::cerr << line << "\n"; };
    return write_shard(run_compare_shard({&spec, model_path, &workloads, a.workloads, &choices,
                                          a.policies, a.seed, bound},
                                         shard_spec(a.shard), progress),
                       "compare", shard_spec(a.shard), a.shard_file);
  }
  auto res = run_compare(spec, workloads, choices, a.seed, bound);
  if (auto* e = std::get_if<std::string>(&res)) throw Failure(*e);
  const auto& r = std::get<CompareResult>(res);
  check(write_compare_report(r, a.bound, spec.name, a.markdown, a.out, std::cout));
  return 0;
}

}  // namespace

namespace {

int run_sim(int argc, char** argv) {
  CLI::App app{
      "coolhand-sim: closed-loop handheld thermal simulation with the coolhand policy engine and "
      "Linux 6.1 governor baselines. With no arguments, runs the bundled reference scenario "
      "(7\" UMPC, 30 min gaming, coolhand policy) into ./coolhand-sim-out/."};
  app.require_subcommand(0, 1);

  RunArgs ra;
  auto* run_cmd = app.add_subcommand("run",
                                     "closed loop: model + workload + policy or governor; "
                                     "writes trace.csv, metrics.json, plot.svg");
  run_cmd->add_option("--model,-m", ra.model, "model YAML (default: bundled reference UMPC)");
  run_cmd->add_option("--workload,-w", ra.workload, "workload CSV (default: bundled gaming.csv)");
  run_cmd->add_option("--policy,-p", ra.policy, "coolhand policy YAML (default: reference policy)");
  run_cmd->add_option("--governor,-g", ra.governor,
                      "kernel baseline instead of a policy: none, step_wise, bang_bang, "
                      "fair_share, power_allocator");
  run_cmd->add_option("--kernel", ra.kernel, "the governor's kernel rules: 6.1 or 7.3 (6.13+)")
      ->capture_default_str();
  run_cmd->add_option("--out,-o", ra.out, "output directory")->capture_default_str();
  run_cmd->add_option("--seed", ra.seed, "sensor-noise seed")->capture_default_str();
  run_cmd->add_flag("--no-trace", ra.no_trace, "write metrics.json only (fastest)");
  run_cmd->add_option("--record", ra.record,
                      "also write the policy's loop as a coolhandd flight recording (.chrec)");
  run_cmd->add_option("--profile-at", ra.profile_at,
                      "SECONDS=PROFILE: switch the policy's profile at that time, as coolhandctl "
                      "would (repeatable; PROFILE empty: the policy as written)");

  add_replay_commands(app);  // replay and export (cmd_replay.h)

  CompareArgs ca;
  auto* compare_cmd =
      app.add_subcommand("compare",
                         "policies and governors side by side over a workload suite (default: the "
                         "reference policy and every governor over all bundled workloads)");
  compare_cmd->add_option("--model,-m", ca.model, "model YAML (default: bundled reference UMPC)");
  compare_cmd->add_option("--workload,-w", ca.workloads,
                          "workload CSV (repeatable; default: all bundled)");
  compare_cmd->add_option("--policy,-p", ca.policies, "coolhand policy YAML (repeatable)");
  compare_cmd->add_option("--governor,-g", ca.governors, "kernel governor (repeatable)");
  compare_cmd->add_option("--kernel", ca.kernel, "the governors' kernel rules: 6.1 or 7.3 (6.13+)")
      ->capture_default_str();
  auto* compare_md = compare_cmd->add_option("--markdown", ca.markdown,
                                             "also write the table as Markdown to FILE");
  auto* compare_out = compare_cmd->add_option("--out,-o", ca.out, "directory for overlay.svg")
                          ->capture_default_str();
  compare_cmd->add_option("--seed", ca.seed, "sensor-noise seed")->capture_default_str();
  auto* compare_bound =
      compare_cmd->add_flag("--bound", ca.bound,
                            "also each workload's performance bound (as `bound`) and every "
                            "controller's fraction of it");
  add_fan_bound_option(*compare_cmd, ca.fan_bound,
                       "--bound on a model with one fan: tight (the tight bound with the best run "
                       "that holds the limit as its floor; slower) or relaxed (docs/simulator.md)")
      ->needs(compare_bound);
  auto* compare_shard = compare_cmd->add_option(
      "--shard", ca.shard, "run only shard K of N (K/N) and write a shard file for `merge`");
  compare_cmd
      ->add_option("--shard-file", ca.shard_file, "shard file (default: compare-shard-K-of-N.json)")
      ->needs(compare_shard);
  compare_shard->excludes(compare_md)->excludes(compare_out);  // merge writes those

  BoundArgs ba;
  auto* bound_cmd = app.add_subcommand(
      "bound",
      "the most performance any controller could deliver on a workload with the skin at or "
      "below the limit (an LP over the model, levels relaxed to their convex hull), and the "
      "lowest peak skin any schedule reaches");
  bound_cmd->add_option("--model,-m", ba.model, "model YAML (default: bundled reference UMPC)");
  bound_cmd->add_option("--workload,-w", ba.workloads,
                        "workload CSV (repeatable; default: bundled gaming.csv)");
  bound_cmd->add_option("--limit", ba.limit_c, "skin limit, °C (default: the model's)");
  bound_cmd->add_option("--step", ba.step_s,
                        "LP decision step, s, a multiple of the model step (default: the "
                        "model step, coarsened to keep at most 360 decision steps)");
  bound_cmd->add_flag("--quiet,-q", ba.quiet, "no progress lines on stderr");
  auto* bound_schedule = bound_cmd->add_option(
      "--schedule", ba.schedule,
      "also write the LP's schedule as CSV (one workload): per decision step each device's "
      "power at full demand (W) and performance, the step's demand share and performance, "
      "each skin node's peak");
  auto* bound_shard = bound_cmd->add_option(
      "--shard", ba.shard, "run only shard K of N (K/N) and write a shard file for `merge`");
  bound_shard->excludes(bound_schedule);
  bound_cmd
      ->add_option("--fan-at", ba.fan_at,
                   "S:LEVEL (repeatable, the first at 0): hold the model's one fan at LEVEL "
                   "from S seconds on, a whole number of decision steps, its noise charged; the "
                   "figure then bounds only controllers whose fan follows that schedule (it "
                   "measures how loose the fan relaxation is)")
      ->excludes(bound_shard);
  add_fan_bound_option(*bound_cmd, ba.fan_bound,
                       "relaxed (default): fans at their strongest cooling, noise dropped; tight: "
                       "a model with one fan, the per-level dual over state boxes tightened for "
                       "the runs that deliver >= --fan-floor (slower; docs/simulator.md)")
      ->excludes(bound_shard);
  bound_cmd->add_option("--fan-floor", ba.fan_floor,
                        "the tight fan bound's performance floor V: the bound is max(V, the "
                        "dual over boxes valid for runs that reach V), valid for any V "
                        "(default 0; tighter near the best figure a controller reaches)");
  bound_cmd->add_option("--fan-rounds", ba.fan_rounds, "the tight fan bound's tightening rounds")
      ->check(CLI::Range(1, 10))
      ->capture_default_str();
  bound_cmd
      ->add_option("--shard-file", ba.shard_file, "shard file (default: bound-shard-K-of-N.json)")
      ->needs(bound_shard);

  add_merge_command(app, need_data);

  add_fit_command(app);

  add_tune_command(app, need_data);

  add_port_command(app);  // the port chain's YAML front end (cmd_port.h)

  if (auto status = refuse_bad_subcommand(app, argc, argv)) return *status;
  // replay, export, merge, fit, tune and port run (and end) inside it
  CLI11_PARSE(app, argc, argv);
  return run_command("", [&] {
    if (*compare_cmd) return cmd_compare(ca);
    if (*bound_cmd) return cmd_bound(ba);
    return cmd_run(ra);
  });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_sim(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coolhand-sim: error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "coolhand-sim: error: unknown exception\n");
  }
  return 1;
}
