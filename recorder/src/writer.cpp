// Writing a recording file (format in docs/recording-format.md).
#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

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

// The header is written twice over the same code: once into a Counter (its
// size, which the fixed header and each section head state first), then into
// the real output. Outputs take bytes through put().
struct Counter {
  std::size_t n = 0;
  void put(std::string_view bytes) { n += bytes.size(); }
};

// Bytes into a string (encode_header(): a follower's one message).
struct StringOut {
  std::string& s;
  void put(std::string_view bytes) { s.append(bytes); }
};

// Bytes into a sink through a fixed buffer on the stack: a dump allocates
// nothing, and pieces larger than the buffer (the policy text) go straight
// through, never copied.
class SinkOut {
 public:
  explicit SinkOut(ByteSink& sink) : sink_(sink) {}
  void put(std::string_view bytes) {
    if (bytes.size() > buf_.size() - n_) {
      flush();
      if (bytes.size() >= buf_.size()) {
        ok_ = ok_ && sink_.write(bytes);
        return;
      }
    }
    std::memcpy(buf_.data() + n_, bytes.data(), bytes.size());
    n_ += bytes.size();
  }
  bool flush() {
    if (n_ > 0) ok_ = ok_ && sink_.write(std::string_view(buf_.data(), n_));
    n_ = 0;
    return ok_;
  }

 private:
  ByteSink& sink_;
  std::array<char, 1024> buf_{};
  std::size_t n_ = 0;
  bool ok_ = true;
};

// Little-endian integers, as wire.h's put_* write them.
template <class Out, class U>
void put_le(Out& out, U v) {
  std::array<char, sizeof(U)> b{};
  for (std::size_t i = 0; i < sizeof(U); ++i) {
    b[i] = static_cast<char>((static_cast<std::uint64_t>(v) >> (8U * i)) & 0xFFU);
  }
  out.put(std::string_view(b.data(), b.size()));
}

template <class Out>
void put_names(Out& out, const std::vector<std::string>& names) {
  put_le(out, static_cast<std::uint32_t>(names.size()));
  for (const auto& n : names) {
    const std::size_t len = std::min<std::size_t>(n.size(), 0xFFFF);
    put_le(out, static_cast<std::uint16_t>(len));
    out.put(std::string_view(n.data(), len));
  }
}

template <class Out>
void put_layout(Out& out) {
  const auto all = layouts();
  put_le(out, static_cast<std::uint16_t>(all.size()));
  for (const KindLayout& k : all) {
    put_le(out, static_cast<std::uint16_t>(k.kind));
    put_le(out, static_cast<std::uint16_t>(kRecordSize));
    put_le(out, static_cast<std::uint8_t>(k.name().size()));
    out.put(k.name());
    put_le(out, static_cast<std::uint8_t>(k.fields().size()));
    for (const FieldLayout& f : k.fields()) {
      put_le(out, static_cast<std::uint8_t>(f.type));
      put_le(out, f.offset);
      put_le(out, static_cast<std::uint8_t>(f.name.size()));
      out.put(f.name);
    }
  }
}

template <class Out>
void put_section_head(Out& out, wire::Tag tag, std::size_t body) {
  put_le(out, static_cast<std::uint16_t>(tag));
  put_le(out, std::uint16_t{0});
  put_le(out, static_cast<std::uint32_t>(body));
}

template <class Out>
void put_text(Out& out, wire::Tag tag, std::string_view text) {
  put_section_head(out, tag, text.size());
  out.put(text);
}

template <class Out>
void put_names_section(Out& out, wire::Tag tag, const std::vector<std::string>& names) {
  Counter c;
  put_names(c, names);
  put_section_head(out, tag, c.n);
  put_names(out, names);
}

template <class Out>
void put_sections(Out& out, const Metadata& m) {
  put_text(out, wire::Tag::boot_id, m.boot_id);
  put_text(out, wire::Tag::daemon_version, m.daemon_version);
  put_text(out, wire::Tag::policy_text, m.policy_text);
  put_text(out, wire::Tag::reason, m.reason);
  put_names_section(out, wire::Tag::sensors, m.sensors);
  put_section_head(out, wire::Tag::sensor_kinds, 4 + m.sensor_kinds.size());
  put_le(out, static_cast<std::uint32_t>(m.sensor_kinds.size()));
  for (const std::uint8_t k : m.sensor_kinds) put_le(out, k);
  put_names_section(out, wire::Tag::zones, m.zones);
  put_names_section(out, wire::Tag::devices, m.devices);
  put_names_section(out, wire::Tag::controllers, m.controllers);
  put_names_section(out, wire::Tag::profiles, m.profiles);
  Counter layout;
  put_layout(layout);
  put_section_head(out, wire::Tag::layout, layout.n);
  put_layout(out);
  put_section_head(out, wire::Tag::end, 0);
}

template <class Out>
void put_header(Out& out, const Ring& ring, const Metadata& m) {
  Counter sections;
  put_sections(sections, m);
  out.put(std::string_view(wire::kMagic.data(), wire::kMagic.size()));
  put_le(out, kVersionMajor);
  put_le(out, kVersionMinor);
  put_le(out, static_cast<std::uint32_t>(kFixedHeaderSize + sections.n));
  put_le(out, static_cast<std::uint32_t>(kRecordSize));
  put_le(out, std::uint32_t{0});
  put_le(out, static_cast<std::uint64_t>(ring.size()));
  put_le(out, static_cast<std::uint64_t>(ring.capacity()));
  put_le(out, ring.total());
  put_le(out, ring.lost());
  put_le(out, policy_hash(m.policy_text));
  put_le(out, m.dump_time_ns);
  put_sections(out, m);
}

}  // namespace

std::string encode_header(const Ring& ring, const Metadata& m) {
  std::string s;
  StringOut out{s};
  put_header(out, ring, m);
  return s;
}

bool write_recording(const Ring& ring, const Metadata& m, ByteSink& sink) {
  {
    SinkOut out(sink);
    put_header(out, ring, m);
    if (!out.flush()) return false;
  }
  // Records are written as they are in memory (little-endian, 32 bytes),
  // straight from the ring: at most two runs, before and after its wrap.
  std::uint64_t seq = ring.first();
  std::size_t left = ring.size();
  while (left > 0) {
    const std::size_t slot = static_cast<std::size_t>(seq % ring.capacity());
    const std::size_t run = std::min(left, ring.capacity() - slot);
    const auto* bytes = reinterpret_cast<const char*>(&ring.at(seq));
    if (!sink.write(std::string_view(bytes, run * kRecordSize))) return false;
    seq += run;
    left -= run;
  }
  return true;
}

}  // namespace coolhand::recorder
