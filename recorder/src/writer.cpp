// Writing a recording file (format in docs/recording-format.md).
#include <algorithm>
#include <cstring>

#include "coolhand/recorder/file.h"
#include "wire.h"

namespace coolhand::recorder {

std::uint64_t policy_hash(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

void set_names(Metadata& m, const policy::PolicySpec& spec) {
  m.sensors.clear();
  m.sensor_kinds.clear();
  for (const auto& s : spec.sensors) {
    m.sensors.push_back(s.name);
    m.sensor_kinds.push_back(static_cast<std::uint8_t>(s.kind));
  }
  m.zones.clear();
  for (const auto& z : spec.zones) m.zones.push_back(z.name);
  m.devices.clear();
  for (const auto& d : spec.devices) m.devices.push_back(d.name);
  m.controllers.clear();
  for (const auto& c : spec.controllers) m.controllers.push_back(c.name);
  m.profiles.clear();
  for (const auto& p : spec.profiles) m.profiles.push_back(p.name);
}

namespace {

void put_names(std::string& out, const std::vector<std::string>& names) {
  wire::put_u32(out, static_cast<std::uint32_t>(names.size()));
  for (const auto& n : names) {
    const std::size_t len = std::min<std::size_t>(n.size(), 0xFFFF);
    wire::put_u16(out, static_cast<std::uint16_t>(len));
    out.append(n.data(), len);
  }
}

void put_section(std::string& out, wire::Tag tag, std::string_view body) {
  wire::put_u16(out, static_cast<std::uint16_t>(tag));
  wire::put_u16(out, 0);
  wire::put_u32(out, static_cast<std::uint32_t>(body.size()));
  out.append(body);
}

std::string encode_layout() {
  std::string out;
  const auto all = layouts();
  wire::put_u16(out, static_cast<std::uint16_t>(all.size()));
  for (const KindLayout& k : all) {
    wire::put_u16(out, static_cast<std::uint16_t>(k.kind));
    wire::put_u16(out, static_cast<std::uint16_t>(kRecordSize));
    wire::put_u8(out, static_cast<std::uint8_t>(k.name.size()));
    out.append(k.name);
    wire::put_u8(out, static_cast<std::uint8_t>(k.fields.size()));
    for (const FieldLayout& f : k.fields) {
      wire::put_u8(out, static_cast<std::uint8_t>(f.type));
      wire::put_u8(out, f.offset);
      wire::put_u8(out, static_cast<std::uint8_t>(f.name.size()));
      out.append(f.name);
    }
  }
  return out;
}

}  // namespace

std::string encode_header(const Ring& ring, const Metadata& m) {
  std::string sections;
  put_section(sections, wire::Tag::boot_id, m.boot_id);
  put_section(sections, wire::Tag::daemon_version, m.daemon_version);
  put_section(sections, wire::Tag::policy_text, m.policy_text);
  put_section(sections, wire::Tag::reason, m.reason);
  std::string body;
  put_names(body, m.sensors);
  put_section(sections, wire::Tag::sensors, body);
  body.clear();
  wire::put_u32(body, static_cast<std::uint32_t>(m.sensor_kinds.size()));
  for (const std::uint8_t k : m.sensor_kinds) wire::put_u8(body, k);
  put_section(sections, wire::Tag::sensor_kinds, body);
  body.clear();
  put_names(body, m.zones);
  put_section(sections, wire::Tag::zones, body);
  body.clear();
  put_names(body, m.devices);
  put_section(sections, wire::Tag::devices, body);
  body.clear();
  put_names(body, m.controllers);
  put_section(sections, wire::Tag::controllers, body);
  body.clear();
  put_names(body, m.profiles);
  put_section(sections, wire::Tag::profiles, body);
  put_section(sections, wire::Tag::layout, encode_layout());
  put_section(sections, wire::Tag::end, {});

  std::string out;
  out.reserve(kFixedHeaderSize + sections.size());
  out.append(wire::kMagic.data(), wire::kMagic.size());
  wire::put_u16(out, kVersionMajor);
  wire::put_u16(out, kVersionMinor);
  wire::put_u32(out, static_cast<std::uint32_t>(kFixedHeaderSize + sections.size()));
  wire::put_u32(out, kRecordSize);
  wire::put_u32(out, 0);
  wire::put_u64(out, ring.size());
  wire::put_u64(out, ring.capacity());
  wire::put_u64(out, ring.total());
  wire::put_u64(out, ring.lost());
  wire::put_u64(out, policy_hash(m.policy_text));
  wire::put_u64(out, m.dump_time_ns);
  out += sections;
  return out;
}

bool write_recording(const Ring& ring, const Metadata& m, ByteSink& sink) {
  if (!sink.write(encode_header(ring, m))) return false;
  // Records are written as they are in memory (little-endian, 32 bytes), in
  // chunks so a large ring needs no second copy.
  constexpr std::size_t kChunk = 256;
  char buf[kChunk * kRecordSize];
  std::uint64_t seq = ring.first();
  while (seq < ring.total()) {
    std::size_t n = 0;
    for (; n < kChunk && seq < ring.total(); ++n, ++seq) {
      std::memcpy(buf + n * kRecordSize, &ring.at(seq), kRecordSize);
    }
    if (!sink.write(std::string_view(buf, n * kRecordSize))) return false;
  }
  return true;
}

}  // namespace coolhand::recorder
