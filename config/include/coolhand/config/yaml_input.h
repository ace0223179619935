// The one YAML front end: the boundary between raw text and yaml-cpp for
// the policy language and the simulator's model files. Checks the bytes are
// UTF-8, walks the event stream once with a depth limit (so hostile input
// cannot make yaml-cpp recurse deeply while building nodes) and a node
// budget (so it cannot make yaml-cpp allocate without bound), rejects anchors,
// aliases and multiple documents, and then builds the node tree. Every
// yaml-cpp exception is caught here and becomes an error value.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string_view>
#include <vector>

#include "coolhand/config/error.h"

namespace coolhand::config::detail {

// Deepest nesting of mappings and sequences accepted. A policy needs about 6.
inline constexpr int kMaxDepth = 32;
// Largest policy text accepted, in bytes. A real policy is a few KiB.
inline constexpr std::size_t kMaxTextBytes = std::size_t{1024} * 1024;
// Most YAML nodes (scalars, lists, mappings) accepted. A real policy has a
// few thousand; yaml-cpp needs some hundred bytes and noticeable time per
// node, so this bounds the cost of hostile input before the tree is built.
inline constexpr std::size_t kMaxNodes = 100'000;

struct YamlInput {
  std::optional<YAML::Node> root;  // set iff errors is empty
  std::vector<ConfigError> errors;
};

// What the document is, for messages: "policy text is not valid UTF-8",
// "the model must be a mapping of keys (name: ..., ...)".
struct DocumentKind {
  std::string_view noun = "policy";
  std::string_view first_keys = "version: 1, ...";
};

// The root must be a mapping. `file` is only used in error messages.
[[nodiscard]] YamlInput read_yaml(std::string_view text, std::string_view file,
                                  const DocumentKind& kind = {});

}  // namespace coolhand::config::detail
