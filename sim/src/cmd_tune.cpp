// `coolhand-sim tune`: the command line of the policy tuner (tune.h), and
// `coolhand-sim merge` for tune shard files.
//
//   tune -p POLICY [--param PATH=LO..HI]...           one machine
//   tune ... --shard K/N                              one shard's global candidates
//   tune ... --from-shards F1 F2 ...                  merge, local stage, output
//   merge F1 F2 ... [-o DIR]                          the same, inputs read from the shards
//
// A run writes DIR/policy.yaml (the tuned policy), DIR/convergence.svg and
// DIR/evaluations.csv; a shard writes DIR/tune-shard-K-of-N.json.
#include "cmd_tune.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cmd_fan_bound.h"
#include "cmd_status.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/shard.h"
#include "coolhand/sim/tune.h"
#include "parallel.h"

namespace coolhand::sim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TuneArgs {
  std::string model, policy, out = "coolhand-sim-tune", shard;
  // --baselines-model: where the kernel baselines run (default: --model). In
  // the port chain the candidates run on the FITTED model but compare judges
  // on the device, where the governors' runs are measurements, not
  // predictions (docs/simulator.md, "Tuning a policy").
  std::string baselines_model;
  std::vector<std::string> workloads, params, from_shards;
  // Kernel baselines whose °C·s and performance the tuned policy must meet,
  // as compare's targets (tune_targets.cpp); `none` alone: no baseline.
  std::vector<std::string> baselines{"step_wise", "bang_bang", "fair_share", "power_allocator"};
  std::optional<double> limit_c, time_budget_s;
  // --tolerance T / NODE=T / WORKLOAD:NODE=T (parse_tolerances); none: compare's 0.5 on
  // every node.
  std::vector<std::string> tolerances;
  // --performance-bias WORKLOAD=D (parse_performance_biases); none: 0.
  std::vector<std::string> performance_biases;
  double limit_margin_c = 0.0;  // --limit-margin (TuneSettings::limit_margin_c)
  std::uint64_t seed = 1;
  std::size_t noise_seeds = 1;
  std::optional<std::size_t> global, local;
  double local_step = 0.25;  // --local-step: COBYLA's first step / the range
  unsigned threads = 0;
  bool no_bound = false, quiet = false;
  // --fan-bound: compare --bound's choice and default (compare.h).
  FanBoundChoice fan_bound = FanBoundChoice::tight;
};

// --limit-margin's range: a device check's bias near the limit is a few
// tenths of a degree; 5 °C is far outside any fitted model worth tuning on.
constexpr double kLimitMarginMaxC = 5.0;

std::string read_file(const std::string& path) {
  std::string text;
  if (auto error = read_text(path, text); !error.empty()) throw Failure(error);
  return text;
}

// The run's identity and --shard K/N use shard.h's, as compare's and
// bound's shards do.
std::string digest(const std::string& bytes) {
  return fnv1a64_hex(bytes);
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  auto spec = parse_shard_spec(text);
  if (auto* e = std::get_if<std::string>(&spec)) throw Failure(*e);
  const auto& s = std::get<ShardSpec>(spec);
  return {s.index, s.count};
}

// Everything that decides a run's results, equal in every shard of it:
// the inputs (as given, with their digests) and the settings. The thread
// count and the output directory do not change results and are left out.
json identity(const TuneArgs& a, const TuneProblem& problem, const std::string& model_path,
              const std::vector<std::string>& workload_paths, const std::string& policy_text,
              const TuneSettings& s, const std::vector<std::string>& skin_nodes,
              const std::vector<std::string>& workload_names) {
  json tolerance = json::object();  // each skin node's, resolved
  for (std::size_t n = 0; n < skin_nodes.size(); ++n) tolerance[skin_nodes[n]] = s.tolerance_c[n];
  json workload_tolerance = json::object();  // each workload's own, where given
  for (std::size_t w = 0; w < s.workload_tolerance_c.size(); ++w)
    for (std::size_t n = 0; n < skin_nodes.size(); ++n)
      if (const auto& t = s.workload_tolerance_c[w][n])
        workload_tolerance[workload_names[w]][skin_nodes[n]] = *t;
  json performance_bias = json::object();  // each workload's, where not 0
  for (std::size_t w = 0; w < workload_names.size(); ++w)
    if (s.performance_bias[w] != 0) performance_bias[workload_names[w]] = s.performance_bias[w];
  json w = json::array();
  for (const auto& p : workload_paths)
    w.push_back({{"path", p}, {"fnv1a64", digest(read_file(p))}});
  json baselines_model = nullptr;
  if (!a.baselines_model.empty())
    baselines_model = {{"path", a.baselines_model},
                       {"fnv1a64", digest(read_file(a.baselines_model))}};
  json id{{"model", {{"path", model_path}, {"fnv1a64", digest(read_file(model_path))}}},
          {"baselines_model", baselines_model},
          {"workloads", w},
          {"policy", {{"path", a.policy}, {"fnv1a64", digest(policy_text)}}},
          {"params", a.params},
          {"seed", s.seed},
          {"noise_seeds", s.noise_seeds},
          {"limit_c", s.limit_c},
          {"tolerance_c", tolerance},
          {"performance_bias", performance_bias},
          {"baselines", a.baselines},
          {"global", global_count(problem, s)},
          {"local", local_count(problem, s)},
          {"local_step", s.local_step},
          {"bound", !a.no_bound},
          {"fan_bound", to_string(a.fan_bound)}};
  // Only where set, so that a run without it keeps the identity of a
  // version-4 shard written before the option (its shards still merge).
  if (s.limit_margin_c != 0) id["limit_margin_c"] = s.limit_margin_c;
  if (!workload_tolerance.empty()) id["workload_tolerance_c"] = workload_tolerance;
  return id;
}

void write(const std::string& text, const std::string& path) {
  if (auto e = write_text(text, path); !e.empty()) throw Failure(e);
}

std::string evaluations_csv(const TuneProblem& problem, const TuneOutcome& o) {
  std::string out = "evaluation,stage,candidate";
  for (const auto& p : problem.params) out += "," + p.path;
  out += ",suite_performance,violation_c,error\n";
  std::size_t n = 0;
  auto row = [&](const TuneEval& e, const char* stage, std::string candidate) {
    out += fmt::format("{},{},{}", ++n, stage, candidate);
    for (double v : e.x) out += fmt::format(",{}", v);
    std::string err = e.error;
    for (char& c : err)
      if (c == ',' || c == '\n' || c == '"') c = ' ';
    out += fmt::format(",{:.6f},{:.4f},{}\n", e.suite_performance, e.violation_c, err);
  };
  for (std::size_t i = 0; i < o.global.evals.size(); ++i)
    row(*o.global.evals[i], "global", std::to_string(i));
  for (const auto& e : o.local) row(e, "local", "");
  return out;
}

// The header's line saying which bound a model with a fan got, as compare
// --bound's note does (compare.cpp, fan_bound_note); empty for a fanless
// model, whose bound is exact either way.
std::string bound_note(const ModelSpec& model, FanBoundChoice choice, bool own_floor,
                       const std::vector<std::string>& names,
                       const std::vector<std::optional<BoundResult>>& bounds,
                       const std::optional<ModelSpec>& baselines_model) {
  if (std::none_of(model.devices.begin(), model.devices.end(),
                   [](const auto& d) { return !d.cooling.empty(); }))
    return {};
  if (choice == FanBoundChoice::relaxed)
    return "Bound: the fan relaxation (--fan-bound relaxed), as compare --bound --fan-bound "
           "relaxed gives.";
  if (!tight_fan_bound_applies(model))
    return "Bound: the fan relaxation (the tight bound needs a model with one fan), as compare "
           "--bound gives.";
  // Each workload whose boxes were tightened (elsewhere the relaxation's
  // limit never binds and the figure is the relaxation's, as compare's note
  // says).
  std::string each;
  for (std::size_t w = 0; w < bounds.size(); ++w) {
    if (!bounds[w] || !bounds[w]->fan_tight ||
        bounds[w]->fan_tight->lps + bounds[w]->fan_tight->failed == 0)
      continue;
    const FanTightResult& t = *bounds[w]->fan_tight;
    each += fmt::format("{}{} min({:.4f}, max({:.4f}, {:.4f}))", each.empty() ? "" : "; ", names[w],
                        t.relaxed, t.floor, t.dual);
  }
  return fmt::format(
      "Bound: the tight fan bound (--fan-bound tight), compare --bound's: min(relaxation, max(V, "
      "dual)) with V {}{}{}.",
      own_floor ? "the best kernel baseline's performance that holds the limit (0 where none)"
      : baselines_model ? fmt::format("0 (the baselines run on model '{}', not on this one)",
                                      baselines_model->name)
                        : std::string("0"),
      each.empty() ? "" : ": ", each);
}

int run_tune(TuneArgs a, const DataLookup& need_data) {
  const auto started = std::chrono::steady_clock::now();
  if (a.policy.empty()) throw Failure("tune needs --policy FILE");
  const std::string model_path =
      a.model.empty() ? need_data("models/reference-umpc.yaml") : a.model;
  auto m = load_model_file(model_path);
  if (auto* e = std::get_if<config::ConfigError>(&m)) throw Failure(e->to_string());
  const ModelSpec model = std::get<ModelSpec>(std::move(m));
  if (a.workloads.empty()) {
    const auto dir = fs::path(need_data("workloads/gaming.csv")).parent_path();
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv") a.workloads.push_back(e.path().string());
    std::sort(a.workloads.begin(), a.workloads.end());
  }
  std::optional<ModelSpec> baselines_model;
  if (!a.baselines_model.empty()) {
    auto bm = load_model_file(a.baselines_model);
    if (auto* e = std::get_if<config::ConfigError>(&bm)) throw Failure(e->to_string());
    baselines_model = std::get<ModelSpec>(std::move(bm));
  }
  std::vector<Workload> workloads, baseline_workloads;
  std::vector<std::string> names;
  for (const auto& path : a.workloads) {
    auto t = load_csv_file(path);
    if (auto* e = std::get_if<config::ConfigError>(&t)) throw Failure(e->to_string());
    const CsvTable table = std::get<CsvTable>(std::move(t));
    auto w = Workload::bind(table, model);
    if (auto* e = std::get_if<config::ConfigError>(&w)) throw Failure(e->to_string());
    workloads.push_back(std::get<Workload>(std::move(w)));
    names.push_back(workloads.back().name());
    for (const auto& warning : workloads.back().warnings())
      std::cerr << "coolhand-sim: " << warning.to_string() << "\n";
    if (baselines_model) {
      auto bw = Workload::bind(table, *baselines_model);
      if (auto* e = std::get_if<config::ConfigError>(&bw))
        throw Failure("--baselines-model: " + e->to_string());
      baseline_workloads.push_back(std::get<Workload>(std::move(bw)));
    }
  }
  const std::string policy_text = read_file(a.policy);
  auto made = make_tune_problem(policy_text, a.policy, a.params);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&made)) {
    std::string msg;
    for (const auto& e : *errors) msg += (msg.empty() ? "" : "\n") + e.to_string();
    throw Failure(msg);
  }
  const TuneProblem problem = std::get<TuneProblem>(std::move(made));
  {
    auto doc = config::parse_policy(policy_text, a.policy);
    if (!doc.errors.empty()) throw Failure(doc.errors.front().to_string());
    auto ctl = make_policy_controller(model, *doc.document, "start");
    if (auto* e = std::get_if<std::string>(&ctl)) throw Failure(a.policy + ": " + *e);
  }

  TuneSettings s;
  s.seed = a.seed;
  if (a.noise_seeds == 0) throw Failure("--noise-seeds 0: a candidate needs a run");
  s.noise_seeds = a.noise_seeds;
  s.limit_c = a.limit_c.value_or(problem.policy_skin_limit_c.value_or(model.skin_limit_c));
  auto tolerances = parse_tolerances(a.tolerances, model.skin_nodes, names, kOvershootAllowedC);
  if (auto* e = std::get_if<std::string>(&tolerances)) throw Failure(*e);
  s.tolerance_c = std::get<TuneTolerances>(tolerances).node_c;
  s.workload_tolerance_c = std::get<TuneTolerances>(tolerances).workload_node_c;
  auto biases = parse_performance_biases(a.performance_biases, names);
  if (auto* e = std::get_if<std::string>(&biases)) throw Failure(*e);
  s.performance_bias = std::get<std::vector<double>>(biases);
  if (!std::isfinite(a.limit_margin_c) || std::abs(a.limit_margin_c) > kLimitMarginMaxC)
    throw Failure(fmt::format("--limit-margin {:g}: expected °C within ±{:g}", a.limit_margin_c,
                              kLimitMarginMaxC));
  s.limit_margin_c = a.limit_margin_c;
  if (a.global && *a.global == 0) throw Failure("--global 0: the global stage needs a candidate");
  s.global_candidates = a.global;
  s.local_evaluations = a.local;
  if (!(a.local_step > 0 && a.local_step <= 1))
    throw Failure(
        fmt::format("--local-step {:g}: expected a fraction of the range in (0, 1]", a.local_step));
  s.local_step = a.local_step;
  s.threads = a.threads;
  s.time_budget_s = a.time_budget_s;
  s.started = started;
  if (!a.quiet) s.progress = [](std::string_view line) { std::cerr << line << "\n"; };
  std::vector<Governor> governors;
  for (const auto& g : a.baselines) {
    const auto gov = governor_from_string(g);
    if (!gov) throw Failure("--baseline " + g + ": not a kernel governor");
    if (*gov != Governor::none) governors.push_back(*gov);
  }
  TuneReportInputs report{model.name, names, {}, {}, model.skin_nodes, {}};
  for (const auto g : governors)
    report.baselines += (report.baselines.empty() ? "" : ", ") + std::string(to_string(g));
  if (baselines_model && !governors.empty())
    report.baselines += ", run on model '" + baselines_model->name + "'";
  if (!a.quiet && !governors.empty())
    std::cerr << "tune: the kernel baselines (" << report.baselines << ") on every workload\n";
  const ModelSpec& targets_model = baselines_model ? *baselines_model : model;
  const std::vector<Workload>& targets_workloads = baselines_model ? baseline_workloads : workloads;
  s.targets = tune_targets(targets_model, targets_workloads, governors, KernelVersion::v6_1, {},
                           s.limit_c, s.seed, a.threads);
  // Then each workload's bound, compare --bound's: on a model with one fan
  // the tight bound (unless --fan-bound relaxed), its floor V the best
  // baseline that holds the limit, as compare's is the best run that does.
  // V must be a performance reached on the bound's model: baselines run on
  // --baselines-model (the device) do not give one, and V is then 0 (valid
  // too, a little looser). Its lowest peak skin is the floor of an
  // infeasible workload's allowed skin (tune_targets.cpp).
  const bool tight = a.fan_bound == FanBoundChoice::tight && tight_fan_bound_applies(model);
  const bool own_floor = tight && !baselines_model;
  for (std::size_t w = 0; w < workloads.size() && !a.no_bound; ++w) {
    BoundOptions bo;
    bo.limit_c = s.limit_c;
    if (tight)
      bo.fan_tight =
          BoundOptions::FanTight{own_floor ? s.targets[w].baseline_performance.value_or(0) : 0};
    if (!a.quiet)
      std::cerr << "tune: the performance bound of " << names[w]
                << (tight ? fmt::format(" (the tight fan bound, floor V = {})", bo.fan_tight->floor)
                          : std::string())
                << "\n";
    auto b = compute_bound(model, workloads[w], bo);
    if (auto* e = std::get_if<std::string>(&b)) throw Failure("bound: " + names[w] + ": " + *e);
    report.bounds.emplace_back(std::get<BoundResult>(b));
  }
  if (a.no_bound) report.bounds.assign(workloads.size(), std::nullopt);
  apply_bounds(s.targets, report.bounds, s.limit_c);
  report.bound_note =
      a.no_bound ? std::string()
                 : bound_note(model, a.fan_bound, own_floor, names, report.bounds, baselines_model);
  if (!a.quiet && !report.bound_note.empty()) std::cerr << "tune: " << report.bound_note << "\n";
  const TuneJob job{&model, &workloads, &problem};
  const std::string run_id =
      identity(a, problem, model_path, a.workloads, policy_text, s, model.skin_nodes, names).dump();
  const unsigned threads = worker_threads(a.threads);
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (ec) throw Failure("cannot create " + a.out + ": " + ec.message());
  if (!a.quiet) {
    std::string tol;
    for (std::size_t n = 0; n < model.skin_nodes.size(); ++n)
      tol += fmt::format("{}{} {:.3f}", tol.empty() ? "" : ", ", model.skin_nodes[n],
                         s.tolerance_c[n]);
    std::cerr << fmt::format(
        "tune: {} parameters, {} workloads, limit {:.2f} °C + tolerance ({}), {} global "
        "candidates and up to {} local evaluations on {} threads\n",
        problem.params.size(), workloads.size(), s.limit_c, tol, global_count(problem, s),
        local_count(problem, s), threads);
  }

  if (!a.shard.empty()) {
    if (a.time_budget_s) throw Failure("--shard runs every candidate it owns: no --time-budget");
    const auto [k, n] = parse_shard(a.shard);
    const GlobalStage stage = run_global_stage(job, s, k, n);
    const std::string file =
        (fs::path(a.out) / fmt::format("tune-shard-{}-of-{}.json", k, n)).string();
    write(tune_shard_json(run_id, k, n, stage), file);
    std::size_t done = 0;
    for (const auto& e : stage.evals) done += e.has_value();
    std::cout << fmt::format("shard {} of {}: {} of {} global candidates; wrote {}\n", k, n, done,
                             stage.candidates, file);
    return 0;
  }
  GlobalStage global;
  if (!a.from_shards.empty()) {
    std::vector<std::string> texts;
    for (const auto& f : a.from_shards) texts.push_back(read_file(f));
    auto merged = merge_tune_shards(texts, a.from_shards, run_id);
    if (auto* e = std::get_if<std::string>(&merged)) throw Failure(*e);
    global = std::move(std::get<MergedTuneShards>(merged).global);
    // The identity matched, so the workloads and model are this run's; a
    // file edited by hand could still disagree with them.
    const TuneEval& e = *global.evals.front();
    if (e.max_skin_c.size() != workloads.size() ||
        e.node_max_skin_c.front().size() != model.skin_nodes.size() ||
        e.x.size() != problem.params.size())
      throw Failure(a.from_shards.front() +
                    ": its evaluations do not match this run's workloads, skin nodes or "
                    "parameters");
  } else {
    global = run_global_stage(job, s, 1, 1);
  }
  auto finished = finish_tune(job, s, std::move(global));
  if (auto* e = std::get_if<std::string>(&finished)) throw Failure(*e);
  const TuneOutcome& outcome = std::get<TuneOutcome>(finished);

  const std::string policy_out = (fs::path(a.out) / "policy.yaml").string();
  write(tuned_policy_text(job, s, outcome, report), policy_out);
  write(convergence_svg(outcome, s,
                        fmt::format("{}: tuning {} on {} workloads", model.name,
                                    fs::path(a.policy).stem().string(), workloads.size())),
        (fs::path(a.out) / "convergence.svg").string());
  write(evaluations_csv(problem, outcome), (fs::path(a.out) / "evaluations.csv").string());
  const auto& best = outcome.best;
  const auto& start = *outcome.global.evals.front();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << fmt::format(
      "tuned {} on {} workloads: suite performance {:.4f} -> {:.4f}, {}\n"
      "{} global + {} local evaluations ({} runs) in {:.1f} s wall on {} threads{}\n"
      "wrote {}, convergence.svg and evaluations.csv\n",
      a.policy, workloads.size(), start.suite_performance, best.suite_performance,
      best.violation_c > 0
          ? fmt::format("misses its targets by {:.2f} °C-equivalent", best.violation_c)
          : std::string("every workload's target met"),
      outcome.global.candidates, outcome.local.size(),
      (outcome.global.candidates + outcome.local.size()) * workloads.size() * s.noise_seeds, wall,
      threads,
      outcome.global.stopped_by_budget || outcome.local_stopped_by_budget
          ? fmt::format(" (stopped by the time budget: rerun with --global {} --local {} to "
                        "reproduce)",
                        outcome.global.candidates, outcome.local.size())
          : "",
      policy_out);
  return 0;
}

}  // namespace

int merge_tune_files(const std::vector<std::string>& files, const std::string& out, bool quiet,
                     const DataLookup& need_data) {
  if (files.empty()) throw Failure("merge needs shard files");
  json run;
  try {
    const json doc = json::parse(read_file(files.front()));
    if (doc.value("kind", "") != "tune")
      throw Failure(files.front() + ": not a tune shard file (this build merges tune shards)");
    if (doc.value("version", 0) != kTuneShardVersion)
      throw Failure(fmt::format(
          "{}: tune shard format version {} (this coolhand-sim reads {}: the objective's "
          "bound share is of compare's bound, fan_bound); run its shards again with this build",
          files.front(), doc.value("version", json()).dump(), kTuneShardVersion));
    run = doc.at("run");
    TuneArgs a;
    a.model = run.at("model").at("path").get<std::string>();
    if (const auto& bm = run.value("baselines_model", json()); !bm.is_null())
      a.baselines_model = bm.at("path").get<std::string>();
    for (const auto& w : run.at("workloads"))
      a.workloads.push_back(w.at("path").get<std::string>());
    a.policy = run.at("policy").at("path").get<std::string>();
    a.params = run.at("params").get<std::vector<std::string>>();
    a.seed = run.at("seed").get<std::uint64_t>();
    a.noise_seeds = run.at("noise_seeds").get<std::size_t>();
    a.limit_c = run.at("limit_c").get<double>();
    for (const auto& t : run.at("tolerance_c").items())
      a.tolerances.push_back(t.key() + "=" + json(t.value().get<double>()).dump());
    if (const auto own = run.find("workload_tolerance_c"); own != run.end())
      for (const auto& w : own->items())
        for (const auto& t : w.value().items())
          a.tolerances.push_back(w.key() + ":" + t.key() + "=" +
                                 json(t.value().get<double>()).dump());
    a.limit_margin_c = run.value("limit_margin_c", 0.0);
    for (const auto& d : run.at("performance_bias").items())
      a.performance_biases.push_back(d.key() + "=" + json(d.value().get<double>()).dump());
    a.baselines = run.at("baselines").get<std::vector<std::string>>();
    a.global = run.at("global").get<std::size_t>();
    a.local = run.at("local").get<std::size_t>();
    a.local_step = run.at("local_step").get<double>();
    a.no_bound = !run.at("bound").get<bool>();
    const auto fan_bound = run.at("fan_bound").get<std::string>();
    if (fan_bound != to_string(FanBoundChoice::tight) &&
        fan_bound != to_string(FanBoundChoice::relaxed))
      throw Failure(files.front() + ": fan_bound '" + fan_bound + "': not relaxed or tight");
    a.fan_bound = fan_bound == to_string(FanBoundChoice::tight) ? FanBoundChoice::tight
                                                                : FanBoundChoice::relaxed;
    a.from_shards = files;
    a.out = out;
    a.quiet = quiet;
    return run_tune(std::move(a), need_data);
  } catch (const json::exception& e) {
    throw Failure(files.front() + ": not a valid tune shard file: " + e.what());
  }
}

void add_tune_command(CLI::App& app, const DataLookup& need_data) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand(
      "tune",
      "search a policy's tunable parameters (a `tune:` block or --param) for the most suite "
      "performance subject to compare's targets on every workload (each skin node's max skin "
      "<= limit + its tolerance, or the bound's floor + it where no schedule holds the limit; °C·s "
      "and performance against the kernel baselines), less a penalty for each workload below "
      "0.97 of its performance bound (none with --no-bound); writes the tuned policy, a "
      "convergence plot and every evaluation");
  cmd->add_option("--model,-m", a->model, "model YAML (default: bundled reference UMPC)");
  cmd->add_option("--workload,-w", a->workloads, "workload CSV (repeatable; default: all bundled)");
  cmd->add_option("--policy,-p", a->policy, "coolhand policy YAML to tune")->required();
  cmd->add_option("--param", a->params,
                  "PATH=LO..HI: a tunable value and its range (repeatable; replaces the tune: "
                  "block's entry for PATH), e.g. controllers.skin_pid_cpu.kp=0.2..2");
  cmd->add_option("--limit", a->limit_c,
                  "skin limit, °C (default: the policy's limits.skin_c, else the model's)");
  cmd->add_option("--tolerance", a->tolerances,
                  "T, NODE=T or WORKLOAD:NODE=T (repeatable): °C over the limit (or the "
                  "bound's floor) a skin node's peak may reach; T: every node's, NODE=T: that "
                  "skin node's own (wins over T), WORKLOAD:NODE=T: that node's on that workload "
                  "(its file's stem; wins over both), each judged against its own peak "
                  "(default: 0.5 on every node, as compare allows; scripts/port-device.sh gives "
                  "each cover 0.5 - 2 x the fit's held-out rms on it, then its device check "
                  "each constraint it measured close to binding its own)");
  cmd->add_option("--performance-bias", a->performance_biases,
                  "WORKLOAD=D (repeatable): add D to the candidates' performance on WORKLOAD (its "
                  "file's stem) where it is judged against the baselines' target and the bound "
                  "share: a measured device - model bias (scripts/port-device.sh's device check; "
                  "default 0)");
  cmd->add_option("--limit-margin", a->limit_margin_c,
                  "X: count the candidates' °C·s over the limit from limit - X °C on --model "
                  "(the baselines' stay over the limit): a measured device - model excess near "
                  "the limit plus a margin (scripts/port-device.sh's device check; negative: "
                  "above the limit; default 0)");
  cmd->add_option("--baseline,-g", a->baselines,
                  "kernel governor whose °C·s and performance (where it holds the limit) the "
                  "tuned policy must meet, as compare's targets (repeatable; `-g none`: none)")
      ->capture_default_str();
  cmd->add_option("--baselines-model", a->baselines_model,
                  "model YAML the kernel baselines run on (default: --model): the device, where "
                  "the candidates run on a model fitted to it (scripts/port-device.sh)");
  cmd->add_option("--seed", a->seed, "global-stage shift and sensor-noise seed")
      ->capture_default_str();
  cmd->add_option("--noise-seeds", a->noise_seeds,
                  "K: run every candidate with the noise seeds SEED..SEED+K-1 and count its worst "
                  "(peak, °C·s, performance)")
      ->capture_default_str();
  cmd->add_option("--global", a->global,
                  "global-stage candidates incl. the policy as written (default: 16 per "
                  "parameter, at least 32)");
  cmd->add_option("--local", a->local,
                  "local-stage (COBYLA) evaluations (default: 30 per parameter, at least 40; 0: "
                  "none)");
  cmd->add_option("--local-step", a->local_step,
                  "COBYLA's first step as a fraction of each parameter's range (default 0.25; "
                  "smaller for a re-tune from a tuned policy, which searches its neighbourhood: "
                  "scripts/port-device.sh's device check)")
      ->capture_default_str();
  cmd->add_option("--threads,-j", a->threads,
                  "threads (default: every core; results do not depend on it)");
  cmd->add_option("--time-budget", a->time_budget_s,
                  "wall seconds: the global stage starts no batch after half, the local stage "
                  "stops at all of it");
  auto* shard_opt =
      cmd->add_option("--shard", a->shard,
                      "K/N: evaluate only shard K's global candidates (i mod N = K-1) and write "
                      "OUT/tune-shard-K-of-N.json");
  cmd->add_option("--from-shards", a->from_shards,
                  "shard files of this same run: merge them and finish (local stage, output)")
      ->excludes(shard_opt);
  cmd->add_option("--out,-o", a->out, "output directory")->capture_default_str();
  auto* no_bound =
      cmd->add_flag("--no-bound", a->no_bound,
                    "leave the performance bound out of the header (saves an LP per workload)");
  add_fan_bound_option(*cmd, a->fan_bound,
                       "the bound on a model with one fan, as compare --bound's: tight (the tight "
                       "bound, its floor the best kernel baseline that holds the limit on the "
                       "tuned model, 0 with --baselines-model; slower) or relaxed "
                       "(docs/simulator.md)")
      ->excludes(no_bound);
  cmd->add_flag("--quiet,-q", a->quiet, "no progress lines on stderr");

  run_in_callback(*cmd, "", [a, need_data] { return run_tune(*a, need_data); });
}

}  // namespace coolhand::sim
