// libFuzzer entry point for the simulator's model loader. Any bytes must give
// either a model that satisfies what the physics relies on, or one located
// error: a crash, sanitizer report, hang or broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "coolhand/sim/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = coolhand::sim::parse_model(text, "fuzz.yaml");
  if (const auto* e = std::get_if<coolhand::config::ConfigError>(&r)) {
    if (e->file != "fuzz.yaml" || e->message.empty() || e->line < 0 || e->column < 0)
      __builtin_trap();
    if (e->to_string().empty()) __builtin_trap();
    return 0;
  }
  const auto& m = std::get<coolhand::sim::ModelSpec>(r);
  if (m.nodes.empty() || m.skin_nodes.empty() || m.time_step.count() <= 0) __builtin_trap();
  for (const auto& n : m.nodes)
    if (!(n.capacity_j_per_k > 0) || !(n.to_ambient_w_per_k >= 0)) __builtin_trap();
  for (const auto& d : m.devices) {
    // Only a cooling device (a fan) may leave its heat out.
    if (d.power_w.size() < 2 || d.performance.size() != d.power_w.size() ||
        (d.heat.empty() && d.cooling.empty()))
      __builtin_trap();
    for (double p : d.performance)
      if (!(p >= 0 && p <= 1)) __builtin_trap();
    // A fan's conductances: one per level, >= 0, not decreasing.
    for (const auto& c : d.cooling) {
      if (c.to_ambient_w_per_k.size() != d.power_w.size()) __builtin_trap();
      for (std::size_t l = 0; l < c.to_ambient_w_per_k.size(); ++l)
        if (!(c.to_ambient_w_per_k[l] >= 0) ||
            (l > 0 && c.to_ambient_w_per_k[l] < c.to_ambient_w_per_k[l - 1]))
          __builtin_trap();
    }
    if (d.default_demand && !(*d.default_demand >= 0 && *d.default_demand <= 1)) __builtin_trap();
  }
  return 0;
}
