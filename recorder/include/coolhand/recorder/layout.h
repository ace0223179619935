// The record-layout table: for every Kind, its name and the name, type and
// byte offset of each field. The writer puts this table in every file; the
// reader checks a file's table against it (a table that lies about a known
// kind is an error) and uses it to name fields when printing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "coolhand/recorder/record.h"

namespace coolhand::recorder {

enum class FieldType : std::uint8_t { u8 = 1, u16 = 2, u32 = 3, u64 = 4, i32 = 5, i64 = 6 };

[[nodiscard]] constexpr std::uint8_t field_size(FieldType t) {
  switch (t) {
    case FieldType::u8:
      return 1;
    case FieldType::u16:
      return 2;
    case FieldType::u32:
    case FieldType::i32:
      return 4;
    case FieldType::u64:
    case FieldType::i64:
      return 8;
  }
  return 0;
}
[[nodiscard]] std::string_view to_string(FieldType t);

struct FieldLayout {
  std::string_view name;
  FieldType type = FieldType::u32;
  std::uint8_t offset = 0;  // bytes from the record's start
};

// t_ns@0 (u64) and kind@8 (u16) are common to all kinds and listed first in
// each kind's fields.
struct KindLayout {
  Kind kind = Kind::loop_created;
  std::string_view name;
  std::span<const FieldLayout> fields;
};

// Every kind this version writes, in Kind order.
[[nodiscard]] std::span<const KindLayout> layouts();
[[nodiscard]] const KindLayout* find_layout(std::uint16_t kind);
[[nodiscard]] std::optional<Kind> kind_from_string(std::string_view name);

// A field's value read from a record (little-endian), widened to 64 bits.
[[nodiscard]] std::int64_t field_value(const Record& r, const FieldLayout& f);

}  // namespace coolhand::recorder
