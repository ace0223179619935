// Edits of a YAML text in place (yaml_edit.h). yaml-cpp gives each node the
// line and column where it starts, not where it ends; the end is found from
// the style the parser reports:
//   - a scalar ends where its text does: a plain one's source is its value
//     (one line), a quoted one ends at its closing quote;
//   - a flow collection ([...] or {...}) at its matching bracket, quoted
//     strings and comments skipped;
//   - a block collection at its last line with content (not blank, not
//     only a comment) before the first line indented less than it (or, for
//     a sequence, as much but not an item "- "). Comment lines after that
//     last line belong to what follows, and stay.
#include "yaml_edit.h"

#include <algorithm>

#include "yaml_reader.h"

namespace coolhand::sim::detail {

namespace {

bool all_spaces(std::string_view s) {
  return s.find_first_not_of(' ') == std::string_view::npos;
}

// A line's text after its indentation; empty for a blank line.
std::string_view content(std::string_view line) {
  const auto i = line.find_first_not_of(' ');
  return i == std::string_view::npos ? std::string_view{} : line.substr(i);
}

bool is_comment_or_blank(std::string_view line) {
  const auto c = content(line);
  return c.empty() || c.front() == '#' || c == "\r";
}

}  // namespace

YamlText::YamlText(std::string text, std::string file, const YAML::Node& root)
    : text_(std::move(text)), file_(std::move(file)), root_(root) {
  if (text_.starts_with("\xEF\xBB\xBF")) bom_ = 3;
  lines_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lines_.push_back(i + 1);
}

std::optional<YamlEntry> YamlText::find(const YAML::Node& map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return YamlEntry{it->first, it->second};
  return std::nullopt;
}

std::size_t YamlText::offset(const YAML::Mark& m) const {
  const auto line = static_cast<std::size_t>(std::max(m.line, 0));
  if (line >= lines_.size()) return text_.size();
  return std::min(text_.size(), lines_[line] + static_cast<std::size_t>(std::max(m.column, 0)) +
                                    (line == 0 ? bom_ : 0));
}

std::size_t YamlText::line_start(std::size_t offset) const {
  const auto it = std::upper_bound(lines_.begin(), lines_.end(), offset);
  return *(it - 1);
}

std::size_t YamlText::line_end(std::size_t offset) const {
  const auto nl = text_.find('\n', offset);
  return nl == std::string::npos ? text_.size() : nl;
}

std::size_t YamlText::scalar_end(const YAML::Node& value) const {
  const std::size_t b = offset(value.Mark());
  const char quote = b < text_.size() ? text_[b] : '\0';
  if (quote == '"' || quote == '\'') {
    for (std::size_t j = b + 1; j < text_.size(); ++j) {
      if (quote == '"' && text_[j] == '\\') {
        ++j;
      } else if (text_[j] == quote) {
        if (quote == '\'' && j + 1 < text_.size() && text_[j + 1] == '\'') {
          ++j;
          continue;
        }
        return j + 1;
      }
    }
  } else if (text_.compare(b, value.Scalar().size(), value.Scalar()) == 0) {
    return b + value.Scalar().size();
  }
  fail(value, "cannot edit this value in place (a plain or quoted scalar on one line can be)");
}

std::size_t YamlText::flow_end(const YAML::Node& value) const {
  const char open = value.IsMap() ? '{' : '[';
  std::size_t j = text_.find(open, offset(value.Mark()));
  int depth = 0;
  for (; j < text_.size(); ++j) {
    const char c = text_[j];
    if (c == '"' || c == '\'') {
      for (++j; j < text_.size() && text_[j] != c; ++j)
        if (c == '"' && text_[j] == '\\') ++j;
    } else if (c == '#' && (text_[j - 1] == ' ' || text_[j - 1] == '\t' || text_[j - 1] == '\n')) {
      j = line_end(j);
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return j + 1;
    }
  }
  fail(value, "no closing bracket for this flow collection");
}

std::size_t YamlText::block_end(const YAML::Node& value) const {
  const std::size_t b = offset(value.Mark());
  const auto indent = static_cast<std::size_t>(value.Mark().column);
  std::size_t last = line_end(b);
  for (std::size_t p = last + 1; p < text_.size(); p = line_end(p) + 1) {
    const std::string_view line(text_.data() + p, line_end(p) - p);
    if (is_comment_or_blank(line)) continue;
    const std::string_view c = content(line);
    const std::size_t at = line.size() - c.size();
    if (at < indent) break;
    const bool item = c.front() == '-' && (c.size() == 1 || c[1] == ' ');
    if (value.IsSequence() && at == indent && !item) break;
    if (at == 0 && (c.starts_with("---") || c.starts_with("..."))) break;
    last = line_end(p);
  }
  return last;
}

std::size_t YamlText::value_end(const YAML::Node& value) const {
  if (value.IsScalar()) return scalar_end(value);
  if (!value.IsMap() && !value.IsSequence()) fail(value, "cannot edit an empty value in place");
  return value.Style() == YAML::EmitterStyle::Flow ? flow_end(value) : block_end(value);
}

void YamlText::add(Edit e) {
  for (const auto& o : edits_)
    if (e.begin < o.end && o.begin < e.end) fail(root_, "internal: overlapping edits");
  edits_.push_back(std::move(e));
}

void YamlText::insert_first(const YamlEntry& entry, const std::vector<std::string>& entries) {
  const YAML::Node& v = entry.value;
  const std::string key = entry.key.Scalar();
  if (!v.IsMap() && !v.IsSequence())
    fail(entry.key, "'" + key + "' is not a mapping or a list: cannot add to it");
  std::string text;
  if (v.Style() == YAML::EmitterStyle::Flow) {
    const std::size_t at = text_.find(v.IsMap() ? '{' : '[', offset(v.Mark()));
    for (const auto& e : entries) text += e + ", ";
    if (v.size() == 0 && !text.empty()) text.resize(text.size() - 2);
    add({at + 1, at + 1, text});
    return;
  }
  if (v.Mark().line == entry.key.Mark().line)
    fail(v, "'" + key + "' starts on its key's line: cannot add to it in place");
  const std::string indent(static_cast<std::size_t>(v.Mark().column), ' ');
  for (const auto& e : entries) {
    text += indent;
    text += v.IsSequence() ? "- " : "";
    text += e;
    text += "\n";
  }
  const std::size_t at = lines_[static_cast<std::size_t>(entry.key.Mark().line) + 1];
  add({at, at, text});
}

void YamlText::insert_in_root(const std::vector<std::string>& entries) {
  std::string text;
  if (root_.Style() == YAML::EmitterStyle::Flow) {
    const std::size_t at = text_.find('{', offset(root_.Mark()));
    for (const auto& e : entries) text += e + ", ";
    add({at + 1, at + 1, text});
    return;
  }
  if (!text_.empty() && text_.back() != '\n') text += "\n";
  const std::string indent(static_cast<std::size_t>(root_.Mark().column), ' ');
  for (const auto& e : entries) text += indent + e + "\n";
  add({text_.size(), text_.size(), text});
}

void YamlText::replace_scalar(const YAML::Node& value, const std::string& text) {
  const auto [begin, end] = scalar_span(value);
  add({begin, end, text});
}

std::pair<std::size_t, std::size_t> YamlText::scalar_span(const YAML::Node& value) const {
  if (!value.IsScalar()) fail(value, "expected a number or a name here");
  return {offset(value.Mark()), scalar_end(value)};
}

void YamlText::replace_entry(const YAML::Node& map, const YamlEntry& entry,
                             const std::vector<std::string>& block_lines,
                             const std::string& flow_value, std::string_view replaced_comment) {
  if (map.Style() == YAML::EmitterStyle::Flow) {
    add({offset(entry.value.Mark()), value_end(entry.value), flow_value});
    return;
  }
  const std::size_t k = offset(entry.key.Mark());
  const std::size_t begin = line_start(k);
  if (!all_spaces(std::string_view(text_).substr(begin, k - begin)))
    fail(entry.key, "'" + entry.key.Scalar() + "' does not start its line: cannot replace it");
  const std::string indent(k - begin, ' ');
  std::size_t from = begin;
  while (!replaced_comment.empty() && from > 0) {
    const std::size_t prev = line_start(from - 1);
    const std::string_view line(text_.data() + prev, from - 1 - prev);
    if (!line.starts_with(indent) || !line.substr(indent.size()).starts_with(replaced_comment))
      break;
    from = prev;
  }
  std::string text;
  for (std::size_t i = 0; i < block_lines.size(); ++i)
    text += (i ? "\n" : "") + (block_lines[i].empty() ? "" : indent) + block_lines[i];
  add({from, value_end(entry.value), text});
}

std::vector<std::string> YamlText::entry_lines(const YamlEntry& entry,
                                               const std::string& as) const {
  const std::size_t k = offset(entry.key.Mark());
  std::size_t begin = line_start(k);
  const std::size_t indent = k - begin;
  if (!all_spaces(std::string_view(text_).substr(begin, indent)))
    fail(entry.key, "'" + entry.key.Scalar() + "' does not start its line");
  std::size_t comments = 0;
  while (begin > 0) {
    const std::size_t prev = line_start(begin - 1);
    const std::string_view line(text_.data() + prev, begin - 1 - prev);
    if (content(line).empty() || content(line).front() != '#') break;
    begin = prev;
    ++comments;
  }
  const std::size_t end = value_end(entry.value);
  std::vector<std::string> out;
  for (std::size_t p = begin; p <= end; p = line_end(p) + 1) {
    const std::string_view line(text_.data() + p, std::min(line_end(p), end) - p);
    if (all_spaces(line)) {
      out.emplace_back();
    } else if (line.size() >= indent && all_spaces(line.substr(0, indent))) {
      out.emplace_back(line.substr(indent));
    } else {
      fail(entry.key, "'" + entry.key.Scalar() + "': a line is indented less than its key");
    }
  }
  std::string& key_line = out[comments];
  const std::string& key = entry.key.Scalar();
  if (!key_line.starts_with(key + ":"))
    fail(entry.key, "'" + key + "': only a plain key can be renamed");
  key_line.replace(0, key.size(), as);
  return out;
}

std::string YamlText::edited() const {
  std::vector<const Edit*> order;
  order.reserve(edits_.size());
  for (const auto& e : edits_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Edit* a, const Edit* b) { return a->begin > b->begin; });
  std::string out = text_;
  for (const Edit* e : order) out.replace(e->begin, e->end - e->begin, e->text);
  return out;
}

}  // namespace coolhand::sim::detail
