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
//
// Speed without covering less: the archive is a memfd, opened by the reader
// as /proc/self/fd/N (a regular file, so the same fs::status, open and
// archive_read_open_fd path as a file on disk, with no file created per
// input); the unpacking directory is on tmpfs (/dev/shm, unless TMPDIR is
// set); one deflate stream serves the whole run. (The harness links
// libarchive's writer, so the reader's dlopen on every archive finds the
// library mapped; that path still runs in full.)
//   ./fuzz/daemon/fuzz_probe_archive -max_total_time=60
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "probe_archive.h"

namespace {

namespace fs = std::filesystem;

const fs::path& workdir() {
  static const fs::path dir = [] {
    const char* tmpdir = std::getenv("TMPDIR");
    const fs::path base = tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir)
                          : fs::is_directory("/dev/shm")       ? fs::path("/dev/shm")
                                                               : fs::temp_directory_path();
    std::string tmpl = (base / "fuzz-probe-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    ::setenv("TMPDIR", (tmpl + "/tmp").c_str(), 1);
    fs::create_directories(tmpl + "/tmp");
    return fs::path(tmpl);
  }();
  return dir;
}

// The archive's bytes: a memfd, rewritten for each input; the reader gets
// its /proc/self/fd path.
int archive_fd() {
  static const int fd = [] {
    const int f = ::memfd_create("fuzz-probe-archive", MFD_CLOEXEC);
    if (f < 0) std::abort();
    return f;
  }();
  return fd;
}

void write_archive(std::string_view bytes) {
  const int fd = archive_fd();
  if (::ftruncate(fd, 0) != 0) std::abort();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
}

void check_tree(const fs::path& root) {
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink() || !(it->is_regular_file() || it->is_directory())) std::abort();
  }
}

// `raw` as a gzip stream (zlib's deflate with a gzip wrapper). One stream
// for the run, reset for each input (deflateInit2 would allocate its window
// and hash tables, some 270 kB, every time).
std::string gzip(std::string_view raw) {
  static z_stream z = [] {
    z_stream init{};
    if (deflateInit2(&init, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      std::abort();
    }
    return init;
  }();
  if (deflateReset(&z) != Z_OK) std::abort();
  std::string out(deflateBound(&z, static_cast<uLong>(raw.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
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
  const fs::path& dir = workdir();  // sets TMPDIR before the first open
  write_archive(size > 0 && (data[0] & 1U) != 0 ? gzip(bytes.substr(1)) : std::string(bytes));
  const std::string archive = "/proc/self/fd/" + std::to_string(archive_fd());
  {
    auto root = coolhand::daemon::SysfsRootArg::open(archive);
    if (root) check_tree(root->path());
  }
  if (!fs::is_empty(dir / "tmp")) std::abort();
  return 0;
}
