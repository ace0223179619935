// The reading side of the policy language: a Context collects errors and
// remembers where in the file each part of the spec came from, and Fields
// reads one YAML mapping with the checks every mapping gets (scalar keys, no
// duplicates, no unknown keys, typed values with units, required keys).
//
// Two kinds of path appear here. The YAML path names what the user wrote,
// dotted, with list indices: "controllers.cpu_step.devices[0]"; it becomes
// ConfigError::key. The spec path names the same thing in PolicySpec terms,
// as the engine reports it: "controllers[2].devices[0]" plus a field name.
// Context::record links the two so engine errors can be reported at the
// right line and column.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/policy/units.h"
#include "limit_expr.h"
#include "scalars.h"

namespace coolhand::config::detail {

// A place in the file (1-based) and the YAML path of the key found there.
struct Location {
  int line = 1;
  int column = 1;
  std::string key;
};

[[nodiscard]] std::string join_path(std::string_view path, std::string_view field);
[[nodiscard]] std::string index_path(std::string_view path, std::size_t index);

class Context {
 public:
  explicit Context(std::string_view file) : file_(file) {}

  void error(const YAML::Mark& at, std::string key, std::string message);
  void error(const Location& at, std::string message);
  // Remember that spec element/field `spec_path` was written at `at` under `key`.
  void record(const std::string& spec_path, const YAML::Mark& at, std::string key);
  // Where an engine error about `path` / `field` points: the exact field if
  // it was written, else the nearest enclosing element that was (the YAML
  // key is then the element's key plus the field's YAML spelling).
  [[nodiscard]] Location locate(std::string_view path, std::string_view field) const;

  [[nodiscard]] bool failed() const { return !errors_.empty(); }
  [[nodiscard]] std::vector<ConfigError> take_errors() { return std::move(errors_); }
  [[nodiscard]] const std::string& file() const { return file_; }

  // The policy's named limits (`limits:`), read before every section that
  // may write a temperature against them.
  void set_limits(std::vector<NamedLimit> limits) { limits_ = std::move(limits); }
  [[nodiscard]] std::span<const NamedLimit> limits() const { return limits_; }

 private:
  std::string file_;
  std::vector<NamedLimit> limits_;
  std::vector<ConfigError> errors_;
  std::map<std::string, Location, std::less<>> locations_;
};

[[nodiscard]] Location location_of(const YAML::Mark& mark, std::string key);

// One key: value pair of a mapping, in document order.
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

class Fields {
 public:
  // `node` is the mapping; `at` is where it is named (the key that holds it)
  // and `yaml_path`/`spec_path` are its paths. `what` describes it in
  // messages ("sensor 'skin'").
  Fields(Context& ctx, const YAML::Node& node, const YAML::Mark& at, std::string yaml_path,
         std::string spec_path, std::string what);

  [[nodiscard]] bool is_map() const { return is_map_; }
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }
  [[nodiscard]] const std::string& yaml_path() const { return yaml_path_; }
  [[nodiscard]] const std::string& spec_path() const { return spec_path_; }
  [[nodiscard]] const YAML::Mark& at() const { return at_; }
  [[nodiscard]] Context& ctx() const { return ctx_; }

  // Reports every key not in `allowed`. Keys in `elsewhere` are valid in a
  // sibling form (another kind); they get "does not apply to <context>".
  void allow(std::initializer_list<std::string_view> allowed,
             std::initializer_list<std::string_view> elsewhere = {}, std::string_view context = {});
  void allow(std::span<const std::string_view> allowed,
             std::initializer_list<std::string_view> elsewhere, std::string_view context);

  [[nodiscard]] const Entry* find(std::string_view key) const;
  [[nodiscard]] bool has(std::string_view key) const { return find(key) != nullptr; }
  [[nodiscard]] std::string key_path(std::string_view key) const {
    return join_path(yaml_path_, key);
  }
  // Where the value of `key` is (its key when the value is empty).
  [[nodiscard]] YAML::Mark value_mark(const Entry& e) const;
  void missing(std::string_view key, std::string_view why = {});
  void invalid(const Entry& e, std::string message);

  // Typed readers. They return nullopt when the key is absent (reporting it
  // if `required`) or its value is invalid (reporting why), and record the
  // value's location under spec_path + "." + `field`.
  // `celsius` reads a plain number of °C (a difference, an offset, a
  // granularity); `temperature` an absolute temperature, which may be
  // written against a named limit ("skin - 0.5", limit_expr.h).
  std::optional<policy::MilliC> celsius(std::string_view key, std::string_view field,
                                        bool required = false);
  std::optional<policy::MilliC> temperature(std::string_view key, std::string_view field,
                                            bool required = false);
  std::optional<policy::Millis> duration(std::string_view key, std::string_view field,
                                         bool required = false);
  std::optional<std::uint32_t> uint32(std::string_view key, std::string_view field,
                                      bool required = false);
  std::optional<double> number(std::string_view key, std::string_view field, bool required = false);
  std::optional<bool> boolean(std::string_view key, std::string_view field, bool required = false);
  std::optional<std::string> string(std::string_view key, std::string_view field,
                                    bool required = false);
  std::optional<std::vector<std::string>> strings(std::string_view key, std::string_view field,
                                                  bool required = false);
  std::optional<std::vector<double>> numbers(std::string_view key, std::string_view field,
                                             bool required = false);
  std::optional<std::vector<std::uint32_t>> uint32s(std::string_view key, std::string_view field,
                                                    bool required = false);
  // A list of elements, each converted by `one` (which reports its own errors
  // and returns nullopt on failure); `field` may be empty to skip recording.
  template <typename T>
  std::optional<std::vector<T>> list(
      std::string_view key, std::string_view field, bool required,
      const std::function<std::optional<T>(const YAML::Node&, const std::string& yaml_path)>& one);

  // One scalar as text, or nullopt after reporting that `expected` was wanted.
  std::optional<std::string> scalar_text(const YAML::Node& value, const YAML::Mark& at,
                                         const std::string& yaml_path, std::string_view expected,
                                         bool allow_quoted);

 private:
  const Entry* present(std::string_view key, std::string_view field, bool required);
  template <typename T>
  std::optional<T> convert(std::string_view key, std::string_view field, bool required,
                           std::string_view expected, bool allow_quoted,
                           Parsed<T> (*parse)(std::string_view));

  Context& ctx_;
  YAML::Mark at_;
  std::string yaml_path_;
  std::string spec_path_;
  std::string what_;
  bool is_map_ = false;
  std::vector<Entry> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;  // key -> entries_ index
};

// "a mapping", "a list", "nothing", "a quoted string", ... for messages.
[[nodiscard]] std::string describe(const YAML::Node& node);
// Mark of a node, with yaml-cpp's odd mark for empty values replaced by `fallback`.
[[nodiscard]] YAML::Mark mark_of(const YAML::Node& node, const YAML::Mark& fallback);

template <typename T>
std::optional<std::vector<T>> Fields::list(
    std::string_view key, std::string_view field, bool required,
    const std::function<std::optional<T>(const YAML::Node&, const std::string& yaml_path)>& one) {
  const Entry* e = present(key, field, required);
  if (e == nullptr) return std::nullopt;
  if (!e->value.IsSequence()) {
    invalid(*e, "expected a list, got " + describe(e->value));
    return std::nullopt;
  }
  std::vector<T> out;
  bool ok = true;
  std::size_t i = 0;
  for (const YAML::Node& item : e->value) {
    const std::string item_yaml = index_path(key_path(key), i);
    if (!field.empty()) {
      ctx_.record(index_path(join_path(spec_path_, field), i), mark_of(item, value_mark(*e)),
                  item_yaml);
    }
    std::optional<T> v = one(item, item_yaml);
    if (v) {
      out.push_back(std::move(*v));
    } else {
      ok = false;
    }
    ++i;
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace coolhand::config::detail
