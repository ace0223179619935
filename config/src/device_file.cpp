// Device descriptions: text -> yaml-cpp tree -> DeviceDescription, with the
// policy language's error reporting (file:line:column: key: message).
#include "coolhand/config/device_file.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "coolhand/config/yaml_input.h"
#include "fields.h"
#include "parsers.h"

namespace coolhand::config {

namespace {

using detail::Context;
using detail::Entry;
using detail::Fields;

// role: {cite: "...", bind: [{kind: ...}, ...]}; `bind` may be one map.
template <typename T, typename ParseOne>
void parse_roles(Context& ctx, const Entry& section, const std::string& what,
                 std::map<std::string, Role<T>, std::less<>>& out, ParseOne parse_one) {
  detail::for_each_named(ctx, section, section.key, [&](const Entry& e, std::size_t) {
    const std::string path = section.key + "." + e.key;
    Fields f(ctx, e.value, e.key_node.Mark(), path, {}, what + " role '" + e.key + "'");
    if (!f.is_map()) return;
    f.allow({"cite", "bind"});
    Role<T> role;
    if (auto c = f.string("cite", {}, true)) role.cite = *c;
    if (role.cite.empty() && f.has("cite")) f.invalid(*f.find("cite"), "must name a source");
    if (const Entry* b = f.find("bind")) {
      const YAML::Mark at = f.value_mark(*b);
      if (b->value.IsMap()) {
        role.candidates.push_back(parse_one(ctx, b->value, at, path + ".bind"));
      } else if (b->value.IsSequence() && b->value.size() > 0) {
        std::size_t i = 0;
        for (const YAML::Node& n : b->value) {
          role.candidates.push_back(parse_one(ctx, n, at, detail::index_path(path + ".bind", i++)));
        }
      } else {
        f.invalid(*b, "expected a candidate map or a non-empty list of them");
      }
    } else {
      f.missing("bind", "the hardware that plays this role");
    }
    out.insert_or_assign(e.key, std::move(role));
  });
}

DeviceDescription parse_root(Context& ctx, const YAML::Node& root) {
  DeviceDescription d;
  Fields f(ctx, root, YAML::Mark{}, {}, {}, "the device description");
  if (!f.is_map()) return d;
  f.allow({"version", "id", "name", "policy", "match", "sensors", "knobs"});
  if (auto v = f.uint32("version", {}, true); v && *v != detail::kSchemaVersion) {
    f.invalid(*f.find("version"), "unsupported version (this coolhand reads version 1)");
  }
  if (auto v = f.string("id", {}, true)) d.id = *v;
  if (auto v = f.string("name", {}, true)) d.name = *v;
  if (auto v = f.string("policy", {}, true)) {
    if (v->find('/') != std::string::npos || v->empty() || v->front() == '.') {
      f.invalid(*f.find("policy"), "a policy name (config/policies/<name>.yaml), not a path");
    }
    d.policy = *v;
  }
  if (const Entry* m = f.find("match")) {
    Fields mf(ctx, m->value, m->key_node.Mark(), "match", {}, "the DMI match");
    if (mf.is_map()) {
      mf.allow({kDmiKeys[0], kDmiKeys[1], kDmiKeys[2]});
      for (std::string_view key : kDmiKeys) {
        if (auto v = mf.string(key, {})) d.match.emplace(std::string(key), *v);
      }
    }
  } else {
    f.missing("match", "give {} for the generic fallback");
  }
  if (const Entry* s = f.find("sensors")) {
    parse_roles(ctx, *s, "sensor", d.sensors, detail::parse_source_hardware);
  }
  if (const Entry* k = f.find("knobs")) {
    parse_roles(ctx, *k, "knob", d.knobs, detail::parse_knob_hardware);
  }
  return d;
}

}  // namespace

DeviceLoadResult parse_device_description(std::string_view text, std::string_view file) {
  DeviceLoadResult result;
  detail::YamlInput input =
      detail::read_yaml(text, file, {"device description", "version: 1, id: ..., ..."});
  if (!input.root) {
    result.errors = std::move(input.errors);
    return result;
  }
  Context ctx(file);
  DeviceDescription d;
  try {
    d = parse_root(ctx, *input.root);
  } catch (const YAML::Exception& e) {
    ctx.error(e.mark, {}, e.msg);
  }
  if (ctx.failed()) {
    result.errors = ctx.take_errors();
    std::stable_sort(result.errors.begin(), result.errors.end(),
                     [](const ConfigError& a, const ConfigError& b) {
                       return a.line != b.line ? a.line < b.line : a.column < b.column;
                     });
    return result;
  }
  result.description = std::move(d);
  return result;
}

DeviceLoadResult load_device_file(const std::string& path) {
  const auto fail = [&](std::string message) {
    DeviceLoadResult result;
    result.errors.push_back(ConfigError{path, 0, 0, {}, std::move(message)});
    return result;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("is a directory, not a device file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open: " + std::generic_category().message(errno));
  std::string text(detail::kMaxTextBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return fail("read error");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_device_description(text, path);
}

}  // namespace coolhand::config
