// The record-layout table: for every Kind, its name and the name, type and
// byte offset of each field. The writer puts this table in every file; the
// reader checks a file's table against it (a table that lies about a known
// kind is an error) and uses it to name fields when printing.
#pragma once

#include <array>
#include <cstddef>
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

// A field as the table's users see it. The view points into the table,
// which is static, so it stays valid for the program's life.
struct FieldLayout {
  std::string_view name;
  FieldType type = FieldType::u32;
  std::uint8_t offset = 0;  // bytes from the record's start
};

// The tables hold no pointer (no string_view, no span): names are inline
// character arrays and each kind's fields are stored inside it. A PIE's
// pointers in constant data are relocated at load, which dirties the
// pages they are on, Private_Dirty for the life of the daemon. These
// tables are plain .rodata, clean file pages (docs/benchmarks.md, "Flight
// recorder").
inline constexpr std::size_t kMaxFieldName = 20;
inline constexpr std::size_t kMaxKindName = 18;
inline constexpr std::size_t kMaxFields = 9;  // t_ns and kind included

struct FieldRow {
  std::array<char, kMaxFieldName> name{};
  std::uint8_t name_len = 0;
  FieldType type = FieldType::u32;
  std::uint8_t offset = 0;
  [[nodiscard]] FieldLayout view() const {
    return FieldLayout{std::string_view(name.data(), name_len), type, offset};
  }
};

// The fields of one kind, read as FieldLayout values.
class FieldList {
 public:
  class iterator {
   public:
    using value_type = FieldLayout;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(const FieldRow* p) : p_(p) {}
    FieldLayout operator*() const { return p_->view(); }
    iterator& operator++() {
      ++p_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++p_;
      return old;
    }
    bool operator==(const iterator&) const = default;

   private:
    const FieldRow* p_ = nullptr;
  };

  FieldList(const FieldRow* rows, std::size_t n) : rows_(rows), n_(n) {}
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] FieldLayout operator[](std::size_t i) const { return rows_[i].view(); }
  [[nodiscard]] iterator begin() const { return iterator(rows_); }
  [[nodiscard]] iterator end() const { return iterator(rows_ + n_); }

 private:
  const FieldRow* rows_;
  std::size_t n_;
};

// t_ns@0 (u64) and kind@8 (u16) are common to all kinds and listed first in
// each kind's fields.
struct KindLayout {
  Kind kind = Kind::loop_created;
  std::array<char, kMaxKindName> name_chars{};
  std::uint8_t name_len = 0;
  std::uint8_t field_count = 0;
  std::array<FieldRow, kMaxFields> field_rows{};

  [[nodiscard]] std::string_view name() const {
    return std::string_view(name_chars.data(), name_len);
  }
  [[nodiscard]] FieldList fields() const { return FieldList(field_rows.data(), field_count); }
};

// Every kind this version writes, in Kind order.
[[nodiscard]] std::span<const KindLayout> layouts();
[[nodiscard]] const KindLayout* find_layout(std::uint16_t kind);
[[nodiscard]] std::optional<Kind> kind_from_string(std::string_view name);

// A field's value read from a record (little-endian), widened to 64 bits.
[[nodiscard]] std::int64_t field_value(const Record& r, const FieldLayout& f);

}  // namespace coolhand::recorder
