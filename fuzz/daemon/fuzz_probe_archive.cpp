// Random bytes as a probe archive (probe_archive.h), and as probe file text.
// Archive: SysfsRootArg::open either fails, leaving nothing in its TMPDIR, or
// unpacks only regular files and directories inside its own directory, which
// goes away with it. Text: scrub leaves no line naming a serial and is
// idempotent. The archive goes through our own gzip-and-tar reader
// (probe_archive.cpp) and the rules around it.
//   ./fuzz/daemon/fuzz_probe_archive -max_total_time=60
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "probe_archive.h"

namespace {

namespace fs = std::filesystem;

const fs::path& workdir() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "fuzz-probe-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    ::setenv("TMPDIR", (tmpl + "/tmp").c_str(), 1);
    fs::create_directories(tmpl + "/tmp");
    return fs::path(tmpl);
  }();
  return dir;
}

void check_tree(const fs::path& root) {
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink() || !(it->is_regular_file() || it->is_directory())) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string once = coolhand::daemon::scrub(bytes);
  if (coolhand::daemon::scrub(once) != once) std::abort();
  if (once.find("SERIAL") != std::string::npos || once.find("serial") != std::string::npos) {
    std::abort();
  }

  const fs::path archive = workdir() / "in.tar.gz";
  std::ofstream(archive, std::ios::binary | std::ios::trunc) << bytes;
  {
    auto root = coolhand::daemon::SysfsRootArg::open(archive.string());
    if (root) check_tree(root->path());
  }
  if (!fs::is_empty(workdir() / "tmp")) std::abort();
  return 0;
}
