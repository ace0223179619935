// Merging shard files; see merge.h. First the set is checked as a whole
// (one kind, one N, one run identity, every K in 1..N exactly once), then
// the kind's merge puts each unit back in its place and writes the output
// through the code the single-machine command uses (report.h).
#include "coolhand/sim/merge.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "coolhand/sim/report.h"
#include "shard_file.h"

namespace coolhand::sim {

namespace {

constexpr const char* kDefaultCompareOut = "coolhand-sim-compare";

// The top-level keys of the run identity in which `a` and `b` differ, quoted.
std::string differences(const Json& a, const Json& b) {
  std::string keys;
  const auto add = [&keys](const std::string& key) {
    keys += (keys.empty() ? "\"" : ", \"") + key + "\"";
  };
  for (const auto& [key, value] : a.items())
    if (!b.contains(key) || b.at(key) != value) add(key);
  for (const auto& [key, value] : b.items())
    if (!a.contains(key)) add(key);
  return keys;
}

// Empty when `shards` are the N shards of one run, each once.
std::string check_set(const std::vector<ShardFile>& shards) {
  const ShardFile& first = shards.front();
  const std::size_t n = first.shard.count;
  std::vector<const ShardFile*> seen(n, nullptr);
  for (const auto& f : shards) {
    if (f.kind != first.kind)
      return fmt::format("{} is a {} shard but {} is a {} shard", f.path, f.kind, first.path,
                         first.kind);
    if (f.shard.count != n)
      return fmt::format("{} is shard {}/{} but {} is shard {}/{}: not the same run", f.path,
                         f.shard.index, f.shard.count, first.path, first.shard.index, n);
    if (*f.run != *first.run)
      return fmt::format("{} is from a different run than {} (they differ in {})", f.path,
                         first.path, differences(*first.run, *f.run));
    const ShardFile*& slot = seen[f.shard.index - 1];
    if (slot)
      return fmt::format("shard {}/{} given twice: {} and {}", f.shard.index, n, slot->path,
                         f.path);
    slot = &f;
  }
  std::string missing;
  for (std::size_t k = 0; k < n; ++k)
    if (!seen[k]) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", k + 1, n);
  if (!missing.empty())
    return fmt::format("missing shard(s) {} of this {} run ({} given)", missing, first.kind,
                       shards.size());
  return {};
}

// Each unit of each shard, checked to be its shard's, in range and once.
// `place(file, unit, json)` stores it.
template <typename Place>
std::string collect_units(const std::vector<ShardFile>& shards, std::size_t units, Place place) {
  std::vector<bool> filled(units, false);
  for (const auto& f : shards)
    for (const auto& u : f.body->at("units")) {
      const auto i = u.at("unit").get<std::size_t>();
      if (i >= units || !shard_owns(f.shard, i) || filled[i])
        return fmt::format("{}: unit {} is not shard {}/{}'s, or given twice", f.path, i,
                           f.shard.index, f.shard.count);
      filled[i] = true;
      place(i, u);
    }
  for (std::size_t i = 0; i < units; ++i)
    if (!filled[i]) return fmt::format("unit {} is in none of the shards", i);
  return {};
}

std::string merge_compare(const std::vector<ShardFile>& shards, const MergeOptions& options,
                          std::ostream& os) {
  const Json& run = *shards.front().run;
  CompareResult r;
  r.skin_limit_c = get_num(run.at("skin_limit_c"));
  for (const auto& w : run.at("workloads")) r.scenarios.push_back(w.at("name").get<std::string>());
  for (const auto& c : run.at("controllers"))
    r.controllers.push_back(c.at("label").get<std::string>());
  const bool with_bound = run.at("bound").get<bool>();
  if (with_bound)  // shard files of a run before --fan-bound had the relaxation
    r.fan_bound = run.value("fan_bound", "relaxed") == "tight" ? FanBoundChoice::tight
                                                               : FanBoundChoice::relaxed;
  const std::size_t n_s = r.scenarios.size(), n_c = r.controllers.size();
  const std::size_t n_bounds = with_bound ? n_s : 0;
  const auto units = run.at("units").get<std::size_t>();
  if (units != n_bounds + n_s * n_c)
    return fmt::format("{}: \"units\" is {}, expected {}", shards.front().path, units,
                       n_bounds + n_s * n_c);
  r.cells.assign(n_s, std::vector<CompareCell>(n_c));
  r.bounds.assign(n_s, std::nullopt);
  auto e = collect_units(shards, units, [&](std::size_t i, const Json& u) {
    if (i < n_bounds) {
      r.bounds[i] = bound_from_json(u.at("bound"));
      return;
    }
    auto& cell = r.cells[(i - n_bounds) / n_c][(i - n_bounds) % n_c];
    cell.metrics = metrics_from_json(u.at("metrics"));
    cell.trace = overlay_trace_from_json(u.at("trace"));
    r.steps += cell.metrics.steps;
  });
  if (!e.empty()) return e;
  for (const auto& f : shards) {
    r.wall_s += get_num(f.body->at("wall_s"));
    r.bounds_wall_s += get_num(f.body->at("bounds_wall_s"));
  }
  if (options.dry_run) {
    os << format_text(r) << format_markdown(r);
    return {};
  }
  return write_compare_report(r, with_bound, run.at("model").at("name").get<std::string>(),
                              options.markdown, options.out.value_or(kDefaultCompareOut), os);
}

std::string merge_bound(const std::vector<ShardFile>& shards, const MergeOptions& options,
                        std::ostream& os) {
  if (options.out || !options.markdown.empty())
    return "bound shards merge to standard output only; -o and --markdown are for compare";
  const Json& run = *shards.front().run;
  const auto& workloads = run.at("workloads");
  const auto units = run.at("units").get<std::size_t>();
  if (units != workloads.size())
    return fmt::format("{}: \"units\" is {}, expected {}", shards.front().path, units,
                       workloads.size());
  std::vector<BoundResult> results(units);
  auto e = collect_units(shards, units, [&](std::size_t i, const Json& u) {
    results[i] = bound_from_json(u.at("bound"));
  });
  if (!e.empty()) return e;
  const std::string model = run.at("model").at("name").get<std::string>();
  const Millis step(run.at("model_step_ms").get<std::int64_t>());
  for (std::size_t i = 0; i < units; ++i) {
    const std::string name = workloads[i].at("name").get<std::string>();
    if (!results[i].feasible) return bound_infeasible_message(results[i], name);
    os << format_bound_report(results[i], name, model, step);
  }
  return {};
}

// Tune shards are finished by tune's local stage, which needs the bundled
// data and the thread pool: `coolhand-sim merge` sends them to
// merge_tune_files (cmd_tune.h) before it gets here. A library caller that
// hands them to merge_shards is told so rather than getting half a merge.
std::string refuse_tune_shards(const std::vector<ShardFile>& shards) {
  return shards.front().path +
         ": a tune shard: merge it with `coolhand-sim merge` (or tune --from-shards), which runs "
         "tune's local stage";
}

}  // namespace

std::string merge_shards(const std::vector<std::string>& paths, const MergeOptions& options,
                         std::ostream& os) {
  std::vector<ShardText> texts;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in || in.bad()) return "merge: " + p + ": cannot read";
    texts.push_back({p, ss.str()});
  }
  return merge_shard_texts(texts, options, os);
}

std::string merge_shard_texts(const std::vector<ShardText>& texts, const MergeOptions& options,
                              std::ostream& os) {
  if (texts.empty()) return "merge: no shard files given";
  std::vector<ShardFile> shards;
  for (const auto& t : texts) {
    auto f = parse_shard_text(t.text, t.path);
    if (auto* e = std::get_if<std::string>(&f)) return "merge: " + *e;
    shards.push_back(std::get<ShardFile>(std::move(f)));
  }
  if (auto e = check_set(shards); !e.empty()) return "merge: " + e;
  const std::string& kind = shards.front().kind;
  try {
    std::string e;
    if (kind == "compare")
      e = merge_compare(shards, options, os);
    else if (kind == "bound")
      e = merge_bound(shards, options, os);
    else if (kind == "tune")
      e = refuse_tune_shards(shards);
    else
      e = fmt::format("{}: unknown shard kind '{}' (one of: compare, bound, tune)",
                      shards.front().path, kind);
    return e.empty() ? e : "merge: " + e;
  } catch (const Json::exception& e) {
    return std::string("merge: malformed shard file: ") + e.what();
  }
}

}  // namespace coolhand::sim
