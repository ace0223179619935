// The one error type for bad input files: the policy language (config/) and
// the simulator's model YAML, workload CSV and sensor-trace CSV (sim/) all
// report problems as a ConfigError value with one formatter. Parsers return
// them; command-line tools print them and exit non-zero.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace coolhand::config {

struct ConfigError {
  std::string file;
  int line = 0;     // 1-based; 0 when the error concerns the whole file (e.g. unreadable)
  int column = 0;   // 1-based; 0 when unknown (CSV rows have no column)
  std::string key;  // dotted YAML path or CSV column; empty when none applies
  std::string message;
  // "file:line:column: key: message", leaving out the parts that are unknown
  // (no line: "file: message"; no column: "file:line: message").
  [[nodiscard]] std::string to_string() const;
};

// The entry of `allowed` that `key` is most likely a typo of: a unit suffix
// added or dropped ("period" for "period_ms"), or at most two edits away
// (and fewer edits than the key is long). For "did you mean" hints.
[[nodiscard]] std::optional<std::string> did_you_mean(
    std::string_view key, std::initializer_list<std::string_view> allowed);
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view key,
                                                      std::span<const std::string_view> allowed);
// The same over names known only at run time (a model's devices, a policy's sensors).
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view key,
                                                      const std::vector<std::string>& allowed);

}  // namespace coolhand::config
