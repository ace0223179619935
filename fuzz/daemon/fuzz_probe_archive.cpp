// Random bytes as a probe archive (probe_archive.h), and as probe file text.
// Archive: SysfsRootArg::open either fails, leaving nothing in its TMPDIR, or
// unpacks only regular files and directories inside its own directory, which
// goes away with it. Text: scrub leaves no line naming a serial and is
// idempotent. The archive goes through coolhandd's own path: libarchive,
// loaded with dlopen (libarchive_dl.cpp; not instrumented, so coverage
// guides only the rules around it in probe_archive.cpp), then the rules;
// inputs whose first byte is odd are a tar the harness gzips, so the tar
// parser is reached directly (seed: fuzz/daemon/corpus/probe_archive, one
// gzipped and one plain tar).
//   ./fuzz/daemon/fuzz_probe_archive -max_total_time=60
#include <unistd.h>
#include <zlib.h>

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

// `raw` as a gzip stream (zlib's deflate with a gzip wrapper).
std::string gzip(std::string_view raw) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&z, static_cast<uLong>(raw.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string once = coolhand::daemon::scrub(bytes);
  if (coolhand::daemon::scrub(once) != once) std::abort();
  if (once.find("SERIAL") != std::string::npos || once.find("serial") != std::string::npos) {
    std::abort();
  }

  // Half the inputs are the archive file as it is; the other half (first
  // byte odd) are a tar that the harness gzips first, so mutations reach
  // the tar reader instead of dying in inflate's checks.
  const fs::path archive = workdir() / "in.tar.gz";
  std::ofstream(archive, std::ios::binary | std::ios::trunc)
      << (size > 0 && (data[0] & 1U) != 0 ? gzip(bytes.substr(1)) : std::string(bytes));
  {
    auto root = coolhand::daemon::SysfsRootArg::open(archive.string());
    if (root) check_tree(root->path());
  }
  if (!fs::is_empty(workdir() / "tmp")) std::abort();
  return 0;
}
