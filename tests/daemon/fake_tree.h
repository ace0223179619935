// Test helpers: a temporary directory standing in for sysfs, and a Sysfs
// wrapper that injects the faults the file system cannot express for root
// (read-only attributes, EIO, a value the "firmware" changes after a write).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "sysfs.h"

namespace coolhand::daemon::testing {

class FakeTree {
 public:
  // A fresh directory under `base` (benchmarks pass /dev/shm: tmpfs behaves
  // like sysfs on writes, where ext4 may force writeback on close).
  explicit FakeTree(const std::filesystem::path& base = std::filesystem::temp_directory_path());
  ~FakeTree();
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  [[nodiscard]] const std::string& root() const { return root_; }
  // Create `rel` (and its parents) holding `text` plus a newline.
  void write(const std::string& rel, const std::string& text);
  void write(const std::string& rel, std::int64_t v) { write(rel, std::to_string(v)); }
  [[nodiscard]] std::string read(const std::string& rel) const;
  [[nodiscard]] std::int64_t read_int(const std::string& rel) const;
  void remove(const std::string& rel);
  void mkdir(const std::string& rel);
  void mkfifo(const std::string& rel);

  // Typical hardware.
  void thermal_zone(int n, const std::string& type, std::int64_t temp_mc);
  void cooling_device(int n, const std::string& type, int max_state, int cur_state = 0);
  void cpufreq_policy(int n, std::int64_t min_khz, std::int64_t max_khz);
  void hwmon(int n, const std::string& name);

 private:
  std::string root_;
};

// Wraps a RootedSysfs; paths in `read_only` fail writes with EACCES, paths in
// `eio` fail reads with EIO, and `on_write` may rewrite the value that lands
// (firmware clamping).
class FaultySysfs final : public Sysfs {
 public:
  explicit FaultySysfs(const std::string& root) : real_(root) {}
  [[nodiscard]] Result<std::string> read(std::string_view rel) const override;
  [[nodiscard]] Status write(std::string_view rel, std::string_view value) override;
  [[nodiscard]] Result<std::vector<std::string>> list(std::string_view rel) const override {
    return real_.list(rel);
  }
  [[nodiscard]] bool exists(std::string_view rel) const override { return real_.exists(rel); }
  [[nodiscard]] Result<std::string> read_link(std::string_view rel) const override {
    return real_.read_link(rel);
  }
  [[nodiscard]] std::string absolute(std::string_view rel) const override {
    return real_.absolute(rel);
  }

  std::set<std::string, std::less<>> read_only;
  std::set<std::string, std::less<>> eio;
  std::function<std::string(std::string_view rel, std::string_view value)> on_write;
  std::map<std::string, int, std::less<>> writes;  // count per path

 private:
  RootedSysfs real_;
};

}  // namespace coolhand::daemon::testing
