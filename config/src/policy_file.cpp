// The public entry points of the policy language: text -> yaml-cpp tree ->
// PolicyDocument (shape checks) -> Engine::compile (meaning checks), with
// every error reported as file:line:column: key: message.
#include "coolhand/config/policy_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
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
  // "No such file or directory (ENOENT)": the reason and errno's name.
  const auto sys_message = [](std::string_view what, int err) {
    const char* name = strerrorname_np(err);
    return std::string(what) + ": " + std::strerror(err) + " (" + (name ? name : "?") + ")";
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(sys_message("cannot open", errno));
  struct stat st {};
  if (::fstat(fd, &st) < 0) {
    const int err = errno;
    ::close(fd);
    return fail(sys_message("cannot stat", err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fail("is a directory, not a policy file");
  }
  // Read at most one byte past the limit so read_yaml can tell an oversized
  // file; the buffer grows with what is read, never zero-filled up front.
  std::string text;
  if (S_ISREG(st.st_mode) && st.st_size >= 0)
    text.reserve(
        std::min<std::size_t>(static_cast<std::size_t>(st.st_size), detail::kMaxTextBytes) + 1);
  std::array<char, 16384> buf{};
  while (text.size() <= detail::kMaxTextBytes) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fail(sys_message("cannot read", err));
    }
    if (n == 0) break;
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (text.size() > detail::kMaxTextBytes + 1) text.resize(detail::kMaxTextBytes + 1);
  return parse_policy(text, path);
}

}  // namespace coolhand::config
