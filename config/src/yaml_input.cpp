// Raw text -> yaml-cpp node tree, with the guards described in yaml_input.h.
#include "coolhand/config/yaml_input.h"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <string>

namespace coolhand::config::detail {
namespace {

ConfigError make_error(std::string_view file, int line, int column, std::string message) {
  return ConfigError{std::string(file), line, column, {}, std::move(message)};
}

// Finds the first byte that is not part of well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) or is a NUL.
// Returns its offset, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return i;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c1 < lo || c1 > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      const auto ck = static_cast<unsigned char>(s[i + k]);
      if (ck < 0x80 || ck > 0xbf) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

// 1-based line and column (in bytes) of an offset.
std::pair<int, int> position_of(std::string_view s, std::size_t offset) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < offset && i < s.size(); ++i) {
    if (s[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// Thrown by the pre-pass to stop yaml-cpp at the first forbidden construct.
struct Rejected {
  YAML::Mark mark;
  std::string message;
};

// Walks the event stream and rejects what the policy language does not
// accept: nesting deeper than kMaxDepth, more than kMaxNodes nodes, anchors
// and aliases.
class Guard final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { document_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { node(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw Rejected{mark, "aliases (*name) are not supported; write the value out"};
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    node(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    enter(mark, anchor);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    enter(mark, anchor);
  }
  void OnMapEnd() override { --depth_; }
  void OnAnchor(const YAML::Mark& mark, const std::string&) override {
    throw Rejected{mark, "anchors (&name) are not supported; write the value out"};
  }

  // Where the latest document started.
  [[nodiscard]] const YAML::Mark& document() const { return document_; }

 private:
  void node(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) {
      throw Rejected{mark, "anchors (&name) are not supported; write the value out"};
    }
    if (++nodes_ > kMaxNodes) {
      throw Rejected{mark, "more than " + std::to_string(kMaxNodes) + " YAML nodes"};
    }
  }
  void enter(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node(mark, anchor);
    if (++depth_ > kMaxDepth) {
      throw Rejected{mark, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels"};
    }
  }

  int depth_ = 0;
  std::size_t nodes_ = 0;
  YAML::Mark document_;
};

int one_based(int v) {
  return v < 0 ? 1 : v + 1;
}

}  // namespace

YamlInput read_yaml(std::string_view text, std::string_view file, const DocumentKind& kind) {
  const std::string noun(kind.noun);
  YamlInput out;
  if (text.size() > kMaxTextBytes) {
    out.errors.push_back(
        make_error(file, 1, 1, "file is larger than " + std::to_string(kMaxTextBytes) + " bytes"));
    return out;
  }
  // A UTF-8 byte order mark is allowed and skipped by yaml-cpp.
  const std::size_t bad = first_invalid_utf8(text);
  if (bad != std::string_view::npos) {
    const auto [line, column] = position_of(text, bad);
    out.errors.push_back(make_error(
        file, line, column,
        text[bad] == '\0' ? "NUL byte in " + noun + " text" : noun + " text is not valid UTF-8"));
    return out;
  }

  const std::string owned(text);
  try {
    std::istringstream events(owned);
    YAML::Parser parser(events);
    Guard guard;
    int documents = 0;
    while (parser.HandleNextDocument(guard)) {
      if (++documents > 1) {
        out.errors.push_back(
            make_error(file, one_based(guard.document().line), one_based(guard.document().column),
                       "more than one YAML document ('---'); a " + noun + " is one document"));
        return out;
      }
    }
    YAML::Node root = YAML::Load(owned);
    if (!root.IsMap()) {
      const YAML::Mark m = root.Mark();
      out.errors.push_back(make_error(file, one_based(m.line), one_based(m.column),
                                      root.IsNull() || !root.IsDefined()
                                          ? noun + " is empty"
                                          : "the " + noun + " must be a mapping of keys (" +
                                                std::string(kind.first_keys) + ")"));
      return out;
    }
    out.root = std::move(root);
  } catch (const Rejected& r) {
    out.errors.push_back(
        make_error(file, one_based(r.mark.line), one_based(r.mark.column), r.message));
  } catch (const YAML::Exception& e) {
    out.errors.push_back(make_error(file, one_based(e.mark.line), one_based(e.mark.column), e.msg));
  }
  return out;
}

}  // namespace coolhand::config::detail
