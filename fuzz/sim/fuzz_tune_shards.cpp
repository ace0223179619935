// libFuzzer entry point for tune's readers of what another run wrote or a
// user typed (tune_shard.cpp, tune_targets.cpp): the input's first line is
// `--tolerance` arguments (split at spaces) resolved against two skin nodes;
// the rest, cut at NUL bytes, tune shard files merged as one run. Any bytes
// must give either one error or a result that keeps the readers' promises:
// a tolerance for each node, finite; a merged global stage with every
// candidate present and every evaluation's per-workload arrays (each skin
// node's peak among them) of one shape, which the search then indexes by
// workload and node without a check of its own.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/sim/tune.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coolhand::sim;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nl = all.find('\n');
  const std::string_view first = all.substr(0, nl);
  std::vector<std::string> args;
  std::istringstream words{std::string(first)};
  for (std::string w; words >> w && args.size() < 8;) args.push_back(w);
  const std::vector<std::string> nodes = {"front_skin", "back_skin"};
  const std::vector<std::string> workloads = {"gaming", "hot-car"};
  auto tol = parse_tolerances(args, nodes, workloads, 0.5);
  if (const auto* t = std::get_if<TuneTolerances>(&tol)) {
    if (t->node_c.size() != nodes.size()) __builtin_trap();
    for (double v : t->node_c)
      if (!std::isfinite(v)) __builtin_trap();
    if (!t->workload_node_c.empty() && t->workload_node_c.size() != workloads.size())
      __builtin_trap();
    for (const auto& w : t->workload_node_c) {
      if (w.size() != nodes.size()) __builtin_trap();
      for (const auto& v : w)
        if (v && !std::isfinite(*v)) __builtin_trap();
    }
  } else if (std::get<std::string>(tol).rfind("--tolerance '", 0) != 0) {
    __builtin_trap();
  }
  if (nl == std::string_view::npos) return 0;

  std::vector<std::string> texts, names;
  std::string current;
  for (std::size_t i = nl + 1; i <= size; ++i) {
    if (i == size || data[i] == 0) {
      texts.push_back(current);
      names.push_back("fuzz-" + std::to_string(texts.size()) + ".json");
      current.clear();
      if (texts.size() == 8) break;
      continue;
    }
    current.push_back(static_cast<char>(data[i]));
  }
  auto merged = merge_tune_shards(texts, names, "");
  if (const auto* e = std::get_if<std::string>(&merged)) {
    if (e->empty()) __builtin_trap();
    return 0;
  }
  const GlobalStage& g = std::get<MergedTuneShards>(merged).global;
  if (g.candidates == 0 || g.evals.size() != g.candidates) __builtin_trap();
  const TuneEval& e0 = *g.evals.front();
  for (const auto& e : g.evals) {
    if (!e) __builtin_trap();
    const std::size_t nw = e->max_skin_c.size();
    if (nw != e0.max_skin_c.size() || e->performance.size() != nw ||
        e->degree_seconds.size() != nw || e->node_max_skin_c.size() != nw ||
        e->x.size() != e0.x.size())
      __builtin_trap();
    for (const auto& row : e->node_max_skin_c)
      if (row.size() != e0.node_max_skin_c.front().size()) __builtin_trap();
    // What the search does with it: judge each workload's nodes.
    TuneSettings s;
    for (std::size_t w = 0; w < nw; ++w) (void)target_misses(s, *e, w);
  }
  return 0;
}
