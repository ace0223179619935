// The probe archive: what `coolhandctl probe --output FILE` writes and what
// `--sysfs-root FILE` (coolhandd, coolhandctl detect) loads.
//
// Format: a gzip-compressed tar (POSIX pax) of regular files whose names are
// paths relative to the sysfs root ("class/dmi/id/sys_vendor"); directories
// are implied by the paths. libarchive writes and parses it: the writer
// (probe_archive_write.cpp, coolhandctl and the tests) links it; the reader
// (probe_archive.cpp) loads it with dlopen on the first archive
// (libarchive_dl.h), so coolhandd carries libarchive, libxml2 and ICU only
// when --sysfs-root names a file. Without libarchive13 installed, opening
// an archive is an error naming it; a directory needs nothing.
//
// Reading rules (the archive may come from anyone's bug report):
// - only regular files and directories; links, devices and FIFOs are errors;
// - names are relative and stay inside: no leading '/', no "." or ".."
//   component, no empty component;
// - at most kMaxEntries entries, kMaxFileBytes per file and kMaxTotalBytes
//   in all;
// - anything else (not gzip, not tar, truncated) is an error naming the
//   archive and what libarchive or the rule said. Nothing is left behind.
// The tree is unpacked into a new private directory (mode 0700) below
// $TMPDIR (or /tmp) and removed, with everything in it, when the ProbeTree
// that owns it is destroyed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result.h"

namespace coolhand::daemon {

inline constexpr std::size_t kMaxEntries = 100'000;
inline constexpr std::int64_t kMaxFileBytes = std::int64_t{64} * 1024;
inline constexpr std::int64_t kMaxTotalBytes = std::int64_t{64} * 1024 * 1024;

// One file of a probe: its path relative to the sysfs root and its content.
struct ProbeFile {
  std::string path;  // "class/thermal/thermal_zone0/temp"
  std::string content;
};

// Whether a file named `name` is left out: its name contains "serial",
// "uuid" or "address" (DMI product_serial, product_uuid, power_supply
// serial_number, MAC addresses).
[[nodiscard]] bool private_name(std::string_view name);

// `text` without what identifies the machine: every line that contains
// SERIAL, UUID or ADDRESS, in any case, is dropped (uevent's
// POWER_SUPPLY_SERIAL_NUMBER=...), and every MAC address (six colon- or
// dash-separated hex pairs) and UUID (8-4-4-4-12 hex digits) left is
// replaced by zeros of the same shape.
[[nodiscard]] std::string scrub(std::string_view text);

// Writes `files` as a probe archive to `archive`, which must not exist yet.
[[nodiscard]] Status write_probe_archive(const std::string& archive,
                                         const std::vector<ProbeFile>& files);

// A sysfs root given on the command line: a directory, used as it is, or a
// probe archive (any regular file), unpacked into a private directory that
// this object owns and removes. Move-only.
class SysfsRootArg {
 public:
  [[nodiscard]] static Result<SysfsRootArg> open(const std::string& arg);

  SysfsRootArg(SysfsRootArg&& o) noexcept
      : path_(std::move(o.path_)), owned_(std::exchange(o.owned_, false)) {}
  SysfsRootArg& operator=(SysfsRootArg&& o) noexcept;
  SysfsRootArg(const SysfsRootArg&) = delete;
  SysfsRootArg& operator=(const SysfsRootArg&) = delete;
  ~SysfsRootArg();

  // The directory to root sysfs at.
  [[nodiscard]] const std::string& path() const { return path_; }
  // Whether path() is a directory unpacked from an archive (removed with this).
  [[nodiscard]] bool unpacked() const { return owned_; }

 private:
  SysfsRootArg(std::string path, bool owned) : path_(std::move(path)), owned_(owned) {}
  void remove();

  std::string path_;
  bool owned_ = false;
};

}  // namespace coolhand::daemon
