// The record-layout table (layout.h). Field names carry their units.
#include "coolhand/recorder/layout.h"

#include <array>
#include <cstring>

namespace coolhand::recorder {

namespace {

// The compile-time input of the tables: each kind's own fields, after the
// common t_ns@0 and kind@8 that row() puts first. These arrays of views are
// read only during constant evaluation, so none of them is in the binary.
using F = FieldLayout;
using T = FieldType;

constexpr FieldRow field_row(const FieldLayout& f) {
  FieldRow r;
  // name_len keeps the full length: names_fit() below rejects a long name.
  for (std::size_t i = 0; i < r.name.size(); ++i) r.name[i] = i < f.name.size() ? f.name[i] : '\0';
  r.name_len = static_cast<std::uint8_t>(f.name.size());
  r.type = f.type;
  r.offset = f.offset;
  return r;
}

template <std::size_t N>
constexpr KindLayout row(Kind kind, std::string_view name, const std::array<F, N>& fields) {
  static_assert(N + 2 <= kMaxFields, "raise kMaxFields");
  KindLayout k;
  k.kind = kind;
  for (std::size_t i = 0; i < k.name_chars.size(); ++i) {
    k.name_chars[i] = i < name.size() ? name[i] : '\0';
  }
  k.name_len = static_cast<std::uint8_t>(name.size());
  k.field_rows[0] = field_row(F{"t_ns", T::u64, 0});
  k.field_rows[1] = field_row(F{"kind", T::u16, 8});
  for (std::size_t i = 0; i + 2 < kMaxFields; ++i) {
    k.field_rows[i + 2] = field_row(i < N ? fields[i] : F{});
  }
  k.field_count = static_cast<std::uint8_t>(N + 2);
  return k;
}

constexpr std::array kLoopCreated{F{"slots", T::u16, 10}, F{"devices", T::u32, 12},
                                  F{"policy_hash", T::u64, 16},
                                  F{"lost_after_failures", T::i32, 24}};
constexpr std::array kSlotMap{F{"slot", T::u16, 10}, F{"sensor", T::u32, 12}};
constexpr std::array kNowOnly{F{"now_ms", T::i64, 16}};
constexpr std::array kPush{F{"slot", T::u16, 10}, F{"now_ms", T::i64, 16},
                           F{"value_mc", T::i32, 24}};
constexpr std::array kSlotNow{F{"slot", T::u16, 10}, F{"now_ms", T::i64, 16}};
constexpr std::array<F, 0> kNoFields{};
constexpr std::array kSeed{F{"device", T::u16, 10}, F{"level", T::u32, 12},
                           F{"now_ms", T::i64, 16}};
constexpr std::array kSetProfile{F{"profile", T::u16, 10}, F{"accepted", T::u32, 12}};
constexpr std::array kCheckpoint{F{"slots", T::u16, 10}, F{"bytes", T::u32, 12},
                                 F{"policy_hash", T::u64, 16}, F{"lost_after_failures", T::i32, 24},
                                 F{"devices", T::i32, 28}};
constexpr std::array kCheckpointData{F{"chunk", T::u16, 10}, F{"data0", T::u32, 12},
                                     F{"data1", T::u64, 16}, F{"data2", T::u32, 24},
                                     F{"data3", T::u32, 28}};
constexpr std::array kCheckpointEnd{F{"chunks", T::u32, 12}, F{"checksum", T::u64, 16}};
constexpr std::array kRead{F{"slot", T::u16, 10}, F{"flags", T::u32, 12},
                           F{"value_mc", T::i32, 24}};
constexpr std::array kSensorState{F{"slot", T::u16, 10}, F{"flags", T::u32, 12}};
constexpr std::array kBound{F{"device", T::u16, 10}, F{"bound", T::u32, 12}};
constexpr std::array kRebind{F{"device", T::u16, 10}, F{"found", T::u32, 12}};
constexpr std::array kApply{F{"device", T::u16, 10}, F{"level", T::u32, 12}, F{"ok", T::i32, 24}};
constexpr std::array kWatch{F{"slot", T::u16, 10}, F{"accepted", T::u32, 12},
                            F{"low_mc", T::i32, 24}, F{"high_mc", T::i32, 28}};
constexpr std::array kDevice{F{"device", T::u16, 10}};
constexpr std::array kStep{F{"severity", T::u32, 12}, F{"at_ms", T::i64, 16},
                           F{"next_step_in_ms", T::i32, 24}, F{"events", T::i32, 28}};
constexpr std::array kDecision{F{"device", T::u16, 10},      F{"level", T::u32, 12},
                               F{"requested", T::u16, 16},   F{"cause", T::u16, 18},
                               F{"flags", T::u8, 20},        F{"input_mc", T::i32, 24},
                               F{"threshold_mc", T::i32, 28}};
constexpr std::array kVirtual{F{"sensor", T::u16, 10}, F{"known", T::u32, 12},
                              F{"value_mc", T::i32, 24}};
constexpr std::array kEvent{F{"index", T::u16, 10}, F{"event", T::u32, 12},
                            F{"temperature_mc", T::i32, 24}, F{"detail", T::i32, 28}};
constexpr std::array kLost{F{"slot", T::u16, 10}, F{"failures", T::u32, 12}};
constexpr std::array kRecovered{F{"slot", T::u16, 10}, F{"value_mc", T::i32, 24}};
constexpr std::array kAction{F{"zone", T::u16, 10}, F{"action", T::u32, 12}, F{"trip", T::i32, 24}};
constexpr std::array kNetlink{F{"zone", T::u16, 10}, F{"family", T::u16, 12},
                              F{"message", T::u16, 14}, F{"seq", T::u64, 16},
                              F{"temperature_mc", T::i32, 24}};
constexpr std::array kReload{F{"ok", T::u32, 12}, F{"policy_hash", T::u64, 16}};
constexpr std::array kDropped{F{"source", T::u16, 10}, F{"count", T::u32, 12}};
constexpr std::array kDump{F{"reason", T::u32, 12}};
constexpr std::array kKnobWrite{F{"device", T::u16, 10}, F{"level", T::u32, 12},
                                F{"written", T::i32, 24}, F{"read_back", T::i32, 28}};

// Built by a function, not by `constexpr std::array kLayouts{...}`: with
// class template argument deduction GCC 12 puts the table in .data.
consteval auto make_layouts() {
  return std::array{
      row(Kind::loop_created, "loop_created", kLoopCreated),
      row(Kind::slot_map, "slot_map", kSlotMap),
      row(Kind::call_start, "call_start", kNowOnly),
      row(Kind::call_tick, "call_tick", kNowOnly),
      row(Kind::call_push, "call_push", kPush),
      row(Kind::call_sensor_gone, "call_sensor_gone", kSlotNow),
      row(Kind::call_resync, "call_resync", kNowOnly),
      row(Kind::call_resume, "call_resume", kNowOnly),
      row(Kind::call_verify, "call_verify", kNoFields),
      row(Kind::call_restore_all, "call_restore_all", kNoFields),
      row(Kind::call_seed_level, "call_seed_level", kSeed),
      row(Kind::call_set_profile, "call_set_profile", kSetProfile),
      row(Kind::checkpoint, "checkpoint", kCheckpoint),
      row(Kind::checkpoint_data, "checkpoint_data", kCheckpointData),
      row(Kind::checkpoint_end, "checkpoint_end", kCheckpointEnd),
      row(Kind::port_read, "port_read", kRead),
      row(Kind::port_sensor_state, "port_sensor_state", kSensorState),
      row(Kind::port_bound, "port_bound", kBound),
      row(Kind::port_rebind, "port_rebind", kRebind),
      row(Kind::port_apply, "port_apply", kApply),
      row(Kind::port_watch, "port_watch", kWatch),
      row(Kind::port_verify, "port_verify", kDevice),
      row(Kind::port_restore, "port_restore", kDevice),
      row(Kind::step, "step", kStep),
      row(Kind::device_decision, "device_decision", kDecision),
      row(Kind::virtual_value, "virtual_value", kVirtual),
      row(Kind::engine_event, "engine_event", kEvent),
      row(Kind::sensor_lost, "sensor_lost", kLost),
      row(Kind::sensor_recovered, "sensor_recovered", kRecovered),
      row(Kind::action, "action", kAction),
      row(Kind::netlink, "netlink", kNetlink),
      row(Kind::reload, "reload", kReload),
      row(Kind::dropped, "dropped", kDropped),
      row(Kind::dump, "dump", kDump),
      row(Kind::knob_write, "knob_write", kKnobWrite),
  };
}
constexpr auto kLayouts = make_layouts();

constexpr bool names_fit() {
  for (const KindLayout& k : kLayouts) {
    if (k.name_len > kMaxKindName) return false;
    for (std::size_t i = 0; i < k.field_count; ++i) {
      if (k.field_rows[i].name_len > kMaxFieldName) return false;
    }
  }
  return true;
}
static_assert(names_fit(), "a kind or field name is longer than kMaxKindName or kMaxFieldName");

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
    if (k.name() == name) return k.kind;
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
