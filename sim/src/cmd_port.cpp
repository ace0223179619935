// `coolhand-sim port inspect|lab|paste|check`: the port chain's YAML front
// end and its device check (scripts/port-device.sh; docs/simulator.md, "The
// port chain"). It reads and edits a device's model and policy through the
// project's parsers (coolhand/sim/port_yaml.h), so the script parses no YAML
// itself, and runs the check's closed loops (coolhand/sim/port_check.h):
//   inspect  prints what the chain needs, one fact a line:
//              skin_nodes NODE...
//              fir SENSOR INPUT,INPUT,...     (each fir sensor of the policy)
//              brightness SENSOR=DEVICE       (each {kind: backlight} sensor)
//              ema SENSOR=INPUT:SECONDS       (each {kind: ema} sensor)
//              controller NAME                (each controller)
//              tune_block yes|no
//   lab      writes DIR/model.yaml and DIR/policy.yaml, the lab's copies, and
//            with --excitation DIR/excitation.args, its level steps' switches
//   paste    writes the policy with fitted estimators in place of sensors
//   check    the device check's runs (port_check.h): writes DIR/peaks.txt and
//            DIR/performance.txt, prints "limit C" (the device's skin limit)
#include "cmd_port.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cmd_common.h"
#include "cmd_status.h"
#include "coolhand/sim/output.h"
#include "coolhand/sim/port_check.h"
#include "coolhand/sim/port_yaml.h"
#include "parallel.h"

namespace coolhand::sim {

namespace {

std::string read_file(const std::string& path) {
  std::string text;
  if (auto error = read_text(path, text); !error.empty()) throw std::runtime_error(error);
  return text;
}

template <typename T>
T value_or_throw(std::variant<T, std::string> r) {
  if (auto* e = std::get_if<std::string>(&r)) throw std::runtime_error(*e);
  return std::get<T>(std::move(r));
}

void write_or_throw(const std::string& text, const std::string& path) {
  const std::string error = write_text(text, path);
  if (!error.empty()) throw std::runtime_error(error);
}

int inspect(const std::string& model_path, const std::string& policy_path) {
  const std::string model = read_file(model_path);
  const std::string policy = read_file(policy_path);
  const PortFacts f = value_or_throw(port_facts({model, model_path}, {policy, policy_path}));
  std::string out = "skin_nodes";
  for (const auto& n : f.skin_nodes) out += " " + n;
  out += "\n";
  for (const auto& fir : f.firs) {
    std::string inputs;
    for (const auto& i : fir.inputs) inputs += (inputs.empty() ? "" : ",") + i;
    out += fmt::format("fir {} {}\n", fir.name, inputs);
  }
  for (const auto& [sensor, device] : f.brightness)
    out += fmt::format("brightness {}={}\n", sensor, device);
  for (const auto& e : f.emas) out += fmt::format("ema {}={}:{}\n", e.name, e.input, e.tau_s);
  for (const auto& c : f.controllers) out += fmt::format("controller {}\n", c);
  out += fmt::format("tune_block {}\n", f.tune_block ? "yes" : "no");
  std::cout << out;
  return 0;
}

int lab(const std::string& model_path, const std::string& policy_path, const std::string& dir,
        const std::string& excitation_path) {
  const std::string model = read_file(model_path);
  const std::string policy = read_file(policy_path);
  double excitation_s = 0;
  if (!excitation_path.empty()) {
    const Workload w = load_workload(excitation_path, load_model(model_path));
    excitation_s = std::chrono::duration<double>(w.duration()).count();
  }
  const LabCopies c =
      value_or_throw(lab_copies({model, model_path}, {policy, policy_path}, excitation_s));
  write_or_throw(c.model, dir + "/model.yaml");
  write_or_throw(c.policy, dir + "/policy.yaml");
  std::cout << fmt::format("wrote {}/model.yaml and {}/policy.yaml\n", dir, dir);
  if (!excitation_path.empty()) {
    // One `run` argument a line, for the excitation's run.
    std::string args;
    for (const auto& [at, name] : c.excitation)
      args += fmt::format("--profile-at={:g}={}\n", at, name);
    write_or_throw(args, dir + "/excitation.args");
    std::cout << fmt::format("wrote {}/excitation.args: {} level step(s) over {:g} s\n", dir,
                             c.excitation.size(), excitation_s);
  }
  return 0;
}

int paste(const std::string& policy_path, const std::string& estimators_path,
          const std::vector<std::string>& sensors, const std::string& out_path) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& s : sensors) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw std::runtime_error("--sensor '" + s + "': expected SENSOR=ESTIMATOR");
    pairs.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  const std::string policy = read_file(policy_path);
  const std::string estimators = read_file(estimators_path);
  const Pasted p =
      value_or_throw(paste_estimators({policy, policy_path}, {estimators, estimators_path}, pairs));
  for (const auto& note : p.notes) std::cerr << "coolhand-sim: port paste: " << note << "\n";
  write_or_throw(p.policy, out_path);
  std::cout << fmt::format("wrote {}\n", out_path);
  return 0;
}

struct CheckArgs {
  std::string model, fitted, policy, out;
  std::vector<std::string> workloads;
  std::uint64_t noise_seeds = 0, extra_seeds = 0, extra_seed0 = 1001;
  unsigned threads = 0;
};

// Writes each (text, file name) into `dir` (created), or none: each goes to
// a temporary file first, and only when every one is written are they
// renamed.
void write_all(const std::string& dir,
               const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  ensure_dir(dir);
  std::vector<fs::path> written;
  std::string error;
  for (const auto& [text, name] : files) {
    const fs::path tmp = fs::path(dir) / fmt::format(".{}.tmp", name);
    error = write_text(text, tmp.string());
    if (!error.empty()) break;
    written.push_back(tmp);
  }
  std::error_code ec;
  if (error.empty())
    for (std::size_t i = 0; i < files.size() && !ec; ++i)
      fs::rename(written[i], fs::path(dir) / files[i].second, ec);
  for (const auto& tmp : written) {
    std::error_code gone;
    fs::remove(tmp, gone);  // left over only on failure
  }
  if (ec) error = "cannot write into " + dir + ": " + ec.message();
  if (!error.empty()) throw std::runtime_error(error);
}

int check(const CheckArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  const ModelSpec device = load_model(a.model);
  const ModelSpec fitted = load_model(a.fitted);
  std::vector<Workload> on_device, on_fitted;
  for (const auto& path : a.workloads) {
    auto both = load_workload(path, {&device, &fitted});
    on_device.push_back(std::move(both[0]));
    on_fitted.push_back(std::move(both[1]));
  }
  const config::PolicyDocument policy = load_policy(a.policy);
  PortCheckJob job;
  job.device = {&device, &on_device, a.model};
  job.fitted = {&fitted, &on_fitted, a.fitted};
  job.policy = &policy;
  job.policy_name = stem(a.policy);
  job.policy_file = a.policy;
  job.noise_seeds = a.noise_seeds;
  job.extra_seeds = a.extra_seeds;
  job.extra_seed0 = a.extra_seed0;
  job.threads = a.threads;
  const PortCheckResult r = value_or_throw(run_port_check(job));
  write_all(a.out, {{port_check_peaks_text(r), "peaks.txt"},
                    {port_check_performance_text(r), "performance.txt"}});
  std::cout << fmt::format(
      "limit {:.4f}\nwrote {}/peaks.txt and {}/performance.txt: {} runs in {:.1f} s on {} "
      "threads\n",
      r.skin_limit_c, a.out, a.out, r.runs,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
      worker_threads(a.threads));
  return 0;
}

}  // namespace

void add_port_command(CLI::App& app) {
  struct Args {
    std::string model, policy, out, estimators, excitation;
    std::vector<std::string> sensors;
  };
  auto a = std::make_shared<Args>();
  auto* port = app.add_subcommand(
      "port",
      "the port chain's reading and editing of a model and a policy (scripts/port-device.sh): "
      "the user's YAML edited in place, comments and layout kept; and its device check's runs");
  port->require_subcommand(1);

  auto* insp = port->add_subcommand(
      "inspect",
      "print what the chain needs, a fact a line: skin_nodes NODE..., fir SENSOR INPUTS, "
      "brightness SENSOR=DEVICE, ema SENSOR=INPUT:SECONDS, controller NAME, tune_block yes|no");
  insp->add_option("--model,-m", a->model, "model YAML")->required();
  insp->add_option("--policy,-p", a->policy, "policy YAML")->required();
  run_in_callback(*insp, "port inspect: ", [a] { return inspect(a->model, a->policy); });

  auto* labc = port->add_subcommand(
      "lab",
      "write DIR/model.yaml with a thermocouple <node>_tc on each skin node (1 s, 0.1 °C, 0.05 "
      "°C noise) and DIR/policy.yaml declaring them as sensors, its event windows at 0.1 °C");
  labc->add_option("--model,-m", a->model, "model YAML")->required();
  labc->add_option("--policy,-p", a->policy, "policy YAML")->required();
  labc->add_option("--out,-o", a->out, "output directory (must exist)")->required();
  labc->add_option("--excitation", a->excitation,
                   "excitation workload CSV: also step the devices' levels during it (profiles "
                   "excite-N in DIR/policy.yaml, their switches as `run` arguments in "
                   "DIR/excitation.args), so the fit sees every level's heat");
  run_in_callback(*labc,
                  "port lab: ", [a] { return lab(a->model, a->policy, a->out, a->excitation); });

  auto* pastec = port->add_subcommand(
      "paste",
      "write the policy with each --sensor's definition replaced by the fitted estimator of "
      "`fit --skin-out` (renamed, with its comment); a sensor the policy lacks is noted on stderr");
  pastec->add_option("--policy,-p", a->policy, "policy YAML")->required();
  pastec->add_option("--estimators,-e", a->estimators, "fit --skin-out's file")->required();
  pastec
      ->add_option("--sensor,-s", a->sensors,
                   "SENSOR=ESTIMATOR (repeatable): the policy's SENSOR becomes ESTIMATOR")
      ->required();
  pastec->add_option("--out,-o", a->out, "output policy YAML")->required();
  run_in_callback(
      *pastec, "port paste: ", [a] { return paste(a->policy, a->estimators, a->sensors, a->out); });

  auto c = std::make_shared<CheckArgs>();
  auto* checkc = port->add_subcommand(
      "check",
      "the device check's runs: POLICY on the device's model (seeds 1..K and the extra seeds) "
      "and on the fitted model (seeds 1..K) over every workload, each as `run --seed S "
      "--no-trace`, on every core; writes DIR/peaks.txt (WORKLOAD NODE FITTED DEVICE: each "
      "model's highest peak of the node over its seeds) and DIR/performance.txt (WORKLOAD "
      "FITTED DEVICE BIAS: each model's lowest performance over seeds 1..K, device - fitted), "
      "lines sorted, and prints 'limit C', the device's skin limit; nothing written on error");
  checkc->add_option("--model,-m", c->model, "the device's model YAML")->required();
  checkc->add_option("--fitted", c->fitted, "the fitted model YAML")->required();
  checkc->add_option("--policy,-p", c->policy, "policy YAML")->required();
  checkc->add_option("--workload,-w", c->workloads, "workload CSV (repeatable)")->required();
  checkc->add_option("--noise-seeds", c->noise_seeds, "K: seeds 1..K on both models (tune's)")
      ->required();
  checkc->add_option("--extra-seeds", c->extra_seeds, "more seeds on the device's model alone")
      ->capture_default_str();
  checkc->add_option("--extra-seed0", c->extra_seed0, "the first extra seed (above K)")
      ->capture_default_str();
  checkc->add_option("--threads,-j", c->threads,
                     "threads (default: every core; results do not depend on it)");
  checkc->add_option("--out,-o", c->out, "output directory (created)")->required();
  run_in_callback(*checkc, "port check: ", [c] { return check(*c); });
}

}  // namespace coolhand::sim
