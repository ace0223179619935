// The magic number and section tags shared by the writer and the reader
// (private to the library; the writer encodes little-endian in writer.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace coolhand::recorder::wire {

// "CHREC", NUL, CR, LF: a text-mode transfer or a truncation to a C string
// shows at the first bytes.
inline constexpr std::array<char, 8> kMagic{'C', 'H', 'R', 'E', 'C', '\0', '\r', '\n'};

enum class Tag : std::uint16_t {
  end = 0,
  boot_id = 1,
  daemon_version = 2,
  policy_text = 3,
  reason = 4,
  sensors = 16,
  sensor_kinds = 17,
  zones = 18,
  devices = 19,
  controllers = 20,
  profiles = 21,
  layout = 32,
};

}  // namespace coolhand::recorder::wire
