// The recording file: layout table, header fields and a write/read round
// trip that keeps every record and name.
#include "coolhand/recorder/file.h"

#include <gtest/gtest.h>

#include <set>

#include "coolhand/recorder/layout.h"

namespace coolhand::recorder::file_test {
namespace {

Metadata meta() {
  Metadata m;
  m.boot_id = "0b1d2c3e-0000-4000-8000-000000000001";
  m.daemon_version = "coolhandd 0.1.0";
  m.policy_text = "sensors: []\n";
  m.reason = "test";
  m.dump_time_ns = 123456789;
  m.sensors = {"cpu", "skin"};
  m.sensor_kinds = {0, 1};
  m.zones = {"soc"};
  m.devices = {"cpu_freq", "fan"};
  m.controllers = {"hot"};
  m.profiles = {"quiet"};
  return m;
}

TEST(Layout, EveryKindHasTimeAndKindFirstAndFieldsInsideTheRecord) {
  std::set<std::uint16_t> kinds;
  for (const KindLayout& k : layouts()) {
    EXPECT_TRUE(kinds.insert(static_cast<std::uint16_t>(k.kind)).second) << k.name();
    ASSERT_GE(k.fields().size(), 2u) << k.name();
    EXPECT_EQ(k.fields()[0].name, "t_ns");
    EXPECT_EQ(k.fields()[0].offset, 0);
    EXPECT_EQ(k.fields()[1].name, "kind");
    EXPECT_EQ(k.fields()[1].offset, 8);
    for (const FieldLayout& f : k.fields()) {
      EXPECT_LE(f.offset + field_size(f.type), kRecordSize) << k.name() << "." << f.name;
    }
    EXPECT_EQ(kind_from_string(k.name()), k.kind);
    EXPECT_EQ(find_layout(static_cast<std::uint16_t>(k.kind)), &k);
  }
  EXPECT_EQ(find_layout(0), nullptr);
}

TEST(Layout, FieldValueReadsSplitAndSignedFields) {
  Record r;
  r.kind = static_cast<std::uint16_t>(Kind::device_decision);
  r.b = pack_decision(3, kNoIndex, kDecisionChanged);
  r.c = -1500;
  const KindLayout* l = find_layout(r.kind);
  ASSERT_NE(l, nullptr);
  std::map<std::string_view, std::int64_t> v;
  for (const FieldLayout& f : l->fields()) v[f.name] = field_value(r, f);
  EXPECT_EQ(v["requested"], 3);
  EXPECT_EQ(v["cause"], 0xFFFF);
  EXPECT_EQ(v["flags"], kDecisionChanged);
  EXPECT_EQ(v["input_mc"], -1500);
  EXPECT_EQ(decision_requested(r), 3);
  EXPECT_EQ(decision_cause(r), kNoIndex);
  EXPECT_EQ(decision_flags(r), kDecisionChanged);
}

TEST(File, RoundTripKeepsHeaderNamesAndRecordsOldestFirst) {
  Ring ring(16);
  for (int i = 0; i < 20; ++i) {
    ring.set_time(static_cast<std::uint64_t>(i) * 1000);
    ring.put(Kind::port_read, 1, kReadOk, 0, 40000 + i);
  }
  StringSink sink;
  ASSERT_TRUE(write_recording(ring, meta(), sink));
  EXPECT_EQ(sink.out.size(), encode_header(ring, meta()).size() + 16 * kRecordSize);
  const ReadResult rr = read_recording(sink.out);
  ASSERT_FALSE(rr.error) << rr.error->to_string();
  const Recording& r = *rr.recording;
  EXPECT_EQ(r.version_major, kVersionMajor);
  EXPECT_EQ(r.capacity, 16u);
  EXPECT_EQ(r.total, 20u);
  EXPECT_EQ(r.lost, 4u);
  EXPECT_EQ(r.policy_hash, policy_hash("sensors: []\n"));
  EXPECT_EQ(r.meta.boot_id, meta().boot_id);
  EXPECT_EQ(r.meta.daemon_version, "coolhandd 0.1.0");
  EXPECT_EQ(r.meta.policy_text, "sensors: []\n");
  EXPECT_EQ(r.meta.reason, "test");
  EXPECT_EQ(r.meta.dump_time_ns, 123456789u);
  EXPECT_EQ(r.meta.sensors, meta().sensors);
  EXPECT_EQ(r.meta.sensor_kinds, meta().sensor_kinds);
  EXPECT_EQ(r.meta.zones, meta().zones);
  EXPECT_EQ(r.meta.devices, meta().devices);
  EXPECT_EQ(r.meta.controllers, meta().controllers);
  EXPECT_EQ(r.meta.profiles, meta().profiles);
  EXPECT_EQ(r.layout.size(), layouts().size());
  ASSERT_EQ(r.records.size(), 16u);
  EXPECT_EQ(r.records.front().c, 40004);
  EXPECT_EQ(r.records.back().c, 40019);
  EXPECT_EQ(r.records.front().t_ns, 4000u);
  EXPECT_EQ(r.offset_of(1), r.records_offset + kRecordSize);
}

TEST(File, PolicyHashIsFnv1a64) {
  // FNV-1a test vectors (Fowler/Noll/Vo reference: "" and "a").
  EXPECT_EQ(policy_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(policy_hash("a"), 0xaf63dc4c8601ec8cULL);
}

TEST(File, SegmentsStartAtLoopCreatedAndTheWrappedHeadIsIncomplete) {
  Recording r;
  auto rec = [](Kind k, std::int64_t b = 0) {
    Record x;
    x.kind = static_cast<std::uint16_t>(k);
    x.b = b;
    return x;
  };
  r.records = {rec(Kind::call_tick), rec(Kind::loop_created, 7), rec(Kind::call_start),
               rec(Kind::loop_created, 9), rec(Kind::call_tick)};
  const auto s = segments(r);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_FALSE(s[0].complete);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].end, 1u);
  EXPECT_TRUE(s[1].complete);
  EXPECT_EQ(s[1].policy_hash, 7u);
  EXPECT_EQ(s[1].end, 3u);
  EXPECT_EQ(s[2].begin, 3u);
  EXPECT_EQ(s[2].end, 5u);
}

}  // namespace
}  // namespace coolhand::recorder::file_test
