// Errors as values where the daemon meets the system. A SysError names what
// was attempted, the sysfs path (or other object) it concerned and the errno,
// so one log line is enough to act on. Result<T> is a minimal std::expected
// (C++23) stand-in: either a value or a SysError; nothing here throws.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace coolhand::daemon {

struct SysError {
  std::string what;  // "read", "write", "parse", "bind", ...
  std::string path;  // sysfs path or object name, e.g. "class/thermal/thermal_zone0/temp"
  int err = 0;       // errno, 0 when the failure is not a system call's (e.g. a parse error)
  std::string detail;

  // "read class/thermal/thermal_zone0/temp: No such file or directory (ENOENT)"
  [[nodiscard]] std::string to_string() const;
};

// E: the error type, SysError or a type derived from it that adds a typed
// reason (e.g. CreateError in runtime.h).
template <typename T, typename E = SysError>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] T& value() { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  [[nodiscard]] const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

struct Ok {};
using Status = Result<Ok>;

[[nodiscard]] SysError errno_error(std::string what, std::string path, int err);

}  // namespace coolhand::daemon
