// ConfigError's formatter and the "did you mean" hint shared by the policy
// loader and the simulator's model loader.
#include "coolhand/config/error.h"

#include <algorithm>

#include "scalars.h"

namespace coolhand::config {

std::string ConfigError::to_string() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": ";
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

namespace {

template <typename Names>
std::optional<std::string> closest(std::string_view key, const Names& allowed) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (std::string_view candidate : allowed) {
    // "threshold" for "threshold_c", "period_ms" for "period": a unit suffix
    // added or dropped.
    const bool suffix_variant =
        (candidate.size() > key.size() && candidate.substr(0, key.size()) == key &&
         candidate[key.size()] == '_') ||
        (key.size() > candidate.size() && key.substr(0, candidate.size()) == candidate &&
         key[candidate.size()] == '_');
    const std::size_t d = suffix_variant ? 0 : detail::edit_distance(key, candidate);
    if (d < best_distance && d < std::max<std::size_t>(key.size(), 2)) {
      best_distance = d;
      best = std::string(candidate);
    }
  }
  return best;
}

}  // namespace

std::optional<std::string> did_you_mean(std::string_view key,
                                        std::initializer_list<std::string_view> allowed) {
  return closest(key, allowed);
}

std::optional<std::string> did_you_mean(std::string_view key,
                                        std::span<const std::string_view> allowed) {
  return closest(key, allowed);
}

std::optional<std::string> did_you_mean(std::string_view key,
                                        const std::vector<std::string>& allowed) {
  return closest(key, allowed);
}

}  // namespace coolhand::config
