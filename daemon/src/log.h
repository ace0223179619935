// Logging for coolhandd: one line per state change, to stderr, prefixed with
// the journald/sd-daemon priority ("<3>" error, "<4>" warning, "<6>" info,
// "<7>" debug) so journald files each line under the right priority without
// a library. Debug lines (per-sample detail) appear only with --verbose.
// Tests capture the lines instead of printing them.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

namespace coolhand::daemon {

class Logger {
 public:
  enum class Priority : int { error = 3, warning = 4, info = 6, debug = 7 };

  // Writes to `out` (stderr when null) unless capture() was called.
  explicit Logger(bool verbose = false, std::FILE* out = nullptr) : verbose_(verbose), out_(out) {}

  void set_verbose(bool v) { verbose_ = v; }
  [[nodiscard]] bool verbose() const { return verbose_; }
  // Keep lines in memory (tests) instead of writing them.
  void capture() { capturing_ = true; }
  [[nodiscard]] const std::vector<std::string>& lines() const { return lines_; }
  void clear() { lines_.clear(); }

  void write(Priority p, const std::string& line);

  template <typename... A>
  void error(fmt::format_string<A...> f, A&&... a) {
    write(Priority::error, fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  void warning(fmt::format_string<A...> f, A&&... a) {
    write(Priority::warning, fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  void info(fmt::format_string<A...> f, A&&... a) {
    write(Priority::info, fmt::format(f, std::forward<A>(a)...));
  }
  template <typename... A>
  void debug(fmt::format_string<A...> f, A&&... a) {
    if (verbose_) write(Priority::debug, fmt::format(f, std::forward<A>(a)...));
  }

 private:
  bool verbose_;
  std::FILE* out_;
  bool capturing_ = false;
  std::vector<std::string> lines_;
};

}  // namespace coolhand::daemon
