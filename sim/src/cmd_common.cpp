// The inputs and outputs of coolhand-sim's subcommands (cmd_common.h).
#include "cmd_common.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <stdexcept>
#include <vector>

namespace coolhand::sim {

namespace fs = std::filesystem;

namespace {

// Directories holding models/, workloads/ and policies/, in lookup order.
std::vector<fs::path> data_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("COOLHAND_SIM_DATA")) dirs.emplace_back(env);
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    dirs.push_back(exe.parent_path().parent_path() / COOLHAND_SIM_INSTALL_DATADIR / "coolhand");
  dirs.emplace_back(COOLHAND_SIM_SOURCE_DATA);
  dirs.emplace_back(COOLHAND_SOURCE_POLICIES_PARENT);
  return dirs;
}

}  // namespace

std::optional<std::string> find_data(const std::string& rel) {
  for (const auto& d : data_dirs())
    if (fs::exists(d / rel)) return (d / rel).string();
  return std::nullopt;
}

std::string need_data(const std::string& rel) {
  if (auto p = find_data(rel)) return *p;
  throw std::runtime_error("cannot find bundled " + rel +
                           " (set COOLHAND_SIM_DATA to the directory holding models/, "
                           "workloads/ and policies/)");
}

ModelSpec load_model(const std::string& path) {
  auto r = load_model_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&r)) throw std::runtime_error(e->to_string());
  return std::get<ModelSpec>(std::move(r));
}

Workload load_workload(const std::string& path, const ModelSpec& model) {
  return std::move(load_workload(path, {&model}).front());
}

std::vector<Workload> load_workload(const std::string& path,
                                    const std::vector<const ModelSpec*>& models) {
  auto t = load_csv_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&t)) throw std::runtime_error(e->to_string());
  const auto& table = std::get<CsvTable>(t);
  std::vector<Workload> out;
  std::set<std::string> said;
  for (const ModelSpec* model : models) {
    auto w = Workload::bind(table, *model);
    if (auto* e = std::get_if<config::ConfigError>(&w)) throw std::runtime_error(e->to_string());
    for (const auto& warning : std::get<Workload>(w).warnings())
      if (said.insert(warning.to_string()).second)
        std::cerr << "coolhand-sim: " << warning.to_string() << "\n";
    out.push_back(std::get<Workload>(std::move(w)));
  }
  return out;
}

config::PolicyDocument load_policy(const std::string& path) {
  auto r = config::load_policy_file(path);
  if (!r.errors.empty()) {
    std::string msg;
    for (const auto& e : r.errors) msg += (msg.empty() ? "" : "\n") + e.to_string();
    throw std::runtime_error(msg);
  }
  return std::move(*r.document);
}

void ensure_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
}

void check(const std::string& error) {
  if (!error.empty()) throw std::runtime_error(error);
}

std::string stem(const std::string& path) {
  return fs::path(path).stem().string();
}

}  // namespace coolhand::sim
