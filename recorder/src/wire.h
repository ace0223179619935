// Little-endian encoding helpers and section tags shared by the writer and
// the reader (private to the library).
#pragma once

#include <array>
#include <cstdint>
#include <string>

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

inline void put_u8(std::string& out, std::uint8_t v) {
  out.push_back(static_cast<char>(v));
}
inline void put_u16(std::string& out, std::uint16_t v) {
  for (unsigned i = 0; i < 2; ++i) out.push_back(static_cast<char>((v >> (8U * i)) & 0xFFU));
}
inline void put_u32(std::string& out, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8U * i)) & 0xFFU));
}
inline void put_u64(std::string& out, std::uint64_t v) {
  for (unsigned i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8U * i)) & 0xFFU));
}

}  // namespace coolhand::recorder::wire
