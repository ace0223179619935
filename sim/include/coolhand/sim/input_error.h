// Errors from reading the simulator's input files (model YAML, workload CSV,
// sensor-trace CSV). Parsers return them as values; the CLI prints them and
// exits non-zero. Every error names the file and, where there is one, the
// 1-based line (and column for YAML).
#pragma once

#include <string>

namespace coolhand::sim {

struct InputError {
  std::string file;
  int line = 0;    // 1-based; 0 when the error concerns the whole file (e.g. unreadable)
  int column = 0;  // 1-based; 0 when unknown (CSV)
  std::string message;

  // "file:line:column: message", leaving out the parts that are unknown.
  [[nodiscard]] std::string to_string() const;
};

}  // namespace coolhand::sim
