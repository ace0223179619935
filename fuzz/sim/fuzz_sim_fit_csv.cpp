// libFuzzer entry point for `coolhand-sim fit`'s data binding: arbitrary
// bytes through parse_csv, then bind_fit_csv to a fixed skeleton (two
// devices, a sensor with a lag and one without) and, for short data, the
// open-loop prediction. Either one located error, or a segment whose
// series all have the grid's length and whose loads are demands in [0,1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "coolhand/sim/fit.h"

namespace {

using coolhand::config::ConfigError;
using coolhand::sim::FitSegment;
using coolhand::sim::FitSkeleton;

const FitSkeleton& skeleton() {
  static const FitSkeleton sk = [] {
    auto r = coolhand::sim::parse_skeleton(
        "name: m\nskin: {nodes: [b], limit_c: 45}\n"
        "nodes: [{name: a, capacity_j_per_k: free}, {name: b, capacity_j_per_k: 2, "
        "to_ambient_w_per_k: free}]\nlinks: [{a: a, b: b, w_per_k: free}]\n"
        "devices:\n"
        "  - {name: cpu, power_w: [free, 1], performance: [1, 0.5], heat: [{node: a}]}\n"
        "  - {name: gpu, idle_w: free, power_w: [2, free], performance: [1, 0], "
        "heat: [{node: a, share: 0.5}, {node: b, share: 0.5}]}\n"
        "sensors: [{name: s, node: a}, {name: t, node: b, lag_s: 3}]\n",
        "m.yaml");
    if (!std::holds_alternative<FitSkeleton>(r)) std::abort();
    return std::get<FitSkeleton>(r);
  }();
  return sk;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = coolhand::sim::parse_csv(text, "fuzz.csv");
  if (std::holds_alternative<ConfigError>(t)) return 0;
  std::vector<ConfigError> warnings;
  coolhand::sim::FitDataOptions opt;
  opt.ambient_c = 25.0;
  auto r = coolhand::sim::bind_fit_csv(std::get<coolhand::sim::CsvTable>(t), skeleton().spec, opt,
                                       warnings);
  if (const auto* e = std::get_if<ConfigError>(&r)) {
    if (e->file != "fuzz.csv" || e->message.empty()) __builtin_trap();
    return 0;
  }
  const auto& seg = std::get<FitSegment>(r);
  const auto n = seg.time_s.size();
  if (n < 3 || seg.ambient_c.size() != n || seg.reading_c.size() != 2 || seg.load.size() != 2)
    __builtin_trap();
  for (const auto& dev : seg.load)
    for (const auto& level : dev) {
      if (level.size() != n) __builtin_trap();
      for (double x : level)
        if (!(x >= -1e-9 && x <= 1 + 1e-9)) __builtin_trap();
    }
  if (n <= 10000) {
    const auto nodes = coolhand::sim::predict_nodes(skeleton().spec, seg);
    if (nodes.size() != 2 || nodes[0].size() != n) __builtin_trap();
  }
  return 0;
}
