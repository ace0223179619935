// run_command and run_in_callback (cmd_status.h).
#include "cmd_status.h"

#include <exception>
#include <iostream>
#include <string_view>
#include <utility>

namespace coolhand::sim {

int run_command(const std::string& prefix, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << "coolhand-sim: " << prefix << e.what() << "\n";
    return 1;
  }
}

void run_in_callback(CLI::App& cmd, std::string prefix, std::function<int()> body) {
  cmd.callback([prefix = std::move(prefix), body = std::move(body)] {
    const int code = run_command(prefix, body);
    if (code == 0) throw CLI::Success();
    throw CLI::RuntimeError(code);
  });
}

std::optional<int> refuse_bad_subcommand(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path;  // the subcommands so far, "port"
  for (int i = 1;; ++i) {
    const auto subs = at->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) return std::nullopt;
    std::string names;
    for (const CLI::App* sub : subs) names += (names.empty() ? "" : ", ") + sub->get_name();
    const std::string where = path.empty() ? "" : path + ": ";
    const std::string help = "see coolhand-sim " + (path.empty() ? "" : path + " ") + "--help";
    if (i >= argc) {
      if (at->get_require_subcommand_min() == 0) return std::nullopt;
      std::cerr << "coolhand-sim: " << where << "give a subcommand (one of: " << names << "; "
                << help << ")\n";
      return 2;
    }
    const std::string_view word = argv[i];
    if (word.starts_with('-')) return std::nullopt;
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : subs)
      if (sub->get_name() == word) next = sub;
    if (!next) {
      std::cerr << "coolhand-sim: " << where << "unknown subcommand '" << word
                << "' (one of: " << names << "; " << help << ")\n";
      return 2;
    }
    path += (path.empty() ? "" : " ") + next->get_name();
    at = next;
  }
}

}  // namespace coolhand::sim
