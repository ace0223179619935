// FakeTree and FaultySysfs.
#include "fake_tree.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace coolhand::daemon::testing {

namespace fs = std::filesystem;

FakeTree::FakeTree(const fs::path& base) {
  std::string tmpl = (base / "coolhand-sysfs-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  root_ = tmpl;
}

FakeTree::~FakeTree() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

void FakeTree::write(const std::string& rel, const std::string& text) {
  const fs::path p = fs::path(root_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::trunc) << text << "\n";
}

std::string FakeTree::read(const std::string& rel) const {
  std::ifstream f(fs::path(root_) / rel);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::int64_t FakeTree::read_int(const std::string& rel) const {
  return std::stoll(read(rel));
}

void FakeTree::remove(const std::string& rel) {
  fs::remove_all(fs::path(root_) / rel);
}

void FakeTree::mkdir(const std::string& rel) {
  fs::create_directories(fs::path(root_) / rel);
}

void FakeTree::mkfifo(const std::string& rel) {
  const fs::path p = fs::path(root_) / rel;
  fs::create_directories(p.parent_path());
  if (::mkfifo(p.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
}

void FakeTree::thermal_zone(int n, const std::string& type, std::int64_t temp_mc) {
  const std::string d = "class/thermal/thermal_zone" + std::to_string(n) + "/";
  write(d + "type", type);
  write(d + "temp", temp_mc);
}

void FakeTree::cooling_device(int n, const std::string& type, int max_state, int cur_state) {
  const std::string d = "class/thermal/cooling_device" + std::to_string(n) + "/";
  write(d + "type", type);
  write(d + "max_state", max_state);
  write(d + "cur_state", cur_state);
}

void FakeTree::cpufreq_policy(int n, std::int64_t min_khz, std::int64_t max_khz) {
  const std::string d = "devices/system/cpu/cpufreq/policy" + std::to_string(n) + "/";
  write(d + "cpuinfo_min_freq", min_khz);
  write(d + "cpuinfo_max_freq", max_khz);
  write(d + "scaling_max_freq", max_khz);
}

void FakeTree::hwmon(int n, const std::string& name) {
  write("class/hwmon/hwmon" + std::to_string(n) + "/name", name);
}

Result<std::string> FaultySysfs::read(std::string_view rel) const {
  if (eio.count(rel)) return errno_error("read", std::string(rel), EIO);
  return real_.read(rel);
}

Status FaultySysfs::write(std::string_view rel, std::string_view value) {
  ++writes[std::string(rel)];
  if (read_only.count(rel)) return errno_error("write", std::string(rel), EACCES);
  if (on_write) return real_.write(rel, on_write(rel, value));
  return real_.write(rel, value);
}

}  // namespace coolhand::daemon::testing
