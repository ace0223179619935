// coolhandctl: the command-line companion of coolhandd. For now it works on
// policy files: `check-config` validates them the way the daemon would at
// start, `dump-config` shows what a valid one compiles to.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "policy_json.h"

namespace {

// Prints "FILE: ok" or every error, one per line; returns the number of
// files with errors.
int check_config(const std::vector<std::string>& files) {
  int failed = 0;
  for (const std::string& file : files) {
    const coolhand::config::LoadResult r = coolhand::config::load_policy_file(file);
    if (r.errors.empty()) {
      std::cout << file << ": ok\n";
      continue;
    }
    ++failed;
    for (const auto& e : r.errors) std::cout << e.to_string() << '\n';
  }
  return failed;
}

int dump_config(const std::string& file) {
  const coolhand::config::LoadResult r = coolhand::config::load_policy_file(file);
  if (!r.document) {
    for (const auto& e : r.errors) std::cerr << e.to_string() << '\n';
    return 1;
  }
  std::cout << coolhand::ctl::to_json(*r.document).dump(2) << '\n';
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"coolhandctl: inspect and control the coolhand thermal daemon"};
  app.require_subcommand(1);

  std::vector<std::string> check_files;
  auto* check =
      app.add_subcommand("check-config",
                         "Validate policy files; print 'FILE: ok' or each error as "
                         "file:line:column: key: message. Exits 1 if any file has errors.");
  check->add_option("FILE", check_files, "Policy files (YAML)")->required();

  std::string dump_file;
  auto* dump = app.add_subcommand("dump-config",
                                  "Print a valid policy as JSON after defaults and unit conversion "
                                  "(temperatures in °C, durations in ms). Exits 1 on errors.");
  dump->add_option("FILE", dump_file, "Policy file (YAML)")->required();

  CLI11_PARSE(app, argc, argv);

  if (check->parsed()) return check_config(check_files) == 0 ? 0 : 1;
  if (dump->parsed()) return dump_config(dump_file);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "coolhandctl: " << e.what() << '\n';
    return 2;
  }
}
