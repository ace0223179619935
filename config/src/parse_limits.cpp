// `limits:` — the policy's named limits, e.g. `limits: {skin_c: 45,
// battery_c: 45}`. Each key ends in `_c` like every temperature key; the
// name without it is what temperatures are written against ("skin - 0.5",
// limit_expr.h). A limit's value is a plain number of °C: limits do not
// refer to each other, so each is one number to change when porting.
#include <string>
#include <utility>
#include <vector>

#include "parsers.h"

namespace coolhand::config::detail {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  const auto start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!start(name.front())) return false;
  for (const char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace

void parse_limits(Context& ctx, const Entry& section, PolicyDocument& doc) {
  Fields f(ctx, section.value, section.key_node.Mark(), "limits", {},
           "'limits' (name_c: temperature pairs)");
  if (!f.is_map()) return;
  std::vector<NamedLimit> limits;
  for (const Entry& e : f.entries()) {
    const std::string_view key = e.key;
    const bool suffixed = key.size() > 2 && key.substr(key.size() - 2) == "_c";
    const std::string_view name = suffixed ? key.substr(0, key.size() - 2) : key;
    if (!suffixed || !valid_name(name)) {
      ctx.error(e.key_node.Mark(), f.key_path(e.key),
                "a limit's name is a word ending in _c, the unit (e.g. skin_c: 45)");
      continue;
    }
    const auto value = f.celsius(e.key, {}, true);
    if (!value) continue;
    limits.push_back(NamedLimit{std::string(name), *value});
    doc.limits.emplace(std::string(name), *value);
  }
  ctx.set_limits(std::move(limits));
}

}  // namespace coolhand::config::detail
