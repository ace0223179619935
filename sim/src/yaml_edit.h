// Edits of a YAML text in place, located by the parser's marks: the text is
// read once through config's YAML front end (read_yaml: UTF-8, depth and
// node guards, no anchors or aliases), each edit replaces or inserts at
// byte offsets worked out from the nodes' line and column, and everything
// else (comments, blank lines, key order, flow or block style) is kept
// byte for byte. For `coolhand-sim port` (port_yaml.h), which edits the
// user's model and policy and must leave them readable, and for `tune`'s
// parameters (tune_params.cpp), which locates its scalars here.
//
// Errors are YamlFail (yaml_reader.h) at the node concerned, turned into a
// file:line:column ConfigError at the caller's boundary.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coolhand::sim::detail {

// A mapping entry: its key node and its value node (the value may be null).
struct YamlEntry {
  YAML::Node key;
  YAML::Node value;
};

class YamlText {
 public:
  // `root` must be config::detail::read_yaml's tree of `text`.
  YamlText(std::string text, std::string file, const YAML::Node& root);

  [[nodiscard]] const YAML::Node& root() const { return root_; }
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& text() const { return text_; }

  // The entry `key` of the mapping `map`, or nullopt when it has none.
  [[nodiscard]] static std::optional<YamlEntry> find(const YAML::Node& map, std::string_view key);

  // Inserts `entries` at the start of the collection `entry.value` (a
  // mapping or a sequence, block or flow style): each a one-line YAML
  // text, "key: value" for a mapping, the item for a sequence (written in
  // flow style, so that it fits either). In block style they go on lines
  // of their own right under the key, at the collection's indentation.
  void insert_first(const YamlEntry& entry, const std::vector<std::string>& entries);
  // Inserts `entries` ("key: value" lines, as above) into the root mapping:
  // at the end of a block root, after the brace of a flow one.
  void insert_in_root(const std::vector<std::string>& entries);
  // Replaces the scalar `value` (plain or quoted, on one line) with `text`.
  void replace_scalar(const YAML::Node& value, const std::string& text);
  // The bytes [first, second) of the text that the scalar `value` (plain or
  // quoted, on one line; quotes included) is written in: what
  // replace_scalar replaces. For tune (tune_params.cpp), which splices
  // each candidate's values into these spans.
  [[nodiscard]] std::pair<std::size_t, std::size_t> scalar_span(const YAML::Node& value) const;
  // Replaces the whole entry `entry` of the mapping `map`: in a block
  // mapping by `block_lines` (the entry as it should read, comments above
  // its key included, indented from column 0; they are indented to the
  // key's column), in a flow mapping its value by `flow_value`. In a block
  // mapping the comment lines right above the key, at its indentation,
  // that start with `replaced_comment` (when not empty) are replaced too:
  // a comment that `block_lines` bring again is then not stacked on the
  // one an earlier edit wrote.
  void replace_entry(const YAML::Node& map, const YamlEntry& entry,
                     const std::vector<std::string>& block_lines, const std::string& flow_value,
                     std::string_view replaced_comment = {});

  // The lines of a block mapping's entry as written (the comment lines
  // right above its key, the key, its value up to its last line with
  // content), indented from column 0, the key renamed to `as`. The mapping
  // must be block style.
  [[nodiscard]] std::vector<std::string> entry_lines(const YamlEntry& entry,
                                                     const std::string& as) const;

  // The text with every edit made (edits never overlap: each names a node
  // of the original text).
  [[nodiscard]] std::string edited() const;

 private:
  struct Edit {
    std::size_t begin = 0, end = 0;
    std::string text;
  };
  [[nodiscard]] std::size_t offset(const YAML::Mark& m) const;
  [[nodiscard]] std::size_t line_start(std::size_t offset) const;
  [[nodiscard]] std::size_t line_end(std::size_t offset) const;
  // Where the value of `entry` ends (one past its last byte, before its
  // line's newline): a flow collection's closing bracket, a scalar's last
  // character, a block collection's last line with content.
  [[nodiscard]] std::size_t value_end(const YAML::Node& value) const;
  [[nodiscard]] std::size_t flow_end(const YAML::Node& value) const;
  [[nodiscard]] std::size_t scalar_end(const YAML::Node& value) const;
  [[nodiscard]] std::size_t block_end(const YAML::Node& value) const;
  void add(Edit e);

  std::string text_;
  std::string file_;
  YAML::Node root_;
  std::size_t bom_ = 0;  // a UTF-8 byte order mark's bytes (yaml-cpp's marks leave it out)
  std::vector<std::size_t> lines_;  // offset of each line's first byte
  std::vector<Edit> edits_;
};

}  // namespace coolhand::sim::detail
