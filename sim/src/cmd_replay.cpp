// `coolhand-sim replay` and `coolhand-sim export` (cmd_replay.h): a sensor
// trace through a policy (replay.h), a recording replayed exactly or with a
// what-if policy (recording_replay.h), a recording's tables as CSV
// (recording_export.h). Docs: docs/simulator.md.
#include "cmd_replay.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cmd_common.h"
#include "cmd_status.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/recording_export.h"
#include "coolhand/sim/recording_replay.h"
#include "coolhand/sim/replay.h"
#include "coolhand/sim/report.h"

namespace coolhand::sim {

namespace {

namespace fs = std::filesystem;

int cmd_replay_trace(const std::string& policy_path, const std::string& trace_path,
                     const std::string& out) {
  const auto policy = load_policy(policy_path);
  auto t = load_csv_file(trace_path);
  if (auto* e = std::get_if<config::ConfigError>(&t)) throw std::runtime_error(e->to_string());
  auto r = replay(std::get<CsvTable>(t), policy);
  if (auto* e = std::get_if<config::ConfigError>(&r)) throw std::runtime_error(e->to_string());
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
  std::string bytes;
  check(read_text(path, bytes));
  auto r = recorder::read_recording(bytes);
  if (r.error) throw std::runtime_error(path + ": " + r.error->to_string());
  return std::move(*r.recording);
}

// Exact (embedded policy) or what-if (--policy); see recording_replay.h.
int cmd_replay_recording(const std::string& rec_path, const std::string& policy_path, bool exact,
                         const std::string& out) {
  const recorder::Recording rec = load_recording(rec_path);
  std::optional<config::PolicyDocument> candidate;
  if (!policy_path.empty()) candidate = load_policy(policy_path);
  auto r = replay_recording(rec, rec_path, candidate, exact);
  if (auto* e = std::get_if<std::string>(&r)) throw std::runtime_error(*e);
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
    if (auto* msg = std::get_if<std::string>(&e)) throw std::runtime_error(*msg);
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

}  // namespace

void add_replay_commands(CLI::App& app) {
  struct ReplayArgs {
    std::string policy, trace, recording, out = "coolhand-sim-replay";
    bool exact = false;
  };
  auto rp = std::make_shared<ReplayArgs>();
  auto* replay_cmd = app.add_subcommand(
      "replay",
      "a sensor trace (CSV: time_s, one column per sensor in °C; the simulator's trace.csv "
      "works) through a policy, or a coolhandd flight recording: with its own policy it must "
      "reproduce the daemon's decisions exactly (exit 1 naming the first differing record), "
      "with --policy it shows what that policy would have done (open loop)");
  replay_cmd->add_option("--policy,-p", rp->policy,
                         "coolhand policy YAML (required with --trace; with --recording a "
                         "candidate instead of the embedded policy)");
  auto* trace_opt = replay_cmd->add_option("--trace,-t", rp->trace, "sensor trace CSV");
  auto* recording_opt =
      replay_cmd->add_option("--recording,-r", rp->recording, "coolhandd flight recording");
  trace_opt->excludes(recording_opt);
  replay_cmd
      ->add_flag("--exact", rp->exact,
                 "with --recording and --policy: the policy must reproduce every recorded "
                 "decision (as the embedded one must); a difference is an error")
      ->needs(recording_opt);
  replay_cmd->add_option("--out,-o", rp->out, "output directory")->capture_default_str();
  run_in_callback(*replay_cmd, "", [rp] {
    if (!rp->recording.empty())
      return cmd_replay_recording(rp->recording, rp->policy, rp->exact, rp->out);
    if (rp->trace.empty())
      throw std::runtime_error("replay: give --trace FILE or --recording FILE");
    if (rp->policy.empty()) throw std::runtime_error("replay --trace needs --policy");
    return cmd_replay_trace(rp->policy, rp->trace, rp->out);
  });

  struct ExportArgs {
    std::string recording, out;
  };
  auto ex = std::make_shared<ExportArgs>();
  auto* export_cmd = app.add_subcommand(
      "export", "a coolhandd flight recording as CSV: one table per record kind");
  export_cmd->add_option("--recording,-r", ex->recording, "coolhandd flight recording")->required();
  export_cmd->add_option("--output,-o", ex->out, "output directory")->required();
  run_in_callback(*export_cmd, "", [ex] { return cmd_export(ex->recording, ex->out); });
}

}  // namespace coolhand::sim
