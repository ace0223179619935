// Tune shard files: one shard's share of the global stage, and the check
// that a set of them is one whole run (docs/simulator.md, "Tuning on many
// machines"). The file is JSON in the simulator's shard envelope:
//   {"format": "coolhand-sim shard", "version": 4, "kind": "tune",
//    "run": {...the run's identity: input digests, parameters, settings...},
//    "shard": {"index": K, "count": N},
//    "body": {"candidates": G,
//             "evaluations": [{"candidate": i, "x": [...], "max_skin_c": [...],
//                              "node_max_skin_c": [[...per skin node], ...per workload],
//                              "performance": [...], "degree_seconds": [...], "suite_performance":
//                              p, "violation_c": v, "objective": o, "error": ""}, ...]}}
// Doubles are written with the shortest text that reads back to the same
// value (nlohmann's dump), so a merged run is the same as one machine's.
// Version 1 (before each skin node's peak was kept) is refused: tune judges
// each node against its own tolerance and cannot from the hottest alone;
// version 2 (before the objective's bound-share term) too, and version 3
// (whose bound share on a model with one fan was of the relaxation, not of
// compare's tight bound, and whose run does not say which).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "coolhand/sim/tune.h"

namespace coolhand::sim {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "coolhand-sim shard";
constexpr int kVersion = kTuneShardVersion;

json eval_json(std::size_t candidate, const TuneEval& e) {
  return json{{"candidate", candidate},
              {"x", e.x},
              {"max_skin_c", e.max_skin_c},
              {"node_max_skin_c", e.node_max_skin_c},
              {"performance", e.performance},
              {"degree_seconds", e.degree_seconds},
              {"suite_performance", e.suite_performance},
              {"violation_c", e.violation_c},
              {"objective", e.objective},
              {"error", e.error}};
}

TuneEval eval_from(const json& j) {
  TuneEval e;
  e.x = j.at("x").get<std::vector<double>>();
  e.max_skin_c = j.at("max_skin_c").get<std::vector<double>>();
  e.node_max_skin_c = j.at("node_max_skin_c").get<std::vector<std::vector<double>>>();
  e.performance = j.at("performance").get<std::vector<double>>();
  e.degree_seconds = j.at("degree_seconds").get<std::vector<double>>();
  e.suite_performance = j.at("suite_performance").get<double>();
  e.violation_c = j.at("violation_c").get<double>();
  e.objective = j.at("objective").get<double>();
  e.error = j.at("error").get<std::string>();
  return e;
}

// Whether `e`'s per-workload arrays agree with each other and with `first`'s
// (the shards' first evaluation): what the search indexes by workload and
// skin node. Empty: they do.
std::string shape_error(const TuneEval& e, const TuneEval& first) {
  const std::size_t nw = e.max_skin_c.size();
  if (nw == 0) return "it has no workload";
  if (e.performance.size() != nw || e.degree_seconds.size() != nw || e.node_max_skin_c.size() != nw)
    return "its per-workload arrays differ in length";
  if (nw != first.max_skin_c.size() || e.x.size() != first.x.size())
    return "its workloads or parameters differ in count from the first evaluation's";
  for (const auto& row : e.node_max_skin_c)
    if (row.empty() || row.size() != first.node_max_skin_c.front().size())
      return "its skin nodes' peaks differ in count";
  return {};
}

// The run keys (model, seed, fan_bound, ...) whose values differ between
// two runs' identities, "a, b": what a refused merge names.
std::string differing_keys(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const json* run : {&a, &b})
    if (run->is_object())
      for (const auto& item : run->items()) keys.insert(item.key());
  std::string out;
  for (const auto& k : keys)
    if (!a.is_object() || !b.is_object() || !a.contains(k) || !b.contains(k) || a.at(k) != b.at(k))
      out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

std::string tune_shard_json(const std::string& identity, std::size_t shard_index,
                            std::size_t shard_count, const GlobalStage& stage) {
  json evals = json::array();
  for (std::size_t i = 0; i < stage.evals.size(); ++i)
    if (stage.evals[i]) evals.push_back(eval_json(i, *stage.evals[i]));
  const json doc{{"format", kFormat},
                 {"version", kVersion},
                 {"kind", "tune"},
                 {"run", json::parse(identity)},
                 {"shard", {{"index", shard_index}, {"count", shard_count}}},
                 {"body", {{"candidates", stage.candidates}, {"evaluations", evals}}}};
  return doc.dump(1) + "\n";
}

std::variant<MergedTuneShards, std::string> merge_tune_shards(
    const std::vector<std::string>& shard_texts, const std::vector<std::string>& names,
    const std::string& identity) {
  if (shard_texts.empty()) return std::string("no shard files to merge");
  MergedTuneShards out;
  std::optional<std::size_t> count;
  std::set<std::size_t> seen;
  std::string run;
  std::optional<TuneEval> first;  // every evaluation's arrays are shaped as its
  for (std::size_t f = 0; f < shard_texts.size(); ++f) {
    const std::string& name = f < names.size() ? names[f] : fmt::format("shard {}", f + 1);
    try {
      const json doc = json::parse(shard_texts[f]);
      if (doc.at("format") != kFormat || doc.at("kind") != "tune")
        return name + ": not a tune shard file (format \"coolhand-sim shard\", kind \"tune\")";
      if (doc.at("version") != kVersion)
        return fmt::format(
            "{}: tune shard format version {} (this coolhand-sim reads {}: the "
            "objective's bound share is of compare's bound, fan_bound); run its shards again "
            "with this build",
            name, doc.at("version").dump(), kVersion);
      const std::string this_run = doc.at("run").dump();
      if (f == 0) {
        run = this_run;
      } else if (this_run != run) {
        return fmt::format(
            "{}: from another run than {} (model, workloads, policy, parameters or settings "
            "differ: {})",
            name, names.front(), differing_keys(doc.at("run"), json::parse(run)));
      }
      const auto k = doc.at("shard").at("index").get<std::size_t>();
      const auto n = doc.at("shard").at("count").get<std::size_t>();
      if (count && *count != n)
        return fmt::format("{}: shard {} of {}, but {} is of {}", name, k, n, names.front(),
                           *count);
      if (k < 1 || k > n) return fmt::format("{}: shard index {} is not in 1..{}", name, k, n);
      if (!seen.insert(k).second) return fmt::format("{}: shard {} of {} given twice", name, k, n);
      const auto g = doc.at("body").at("candidates").get<std::size_t>();
      if (!count) {
        count = n;
        out.global.candidates = g;
        out.global.evals.resize(g);
      } else if (g != out.global.candidates) {
        return fmt::format("{}: {} candidates, but {} has {}", name, g, names.front(),
                           out.global.candidates);
      }
      for (const auto& e : doc.at("body").at("evaluations")) {
        const auto i = e.at("candidate").get<std::size_t>();
        if (i >= g || i % n + 1 != k)
          return fmt::format("{}: candidate {} does not belong to shard {} of {}", name, i, k, n);
        if (out.global.evals[i]) return fmt::format("{}: candidate {} given twice", name, i);
        out.global.evals[i] = eval_from(e);
        if (!first) first = *out.global.evals[i];
        if (auto bad = shape_error(*out.global.evals[i], *first); !bad.empty())
          return fmt::format("{}: candidate {}: {}", name, i, bad);
      }
    } catch (const json::exception& e) {
      return name + ": not a valid tune shard file: " + e.what();
    }
  }
  if (seen.size() != *count) {
    std::string missing;
    for (std::size_t k = 1; k <= *count; ++k)
      if (!seen.contains(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    return fmt::format("shards {} of {} are missing", missing, *count);
  }
  for (std::size_t i = 0; i < out.global.candidates; ++i)
    if (!out.global.evals[i])
      return fmt::format("shard {} of {} lacks candidate {} (stopped early?)", i % *count + 1,
                         *count, i);
  if (!identity.empty() && json::parse(identity).dump() != run)
    return "the shards are from another run than this command's (model, workloads, policy, "
           "parameters or settings differ: " +
           differing_keys(json::parse(run), json::parse(identity)) + ")";
  out.identity = run;
  return out;
}

}  // namespace coolhand::sim
