// Small helpers for the coolhand guest tests: TAP-style checks and sysfs
// file I/O that reports errno instead of throwing, so a test can assert
// that a write was refused with exactly EINVAL.
#pragma once

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coolhand::vmtest {

// Prints "ok N - what" / "not ok N - what" lines; the guest init script
// counts them. Failures print the detail on a "# " line below.
class Tap {
 public:
  explicit Tap(std::string suite) : suite_(std::move(suite)) {}

  bool check(bool ok, std::string_view what, const std::string& detail = {}) {
    ++count_;
    std::printf("%s %d - %s: %.*s\n", ok ? "ok" : "not ok", count_, suite_.c_str(),
                static_cast<int>(what.size()), what.data());
    if (!ok) {
      ++failed_;
      if (!detail.empty()) std::printf("#   %s\n", detail.c_str());
    }
    std::fflush(stdout);
    return ok;
  }

  template <typename A, typename B>
  bool eq(const A& got, const B& want, std::string_view what) {
    const bool ok = got == want;
    return check(ok, what, ok ? std::string{} : "got " + show(got) + ", want " + show(want));
  }

  int failed() const { return failed_; }
  int count() const { return count_; }

 private:
  static std::string show(const std::string& s) { return "'" + s + "'"; }
  static std::string show(const char* s) { return show(std::string(s)); }
  template <typename T>
  static std::string show(const std::optional<T>& v) {
    return v ? show(*v) : std::string("(none)");
  }
  template <typename T>
  static std::string show(const T& v) {
    return std::to_string(v);
  }

  std::string suite_;
  int count_ = 0;
  int failed_ = 0;
};

// Reads a whole sysfs file with the trailing newline removed.
inline std::optional<std::string> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (!f) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  const bool err = std::ferror(f);
  std::fclose(f);
  if (err) return std::nullopt;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

inline std::optional<long long> read_int(const std::string& path) {
  auto s = read_file(path);
  if (!s || s->empty()) return std::nullopt;
  try {
    size_t pos = 0;
    long long v = std::stoll(*s, &pos);
    if (pos != s->size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

// Writes with a single write(2), like `echo > file`. Returns 0 or errno.
int write_file(const std::string& path, std::string_view value);

// Where the module and the emulated platform (coolhand_emul.ko) live.
inline const std::string kClass = "/sys/class/coolhand";
inline const std::string kEmul = "/sys/devices/coolhand_emul";
inline const std::string kThermal = "/sys/class/thermal";

inline std::string sensor(int i) {
  return kEmul + "/sensor" + std::to_string(i);
}
inline std::string throttle(int i) {
  return kEmul + "/throttle" + std::to_string(i);
}

// Entries of `dir` starting with `prefix`, sorted.
std::vector<std::string> list_dir(const std::string& dir, const std::string& prefix);
// /sys/class/coolhand/zoneN of the zone with this name, or "".
std::string zone_dir(const std::string& name);
// N of a /sys/class/coolhand/zoneN path.
int zone_id(const std::string& dir);
// /sys/class/thermal/<prefix>N whose type is `type`, or "".
std::string thermal_dir(const std::string& prefix, const std::string& type);

}  // namespace coolhand::vmtest
