// The public entry points of the policy language: text -> yaml-cpp tree ->
// PolicyDocument (shape checks) -> Engine::compile (meaning checks), with
// every error reported as file:line:column: key: message.
#include "coolhand/config/policy_file.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <tuple>

#include "coolhand/config/yaml_input.h"
#include "coolhand/policy/engine.h"
#include "fields.h"
#include "parsers.h"

namespace coolhand::config {

namespace {

// Errors are listed in file order; errors at the same place keep the order
// they were found in.
void sort_by_position(std::vector<ConfigError>& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
}

}  // namespace

LoadResult parse_policy(std::string_view text, std::string_view file) {
  LoadResult result;
  detail::YamlInput input = detail::read_yaml(text, file);
  if (!input.root) {
    result.errors = std::move(input.errors);
    return result;
  }
  detail::Context ctx(file);
  PolicyDocument doc;
  try {
    doc = detail::parse_document(ctx, *input.root);
  } catch (const YAML::Exception& e) {
    // Node access does not throw on the checked paths above; this is the
    // last line of defence for the API's no-throw promise.
    ctx.error(e.mark, {}, e.msg);
  }
  if (ctx.failed()) {
    result.errors = ctx.take_errors();
    sort_by_position(result.errors);
    return result;
  }

  // Only a well-formed document is compiled: with shape errors the engine
  // would report follow-on errors (e.g. a reference to a sensor whose entry
  // was malformed) that only add noise.
  const policy::CompileResult compiled = policy::Engine::compile(doc.spec);
  for (const policy::SpecError& e : compiled.errors) {
    ctx.error(ctx.locate(e.path, e.key), e.message);
  }
  if (ctx.failed()) {
    result.errors = ctx.take_errors();
    sort_by_position(result.errors);
    return result;
  }
  result.document = std::move(doc);
  return result;
}

LoadResult load_policy_file(const std::string& path) {
  const auto fail = [&](std::string message) {
    LoadResult result;
    result.errors.push_back(ConfigError{path, 0, 0, {}, std::move(message)});
    return result;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("is a directory, not a policy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open: " + std::generic_category().message(errno));
  // Read one byte past the limit so read_yaml can tell an oversized file.
  std::string text(detail::kMaxTextBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return fail("read error");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parse_policy(text, path);
}

}  // namespace coolhand::config
