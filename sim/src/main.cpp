// coolhand-sim: the command line. `run` (closed loop, the default with no
// arguments: the bundled reference scenario), `replay` (a sensor trace, or
// a coolhandd flight recording, through a policy), `export` (a recording as
// CSV), `compare` (policies and governors over a workload suite) and `bound`
// (the offline-optimal schedule's performance, bound.h); compare and bound
// take --shard K/N, and `merge` combines the shard files (shard.h, merge.h).
// Bundled data (models, workloads, the reference policy) is looked up in
// $COOLHAND_SIM_DATA, then the install tree (<prefix>/share/coolhand), then
// the source tree this binary was built from.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "cmd_fit.h"
#include "cmd_merge.h"
#include "cmd_port.h"
#include "cmd_run_record.h"
#include "cmd_status.h"
#include "cmd_tune.h"
#include "coolhand/config/policy_file.h"
#include "coolhand/sim/bound.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/recording_export.h"
#include "coolhand/sim/recording_replay.h"
#include "coolhand/sim/replay.h"
#include "coolhand/sim/report.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/shard.h"

namespace fs = std::filesystem;
using namespace coolhand;
using namespace coolhand::sim;

namespace {

constexpr const char* kReferenceModel = "models/reference-umpc.yaml";
constexpr const char* kReferenceWorkload = "workloads/gaming.csv";
constexpr const char* kReferencePolicy = "policies/reference-umpc.yaml";

// Directories holding models/, workloads/ and policies/, in lookup order.
std::vector<fs::path> data_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("COOLHAND_SIM_DATA")) dirs.emplace_back(env);
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    dirs.push_back(exe.parent_path().parent_path() / COOLHAND_SIM_INSTALL_DATADIR / "coolhand");
  dirs.emplace_back(COOLHAND_SIM_SOURCE_DATA);
  dirs.emplace_back(COOLHAND_SOURCE_POLICIES_PARENT);
  return dirs;
}

std::optional<std::string> find_data(const std::string& rel) {
  for (const auto& d : data_dirs())
    if (fs::exists(d / rel)) return (d / rel).string();
  return std::nullopt;
}

std::string need_data(const std::string& rel) {
  if (auto p = find_data(rel)) return *p;
  throw std::runtime_error("cannot find bundled " + rel +
                           " (set COOLHAND_SIM_DATA to the directory holding models/, "
                           "workloads/ and policies/)");
}

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

ModelSpec load_model(const std::string& path) {
  auto r = load_model_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&r)) throw Failure(e->to_string());
  return std::get<ModelSpec>(std::move(r));
}

Workload load_workload(const std::string& path, const ModelSpec& model) {
  auto t = load_csv_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&t)) throw Failure(e->to_string());
  auto w = Workload::bind(std::get<CsvTable>(std::move(t)), model);
  if (auto* e = std::get_if<config::ConfigError>(&w)) throw Failure(e->to_string());
  // Each workload file is loaded once per command, so each warning is printed once.
  for (const auto& warning : std::get<Workload>(w).warnings())
    std::cerr << "coolhand-sim: " << warning.to_string() << "\n";
  return std::get<Workload>(std::move(w));
}

config::PolicyDocument load_policy(const std::string& path) {
  auto r = config::load_policy_file(path);
  if (!r.errors.empty()) {
    std::string msg;
    for (const auto& e : r.errors) msg += (msg.empty() ? "" : "\n") + e.to_string();
    throw Failure(msg);
  }
  return std::move(*r.document);
}

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

void ensure_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Failure("cannot create " + dir + ": " + ec.message());
}

void check(const std::string& error) {
  if (!error.empty()) throw Failure(error);
}

std::string stem(const std::string& path) {
  return fs::path(path).stem().string();
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
};

int cmd_run(const RunArgs& a) {
  if (!a.policy.empty() && !a.governor.empty())
    throw Failure("give --policy or --governor, not both");
  const std::string model_path = a.model.empty() ? need_data(kReferenceModel) : a.model;
  const std::string workload_path = a.workload.empty() ? need_data(kReferenceWorkload) : a.workload;
  const ModelSpec spec = load_model(model_path);
  Workload workload = load_workload(workload_path, spec);
  std::unique_ptr<Controller> controller;
  std::optional<RunRecording> recording;
  std::optional<config::PolicyDocument> doc;
  if (!a.governor.empty()) {
    if (!a.record.empty())
      throw Failure("--record needs a policy: a governor runs no coolhandd loop");
    controller = make_governor_controller(spec, parse_governor(a.governor), parse_kernel(a.kernel));
  } else {
    const std::string policy_path = a.policy.empty() ? need_data(kReferencePolicy) : a.policy;
    doc = load_policy(policy_path);
    if (!a.record.empty())
      recording.emplace(policy_path, std::chrono::duration<double>(workload.duration()).count());
    auto made = make_policy_controller(spec, *doc, stem(policy_path), policy::Delivery::pushed,
                                       recording ? recording->loop() : LoopRecording{});
    if (auto* e = std::get_if<std::string>(&made)) throw Failure(policy_path + ": " + *e);
    controller = std::move(std::get<std::unique_ptr<Controller>>(made));
  }
  ThermalModel model(workload.start(spec), a.seed);
  RunOptions opts;
  opts.record_trace = !a.no_trace;
  const RunResult r = run(model, workload, *controller, opts);
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

// ---------------------------------------------------------------- replay --

int cmd_replay_trace(const std::string& policy_path, const std::string& trace_path,
                     const std::string& out) {
  const auto policy = load_policy(policy_path);
  auto t = load_csv_file(trace_path);
  if (auto* e = std::get_if<config::ConfigError>(&t)) throw Failure(e->to_string());
  auto r = replay(std::get<CsvTable>(t), policy);
  if (auto* e = std::get_if<config::ConfigError>(&r)) throw Failure(e->to_string());
  const auto& o = std::get<ReplayOutput>(r);
  for (const auto& warning : o.warnings)
    std::cerr << "coolhand-sim: " << warning.to_string() << "\n";
  ensure_dir(out);
  check(write_text(o.decisions_csv, out + "/decisions.csv"));
  check(write_text(o.events_csv, out + "/events.csv"));
  check(write_text(o.sensors.csv(), out + "/sensors.csv"));
  check(write_text(
      plot_sensors_svg(o.sensors, policy.spec,
                       fmt::format("{} through {}", fs::path(trace_path).filename().string(),
                                   stem(policy_path))),
      out + "/plot.svg"));
  std::cout << fmt::format(
      "{} engine steps, {} events, worst severity {}; wrote {}/{{decisions,events,sensors}}.csv "
      "and {}/plot.svg\n",
      o.steps, o.events, o.max_severity, out, out);
  return 0;
}

recorder::Recording load_recording(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Failure(path + ": cannot open: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  auto r = recorder::read_recording(bytes);
  if (r.error) throw Failure(path + ": " + r.error->to_string());
  return std::move(*r.recording);
}

// Exact (embedded policy) or what-if (--policy); see recording_replay.h.
int cmd_replay_recording(const std::string& rec_path, const std::string& policy_path, bool exact,
                         const std::string& out) {
  const recorder::Recording rec = load_recording(rec_path);
  std::optional<config::PolicyDocument> candidate;
  if (!policy_path.empty()) candidate = load_policy(policy_path);
  auto r = replay_recording(rec, rec_path, candidate, exact);
  if (auto* e = std::get_if<std::string>(&r)) throw Failure(*e);
  const auto& o = std::get<RecordingReplay>(r);
  for (const auto& note : o.notes) std::cerr << "coolhand-sim: note: " << note << "\n";
  ensure_dir(out);
  check(write_text(o.decisions_csv, out + "/decisions.csv"));
  check(write_text(o.sensors.csv(), out + "/sensors.csv"));
  check(write_text(o.levels_csv(), out + "/levels.csv"));
  const policy::PolicySpec* spec = candidate ? &candidate->spec : nullptr;
  config::PolicyDocument embedded;
  if (!spec) {
    auto e = embedded_policy(rec, rec_path);
    if (auto* msg = std::get_if<std::string>(&e)) throw Failure(*msg);
    embedded = std::get<config::PolicyDocument>(std::move(e));
    spec = &embedded.spec;
  }
  const std::string title =
      fmt::format("{} replayed with {}", fs::path(rec_path).filename().string(),
                  candidate ? stem(policy_path) : std::string("its own policy"));
  check(write_text(plot_recording_svg(o, *spec, title), out + "/plot.svg"));
  if (!o.what_if) {
    std::cout << fmt::format(
        "{}: bit-exact with {}: {} segment(s), {} engine steps, {} records compared, no "
        "difference\nwrote {}/{{decisions,sensors,levels}}.csv and {}/plot.svg\n",
        rec_path, candidate ? policy_path : std::string("its own policy"), o.segments, o.steps,
        o.compared, out, out);
    return 0;
  }
  check(write_text(o.differences_csv(), out + "/differences.csv"));
  std::cout << fmt::format("{} with {}: {} segment(s), {} engine steps (open loop)\n", rec_path,
                           policy_path, o.segments, o.steps);
  if (o.differences.empty()) std::cout << "levels: the same as the daemon's throughout\n";
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < o.differences.size() && i < kShown; ++i) {
    const auto& d = o.differences[i];
    std::cout << fmt::format("  {}: daemon level {}, {} level {} from {:.3f} s to {:.3f} s\n",
                             d.device, d.daemon, stem(policy_path), d.candidate, d.from_s, d.to_s);
  }
  if (o.differences.size() > kShown)
    std::cout << fmt::format("  ... {} more in {}/differences.csv\n", o.differences.size() - kShown,
                             out);
  std::cout << fmt::format(
      "{} stretch(es) differ; wrote {}/{{decisions,sensors,levels,differences}}.csv and "
      "{}/plot.svg\n",
      o.differences.size(), out, out);
  return 0;
}

int cmd_export(const std::string& rec_path, const std::string& out) {
  const recorder::Recording rec = load_recording(rec_path);
  ensure_dir(out);
  const auto files = export_tables(rec);
  for (const auto& [name, text] : files) check(write_text(text, (fs::path(out) / name).string()));
  std::cout << fmt::format("{}: {} records; wrote {} files to {}:", rec_path, rec.records.size(),
                           files.size(), out);
  for (const auto& [name, text] : files) std::cout << " " << name;
  std::cout << "\n";
  return 0;
}

// ----------------------------------------------------------------- bound --

struct BoundArgs {
  std::string model, shard, shard_file, schedule;
  std::vector<std::string> workloads;
  std::vector<std::string> fan_at;  // --fan-at S:LEVEL (BoundOptions::fan_schedule)
  std::optional<double> limit_c, step_s;
  bool quiet = false;
  std::string fan_bound = "relaxed";  // --fan-bound relaxed|tight
  std::optional<double> fan_floor;    // --fan-floor V (BoundOptions::FanTight)
  int fan_rounds = 1;                 // --fan-rounds N
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
  if (a.fan_bound == "tight") {
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
  if (!a.shard.empty()) {
    a.policies.resize(choices.size());  // governors have no policy file
    const auto progress = [](std::string_view line) { std::cerr << line << "\n"; };
    return write_shard(run_compare_shard({&spec, model_path, &workloads, a.workloads, &choices,
                                          a.policies, a.seed, a.bound},
                                         shard_spec(a.shard), progress),
                       "compare", shard_spec(a.shard), a.shard_file);
  }
  auto res = run_compare(spec, workloads, choices, a.seed, a.bound);
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

  std::string rp_policy, rp_trace, rp_recording, rp_out = "coolhand-sim-replay";
  auto* replay_cmd = app.add_subcommand(
      "replay",
      "a sensor trace (CSV: time_s, one column per sensor in °C; the simulator's trace.csv "
      "works) through a policy, or a coolhandd flight recording: with its own policy it must "
      "reproduce the daemon's decisions exactly (exit 1 naming the first differing record), "
      "with --policy it shows what that policy would have done (open loop)");
  replay_cmd->add_option("--policy,-p", rp_policy,
                         "coolhand policy YAML (required with --trace; with --recording a "
                         "candidate instead of the embedded policy)");
  auto* trace_opt = replay_cmd->add_option("--trace,-t", rp_trace, "sensor trace CSV");
  auto* recording_opt =
      replay_cmd->add_option("--recording,-r", rp_recording, "coolhandd flight recording");
  trace_opt->excludes(recording_opt);
  bool rp_exact = false;
  replay_cmd
      ->add_flag("--exact", rp_exact,
                 "with --recording and --policy: the policy must reproduce every recorded "
                 "decision (as the embedded one must); a difference is an error")
      ->needs(recording_opt);
  replay_cmd->add_option("--out,-o", rp_out, "output directory")->capture_default_str();

  std::string ex_recording, ex_out;
  auto* export_cmd = app.add_subcommand(
      "export", "a coolhandd flight recording as CSV: one table per record kind");
  export_cmd->add_option("--recording,-r", ex_recording, "coolhandd flight recording")->required();
  export_cmd->add_option("--output,-o", ex_out, "output directory")->required();

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
  compare_cmd->add_flag("--bound", ca.bound,
                        "also each workload's performance bound (as `bound`) and every "
                        "controller's fraction of it");
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
  bound_cmd
      ->add_option("--fan-bound", ba.fan_bound,
                   "relaxed (default): fans at their strongest cooling, noise dropped; tight: "
                   "a model with one fan, the per-level dual over state boxes tightened for "
                   "the runs that deliver >= --fan-floor (slower; docs/simulator.md)")
      ->check(CLI::IsMember({"relaxed", "tight"}))
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
  CLI11_PARSE(app, argc, argv);  // fit, merge and tune run (and end) inside it
  return run_command("", [&] {
    if (*replay_cmd) {
      if (!rp_recording.empty())
        return cmd_replay_recording(rp_recording, rp_policy, rp_exact, rp_out);
      if (rp_trace.empty()) throw Failure("replay: give --trace FILE or --recording FILE");
      if (rp_policy.empty()) throw Failure("replay --trace needs --policy");
      return cmd_replay_trace(rp_policy, rp_trace, rp_out);
    }
    if (*export_cmd) return cmd_export(ex_recording, ex_out);
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
