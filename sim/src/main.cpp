// coolhand-sim: the command line. `run` (closed loop, the default with no
// arguments: the bundled reference scenario), `replay` (sensor trace through
// a policy) and `compare` (policies and governors over a workload suite).
// Bundled data (models, workloads, the reference policy) is looked up in
// $COOLHAND_SIM_DATA, then the install tree (<prefix>/share/coolhand), then
// the source tree this binary was built from.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/compare.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/replay.h"
#include "coolhand/sim/runner.h"

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

// ------------------------------------------------------------------- run --

struct RunArgs {
  std::string model, workload, policy, governor, out = "coolhand-sim-out";
  std::uint64_t seed = 1;
  bool no_trace = false;
};

int cmd_run(const RunArgs& a) {
  if (!a.policy.empty() && !a.governor.empty())
    throw Failure("give --policy or --governor, not both");
  const std::string model_path = a.model.empty() ? need_data(kReferenceModel) : a.model;
  const std::string workload_path = a.workload.empty() ? need_data(kReferenceWorkload) : a.workload;
  const ModelSpec spec = load_model(model_path);
  Workload workload = load_workload(workload_path, spec);
  std::unique_ptr<Controller> controller;
  if (!a.governor.empty()) {
    controller = make_governor_controller(spec, parse_governor(a.governor));
  } else {
    const std::string policy_path = a.policy.empty() ? need_data(kReferencePolicy) : a.policy;
    auto made = make_policy_controller(spec, load_policy(policy_path), stem(policy_path));
    if (auto* e = std::get_if<std::string>(&made)) throw Failure(policy_path + ": " + *e);
    controller = std::move(std::get<std::unique_ptr<Controller>>(made));
  }
  ThermalModel model(spec, a.seed);
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

int cmd_replay(const std::string& policy_path, const std::string& trace_path,
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

// --------------------------------------------------------------- compare --

struct CompareArgs {
  std::string model, markdown, out = "coolhand-sim-compare";
  std::vector<std::string> workloads, policies, governors;
  std::uint64_t seed = 1;
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
  for (const auto& g : a.governors) choices.push_back({g, parse_governor(g), std::nullopt});
  auto res = run_compare(spec, workloads, choices, a.seed);
  if (auto* e = std::get_if<std::string>(&res)) throw Failure(*e);
  const auto& r = std::get<CompareResult>(res);
  std::cout << format_text(r);
  std::cout << fmt::format("{} runs, {} steps in {:.2f} s wall ({:.0f} steps/s)\n",
                           r.scenarios.size() * r.controllers.size(), r.steps, r.wall_s,
                           r.wall_s > 0 ? static_cast<double>(r.steps) / r.wall_s : 0.0);
  if (!a.markdown.empty()) check(write_text(format_markdown(r), a.markdown));
  ensure_dir(a.out);
  std::vector<OverlayPanel> panels;
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    OverlayPanel p{r.scenarios[s], {}};
    for (std::size_t c = 0; c < r.controllers.size(); ++c)
      p.series.push_back({r.controllers[c], &r.cells[s][c].trace});
    panels.push_back(std::move(p));
  }
  check(write_text(plot_overlay_svg(panels, r.skin_limit_c, spec.name + ": compare"),
                   a.out + "/overlay.svg"));
  std::cout << "wrote " << a.out << "/overlay.svg"
            << (a.markdown.empty() ? "" : " and " + a.markdown) << "\n";
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
  run_cmd->add_option("--out,-o", ra.out, "output directory")->capture_default_str();
  run_cmd->add_option("--seed", ra.seed, "sensor-noise seed")->capture_default_str();
  run_cmd->add_flag("--no-trace", ra.no_trace, "write metrics.json only (fastest)");

  std::string rp_policy, rp_trace, rp_out = "coolhand-sim-replay";
  auto* replay_cmd = app.add_subcommand(
      "replay",
      "open loop: a recorded sensor trace (CSV: time_s, one column per sensor in °C) "
      "through a policy; writes decisions.csv and events.csv");
  replay_cmd->add_option("--policy,-p", rp_policy, "coolhand policy YAML")->required();
  replay_cmd->add_option("--trace,-t", rp_trace, "sensor trace CSV")->required();
  replay_cmd->add_option("--out,-o", rp_out, "output directory")->capture_default_str();

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
  compare_cmd->add_option("--markdown", ca.markdown, "also write the table as Markdown to FILE");
  compare_cmd->add_option("--out,-o", ca.out, "directory for overlay.svg")->capture_default_str();
  compare_cmd->add_option("--seed", ca.seed, "sensor-noise seed")->capture_default_str();

  // CLI11 takes a word that is no subcommand for a stray argument, and
  // `--help` after it would print the main help and exit 0.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string_view word = argv[1];
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == word;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "coolhand-sim: unknown subcommand '" << word << "' (one of: " << names
                << "; see coolhand-sim --help)\n";
      return 2;
    }
  }
  CLI11_PARSE(app, argc, argv);
  try {
    if (*replay_cmd) return cmd_replay(rp_policy, rp_trace, rp_out);
    if (*compare_cmd) return cmd_compare(ca);
    return cmd_run(ra);
  } catch (const std::exception& e) {
    std::cerr << "coolhand-sim: " << e.what() << "\n";
    return 1;
  }
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
