// The port chain's excitation level steps (coolhand/sim/port_yaml.h,
// excitation_steps): which devices the lab steps and when.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/port_yaml.h"

namespace coolhand::sim {

namespace {

// The excitation's demand switches are 15-60 s apart
// (sim/data/workloads/excitation/generate.py); the level steps keep that
// spacing, long enough for the fast nodes to show a level's heat.
constexpr std::uint32_t kMinHoldS = 15;
constexpr std::uint32_t kMaxHoldS = 60;
constexpr std::uint32_t kSeed = 20261129;

// A whole number in [lo, hi] from the generator's raw output: std::mt19937's
// sequence is fixed by the standard, the distributions' mappings are not.
std::uint32_t pick(std::mt19937& rng, std::uint32_t lo, std::uint32_t hi) {
  return lo + static_cast<std::uint32_t>(rng() % (hi - lo + 1));
}

}  // namespace

std::vector<ExcitationStep> excitation_steps(const ModelSpec& model,
                                             const config::PolicyDocument& policy,
                                             double duration_s) {
  struct Stepped {
    std::string name;
    std::uint32_t lo = 0, hi = 0;
    std::vector<std::uint32_t> order;  // this round's levels, next at the back
    std::uint32_t current = 0;         // the floor in force
  };
  std::vector<Stepped> devices;
  for (const auto& d : policy.spec.devices) {
    const auto m = std::find_if(model.devices.begin(), model.devices.end(),
                                [&d](const DeviceModelSpec& x) { return x.name == d.name; });
    if (m == model.devices.end() || m->energy_model || d.max_level < 1) continue;
    const std::uint32_t hi = std::min(d.limit_level.value_or(d.max_level), d.max_level);
    if (hi <= d.min_level) continue;
    devices.push_back({d.name, d.min_level, hi, {}, d.min_level});
  }
  std::mt19937 rng(kSeed);
  // Each device's changes, as (second, level), merged by time below.
  std::map<std::uint32_t, std::vector<std::pair<std::size_t, std::uint32_t>>> changes;
  const auto end = static_cast<std::uint32_t>(std::max(0.0, duration_s));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    Stepped& d = devices[i];
    for (std::uint32_t t = 0; t < end; t += pick(rng, kMinHoldS, kMaxHoldS)) {
      if (d.order.empty()) {
        for (std::uint32_t l = d.lo; l <= d.hi; ++l) d.order.push_back(l);
        // Fisher-Yates with pick(): the same order wherever it runs.
        for (std::size_t k = d.order.size(); k > 1; --k)
          std::swap(d.order[k - 1], d.order[pick(rng, 0, static_cast<std::uint32_t>(k - 1))]);
        // A new round never starts with the level in force: each change
        // is one, so every hold is 15-60 s.
        if (t > 0 && d.order.back() == d.current) std::swap(d.order.back(), d.order.front());
      }
      d.current = d.order.back();
      changes[t].emplace_back(i, d.current);
      d.order.pop_back();
    }
  }
  std::vector<std::uint32_t> floor(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) floor[i] = devices[i].lo;
  std::vector<ExcitationStep> out;
  for (const auto& [t, list] : changes) {
    for (const auto& [i, level] : list) floor[i] = level;
    ExcitationStep step{static_cast<double>(t), {}};
    for (std::size_t i = 0; i < devices.size(); ++i)
      step.floors.emplace_back(devices[i].name, floor[i]);
    out.push_back(std::move(step));
  }
  return out;
}

}  // namespace coolhand::sim
