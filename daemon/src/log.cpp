// Logger and SysError formatting.
#include "log.h"

#include <cstring>

#include "result.h"

namespace coolhand::daemon {

void Logger::write(Priority p, const std::string& line) {
  std::string text = fmt::format("<{}>{}", static_cast<int>(p), line);
  if (capturing_) {
    lines_.push_back(std::move(text));
    return;
  }
  text.push_back('\n');
  std::FILE* f = out_ ? out_ : stderr;
  std::fwrite(text.data(), 1, text.size(), f);
  std::fflush(f);
}

std::string SysError::to_string() const {
  std::string s = what;
  if (!path.empty()) s += " " + path;
  if (err != 0) {
    const char* name = strerrorname_np(err);
    s += fmt::format(": {} ({})", std::strerror(err), name ? name : "?");
  }
  if (!detail.empty()) s += (err != 0 ? ", " : ": ") + detail;
  return s;
}

SysError errno_error(std::string what, std::string path, int err) {
  return SysError{std::move(what), std::move(path), err, {}};
}

}  // namespace coolhand::daemon
