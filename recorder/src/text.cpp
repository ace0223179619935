// Records as text lines and JSON objects (text.h).
#include "coolhand/recorder/text.h"

#include <fmt/format.h>

#include <optional>

#include "coolhand/recorder/layout.h"

namespace coolhand::recorder {

namespace {

// The name an index field stands for, when the metadata has it.
std::optional<std::string> name_of(const Metadata& m, const KindLayout& k, const FieldLayout& f,
                                   std::int64_t v) {
  const std::vector<std::string>* table = nullptr;
  if (f.name == "device") table = &m.devices;
  if (f.name == "sensor" && k.kind != Kind::slot_map) table = &m.sensors;
  if (f.name == "cause") table = &m.controllers;
  if (f.name == "profile") table = &m.profiles;
  if (f.name == "zone" && k.kind == Kind::action) table = &m.zones;
  if (!table) return std::nullopt;
  if (v == kNoIndex) return std::string("none");
  if (f.name == "profile" && v == kAsWritten) return std::string("(as written)");
  if (v < 0 || static_cast<std::size_t>(v) >= table->size()) return std::nullopt;
  return (*table)[static_cast<std::size_t>(v)];
}

bool is_temperature(const FieldLayout& f) {
  return f.name.ends_with("_mc");
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string format_text(const Metadata& names, const Record& r) {
  std::string out = fmt::format("{}.{:09}", r.t_ns / 1000000000U, r.t_ns % 1000000000U);
  const KindLayout* k = find_layout(r.kind);
  if (!k) {
    return out + fmt::format(" kind={} index={} a={} b={} c={} d={}", r.kind, r.index, r.a, r.b,
                             r.c, r.d);
  }
  out += ' ';
  out += k->name();
  for (const FieldLayout& f : k->fields()) {
    if (f.name == "t_ns" || f.name == "kind") continue;
    const std::int64_t v = field_value(r, f);
    if (auto n = name_of(names, *k, f, v)) {
      out += fmt::format(" {}={}", f.name, *n);
    } else if (is_temperature(f) && v == kNoValue) {
      out += fmt::format(" {}=none", f.name);
    } else if (f.type == FieldType::u64) {
      out += fmt::format(" {}={}", f.name, static_cast<std::uint64_t>(v));
    } else {
      out += fmt::format(" {}={}", f.name, v);
    }
  }
  return out;
}

std::string format_json(const Metadata& names, const Record& r) {
  std::string out = fmt::format("{{\"t_ns\":{}", r.t_ns);
  const KindLayout* k = find_layout(r.kind);
  if (!k) {
    return out + fmt::format(",\"kind\":{},\"index\":{},\"a\":{},\"b\":{},\"c\":{},\"d\":{}}}",
                             r.kind, r.index, r.a, r.b, r.c, r.d);
  }
  out += ",\"kind\":" + json_string(k->name());
  for (const FieldLayout& f : k->fields()) {
    if (f.name == "t_ns" || f.name == "kind") continue;
    const std::int64_t v = field_value(r, f);
    out += "," + json_string(f.name) + ":";
    if (auto n = name_of(names, *k, f, v)) {
      out += *n == "none" && v == kNoIndex ? "null" : json_string(*n);
    } else if (is_temperature(f) && v == kNoValue) {
      out += "null";
    } else if (f.type == FieldType::u64) {
      out += fmt::format("{}", static_cast<std::uint64_t>(v));
    } else {
      out += fmt::format("{}", v);
    }
  }
  return out + "}";
}

}  // namespace coolhand::recorder
