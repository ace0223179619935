// Reading a recording file. Every check names the byte offset where the
// file stopped making sense; nothing here throws (bad_alloc aside) or reads
// past the input.
#include <fmt/format.h>

#include <cstring>

#include "coolhand/recorder/checkpoint.h"
#include "coolhand/recorder/file.h"
#include "wire.h"

namespace coolhand::recorder {

std::string ReadError::to_string() const {
  return fmt::format("byte {}: {}", offset, message);
}

const FileKind* Recording::kind(std::uint16_t k) const {
  for (const FileKind& f : layout) {
    if (f.kind == k) return &f;
  }
  return nullptr;
}

namespace {

// A bounds-checked little-endian cursor over [begin, end) of the file.
class Cursor {
 public:
  Cursor(std::string_view file, std::size_t begin, std::size_t end)
      : file_(file), pos_(begin), end_(end) {}
  [[nodiscard]] std::size_t pos() const { return pos_; }
  [[nodiscard]] std::size_t left() const { return end_ - pos_; }
  bool get(std::uint64_t& v, std::size_t n) {
    if (left() < n) return false;
    v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(file_[pos_ + i])) << (8U * i);
    }
    pos_ += n;
    return true;
  }
  bool bytes(std::string& out, std::size_t n) {
    if (left() < n) return false;
    out.assign(file_.substr(pos_, n));
    pos_ += n;
    return true;
  }

 private:
  std::string_view file_;
  std::size_t pos_;
  std::size_t end_;
};

struct Parser {
  std::string_view file;
  Recording rec;
  std::optional<ReadError> err;

  bool fail(std::uint64_t offset, std::string message) {
    if (!err) err = ReadError{offset, std::move(message)};
    return false;
  }

  [[nodiscard]] std::uint64_t u64_at(std::size_t off, std::size_t n) const {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(file[off + i])) << (8U * i);
    }
    return v;
  }

  bool fixed_header(std::uint64_t& header_size, std::uint64_t& count) {
    if (file.empty()) return fail(0, "empty file (a recording starts with \"CHREC\")");
    const std::size_t magic_len = std::min(file.size(), wire::kMagic.size());
    if (std::memcmp(file.data(), wire::kMagic.data(), magic_len) != 0) {
      return fail(0, "bad magic: not a coolhand recording (expected \"CHREC\\0\\r\\n\")");
    }
    if (file.size() < kFixedHeaderSize) {
      return fail(file.size(),
                  fmt::format("file ends inside the {}-byte fixed header", kFixedHeaderSize));
    }
    rec.version_major = static_cast<std::uint16_t>(u64_at(8, 2));
    rec.version_minor = static_cast<std::uint16_t>(u64_at(10, 2));
    if (rec.version_major != kVersionMajor) {
      return fail(8, fmt::format("unknown format version {}.{} (this reader reads {}.x)",
                                 rec.version_major, rec.version_minor, kVersionMajor));
    }
    header_size = u64_at(12, 4);
    if (header_size < kFixedHeaderSize || header_size > file.size()) {
      return fail(12, fmt::format("header size {} is outside [{}, {}] (the file's size)",
                                  header_size, kFixedHeaderSize, file.size()));
    }
    const std::uint64_t record_size = u64_at(16, 4);
    if (record_size != kRecordSize) {
      return fail(16, fmt::format("record size {}, this reader reads {}-byte records", record_size,
                                  kRecordSize));
    }
    count = u64_at(24, 8);
    rec.capacity = u64_at(32, 8);
    rec.total = u64_at(40, 8);
    rec.lost = u64_at(48, 8);
    rec.policy_hash = u64_at(56, 8);
    rec.meta.dump_time_ns = u64_at(64, 8);
    if (count > rec.capacity) {
      return fail(24, fmt::format("{} records in a ring of {}", count, rec.capacity));
    }
    if (rec.total < count || rec.lost != rec.total - count) {
      return fail(48, fmt::format("lost count {} disagrees with {} recorded and {} kept", rec.lost,
                                  rec.total, count));
    }
    return true;
  }

  bool names(Cursor c, std::size_t at, std::vector<std::string>& out) {
    std::uint64_t n = 0;
    if (!c.get(n, 4)) return fail(at, "name table ends inside its count");
    if (n > c.left() / 2) return fail(at, fmt::format("name table claims {} names", n));
    out.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t len = 0;
      std::string s;
      const std::size_t here = c.pos();
      if (!c.get(len, 2) || !c.bytes(s, len)) {
        return fail(here, fmt::format("name {} runs past its section", i));
      }
      out.push_back(std::move(s));
    }
    if (c.left() != 0) return fail(c.pos(), "bytes left over after the name table");
    return true;
  }

  bool kind_table(Cursor c, std::size_t at) {
    std::uint64_t n = 0;
    if (!c.get(n, 2)) return fail(at, "layout table ends inside its count");
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::size_t here = c.pos();
      FileKind k;
      std::uint64_t kind = 0;
      std::uint64_t size = 0;
      std::uint64_t name_len = 0;
      std::uint64_t fields = 0;
      if (!c.get(kind, 2) || !c.get(size, 2) || !c.get(name_len, 1) || !c.bytes(k.name, name_len) ||
          !c.get(fields, 1)) {
        return fail(here, fmt::format("layout entry {} runs past its section", i));
      }
      k.kind = static_cast<std::uint16_t>(kind);
      if (size != kRecordSize) {
        return fail(here + 2, fmt::format("layout of kind {} ({}) gives size {}, records are {}",
                                          kind, k.name, size, kRecordSize));
      }
      if (rec.kind(k.kind)) return fail(here, fmt::format("kind {} is described twice", kind));
      for (std::uint64_t f = 0; f < fields; ++f) {
        const std::size_t fat = c.pos();
        FileField ff;
        std::uint64_t type = 0;
        std::uint64_t off = 0;
        std::uint64_t len = 0;
        if (!c.get(type, 1) || !c.get(off, 1) || !c.get(len, 1) || !c.bytes(ff.name, len)) {
          return fail(fat, fmt::format("field {} of kind {} runs past its section", f, k.name));
        }
        if (type < 1 || type > 6) {
          return fail(fat, fmt::format("field {}.{} has unknown type {}", k.name, ff.name, type));
        }
        ff.type = static_cast<FieldType>(type);
        ff.offset = static_cast<std::uint8_t>(off);
        if (off + field_size(ff.type) > kRecordSize) {
          return fail(fat + 1, fmt::format("field {}.{} ({}) at offset {} runs past the {}-byte "
                                           "record",
                                           k.name, ff.name, to_string(ff.type), off, kRecordSize));
        }
        k.fields.push_back(std::move(ff));
      }
      if (!check_known(k, here)) return false;
      rec.layout.push_back(std::move(k));
    }
    if (c.left() != 0) return fail(c.pos(), "bytes left over after the layout table");
    return true;
  }

  // A kind this reader knows must be described exactly as it knows it: the
  // replay and the printers rely on those offsets.
  bool check_known(FileKind& k, std::size_t at) {
    const KindLayout* ours = find_layout(k.kind);
    if (!ours) return true;
    bool same = ours->name() == k.name && ours->fields().size() == k.fields.size();
    for (std::size_t i = 0; same && i < k.fields.size(); ++i) {
      const FieldLayout f = ours->fields()[i];
      same = f.name == k.fields[i].name && f.type == k.fields[i].type &&
             f.offset == k.fields[i].offset;
    }
    if (!same) {
      return fail(at, fmt::format("layout of kind {} ({}) differs from this reader's ({})", k.kind,
                                  k.name, ours->name()));
    }
    k.known = true;
    return true;
  }

  bool sections(std::size_t header_size) {
    Cursor c(file, kFixedHeaderSize, header_size);
    bool ended = false;
    bool have_layout = false;
    while (!ended) {
      const std::size_t at = c.pos();
      std::uint64_t tag = 0;
      std::uint64_t zero = 0;
      std::uint64_t len = 0;
      if (!c.get(tag, 2) || !c.get(zero, 2) || !c.get(len, 4)) {
        return fail(at, "header ends inside a section heading (no end section)");
      }
      if (len > c.left()) {
        return fail(at + 4, fmt::format("section {} claims {} bytes, {} left in the header", tag,
                                        len, c.left()));
      }
      const std::size_t body = c.pos();
      Cursor inner(file, body, body + len);
      std::string text;
      (void)c.bytes(text, len);
      switch (static_cast<wire::Tag>(tag)) {
        case wire::Tag::end:
          ended = true;
          break;
        case wire::Tag::boot_id:
          rec.meta.boot_id = std::move(text);
          break;
        case wire::Tag::daemon_version:
          rec.meta.daemon_version = std::move(text);
          break;
        case wire::Tag::policy_text:
          rec.meta.policy_text = std::move(text);
          break;
        case wire::Tag::reason:
          rec.meta.reason = std::move(text);
          break;
        case wire::Tag::sensors:
          if (!names(inner, body, rec.meta.sensors)) return false;
          break;
        case wire::Tag::sensor_kinds: {
          std::uint64_t n = 0;
          if (!inner.get(n, 4) || n != inner.left()) {
            return fail(body, "sensor kinds: count disagrees with the section's length");
          }
          rec.meta.sensor_kinds.assign(text.begin() + 4, text.end());
          break;
        }
        case wire::Tag::zones:
          if (!names(inner, body, rec.meta.zones)) return false;
          break;
        case wire::Tag::devices:
          if (!names(inner, body, rec.meta.devices)) return false;
          break;
        case wire::Tag::controllers:
          if (!names(inner, body, rec.meta.controllers)) return false;
          break;
        case wire::Tag::profiles:
          if (!names(inner, body, rec.meta.profiles)) return false;
          break;
        case wire::Tag::layout:
          if (have_layout) return fail(at, "a second layout section");
          have_layout = true;
          if (!kind_table(inner, body)) return false;
          break;
        default:
          break;  // a section of a later minor version: skipped
      }
    }
    if (c.left() != 0) {
      return fail(c.pos(),
                  fmt::format("{} bytes between the end section and the records", c.left()));
    }
    if (!have_layout) return fail(kFixedHeaderSize, "no layout section");
    if (rec.meta.sensor_kinds.size() != rec.meta.sensors.size()) {
      return fail(kFixedHeaderSize,
                  fmt::format("{} sensor names but {} sensor kinds", rec.meta.sensors.size(),
                              rec.meta.sensor_kinds.size()));
    }
    if (policy_hash(rec.meta.policy_text) != rec.policy_hash) {
      return fail(56, "policy hash does not match the policy text");
    }
    return true;
  }

  // Index fields that name a device or a sensor of the name tables.
  bool check_indexes(const Record& r, std::uint64_t at) {
    std::size_t limit = 0;
    const char* what = nullptr;
    switch (static_cast<Kind>(r.kind)) {
      case Kind::call_seed_level:
      case Kind::port_bound:
      case Kind::port_rebind:
      case Kind::port_apply:
      case Kind::port_verify:
      case Kind::port_restore:
      case Kind::device_decision:
      case Kind::knob_write:
        limit = rec.meta.devices.size();
        what = "device";
        break;
      case Kind::virtual_value:
        limit = rec.meta.sensors.size();
        what = "sensor";
        break;
      case Kind::slot_map:
        if (r.a >= rec.meta.sensors.size()) {
          return fail(at + 12,
                      fmt::format("slot_map names sensor {} of {}", r.a, rec.meta.sensors.size()));
        }
        return true;
      default:
        return true;
    }
    if (r.index >= limit) {
      return fail(at + 10, fmt::format("{} record names {} {} of {}", find_layout(r.kind)->name(),
                                       what, r.index, limit));
    }
    return true;
  }

  bool records(std::size_t header_size, std::uint64_t count) {
    rec.records_offset = header_size;
    const std::uint64_t body = file.size() - header_size;
    if (body / kRecordSize < count) {
      const std::uint64_t whole = body / kRecordSize;
      return fail(header_size + whole * kRecordSize,
                  fmt::format("file ends inside record {} of {} (truncated)", whole, count));
    }
    if (body != count * kRecordSize) {
      return fail(
          header_size + count * kRecordSize,
          fmt::format("{} bytes after the last of {} records", body - count * kRecordSize, count));
    }
    rec.records.resize(count);
    std::uint64_t last_t = 0;
    // Names are the running policy's: only records of a loop that ran it
    // (loop_created with the header's hash) must index them. Records of an
    // older policy (before a reload) or of a head cut by the ring's wrap may
    // name devices the current policy no longer has.
    bool current = false;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t at = header_size + i * kRecordSize;
      Record& r = rec.records[i];
      std::memcpy(&r, file.data() + at, kRecordSize);
      if (!rec.kind(r.kind)) {
        return fail(at + 8, fmt::format("record {} has kind {}, which the layout table does not "
                                        "describe",
                                        i, r.kind));
      }
      if (r.t_ns < last_t) {
        return fail(at, fmt::format("record {} (t_ns {}) is earlier than the one before (t_ns "
                                    "{}): records out of order",
                                    i, r.t_ns, last_t));
      }
      last_t = r.t_ns;
      if (r.kind == static_cast<std::uint16_t>(Kind::loop_created)) {
        current = static_cast<std::uint64_t>(r.b) == rec.policy_hash;
      }
      if (current && !check_indexes(r, at)) return false;
    }
    return true;
  }
};

}  // namespace

ReadResult read_recording(std::string_view bytes) {
  Parser p{bytes, {}, {}};
  std::uint64_t header_size = 0;
  std::uint64_t count = 0;
  const bool ok = p.fixed_header(header_size, count) && p.sections(header_size) &&
                  p.records(header_size, count);
  if (!ok) return {std::nullopt, std::move(p.err)};
  return {std::move(p.rec), std::nullopt};
}

std::vector<Segment> segments(const Recording& r) {
  std::vector<Segment> out;
  for (std::size_t i = 0; i < r.records.size(); ++i) {
    const Record& rec = r.records[i];
    if (rec.kind == static_cast<std::uint16_t>(Kind::loop_created)) {
      if (!out.empty()) out.back().end = i;
      out.push_back(
          Segment{i, r.records.size(), static_cast<std::uint64_t>(rec.b), true, std::nullopt});
    } else if (out.empty()) {
      out.push_back(Segment{0, r.records.size(), 0, false, std::nullopt});
    }
  }
  // A head cut by the wrap starts where its first whole checkpoint does.
  if (!out.empty() && !out.front().complete) {
    Segment& head = out.front();
    for (std::size_t i = head.begin; i < head.end; ++i) {
      if (r.records[i].kind != static_cast<std::uint16_t>(Kind::checkpoint)) continue;
      if (const auto cp = read_checkpoint(r.records, i, head.end)) {
        head.checkpoint = i;
        head.policy_hash = cp->header.policy_hash;
        break;
      }
    }
  }
  return out;
}

}  // namespace coolhand::recorder
