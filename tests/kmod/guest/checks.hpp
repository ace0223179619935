// Helpers the guest suites share (definitions in checks.cpp): the emulated
// platform's default parameters, file modes and paths, injected
// temperatures, EINVAL checks, and the coolhand family's events and
// requests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coolhand.h"  // the family's commands and attributes (uapi)
#include "coolhand_nl.hpp"
#include "testlib.hpp"

namespace coolhand::vmtest {

// coolhand_emul.ko's defaults (see coolhand_vmtest.cpp), m°C.
inline constexpr int kStartMc = 35000;
inline constexpr int kPassiveMc = 60000;
inline constexpr int kPassiveHystMc = 2000;
inline constexpr int kCritMc = 95000;
inline constexpr int kMaxLevel = 10;

// `path`'s permission bits (lstat), -1 when it does not exist.
int file_mode(const std::string& path);
bool is_symlink(const std::string& path);
bool exists(const std::string& path);
// realpath(), empty when it fails.
std::string real_path(const std::string& path);
// Writes `temp_mc` to emulated sensor `sensor_idx`; 0 or errno.
int inject(int sensor_idx, int temp_mc);
// A value as it appears in a check description: newlines spelled out.
std::string shown(const std::string& v);
std::string errname(int err);
int64_t monotonic_ns();
// Checks that `write` is refused with EINVAL and leaves `read` unchanged.
void expect_einval(Tap& t, const std::string& path, const std::string& value,
                   const std::string& what);

// Every coolhand event received, in order.
struct EventLog {
  std::vector<NlMsg> all;
};
// Collects the events that arrive within `ms` (sysfs writes notify
// synchronously, so by the time a write returns its events are queued).
std::vector<NlMsg> collect(CoolhandNl& nl, EventLog& log, int ms = 100);
// The events of command `cmd` (and of zone `zone`, unless negative).
std::vector<NlMsg> only(const std::vector<NlMsg>& evs, uint8_t cmd, int zone = -1);
// WINDOW_SET of a zone's steps, or of its window; LEVEL_SET of a device.
// 0 or a negative errno.
int set_steps(CoolhandNl& nl, int zone, uint32_t below, uint32_t above);
int set_window(CoolhandNl& nl, int zone, int32_t low, int32_t high);
int set_level(CoolhandNl& nl, int dev, uint32_t level);

}  // namespace coolhand::vmtest
