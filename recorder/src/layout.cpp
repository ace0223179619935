// The record-layout table (layout.h). Field names carry their units.
#include "coolhand/recorder/layout.h"

#include <array>
#include <cstring>

namespace coolhand::recorder {

namespace {

using F = FieldLayout;
using T = FieldType;

#define COMMON              \
  F{"t_ns", T::u64, 0}, F { \
    "kind", T::u16, 8       \
  }

constexpr std::array kLoopCreated{COMMON, F{"slots", T::u16, 10}, F{"devices", T::u32, 12},
                                  F{"policy_hash", T::u64, 16},
                                  F{"lost_after_failures", T::i32, 24}};
constexpr std::array kSlotMap{COMMON, F{"slot", T::u16, 10}, F{"sensor", T::u32, 12}};
constexpr std::array kNowOnly{COMMON, F{"now_ms", T::i64, 16}};
constexpr std::array kPush{COMMON, F{"slot", T::u16, 10}, F{"now_ms", T::i64, 16},
                           F{"value_mc", T::i32, 24}};
constexpr std::array kSlotNow{COMMON, F{"slot", T::u16, 10}, F{"now_ms", T::i64, 16}};
constexpr std::array kNoFields{COMMON};
constexpr std::array kSeed{COMMON, F{"device", T::u16, 10}, F{"level", T::u32, 12},
                           F{"now_ms", T::i64, 16}};
constexpr std::array kSetProfile{COMMON, F{"profile", T::u16, 10}, F{"accepted", T::u32, 12}};
constexpr std::array kCheckpoint{COMMON,
                                 F{"slots", T::u16, 10},
                                 F{"bytes", T::u32, 12},
                                 F{"policy_hash", T::u64, 16},
                                 F{"lost_after_failures", T::i32, 24},
                                 F{"devices", T::i32, 28}};
constexpr std::array kCheckpointData{COMMON,
                                     F{"chunk", T::u16, 10},
                                     F{"data0", T::u32, 12},
                                     F{"data1", T::u64, 16},
                                     F{"data2", T::u32, 24},
                                     F{"data3", T::u32, 28}};
constexpr std::array kCheckpointEnd{COMMON, F{"chunks", T::u32, 12}, F{"checksum", T::u64, 16}};
constexpr std::array kRead{COMMON, F{"slot", T::u16, 10}, F{"flags", T::u32, 12},
                           F{"value_mc", T::i32, 24}};
constexpr std::array kSensorState{COMMON, F{"slot", T::u16, 10}, F{"flags", T::u32, 12}};
constexpr std::array kBound{COMMON, F{"device", T::u16, 10}, F{"bound", T::u32, 12}};
constexpr std::array kRebind{COMMON, F{"device", T::u16, 10}, F{"found", T::u32, 12}};
constexpr std::array kApply{COMMON, F{"device", T::u16, 10}, F{"level", T::u32, 12},
                            F{"ok", T::i32, 24}};
constexpr std::array kWatch{COMMON, F{"slot", T::u16, 10}, F{"accepted", T::u32, 12},
                            F{"low_mc", T::i32, 24}, F{"high_mc", T::i32, 28}};
constexpr std::array kDevice{COMMON, F{"device", T::u16, 10}};
constexpr std::array kStep{COMMON, F{"severity", T::u32, 12}, F{"at_ms", T::i64, 16},
                           F{"next_step_in_ms", T::i32, 24}, F{"events", T::i32, 28}};
constexpr std::array kDecision{COMMON,
                               F{"device", T::u16, 10},
                               F{"level", T::u32, 12},
                               F{"requested", T::u16, 16},
                               F{"cause", T::u16, 18},
                               F{"flags", T::u8, 20},
                               F{"input_mc", T::i32, 24},
                               F{"threshold_mc", T::i32, 28}};
constexpr std::array kVirtual{COMMON, F{"sensor", T::u16, 10}, F{"known", T::u32, 12},
                              F{"value_mc", T::i32, 24}};
constexpr std::array kEvent{COMMON, F{"index", T::u16, 10}, F{"event", T::u32, 12},
                            F{"temperature_mc", T::i32, 24}, F{"detail", T::i32, 28}};
constexpr std::array kLost{COMMON, F{"slot", T::u16, 10}, F{"failures", T::u32, 12}};
constexpr std::array kRecovered{COMMON, F{"slot", T::u16, 10}, F{"value_mc", T::i32, 24}};
constexpr std::array kAction{COMMON, F{"zone", T::u16, 10}, F{"action", T::u32, 12},
                             F{"trip", T::i32, 24}};
constexpr std::array kNetlink{COMMON,
                              F{"zone", T::u16, 10},
                              F{"family", T::u16, 12},
                              F{"message", T::u16, 14},
                              F{"seq", T::u64, 16},
                              F{"temperature_mc", T::i32, 24}};
constexpr std::array kReload{COMMON, F{"ok", T::u32, 12}, F{"policy_hash", T::u64, 16}};
constexpr std::array kDropped{COMMON, F{"source", T::u16, 10}, F{"count", T::u32, 12}};
constexpr std::array kDump{COMMON, F{"reason", T::u32, 12}};
constexpr std::array kKnobWrite{COMMON, F{"device", T::u16, 10}, F{"level", T::u32, 12},
                                F{"written", T::i32, 24}, F{"read_back", T::i32, 28}};

#undef COMMON

constexpr std::array kLayouts{
    KindLayout{Kind::loop_created, "loop_created", kLoopCreated},
    KindLayout{Kind::slot_map, "slot_map", kSlotMap},
    KindLayout{Kind::call_start, "call_start", kNowOnly},
    KindLayout{Kind::call_tick, "call_tick", kNowOnly},
    KindLayout{Kind::call_push, "call_push", kPush},
    KindLayout{Kind::call_sensor_gone, "call_sensor_gone", kSlotNow},
    KindLayout{Kind::call_resync, "call_resync", kNowOnly},
    KindLayout{Kind::call_resume, "call_resume", kNowOnly},
    KindLayout{Kind::call_verify, "call_verify", kNoFields},
    KindLayout{Kind::call_restore_all, "call_restore_all", kNoFields},
    KindLayout{Kind::call_seed_level, "call_seed_level", kSeed},
    KindLayout{Kind::call_set_profile, "call_set_profile", kSetProfile},
    KindLayout{Kind::checkpoint, "checkpoint", kCheckpoint},
    KindLayout{Kind::checkpoint_data, "checkpoint_data", kCheckpointData},
    KindLayout{Kind::checkpoint_end, "checkpoint_end", kCheckpointEnd},
    KindLayout{Kind::port_read, "port_read", kRead},
    KindLayout{Kind::port_sensor_state, "port_sensor_state", kSensorState},
    KindLayout{Kind::port_bound, "port_bound", kBound},
    KindLayout{Kind::port_rebind, "port_rebind", kRebind},
    KindLayout{Kind::port_apply, "port_apply", kApply},
    KindLayout{Kind::port_watch, "port_watch", kWatch},
    KindLayout{Kind::port_verify, "port_verify", kDevice},
    KindLayout{Kind::port_restore, "port_restore", kDevice},
    KindLayout{Kind::step, "step", kStep},
    KindLayout{Kind::device_decision, "device_decision", kDecision},
    KindLayout{Kind::virtual_value, "virtual_value", kVirtual},
    KindLayout{Kind::engine_event, "engine_event", kEvent},
    KindLayout{Kind::sensor_lost, "sensor_lost", kLost},
    KindLayout{Kind::sensor_recovered, "sensor_recovered", kRecovered},
    KindLayout{Kind::action, "action", kAction},
    KindLayout{Kind::netlink, "netlink", kNetlink},
    KindLayout{Kind::reload, "reload", kReload},
    KindLayout{Kind::dropped, "dropped", kDropped},
    KindLayout{Kind::dump, "dump", kDump},
    KindLayout{Kind::knob_write, "knob_write", kKnobWrite},
};

}  // namespace

std::string_view to_string(FieldType t) {
  switch (t) {
    case FieldType::u8:
      return "u8";
    case FieldType::u16:
      return "u16";
    case FieldType::u32:
      return "u32";
    case FieldType::u64:
      return "u64";
    case FieldType::i32:
      return "i32";
    case FieldType::i64:
      return "i64";
  }
  return "?";
}

std::span<const KindLayout> layouts() {
  return kLayouts;
}

const KindLayout* find_layout(std::uint16_t kind) {
  for (const KindLayout& k : kLayouts) {
    if (static_cast<std::uint16_t>(k.kind) == kind) return &k;
  }
  return nullptr;
}

std::optional<Kind> kind_from_string(std::string_view name) {
  for (const KindLayout& k : kLayouts) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

std::int64_t field_value(const Record& r, const FieldLayout& f) {
  unsigned char raw[sizeof(Record)];
  std::memcpy(raw, &r, sizeof r);
  const std::uint8_t size = field_size(f.type);
  if (f.offset + size > sizeof(Record)) return 0;
  std::uint64_t v = 0;
  for (std::uint8_t i = 0; i < size; ++i) {
    v |= static_cast<std::uint64_t>(raw[f.offset + i]) << (8U * i);
  }
  // i32 is sign-extended; every other type fits as is (u64 keeps its bits).
  if (f.type == FieldType::i32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

}  // namespace coolhand::recorder
