// A shard's share of a compare or bound run, and the JSON of the results a
// shard file carries; see shard.h. Each unit goes through the code the
// single-machine command uses: a cell is run_compare with one workload and
// one controller (each cell starts from a fresh model, controller and
// workload copy, so it does not depend on the others), a compare bound is
// run_compare's own bound, a bound unit is compute_bound.
#include <fmt/format.h>

#include "shard_file.h"

namespace coolhand::sim {

Json metrics_to_json(const Metrics& m) {
  Json by_device = Json::object();
  for (const auto& [name, p] : m.performance_by_device) by_device[name] = num(p);
  Json sensors = Json::object();
  for (const auto& [name, s] : m.sensors)
    sensors[name] = {{"max_c", num(s.max_c)}, {"mean_c", num(s.mean_c)}};
  return {{"scenario", m.scenario},
          {"controller", m.controller},
          {"duration_s", num(m.duration_s)},
          {"skin_limit_c", num(m.skin_limit_c)},
          {"max_skin_c", num(m.max_skin_c)},
          {"seconds_over_limit", num(m.seconds_over_limit)},
          {"degree_seconds_over_limit", num(m.degree_seconds_over_limit)},
          {"performance", num(m.performance)},
          {"performance_by_device", by_device},
          {"level_changes", m.level_changes},
          {"level_changes_per_min", num(m.level_changes_per_min)},
          {"sensors", sensors},
          {"steps", m.steps},
          {"decisions", m.decisions},
          {"energy_j", num(m.energy_j)},
          {"wall_s", num(m.wall_s)},
          {"steps_per_s", num(m.steps_per_s)}};
}

Metrics metrics_from_json(const Json& j) {
  Metrics m;
  m.scenario = j.at("scenario").get<std::string>();
  m.controller = j.at("controller").get<std::string>();
  m.duration_s = get_num(j.at("duration_s"));
  m.skin_limit_c = get_num(j.at("skin_limit_c"));
  m.max_skin_c = get_num(j.at("max_skin_c"));
  m.seconds_over_limit = get_num(j.at("seconds_over_limit"));
  m.degree_seconds_over_limit = get_num(j.at("degree_seconds_over_limit"));
  m.performance = get_num(j.at("performance"));
  for (const auto& [name, p] : j.at("performance_by_device").items())
    m.performance_by_device[name] = get_num(p);
  m.level_changes = j.at("level_changes").get<std::uint64_t>();
  m.level_changes_per_min = get_num(j.at("level_changes_per_min"));
  for (const auto& [name, s] : j.at("sensors").items())
    m.sensors[name] = SensorStats{get_num(s.at("max_c")), get_num(s.at("mean_c"))};
  m.steps = j.at("steps").get<std::uint64_t>();
  m.decisions = j.at("decisions").get<std::uint64_t>();
  m.energy_j = get_num(j.at("energy_j"));
  m.wall_s = get_num(j.at("wall_s"));
  m.steps_per_s = get_num(j.at("steps_per_s"));
  return m;
}

namespace {

Json series(const std::vector<double>& v) {
  Json a = Json::array();
  for (const double x : v) a.push_back(num(x));
  return a;
}

std::vector<double> series_from(const Json& j) {
  std::vector<double> v;
  v.reserve(j.size());
  for (const auto& x : j) v.push_back(get_num(x));
  return v;
}

}  // namespace

Json overlay_trace_to_json(const Trace& t) {
  return {{"time_s", series(t.time_s)},
          {"max_skin_c", series(t.max_skin_c)},
          {"performance", series(t.performance)}};
}

Trace overlay_trace_from_json(const Json& j) {
  Trace t;
  t.time_s = series_from(j.at("time_s"));
  t.max_skin_c = series_from(j.at("max_skin_c"));
  t.performance = series_from(j.at("performance"));
  if (t.max_skin_c.size() != t.time_s.size() || t.performance.size() != t.time_s.size())
    throw Json::other_error::create(501, "trace series of different lengths", &j);
  return t;
}

Json bound_to_json(const BoundResult& b) {
  Json j = {{"limit_c", num(b.limit_c)},
            {"lowest_peak_skin_c", num(b.lowest_peak_skin_c)},
            {"feasible", b.feasible},
            {"performance_bound", num(b.performance_bound)},
            {"schedule_performance", num(b.schedule_performance)},
            {"schedule_peak_skin_c", num(b.schedule_peak_skin_c)},
            {"decision_step_ms", b.decision_step.count()},
            {"steps", b.steps},
            {"decision_steps", b.decision_steps},
            {"variables", b.variables},
            {"constraints", b.constraints},
            {"solve_s", num(b.solve_s)}};
  if (b.fan_relaxation)  // models with fans: the bound is a relaxation (bound_fan.cpp)
    j["fan_relaxation"] = {{"credited_steps", b.fan_relaxation->credited_steps},
                           {"max_credit_c", num(b.fan_relaxation->max_credit_c)}};
  if (b.fan_tight)  // the tight fan bound's figures; its boxes (lower_c) stay behind
    j["fan_tight"] = {
        {"floor", num(b.fan_tight->floor)},     {"dual", num(b.fan_tight->dual)},
        {"relaxed", num(b.fan_tight->relaxed)}, {"lps", b.fan_tight->lps},
        {"failed", b.fan_tight->failed},        {"mean_gain_c", num(b.fan_tight->mean_gain_c)},
        {"seconds", num(b.fan_tight->seconds)}};
  return j;
}

BoundResult bound_from_json(const Json& j) {
  BoundResult b;
  b.limit_c = get_num(j.at("limit_c"));
  b.lowest_peak_skin_c = get_num(j.at("lowest_peak_skin_c"));
  b.feasible = j.at("feasible").get<bool>();
  b.performance_bound = get_num(j.at("performance_bound"));
  b.schedule_performance = get_num(j.at("schedule_performance"));
  b.schedule_peak_skin_c = get_num(j.at("schedule_peak_skin_c"));
  b.decision_step = Millis(j.at("decision_step_ms").get<std::int64_t>());
  b.steps = j.at("steps").get<std::uint64_t>();
  b.decision_steps = j.at("decision_steps").get<std::uint64_t>();
  b.variables = j.at("variables").get<std::uint64_t>();
  b.constraints = j.at("constraints").get<std::uint64_t>();
  b.solve_s = get_num(j.at("solve_s"));
  if (j.contains("fan_relaxation")) {
    const Json& f = j.at("fan_relaxation");
    b.fan_relaxation =
        FanRelaxation{f.at("credited_steps").get<std::uint64_t>(), get_num(f.at("max_credit_c"))};
  }
  if (j.contains("fan_tight")) {
    const Json& f = j.at("fan_tight");
    FanTightResult t;
    t.floor = get_num(f.at("floor"));
    t.dual = get_num(f.at("dual"));
    t.relaxed = get_num(f.at("relaxed"));
    t.lps = f.at("lps").get<std::uint64_t>();
    t.failed = f.at("failed").get<std::uint64_t>();
    t.mean_gain_c = get_num(f.at("mean_gain_c"));
    t.seconds = get_num(f.at("seconds"));
    b.fan_tight = std::move(t);
  }
  return b;
}

namespace {

// Model and workloads by name and file digest: the part of a run's
// identity compare and bound share.
std::variant<Json, ShardError> inputs_identity(const ModelSpec& model,
                                               const std::string& model_path,
                                               const std::vector<Workload>& workloads,
                                               const std::vector<std::string>& workload_paths) {
  Json run;
  const auto md = file_digest(model_path);
  if (!md) return ShardError{model_path + ": cannot read"};
  run["model"] = {{"name", model.name}, {"fnv1a64", *md}};
  Json ws = Json::array();
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const auto wd = file_digest(workload_paths.at(i));
    if (!wd) return ShardError{workload_paths.at(i) + ": cannot read"};
    ws.push_back({{"name", workloads[i].name()}, {"fnv1a64", *wd}});
  }
  run["workloads"] = ws;
  return run;
}

}  // namespace

std::variant<std::string, ShardError> run_compare_shard(
    const CompareJob& job, const ShardSpec& s,
    const std::function<void(std::string_view)>& progress) {
  const auto& workloads = *job.workloads;
  const auto& controllers = *job.controllers;
  auto ids = inputs_identity(*job.model, job.model_path, workloads, job.workload_paths);
  if (auto* e = std::get_if<ShardError>(&ids)) return *e;
  Json run = std::get<Json>(std::move(ids));
  Json cs = Json::array();
  for (std::size_t c = 0; c < controllers.size(); ++c) {
    const auto& choice = controllers[c];
    if (choice.governor) {
      cs.push_back({{"label", choice.label},
                    {"governor", std::string(to_string(*choice.governor))},
                    {"kernel", std::string(to_string(choice.kernel))}});
      continue;
    }
    auto d = file_digest(job.policy_paths.at(c));
    if (!d) return ShardError{job.policy_paths.at(c) + ": cannot read"};
    cs.push_back({{"label", choice.label}, {"policy_fnv1a64", *d}});
  }
  run["controllers"] = cs;
  run["skin_limit_c"] = num(job.model->skin_limit_c);
  run["seed"] = job.seed;
  run["bound"] = job.bound.has_value();
  if (job.bound) run["fan_bound"] = std::string(to_string(*job.bound));
  const bool tight = job.bound == FanBoundChoice::tight && tight_fan_bound_applies(*job.model);
  const std::size_t n_bounds = job.bound ? workloads.size() : 0;
  const std::size_t units = n_bounds + workloads.size() * controllers.size();
  run["units"] = units;

  Json done = Json::array();
  double wall_s = 0, bounds_wall_s = 0;
  for (std::size_t u = 0; u < units; ++u) {
    if (!shard_owns(s, u)) continue;
    const bool is_bound = u < n_bounds;
    const std::size_t w = is_bound ? u : (u - n_bounds) / controllers.size();
    std::vector<ControllerChoice> one;
    if (!is_bound) one.push_back(controllers[(u - n_bounds) % controllers.size()]);
    if (is_bound && tight) one = controllers;  // the runs that set the floor
    if (progress)
      progress(fmt::format("compare shard {}/{}: unit {} of {}: {} / {}", s.index, s.count, u + 1,
                           units, workloads[w].name(), is_bound ? "bound" : one[0].label));
    auto res = run_compare(*job.model, {workloads[w]}, one, job.seed,
                           is_bound ? job.bound : std::nullopt, progress);
    if (auto* e = std::get_if<std::string>(&res)) return ShardError{*e};
    auto& r = std::get<CompareResult>(res);
    if (is_bound) {
      done.push_back({{"unit", u}, {"bound", bound_to_json(*r.bounds.at(0))}});
      bounds_wall_s += r.bounds_wall_s + (tight ? r.wall_s : 0.0);  // the floor's runs too
    } else {
      const auto& cell = r.cells.at(0).at(0);
      done.push_back({{"unit", u},
                      {"metrics", metrics_to_json(cell.metrics)},
                      {"trace", overlay_trace_to_json(cell.trace)}});
      wall_s += r.wall_s;
    }
  }
  const Json body = {
      {"units", done}, {"wall_s", num(wall_s)}, {"bounds_wall_s", num(bounds_wall_s)}};
  return shard_text("compare", run, s, body);
}

std::variant<std::string, ShardError> run_bound_shard(const BoundJob& job, const ShardSpec& s) {
  const auto& workloads = *job.workloads;
  auto ids = inputs_identity(*job.model, job.model_path, workloads, job.workload_paths);
  if (auto* e = std::get_if<ShardError>(&ids)) return *e;
  Json run = std::get<Json>(std::move(ids));
  run["model_step_ms"] = job.model->time_step.count();
  run["limit_c"] = num(job.options.limit_c);
  run["decision_step_ms"] =
      job.options.decision_step ? Json(job.options.decision_step->count()) : Json(nullptr);
  run["units"] = workloads.size();
  Json done = Json::array();
  for (std::size_t u = 0; u < workloads.size(); ++u) {
    if (!shard_owns(s, u)) continue;
    if (job.options.progress)
      job.options.progress(fmt::format("bound shard {}/{}: unit {} of {}: {}", s.index, s.count,
                                       u + 1, workloads.size(), workloads[u].name()));
    auto res = compute_bound(*job.model, workloads[u], job.options);
    if (auto* e = std::get_if<std::string>(&res))
      return ShardError{"bound: " + workloads[u].name() + ": " + *e};
    done.push_back({{"unit", u}, {"bound", bound_to_json(std::get<BoundResult>(res))}});
  }
  return shard_text("bound", run, s, Json{{"units", done}});
}

}  // namespace coolhand::sim
