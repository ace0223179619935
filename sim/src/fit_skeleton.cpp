// Skeleton YAML -> FitSkeleton (fit.h). A skeleton is a model file in the
// simulator's format in which numbers to fit are the plain word `free`.
//
// Rules: the text goes through config's YAML front end once, to find every
// plain scalar `free` and check it stands where a fitted number may
// (capacity_j_per_k, to_ambient_w_per_k, a link's w_per_k, idle_w, an entry
// of power_w). Each such word is then set to a placeholder number in that
// same node tree (a YAML::Node is a handle: assigning writes into the
// document), and the tree is checked by the model loader (parse_model's
// checks after its read_yaml), so the skeleton has exactly the model
// format's checks and its errors keep the file's own line and column; the
// text is parsed once. A `free` anywhere else is an error at it (after the
// model's own checks, so a misspelt key is named as such).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "coolhand/config/yaml_input.h"
#include "coolhand/sim/fit.h"
#include "model_parse.h"
#include "yaml_reader.h"

namespace coolhand::sim {

namespace {

constexpr std::string_view kFree = "free";
constexpr const char* kPlaceholder = "1";  // any number the model accepts everywhere free is

struct FreeAt {
  FreeParam param;
  std::size_t pos = 0;
};

bool is_free(const YAML::Node& n, std::string_view text) {
  if (!n || !n.IsScalar() || n.Scalar() != kFree) return false;
  const auto pos = static_cast<std::size_t>(n.Mark().pos);
  return text.substr(pos, kFree.size()) == kFree;  // plain, not quoted
}

void note(std::vector<FreeAt>& out, const YAML::Node& n, std::string_view text,
          FreeParam::Kind kind, std::size_t index, std::size_t level = 0) {
  if (!is_free(n, text)) return;
  FreeAt f;
  f.param.kind = kind;
  f.param.index = index;
  f.param.level = level;
  f.pos = static_cast<std::size_t>(n.Mark().pos);
  out.push_back(f);
}

// The places a fitted number may stand, in file order.
std::vector<FreeAt> find_allowed(const YAML::Node& root, std::string_view text) {
  std::vector<FreeAt> out;
  using K = FreeParam::Kind;
  if (const auto nodes = root["nodes"]; nodes && nodes.IsSequence())
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!nodes[i].IsMap()) continue;
      note(out, nodes[i]["capacity_j_per_k"], text, K::capacity, i);
      note(out, nodes[i]["to_ambient_w_per_k"], text, K::to_ambient, i);
    }
  if (const auto links = root["links"]; links && links.IsSequence())
    for (std::size_t i = 0; i < links.size(); ++i)
      if (links[i].IsMap()) note(out, links[i]["w_per_k"], text, K::link, i);
  if (const auto devices = root["devices"]; devices && devices.IsSequence())
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (!devices[i].IsMap()) continue;
      note(out, devices[i]["idle_w"], text, K::idle, i);
      if (const auto p = devices[i]["power_w"]; p && p.IsSequence())
        for (std::size_t l = 0; l < p.size(); ++l) note(out, p[l], text, K::power, i, l);
    }
  return out;
}

// Every plain `free` in the document (keys included), for the check that
// none stands where no number is fitted.
void find_all(const YAML::Node& n, std::string_view text, std::vector<YAML::Node>& out) {
  if (n.IsScalar()) {
    if (is_free(n, text)) out.push_back(n);
    return;
  }
  if (n.IsSequence())
    for (const auto& e : n) find_all(e, text, out);
  if (n.IsMap())
    for (const auto& kv : n) {
      find_all(kv.first, text, out);
      find_all(kv.second, text, out);
    }
}

std::string param_name(const ModelSpec& m, const FreeParam& p) {
  switch (p.kind) {
    case FreeParam::Kind::capacity:
      return m.nodes[p.index].name + ".capacity_j_per_k";
    case FreeParam::Kind::to_ambient:
      return m.nodes[p.index].name + ".to_ambient_w_per_k";
    case FreeParam::Kind::link:
      return "link " + m.links[p.index].a + "-" + m.links[p.index].b + ".w_per_k";
    case FreeParam::Kind::idle:
      return m.devices[p.index].name + ".idle_w";
    case FreeParam::Kind::power:
      return m.devices[p.index].name + ".power_w[" + std::to_string(p.level) + "]";
  }
  return {};
}

}  // namespace

std::variant<FitSkeleton, config::ConfigError> parse_skeleton(std::string_view text,
                                                              std::string_view file) {
  auto input = config::detail::read_yaml(text, file, {"skeleton", "name: ..., nodes: ..."});
  if (!input.root) return input.errors.front();
  std::vector<FreeAt> allowed;
  std::vector<YAML::Node> all;
  try {
    allowed = find_allowed(*input.root, text);
    find_all(*input.root, text, all);
  } catch (const YAML::Exception& e) {
    return detail::to_error(file, e.mark, e.msg);
  }
  // Every `free` becomes a number, so a typo in a key next to one is the
  // model loader's error (unknown key, with its hint), reported first.
  for (auto& n : all) n = kPlaceholder;  // writes the scalar in the tree; its mark stays
  auto parsed = detail::parse_model_tree(*input.root, file);
  if (auto* e = std::get_if<config::ConfigError>(&parsed)) return *e;
  for (const auto& n : all) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a.pos == static_cast<std::size_t>(n.Mark().pos);
    if (!ok)
      return detail::to_error(file, n.Mark(),
                              "only capacity_j_per_k, to_ambient_w_per_k, a link's w_per_k, "
                              "idle_w and power_w entries can be free");
  }
  FitSkeleton sk;
  sk.spec = std::get<ModelSpec>(std::move(parsed));
  for (auto& a : allowed) {
    a.param.name = param_name(sk.spec, a.param);
    sk.free.push_back(a.param);
  }
  return sk;
}

std::variant<FitSkeleton, config::ConfigError> load_skeleton_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return config::ConfigError{path, 0, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_skeleton(ss.str(), path);
}

}  // namespace coolhand::sim
