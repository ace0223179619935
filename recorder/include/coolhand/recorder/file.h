// The recording file: writing a Ring with its metadata, and reading a file
// back. The byte-by-byte format is in docs/recording-format.md; in short:
// a 72-byte fixed header (magic, version, sizes, counters, policy hash),
// tagged sections (boot id, daemon version, policy text, dump reason, name
// tables, the record-layout table), then the records, oldest first.
//
// Writing does no I/O of its own: bytes go to a caller-supplied ByteSink
// (coolhandd: a file descriptor; tests: a string). Reading takes the whole
// file as bytes and never throws or crashes on bad input: it returns a
// ReadError naming the byte offset where the file stopped making sense.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/policy/spec.h"
#include "coolhand/recorder/layout.h"
#include "coolhand/recorder/record.h"
#include "coolhand/recorder/ring.h"

namespace coolhand::recorder {

inline constexpr std::uint16_t kVersionMajor = 1;
inline constexpr std::uint16_t kVersionMinor = 1;  // 1.1: checkpoint records
inline constexpr std::size_t kFixedHeaderSize = 72;

// FNV-1a, 64 bit, of the policy's full text: the "policy hash" of the header
// and of loop_created and reload records.
[[nodiscard]] std::uint64_t policy_hash(std::string_view text);

// What a file says besides its records. Names are in spec order, so a
// record's device index d names devices[d], a virtual_value's sensor index
// names sensors[i], and so on. They are the names of the policy running at
// the dump: the reader checks the indexes of records after a loop_created
// with the header's policy hash; records of an older policy (before a
// reload) or of a head cut by the ring's wrap may index past them.
struct Metadata {
  std::string boot_id;         // /proc/sys/kernel/random/boot_id in coolhandd
  std::string daemon_version;  // e.g. "coolhandd 0.1.0"
  std::string policy_text;     // the policy file's full text
  std::string reason;          // why this dump: "dbus", "SIGUSR1", "shutdown", ...
  std::uint64_t dump_time_ns = 0;
  std::vector<std::string> sensors;        // every sensor, physical and virtual
  std::vector<std::uint8_t> sensor_kinds;  // policy::SensorSpec::Kind per sensor
  std::vector<std::string> zones;
  std::vector<std::string> devices;
  std::vector<std::string> controllers;
  std::vector<std::string> profiles;
};

// Names of a spec into `m` (sensors, kinds, zones, devices, controllers, profiles).
void set_names(Metadata& m, const policy::PolicySpec& spec);

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Write all of `bytes`; false on error (the dump stops there).
  virtual bool write(std::string_view bytes) = 0;
};

class StringSink final : public ByteSink {
 public:
  bool write(std::string_view bytes) override {
    out.append(bytes);
    return true;
  }
  std::string out;
};

// The file's header and sections, up to the first record.
[[nodiscard]] std::string encode_header(const Ring& ring, const Metadata& m);
// Header then every record the ring holds, oldest first. False when the
// sink failed.
bool write_recording(const Ring& ring, const Metadata& m, ByteSink& sink);

// ---------------------------------------------------------------- reading --

struct ReadError {
  std::uint64_t offset = 0;  // byte offset in the file
  std::string message;
  // "byte 12: unknown format version 2.0 (this reader reads 1.x)"
  [[nodiscard]] std::string to_string() const;
};

// One kind as a file's layout table describes it.
struct FileField {
  std::string name;
  FieldType type = FieldType::u32;
  std::uint8_t offset = 0;
};
struct FileKind {
  std::uint16_t kind = 0;
  std::string name;
  std::vector<FileField> fields;
  bool known = false;  // this reader knows the kind (its layout matched ours)
};

struct Recording {
  std::uint16_t version_major = 0;
  std::uint16_t version_minor = 0;
  std::uint64_t capacity = 0;  // the ring's size in records
  std::uint64_t total = 0;     // records ever put into the ring
  std::uint64_t lost = 0;      // overwritten before this dump (total - records.size())
  std::uint64_t policy_hash = 0;
  Metadata meta;
  std::vector<FileKind> layout;
  std::vector<Record> records;       // oldest first
  std::uint64_t records_offset = 0;  // byte offset of records[0]

  [[nodiscard]] std::uint64_t offset_of(std::size_t i) const {
    return records_offset + static_cast<std::uint64_t>(i) * kRecordSize;
  }
  [[nodiscard]] const FileKind* kind(std::uint16_t k) const;
};

struct ReadResult {
  std::optional<Recording> recording;  // set iff !error
  std::optional<ReadError> error;
};

[[nodiscard]] ReadResult read_recording(std::string_view bytes);

// A replay segment: records [begin, end) that one ControlLoop consumed.
// `complete`: the segment starts at its loop_created record, so replaying it
// from a fresh loop is exact. The first segment of a ring that wrapped has
// lost its start and is incomplete (see docs/recording-format.md, "Replay");
// it is still replayable from its first whole checkpoint (checkpoint.h).
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint64_t policy_hash = 0;  // from loop_created, or the checkpoint (0: neither)
  bool complete = false;
  std::optional<std::size_t> checkpoint;  // incomplete: the first whole checkpoint's record

  [[nodiscard]] bool replayable() const { return complete || checkpoint.has_value(); }
};
[[nodiscard]] std::vector<Segment> segments(const Recording& r);

}  // namespace coolhand::recorder
