// Access to sysfs attribute files, rooted at a directory (`--sysfs-root`,
// default "/sys") so tests drive the real daemon against a fake tree. Paths given to this interface
// are relative to the root, e.g. "class/thermal/thermal_zone0/temp". Every failure is a SysError
// carrying the relative path and errno.
//
// Sysfs is an interface so tests can inject faults the file system cannot
// express for root (a read-only attribute, EIO on read).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace coolhand::daemon {

class Sysfs {
 public:
  virtual ~Sysfs() = default;
  // Whole attribute text (at most 4 KiB, as sysfs). A directory, FIFO without
  // writer or device returning EIO/ENODEV yields an error or empty text.
  [[nodiscard]] virtual Result<std::string> read(std::string_view rel) const = 0;
  // Replace the attribute's text with `value` (no newline added).
  [[nodiscard]] virtual Status write(std::string_view rel, std::string_view value) = 0;
  // Entry names of a directory, sorted; an error if it is absent.
  [[nodiscard]] virtual Result<std::vector<std::string>> list(std::string_view rel) const = 0;
  [[nodiscard]] virtual bool exists(std::string_view rel) const = 0;
  // Target of a symbolic link, as stored (e.g. "../../thermal/thermal_zone4").
  [[nodiscard]] virtual Result<std::string> read_link(std::string_view rel) const = 0;
  // The absolute path a relative path refers to (for log lines).
  [[nodiscard]] virtual std::string absolute(std::string_view rel) const = 0;

  // Convenience: read and parse a decimal integer.
  [[nodiscard]] Result<std::int64_t> read_integer(std::string_view rel) const;
  [[nodiscard]] Status write_integer(std::string_view rel, std::int64_t value);
};

// The real file system below `root`.
class RootedSysfs final : public Sysfs {
 public:
  explicit RootedSysfs(std::string root);
  [[nodiscard]] Result<std::string> read(std::string_view rel) const override;
  [[nodiscard]] Status write(std::string_view rel, std::string_view value) override;
  [[nodiscard]] Result<std::vector<std::string>> list(std::string_view rel) const override;
  [[nodiscard]] bool exists(std::string_view rel) const override;
  [[nodiscard]] Result<std::string> read_link(std::string_view rel) const override;
  [[nodiscard]] std::string absolute(std::string_view rel) const override;
  [[nodiscard]] const std::string& root() const { return root_; }

 private:
  std::string root_;  // without trailing slash; "" means "/"
};

}  // namespace coolhand::daemon
