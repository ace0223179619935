// The policy language's schema, one function per section. Each reads its
// part of the YAML tree into the PolicyDocument, reports what is wrong with
// the shape (keys, types, units, required keys, hardware bindings) through
// the Context, and records where each spec element was written so the
// engine's own validation errors can be mapped back to lines.
// docs/policy-language.md is the user-facing description of the same schema.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "coolhand/config/policy_file.h"
#include "fields.h"

namespace coolhand::config::detail {

// The only schema version so far.
inline constexpr std::uint32_t kSchemaVersion = 1;

// Reads the whole document. Errors go to `ctx`; the result is meaningful
// only when ctx.failed() is false.
[[nodiscard]] PolicyDocument parse_document(Context& ctx, const YAML::Node& root);

// `limits:` — read first; fills doc.limits and ctx.limits().
void parse_limits(Context& ctx, const Entry& section, PolicyDocument& doc);
void parse_sensors(Context& ctx, const Entry& section, PolicyDocument& doc);
void parse_zones(Context& ctx, const Entry& section, policy::PolicySpec& spec);
void parse_devices(Context& ctx, const Entry& section, PolicyDocument& doc);
void parse_controllers(Context& ctx, const Entry& section, policy::PolicySpec& spec);
void parse_profiles(Context& ctx, const Entry& section, policy::PolicySpec& spec);

// The hardware part of a sensor source / knob (kind and location, no role,
// no levels): device descriptions' role candidates (device_file.cpp).
[[nodiscard]] SensorSource parse_source_hardware(Context& ctx, const YAML::Node& node,
                                                 const YAML::Mark& at,
                                                 const std::string& yaml_path);
[[nodiscard]] DeviceKnob parse_knob_hardware(Context& ctx, const YAML::Node& node,
                                             const YAML::Mark& at, const std::string& yaml_path);

// Calls `one(entry, index)` for every `name: body` pair of a section written
// as a mapping keyed by name, in document order. Duplicate names are
// reported (and skipped) by Fields.
void for_each_named(Context& ctx, const Entry& section, std::string_view yaml_path,
                    const std::function<void(const Entry&, std::size_t)>& one);

template <typename E>
struct EnumName {
  std::string_view name;
  E value;
};

template <typename E, std::size_t N>
std::string_view name_of(const EnumName<E> (&names)[N], E value) {
  for (const auto& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// Reads `key` as one of `names`. Unknown values are reported with the list
// of valid ones and a "did you mean" hint.
template <typename E>
std::optional<E> choose(Fields& f, std::string_view key, std::string_view field, bool required,
                        std::span<const EnumName<E>> names, std::string_view what) {
  const auto text = f.string(key, field, required);
  if (!text) return std::nullopt;
  for (const auto& n : names) {
    if (n.name == *text) return n.value;
  }
  std::string message = "unknown " + std::string(what) + " '" + *text + "'";
  std::string_view best;
  std::size_t best_distance = 3;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(*text, n.name);
    if (d < best_distance) {
      best_distance = d;
      best = n.name;
    }
  }
  if (!best.empty()) {
    message += " (did you mean '" + std::string(best) + "'?)";
  } else {
    message += " (one of:";
    for (const auto& n : names) message += " " + std::string(n.name);
    message += ")";
  }
  f.invalid(*f.find(key), std::move(message));
  return std::nullopt;
}

}  // namespace coolhand::config::detail
