// Context and Fields: the checks every mapping of the policy language gets.
#include "fields.h"

#include <algorithm>

namespace coolhand::config::detail {
namespace {

int one_based(int v) {
  return v < 0 ? 1 : v + 1;
}

// The YAML spelling of a spec field when it differs: temperatures carry "_c"
// in YAML, a FIR's tap count is the length of its weight rows, and names
// are the keys of name-keyed sections.
std::string yaml_spelling(std::string_view field) {
  static constexpr std::string_view kCelsius[] = {
      "threshold",          "hysteresis",    "setpoint", "offset", "engage_below",
      "switch_on",          "limit_offset",  "up",       "down",   "fine_granularity",
      "coarse_granularity", "near_distance", "quantum",  "limit"};
  if (std::find(std::begin(kCelsius), std::end(kCelsius), field) != std::end(kCelsius)) {
    return std::string(field) + "_c";
  }
  if (field == "taps") return "weights";
  // Names are the keys of their entries, which is where the element points.
  if (field == "name") return {};
  return std::string(field);
}

// Removes the last component of a spec path: "a[2].b[1]" -> "a[2].b" -> "a[2]" -> "a" -> "".
std::string_view parent_path(std::string_view path) {
  if (!path.empty() && path.back() == ']') {
    const auto open = path.rfind('[');
    return open == std::string_view::npos ? std::string_view{} : path.substr(0, open);
  }
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

}  // namespace

std::string join_path(std::string_view path, std::string_view field) {
  if (path.empty()) return std::string(field);
  if (field.empty()) return std::string(path);
  std::string out(path);
  out += '.';
  out += field;
  return out;
}

std::string index_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

Location location_of(const YAML::Mark& mark, std::string key) {
  return Location{one_based(mark.line), one_based(mark.column), std::move(key)};
}

void Context::error(const YAML::Mark& at, std::string key, std::string message) {
  error(location_of(at, std::move(key)), std::move(message));
}

void Context::error(const Location& at, std::string message) {
  errors_.push_back(ConfigError{file_, at.line, at.column, at.key, std::move(message)});
}

void Context::record(const std::string& spec_path, const YAML::Mark& at, std::string key) {
  locations_.insert_or_assign(spec_path, location_of(at, std::move(key)));
}

Location Context::locate(std::string_view path, std::string_view field) const {
  if (auto it = locations_.find(join_path(path, field)); it != locations_.end()) return it->second;
  std::string_view p = path;
  bool own_element = true;
  while (!p.empty()) {
    if (auto it = locations_.find(p); it != locations_.end()) {
      Location loc = it->second;
      if (own_element && !field.empty()) loc.key = join_path(loc.key, yaml_spelling(field));
      return loc;
    }
    p = parent_path(p);
    own_element = false;
  }
  return Location{1, 1, yaml_spelling(join_path(path, field))};
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      break;
  }
  if (node.Tag() == "!") return "the quoted string '" + node.Scalar() + "'";
  return "'" + node.Scalar() + "'";
}

YAML::Mark mark_of(const YAML::Node& node, const YAML::Mark& fallback) {
  if (!node.IsDefined() || node.IsNull()) return fallback;
  const YAML::Mark m = node.Mark();
  return m.is_null() ? fallback : m;
}

Fields::Fields(Context& ctx, const YAML::Node& node, const YAML::Mark& at, std::string yaml_path,
               std::string spec_path, std::string what)
    : ctx_(ctx),
      at_(at),
      yaml_path_(std::move(yaml_path)),
      spec_path_(std::move(spec_path)),
      what_(std::move(what)) {
  if (!spec_path_.empty()) ctx_.record(spec_path_, at_, yaml_path_);
  // An empty value ("cpu:" with nothing after it) reads as an empty mapping,
  // so a missing body is reported as the required keys it lacks.
  if (!node.IsDefined() || node.IsNull()) {
    is_map_ = true;
    return;
  }
  if (!node.IsMap()) {
    ctx_.error(mark_of(node, at_), yaml_path_.empty() ? std::string() : yaml_path_,
               "expected a mapping of keys for " + what_ + ", got " + describe(node));
    return;
  }
  is_map_ = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copy the pair out: yaml-cpp's operator-> returns a pointer into a
    // temporary proxy (g++ -Wdangling-pointer rightly objects).
    const auto pair = *it;
    const YAML::Node k = pair.first;
    const YAML::Mark km = mark_of(k, at_);
    if (!k.IsScalar()) {
      ctx_.error(km, yaml_path_, "keys must be plain names, got " + describe(k));
      continue;
    }
    const std::string& name = k.Scalar();
    const auto [slot, inserted] = index_.try_emplace(name, entries_.size());
    if (!inserted) {
      const Entry* first = &entries_[slot->second];
      const YAML::Mark fm = first->key_node.Mark();
      ctx_.error(km, key_path(name),
                 "duplicate key (first at line " + std::to_string(one_based(fm.line)) +
                     ", column " + std::to_string(one_based(fm.column)) + ")");
      continue;
    }
    entries_.push_back(Entry{name, k, pair.second});
  }
}

void Fields::allow(std::initializer_list<std::string_view> allowed,
                   std::initializer_list<std::string_view> elsewhere, std::string_view context) {
  allow(std::span<const std::string_view>(allowed.begin(), allowed.size()), elsewhere, context);
}

void Fields::allow(std::span<const std::string_view> allowed,
                   std::initializer_list<std::string_view> elsewhere, std::string_view context) {
  for (const Entry& e : entries_) {
    if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
    std::string message;
    if (std::find(elsewhere.begin(), elsewhere.end(), e.key) != elsewhere.end()) {
      message = "does not apply to " + std::string(context);
    } else if (auto hint = did_you_mean(e.key, allowed)) {
      message = "unknown key (did you mean '" + *hint + "'?)";
    } else {
      message = "unknown key (valid here:";
      for (std::string_view a : allowed) message += " " + std::string(a);
      message += ")";
    }
    ctx_.error(e.key_node.Mark(), key_path(e.key), std::move(message));
  }
}

const Entry* Fields::find(std::string_view key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

YAML::Mark Fields::value_mark(const Entry& e) const {
  return mark_of(e.value, e.key_node.Mark());
}

void Fields::missing(std::string_view key, std::string_view why) {
  std::string message = "missing required key";
  if (!why.empty()) message += " (" + std::string(why) + ")";
  ctx_.error(at_, key_path(key), std::move(message));
}

void Fields::invalid(const Entry& e, std::string message) {
  ctx_.error(value_mark(e), key_path(e.key), std::move(message));
}

const Entry* Fields::present(std::string_view key, std::string_view field, bool required) {
  const Entry* e = find(key);
  if (e == nullptr) {
    if (required) missing(key, "in " + what_);
    return nullptr;
  }
  if (!field.empty()) ctx_.record(join_path(spec_path_, field), value_mark(*e), key_path(key));
  return e;
}

std::optional<std::string> Fields::scalar_text(const YAML::Node& value, const YAML::Mark& at,
                                               const std::string& yaml_path,
                                               std::string_view expected, bool allow_quoted) {
  if (!value.IsScalar() || (!allow_quoted && value.Tag() == "!")) {
    ctx_.error(mark_of(value, at), yaml_path,
               "expected " + std::string(expected) + ", got " + describe(value));
    return std::nullopt;
  }
  return value.Scalar();
}

template <typename T>
std::optional<T> Fields::convert(std::string_view key, std::string_view field, bool required,
                                 std::string_view expected, bool allow_quoted,
                                 Parsed<T> (*parse)(std::string_view)) {
  const Entry* e = present(key, field, required);
  if (e == nullptr) return std::nullopt;
  const auto text = scalar_text(e->value, value_mark(*e), key_path(key), expected, allow_quoted);
  if (!text) return std::nullopt;
  Parsed<T> p = parse(*text);
  if (!p.value) invalid(*e, std::move(p.error));
  return p.value;
}

std::optional<policy::MilliC> Fields::celsius(std::string_view key, std::string_view field,
                                              bool required) {
  const Entry* e = find(key);
  if (e != nullptr && e->value.IsScalar() && e->value.Tag() != "!" && !ctx_.limits().empty()) {
    // A limit where only a difference makes sense gets its own message.
    const TemperatureParse t = parse_temperature(e->value.Scalar(), ctx_.limits());
    if (t.named_limit) {
      present(key, field, required);
      invalid(*e, "'" + e->value.Scalar() +
                      "': a temperature difference is a plain number of °C (limits name "
                      "absolute temperatures only)");
      return std::nullopt;
    }
  }
  return convert<policy::MilliC>(key, field, required, "a temperature in °C", false, parse_celsius);
}

std::optional<policy::MilliC> Fields::temperature(std::string_view key, std::string_view field,
                                                  bool required) {
  const Entry* e = present(key, field, required);
  if (e == nullptr) return std::nullopt;
  const auto text =
      scalar_text(e->value, value_mark(*e), key_path(key), "a temperature in °C", false);
  if (!text) return std::nullopt;
  TemperatureParse t = parse_temperature(*text, ctx_.limits());
  if (!t.value) {
    // Point at the token at fault (the scalar is plain, so on one line).
    YAML::Mark at = value_mark(*e);
    at.column += static_cast<int>(t.offset);
    ctx_.error(at, key_path(key), std::move(t.error));
  }
  return t.value;
}

std::optional<policy::Millis> Fields::duration(std::string_view key, std::string_view field,
                                               bool required) {
  return convert<policy::Millis>(key, field, required, "a duration such as 500ms or 2s", true,
                                 parse_duration);
}

std::optional<std::uint32_t> Fields::uint32(std::string_view key, std::string_view field,
                                            bool required) {
  return convert<std::uint32_t>(key, field, required, "a whole number", false, parse_uint32);
}

std::optional<double> Fields::number(std::string_view key, std::string_view field, bool required) {
  return convert<double>(key, field, required, "a number", false, parse_number);
}

std::optional<bool> Fields::boolean(std::string_view key, std::string_view field, bool required) {
  const Entry* e = present(key, field, required);
  if (e == nullptr) return std::nullopt;
  const auto text = scalar_text(e->value, value_mark(*e), key_path(key), "true or false", false);
  if (!text) return std::nullopt;
  if (*text == "true") return true;
  if (*text == "false") return false;
  invalid(*e, "expected true or false, got '" + *text + "'");
  return std::nullopt;
}

std::optional<std::string> Fields::string(std::string_view key, std::string_view field,
                                          bool required) {
  const Entry* e = present(key, field, required);
  if (e == nullptr) return std::nullopt;
  return scalar_text(e->value, value_mark(*e), key_path(key), "a name", true);
}

std::optional<std::vector<std::string>> Fields::strings(std::string_view key,
                                                        std::string_view field, bool required) {
  return list<std::string>(key, field, required,
                           [this](const YAML::Node& item, const std::string& path) {
                             return scalar_text(item, at_, path, "a name", true);
                           });
}

std::optional<std::vector<double>> Fields::numbers(std::string_view key, std::string_view field,
                                                   bool required) {
  return list<double>(
      key, field, required,
      [this](const YAML::Node& item, const std::string& path) -> std::optional<double> {
        const auto text = scalar_text(item, at_, path, "a number", false);
        if (!text) return std::nullopt;
        Parsed<double> p = parse_number(*text);
        if (!p.value) ctx_.error(mark_of(item, at_), path, std::move(p.error));
        return p.value;
      });
}

std::optional<std::vector<std::uint32_t>> Fields::uint32s(std::string_view key,
                                                          std::string_view field, bool required) {
  return list<std::uint32_t>(
      key, field, required,
      [this](const YAML::Node& item, const std::string& path) -> std::optional<std::uint32_t> {
        const auto text = scalar_text(item, at_, path, "a whole number", false);
        if (!text) return std::nullopt;
        Parsed<std::uint32_t> p = parse_uint32(*text);
        if (!p.value) ctx_.error(mark_of(item, at_), path, std::move(p.error));
        return p.value;
      });
}

}  // namespace coolhand::config::detail
