// Small helpers for reading simulator YAML with file:line:column errors.
// The text itself goes through config's YAML front end
// (coolhand/config/yaml_input.h: UTF-8, depth and node-count guards); these
// helpers check the shape of the tree it returns. Validation failures are
// raised as YamlFail inside a parser and turned into a config::ConfigError
// at its boundary (see parse_model), so no exception leaves the library.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "coolhand/config/error.h"

namespace coolhand::sim::detail {

struct YamlFail {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] inline void fail(const YAML::Node& at, std::string message) {
  throw YamlFail{at.Mark(), std::move(message)};
}

// Fails at the key `key` of `map` itself (not at its value), for errors
// about the entry as a whole.
[[noreturn]] inline void fail_at_key(const YAML::Node& map, std::string_view key,
                                     std::string message) {
  for (const auto& kv : map)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) fail(kv.first, std::move(message));
  fail(map, std::move(message));
}

inline config::ConfigError to_error(std::string_view file, const YAML::Mark& mark,
                                    std::string message) {
  config::ConfigError e;
  e.file = std::string(file);
  if (!mark.is_null()) {
    e.line = mark.line + 1;
    e.column = mark.column + 1;
  }
  e.message = std::move(message);
  return e;
}

// Rejects keys of `map` not in `allowed` (typos must not be silently
// ignored), with a "did you mean" hint when one is close.
inline void check_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                       std::string_view what) {
  if (!map.IsMap()) fail(map, std::string(what) + ": expected a mapping");
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) fail(kv.first, std::string(what) + ": keys must be plain names");
    const auto& key = kv.first.Scalar();
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (ok) continue;
    std::string message = std::string(what) + ": unknown key '" + key + "'";
    if (auto hint = config::did_you_mean(key, allowed)) {
      message += " (did you mean '" + *hint + "'?)";
    } else {
      message += " (valid here:";
      for (auto a : allowed) message += " " + std::string(a);
      message += ")";
    }
    fail(kv.first, std::move(message));
  }
}
inline YAML::Node required(const YAML::Node& map, const char* key, std::string_view what) {
  YAML::Node n = map[key];
  if (!n) fail(map, std::string(what) + ": missing '" + key + "'");
  return n;
}

inline double as_double(const YAML::Node& n, std::string_view key) {
  if (!n.IsScalar()) fail(n, std::string(key) + ": expected a number");
  double v = 0;
  if (!YAML::convert<double>::decode(n, v)) fail(n, std::string(key) + ": expected a number");
  return v;
}

inline std::string as_string(const YAML::Node& n, std::string_view key) {
  if (!n.IsScalar()) fail(n, std::string(key) + ": expected a string");
  return n.Scalar();
}

inline bool as_bool(const YAML::Node& n, std::string_view key) {
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
    fail(n, std::string(key) + ": expected true or false");
  return v;
}

inline std::int64_t as_int(const YAML::Node& n, std::string_view key) {
  if (!n.IsScalar()) fail(n, std::string(key) + ": expected an integer");
  long long v = 0;
  if (!YAML::convert<long long>::decode(n, v)) fail(n, std::string(key) + ": expected an integer");
  return v;
}

inline std::uint32_t as_u32(const YAML::Node& n, std::string_view key) {
  const auto v = as_int(n, key);
  if (v < 0 || v > 0xffffffffLL) fail(n, std::string(key) + ": out of range");
  return static_cast<std::uint32_t>(v);
}

inline double positive(const YAML::Node& n, std::string_view key) {
  const double v = as_double(n, key);
  if (!(v > 0)) fail(n, std::string(key) + ": must be > 0");
  return v;
}

inline double non_negative(const YAML::Node& n, std::string_view key) {
  const double v = as_double(n, key);
  if (!(v >= 0)) fail(n, std::string(key) + ": must be >= 0");
  return v;
}

}  // namespace coolhand::sim::detail
