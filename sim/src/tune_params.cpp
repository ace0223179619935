// Tunable parameters: the `tune:` block and `--param PATH=LO..HI` resolved
// against the policy text, and the text with tuned values written in; see
// tune.h for the PATH syntax and the kinds of scalar.
//
// The policy goes through config's one YAML front end (read_yaml: UTF-8,
// depth and node guards) and each scalar is located by the one in-place
// YAML editor (yaml_edit.h, YamlText::scalar_span: yaml-cpp's marks to
// bytes, a byte order mark counted), so a tuned value replaces exactly the
// characters of the old one and the rest of the text (comments, layout) is
// kept byte for byte. The spans are kept in TuneParam and each candidate's
// values spliced into them (substitute), with no parse per candidate.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "coolhand/config/yaml_input.h"
#include "coolhand/sim/tune.h"
#include "yaml_edit.h"
#include "yaml_reader.h"

namespace coolhand::sim {

namespace {

using config::ConfigError;

// Where a range was given, for errors: a YAML node of the tune block, or a
// --param argument.
struct Origin {
  std::string file;  // policy file, or "--param ARG"
  int line = 0, column = 0;
  bool cli = false;
};

ConfigError error_at(const Origin& o, std::string key, std::string message) {
  return ConfigError{o.file, o.line, o.column, std::move(key), std::move(message)};
}

Origin origin_of(std::string_view file, const YAML::Node& n) {
  const auto m = n.Mark();
  return Origin{std::string(file), m.is_null() ? 0 : m.line + 1, m.is_null() ? 0 : m.column + 1,
                false};
}

struct Segment {
  std::string key;                   // empty for an index
  std::optional<std::size_t> index;  // [i]
  std::size_t at = 0;                // character offset in the PATH
};

// PATH := name { '.' name | '[' digits ']' }; names are [A-Za-z0-9_-]+.
std::variant<std::vector<Segment>, std::string> split_path(std::string_view path) {
  std::vector<Segment> out;
  std::size_t i = 0;
  bool need_name = true;
  while (i < path.size()) {
    const std::size_t start = i;
    if (path[i] == '[') {
      if (out.empty()) return fmt::format("character {}: a PATH starts with a key", i + 1);
      std::size_t j = i + 1;
      while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j]))) ++j;
      if (j == i + 1 || j >= path.size() || path[j] != ']' || j - i > 10)
        return fmt::format("character {}: expected [N], a list index", i + 1);
      out.push_back({{}, std::stoul(std::string(path.substr(i + 1, j - i - 1))), start});
      i = j + 1;
      need_name = false;
      continue;
    }
    if (!need_name) {
      if (path[i] != '.') return fmt::format("character {}: expected '.' or '['", i + 1);
      ++i;
    }
    std::size_t j = i;
    while (j < path.size() &&
           (std::isalnum(static_cast<unsigned char>(path[j])) || path[j] == '_' || path[j] == '-'))
      ++j;
    if (j == i) return fmt::format("character {}: expected a key name", i + 1);
    out.push_back({std::string(path.substr(i, j - i)), std::nullopt, i});
    i = j;
    need_name = false;
  }
  if (out.empty()) return std::string("empty PATH");
  return out;
}

bool integral_text(std::string_view t) {
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

std::optional<double> number(std::string_view t) {
  if (t.empty() || t.size() > 40) return std::nullopt;
  const std::string s(t);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  // Plain decimals only, as the policy language writes numbers.
  if (s.find_first_not_of("+-.0123456789") != std::string::npos) return std::nullopt;
  return v;
}

// Classifies the scalar `text` into p.kind/start (and limit/unit); "" or
// why not. `limits` are the policy's limit names ("skin" for skin_c).
std::string classify(std::string_view text, const std::vector<std::string>& limits, TuneParam& p) {
  if (auto v = number(text)) {
    p.kind = integral_text(text) ? TuneParam::Kind::integer : TuneParam::Kind::number;
    p.start = *v;
    return {};
  }
  for (std::string_view unit : {"ms", "s"}) {
    if (text.size() > unit.size() && text.substr(text.size() - unit.size()) == unit) {
      if (auto v = number(text.substr(0, text.size() - unit.size()))) {
        p.kind = TuneParam::Kind::duration_s;
        p.unit = std::string(unit);
        p.start = unit == "ms" ? *v / 1000.0 : *v;
        return {};
      }
    }
  }
  // limit [ (+|-) number ]
  std::size_t i = 0;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
    ++i;
  const bool is_limit =
      i > 0 && std::find(limits.begin(), limits.end(), text.substr(0, i)) != limits.end();
  if (is_limit) {
    std::string_view rest = text.substr(i);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    double offset = 0;
    if (!rest.empty()) {
      const char sign = rest.front();
      rest.remove_prefix(1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      auto v = number(rest);
      if ((sign != '+' && sign != '-') || !v || rest.front() == '-' || rest.front() == '+')
        return "not a number, a duration or a limit expression (`skin - 0.5`)";
      offset = sign == '-' ? -*v : *v;
    }
    p.kind = TuneParam::Kind::limit_offset;
    p.limit = std::string(text.substr(0, i));
    p.start = offset;
    return {};
  }
  return "not a number, a duration or a limit expression (`skin - 0.5`)";
}

std::string describe(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "a scalar";
}

// Resolves `segments` from the document root to a scalar; fills p's text
// position and kind. Errors say which segment and suggest a key.
std::string resolve(const detail::YamlText& doc, std::string_view path,
                    const std::vector<Segment>& segments, TuneParam& p) {
  const YAML::Node& root = doc.root();
  YAML::Node node;
  node.reset(root);
  std::string prefix;
  for (const auto& seg : segments) {
    const std::string here = prefix.empty() ? std::string("the policy") : "'" + prefix + "'";
    if (seg.index) {
      if (!node.IsSequence())
        return fmt::format("character {}: {} is {}, not a list", seg.at + 1, here, describe(node));
      if (*seg.index >= node.size())
        return fmt::format("character {}: {} has {} entries; [{}] is past its end", seg.at + 1,
                           here, node.size(), *seg.index);
      node.reset(node[*seg.index]);  // rebind: operator= would write into the tree
      prefix += fmt::format("[{}]", *seg.index);
      continue;
    }
    if (!node.IsMap())
      return fmt::format("character {}: {} is {}, not a mapping", seg.at + 1, here, describe(node));
    std::vector<std::string> keys;
    YAML::Node next;
    bool found = false;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) continue;
      keys.push_back(kv.first.Scalar());
      if (kv.first.Scalar() == seg.key) {
        next.reset(kv.second);
        found = true;
      }
    }
    if (!found) {
      std::string msg =
          fmt::format("character {}: no key '{}' under {}", seg.at + 1, seg.key, here);
      if (auto hint = config::did_you_mean(seg.key, keys))
        msg += " (did you mean '" + *hint + "'?)";
      return msg;
    }
    node.reset(next);
    prefix += (prefix.empty() ? "" : ".") + seg.key;
  }
  if (!node.IsScalar())
    return fmt::format("'{}' is {}; a tunable parameter is a single value", path, describe(node));
  if (prefix == "version" || prefix.rfind("tune.", 0) == 0)
    return fmt::format("'{}' is not a tunable parameter", path);
  const std::string& scalar = node.Scalar();
  // The span reads as the scalar only when it is written plainly on one
  // line (with quotes it does not; over more lines scalar_span fails).
  std::pair<std::size_t, std::size_t> span;
  bool plain = false;
  try {
    span = doc.scalar_span(node);
    plain = doc.text().compare(span.first, span.second - span.first, scalar) == 0;
  } catch (const detail::YamlFail&) {
  }
  if (!plain)
    return fmt::format("'{}' is a quoted or multi-line value; write it plainly to tune it", path);
  p.offset = span.first;
  p.length = scalar.size();
  p.text = scalar;
  std::vector<std::string> limits;
  if (const YAML::Node l = root["limits"]; l && l.IsMap())
    for (const auto& kv : l)
      if (kv.first.IsScalar() && kv.first.Scalar().size() > 2 && kv.first.Scalar().ends_with("_c"))
        limits.push_back(kv.first.Scalar().substr(0, kv.first.Scalar().size() - 2));
  // Only temperatures (keys ending in _c) are written against limits; a
  // name elsewhere (`input: skin`) is a sensor or a device.
  if (!prefix.ends_with("_c")) limits.clear();
  if (auto why = classify(scalar, limits, p); !why.empty())
    return fmt::format("'{}' = '{}' is {}", path, scalar, why);
  return {};
}

// A range LO..HI (CLI) or [LO, HI] (block), already split.
std::string check_range(TuneParam& p, std::string_view lo, std::string_view hi) {
  auto l = number(lo), h = number(hi);
  if (!l || !h)
    return fmt::format("the range's bounds must be plain numbers, got '{}' and '{}'", lo, hi);
  if (!(*l < *h)) return fmt::format("empty range: {} is not below {}", *l, *h);
  if (p.kind == TuneParam::Kind::integer && !(integral_text(lo) && integral_text(hi)))
    p.kind = TuneParam::Kind::number;  // a decimal bound asks for a continuous search
  p.lo = *l;
  p.hi = *h;
  if (p.start < p.lo || p.start > p.hi)
    return fmt::format("the policy's value {} ({}) is outside the range [{}, {}]", p.text, p.start,
                       p.lo, p.hi);
  return {};
}

struct Request {
  std::string path;
  std::string lo, hi;
  Origin origin;
};

}  // namespace

double quantize(const TuneParam& p, double v) {
  v = std::clamp(v, p.lo, p.hi);
  switch (p.kind) {
    case TuneParam::Kind::integer:
      return std::clamp(std::round(v), std::ceil(p.lo), std::floor(p.hi));
    case TuneParam::Kind::limit_offset:  // m°C, what the loader keeps
    case TuneParam::Kind::duration_s:    // ms
      return std::round(v * 1000.0) / 1000.0;
    case TuneParam::Kind::number:
      break;
  }
  if (v == 0) return 0;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(std::abs(v))));
  return std::round(v * scale) / scale;
}

namespace {

// Shortest plain decimal (no exponent) that reads back as `v` to 5
// significant digits or 3 decimals.
std::string plain(double v) {
  std::string s = fmt::format("{:.10f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string render(const TuneParam& p, double v) {
  v = quantize(p, v);
  switch (p.kind) {
    case TuneParam::Kind::integer:
      return fmt::format("{}", static_cast<long long>(v));
    case TuneParam::Kind::limit_offset:
      if (v == 0) return p.limit;
      return p.limit + (v < 0 ? " - " : " + ") + plain(std::abs(v));
    case TuneParam::Kind::duration_s:
      return p.unit == "ms" ? fmt::format("{}ms", static_cast<long long>(std::round(v * 1000)))
                            : plain(v) + "s";
    case TuneParam::Kind::number:
      break;
  }
  return plain(v);
}

}  // namespace

std::string substitute(const TuneProblem& problem, std::span<const double> x) {
  // Replace from the end so earlier offsets stay valid.
  std::vector<std::size_t> order(problem.params.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return problem.params[a].offset > problem.params[b].offset;
  });
  std::string out = problem.policy_text;
  for (std::size_t i : order) {
    const auto& p = problem.params[i];
    out.replace(p.offset, p.length, render(p, x[i]));
  }
  return out;
}

std::variant<TuneProblem, std::vector<ConfigError>> make_tune_problem(
    std::string_view text, std::string_view file, const std::vector<std::string>& cli_params) {
  std::vector<ConfigError> errors;
  auto yaml = config::detail::read_yaml(text, file);
  if (!yaml.errors.empty()) return yaml.errors;
  const YAML::Node& root = *yaml.root;
  const detail::YamlText doc(std::string(text), std::string(file), root);
  TuneProblem problem;
  problem.policy_file = std::string(file);
  problem.policy_text = std::string(text);
  if (auto limits = root["limits"]; limits && limits.IsMap() && limits["skin_c"])
    if (auto v = number(limits["skin_c"].Scalar())) problem.policy_skin_limit_c = *v;

  // Requests by path, in the order first given; --param replaces a block entry.
  std::vector<Request> requests;
  auto add = [&](Request r) {
    for (auto& old : requests)
      if (old.path == r.path) {
        old = std::move(r);
        return;
      }
    requests.push_back(std::move(r));
  };
  if (const YAML::Node tune = root["tune"]) {
    const Origin at = origin_of(file, tune);
    if (!tune.IsMap()) {
      errors.push_back(
          error_at(at, "tune", "expected a mapping: tune: {params: {PATH: [LO, HI]}}"));
    } else {
      for (const auto& kv : tune) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
        if (key == "params") continue;
        std::string msg = "unknown key '" + key + "'";
        if (auto hint = config::did_you_mean(key, {"params"}))
          msg += " (did you mean '" + *hint + "'?)";
        errors.push_back(error_at(origin_of(file, kv.first), "tune", msg));
      }
      const YAML::Node params = tune["params"];
      if (params && !params.IsMap())
        errors.push_back(error_at(origin_of(file, params), "tune.params",
                                  "expected a mapping of PATH: [LO, HI]"));
      if (params && params.IsMap())
        for (const auto& kv : params) {
          const std::string path = kv.first.Scalar();
          const YAML::Node& range = kv.second;
          if (!range.IsSequence() || range.size() != 2 || !range[0].IsScalar() ||
              !range[1].IsScalar()) {
            errors.push_back(error_at(origin_of(file, range), "tune.params." + path,
                                      "expected a range [LO, HI]"));
            continue;
          }
          add(Request{path, range[0].Scalar(), range[1].Scalar(), origin_of(file, kv.first)});
        }
    }
  }
  for (const auto& arg : cli_params) {
    const Origin at{"--param " + arg, 0, 0, true};
    const auto eq = arg.find('=');
    const auto dots = eq == std::string::npos ? std::string::npos : arg.find("..", eq + 1);
    if (eq == std::string::npos || dots == std::string::npos) {
      errors.push_back(
          error_at(at, {}, "expected PATH=LO..HI (e.g. controllers.skin_pid.kp=0.2..2)"));
      continue;
    }
    add(Request{arg.substr(0, eq), arg.substr(eq + 1, dots - eq - 1), arg.substr(dots + 2), at});
  }
  if (requests.empty() && errors.empty())
    errors.push_back(ConfigError{std::string(file),
                                 0,
                                 0,
                                 {},
                                 "nothing to tune: give --param PATH=LO..HI or a `tune: {params: "
                                 "{PATH: [LO, HI]}}` block"});
  for (const auto& r : requests) {
    TuneParam p;
    p.path = r.path;
    auto segments = split_path(r.path);
    std::string why;
    if (auto* e = std::get_if<std::string>(&segments)) {
      why = *e;
    } else {
      why = resolve(doc, r.path, std::get<std::vector<Segment>>(segments), p);
      if (why.empty()) why = check_range(p, r.lo, r.hi);
    }
    if (!why.empty()) {
      errors.push_back(
          error_at(r.origin, r.origin.cli ? std::string() : "tune.params." + r.path, why));
      continue;
    }
    for (const auto& other : problem.params)
      if (other.offset == p.offset)
        why = fmt::format("'{}' is the same value as '{}'", p.path, other.path);
    if (!why.empty()) {
      errors.push_back(error_at(r.origin, {}, why));
      continue;
    }
    problem.params.push_back(std::move(p));
  }
  if (!errors.empty()) return errors;
  return problem;
}

}  // namespace coolhand::sim
