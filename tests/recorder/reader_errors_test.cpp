// Reader errors: every way a file can be wrong gets one exact message
// naming the byte offset, and never a crash.
#include <gtest/gtest.h>

#include <cstring>

#include "coolhand/recorder/file.h"

namespace coolhand::recorder::reader_errors_test {
namespace {

struct ReaderErrors : ::testing::Test {
  void SetUp() override {
    m.policy_text = "p";
    m.sensors = {"cpu"};
    m.sensor_kinds = {0};
    m.devices = {"fan"};
    // A loop of the header's policy (indexes checked), then two knob writes.
    ring.set_time(10);
    ring.put(Kind::loop_created, 1, 1, static_cast<std::int64_t>(policy_hash("p")), 3);
    for (int i = 1; i < 3; ++i) {
      ring.set_time(static_cast<std::uint64_t>(i + 1) * 10);
      ring.put(Kind::port_apply, 0, 1, 0, 1);
    }
    StringSink sink;
    EXPECT_TRUE(write_recording(ring, m, sink));
    file = sink.out;
    header = encode_header(ring, m).size();
  }
  std::string error(std::string_view bytes) const {
    const ReadResult r = read_recording(bytes);
    EXPECT_FALSE(r.recording);
    return r.error ? r.error->to_string() : "(no error)";
  }
  void poke_u64(std::size_t at, std::uint64_t v, std::size_t n = 8) {
    for (std::size_t i = 0; i < n; ++i) file[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  // Offset of the first byte of the layout section's body.
  [[nodiscard]] std::size_t layout_body() const {
    std::size_t at = kFixedHeaderSize;
    for (;;) {
      const auto tag = static_cast<unsigned char>(file[at]);
      std::uint32_t len = 0;
      std::memcpy(&len, file.data() + at + 4, 4);
      if (tag == 32) return at + 8;
      at += 8 + len;
    }
  }

  Ring ring{16};
  Metadata m;
  std::string file;
  std::size_t header = 0;
};

TEST_F(ReaderErrors, TheValidFileReads) {
  const ReadResult r = read_recording(file);
  ASSERT_TRUE(r.recording);
  EXPECT_EQ(r.recording->records.size(), 3u);
}

TEST_F(ReaderErrors, ZeroLength) {
  EXPECT_EQ(error(""), "byte 0: empty file (a recording starts with \"CHREC\")");
}

TEST_F(ReaderErrors, BadMagic) {
  file[1] = 'X';
  EXPECT_EQ(error(file),
            "byte 0: bad magic: not a coolhand recording (expected \"CHREC\\0\\r\\n\")");
  EXPECT_EQ(error("hello"),
            "byte 0: bad magic: not a coolhand recording (expected \"CHREC\\0\\r\\n\")");
}

TEST_F(ReaderErrors, TruncatedInsideTheFixedHeader) {
  EXPECT_EQ(error(std::string_view(file).substr(0, 40)),
            "byte 40: file ends inside the 72-byte fixed header");
}

TEST_F(ReaderErrors, UnknownVersion) {
  poke_u64(8, 2, 2);
  poke_u64(10, 5, 2);
  EXPECT_EQ(error(file), "byte 8: unknown format version 2.5 (this reader reads 1.x)");
}

TEST_F(ReaderErrors, AMinorVersionIsRead) {
  poke_u64(10, 7, 2);
  EXPECT_TRUE(read_recording(file).recording);
}

TEST_F(ReaderErrors, WrongRecordSize) {
  poke_u64(16, 40, 4);
  EXPECT_EQ(error(file), "byte 16: record size 40, this reader reads 32-byte records");
}

TEST_F(ReaderErrors, HeaderSizePastTheEnd) {
  poke_u64(12, 1u << 30, 4);
  EXPECT_EQ(error(file), "byte 12: header size 1073741824 is outside [72, " +
                             std::to_string(file.size()) + "] (the file's size)");
}

TEST_F(ReaderErrors, TruncatedInsideARecord) {
  const std::string cut = file.substr(0, header + kRecordSize + 5);
  EXPECT_EQ(error(cut), "byte " + std::to_string(header + kRecordSize) +
                            ": file ends inside record 1 of 3 (truncated)");
}

TEST_F(ReaderErrors, TruncatedInsideTheSections) {
  EXPECT_EQ(error(file.substr(0, 100)).substr(0, 9), "byte 12: ");
}

TEST_F(ReaderErrors, TrailingBytes) {
  file += "xx";
  EXPECT_EQ(error(file), "byte " + std::to_string(header + 3 * kRecordSize) +
                             ": 2 bytes after the last of 3 records");
}

TEST_F(ReaderErrors, LostCountThatLies) {
  poke_u64(48, 5);
  EXPECT_EQ(error(file), "byte 48: lost count 5 disagrees with 3 recorded and 3 kept");
}

TEST_F(ReaderErrors, MoreRecordsThanTheRing) {
  poke_u64(32, 2);
  EXPECT_EQ(error(file), "byte 24: 3 records in a ring of 2");
}

TEST_F(ReaderErrors, PolicyHashThatLies) {
  poke_u64(56, 1);
  EXPECT_EQ(error(file), "byte 56: policy hash does not match the policy text");
}

TEST_F(ReaderErrors, RecordsOutOfOrder) {
  poke_u64(header + kRecordSize, 5);  // record 1 at t=5 after record 0 at t=10
  EXPECT_EQ(error(file), "byte " + std::to_string(header + kRecordSize) +
                             ": record 1 (t_ns 5) is earlier than the one before (t_ns 10): "
                             "records out of order");
}

TEST_F(ReaderErrors, RecordOfAKindTheTableDoesNotDescribe) {
  poke_u64(header + 2 * kRecordSize + 8, 300, 2);
  EXPECT_EQ(error(file), "byte " + std::to_string(header + 2 * kRecordSize + 8) +
                             ": record 2 has kind 300, which the layout table does not describe");
}

TEST_F(ReaderErrors, RecordNamingADeviceThatIsNotThere) {
  poke_u64(header + kRecordSize + 10, 4, 2);
  EXPECT_EQ(error(file), "byte " + std::to_string(header + kRecordSize + 10) +
                             ": port_apply record names device 4 of 1");
}

TEST_F(ReaderErrors, ALoopOfAnOlderPolicyMayNameDevicesTheCurrentOneLacks) {
  poke_u64(header + 16, 12345);               // loop_created of another policy (a reload)
  poke_u64(header + kRecordSize + 10, 4, 2);  // its device 4: not in the current names
  const ReadResult r = read_recording(file);
  ASSERT_TRUE(r.recording) << r.error->to_string();
  EXPECT_EQ(r.recording->records[1].index, 4);
}

TEST_F(ReaderErrors, LayoutTableThatMovesAKnownField) {
  // First kind: loop_created; its third field (slots, u16 @10) is moved to 11.
  // Entry: kind u16, size u16, name_len u8, name, nfields u8, then fields
  // (type u8, offset u8, len u8, name).
  const std::size_t entry = layout_body() + 2;
  const std::size_t fields = entry + 5 + std::string_view("loop_created").size() + 1;
  const std::size_t third = fields + (3 + 4) + (3 + 4);  // after t_ns and kind
  ASSERT_EQ(file[third + 1], 10);
  file[third + 1] = 11;
  EXPECT_EQ(error(file), "byte " + std::to_string(entry) +
                             ": layout of kind 1 (loop_created) differs from this reader's "
                             "(loop_created)");
}

TEST_F(ReaderErrors, LayoutTablePuttingAFieldPastTheRecord) {
  const std::size_t entry = layout_body() + 2;
  const std::size_t fields = entry + 5 + std::string_view("loop_created").size() + 1;
  file[fields + 1] = 30;  // t_ns (u64) at offset 30
  EXPECT_EQ(error(file), "byte " + std::to_string(fields + 1) +
                             ": field loop_created.t_ns (u64) at offset 30 runs past the 32-byte "
                             "record");
}

TEST_F(ReaderErrors, LayoutTableWithAnotherRecordSize) {
  const std::size_t entry = layout_body() + 2;
  file[entry + 2] = 40;
  EXPECT_EQ(error(file), "byte " + std::to_string(entry + 2) +
                             ": layout of kind 1 (loop_created) gives size 40, records are 32");
}

TEST_F(ReaderErrors, SectionLongerThanTheHeader) {
  poke_u64(kFixedHeaderSize + 4, 1u << 20, 4);  // the first section's length
  EXPECT_EQ(error(file).substr(0, 30), "byte 76: section 1 claims 1048");
}

TEST_F(ReaderErrors, EveryPrefixIsAnErrorNeverACrash) {
  for (std::size_t n = 0; n < file.size(); ++n) {
    const ReadResult r = read_recording(std::string_view(file).substr(0, n));
    EXPECT_TRUE(r.error) << n;
  }
}

}  // namespace
}  // namespace coolhand::recorder::reader_errors_test
