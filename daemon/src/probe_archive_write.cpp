// Probe archives: writing them with libarchive (the rules and the reader
// are in probe_archive.cpp). Only coolhandctl links this: libarchive brings
// libxml2 and ICU, whose relocated data cost every process that loads them
// (docs/benchmarks.md, "Flight recorder", coolhandd's libraries).
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "probe_archive.h"

namespace coolhand::daemon {

namespace {

namespace fs = std::filesystem;

using WritePtr = std::unique_ptr<struct archive, decltype(&archive_write_free)>;
using EntryPtr = std::unique_ptr<struct archive_entry, decltype(&archive_entry_free)>;

std::string libarchive_says(struct archive* a) {
  const char* s = archive_error_string(a);
  return s != nullptr ? s : "unknown libarchive error";
}

// Closes a file descriptor on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Status write_probe_archive(const std::string& archive, const std::vector<ProbeFile>& files) {
  Fd fd{::open(archive.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
  if (fd.fd < 0) return errno_error("create", archive, errno);
  WritePtr a(archive_write_new(), archive_write_free);
  const auto fail = [&](const std::string& why) -> Status {
    std::error_code ec;
    fs::remove(archive, ec);
    return SysError{"write", archive, 0, why};
  };
  if (!a || archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open_fd(a.get(), fd.fd) != ARCHIVE_OK) {
    return fail(a ? libarchive_says(a.get()) : "out of memory");
  }
  for (const ProbeFile& f : files) {
    EntryPtr e(archive_entry_new(), archive_entry_free);
    if (!e) return fail("out of memory");
    archive_entry_set_pathname(e.get(), f.path.c_str());
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(f.content.size()));
    archive_entry_set_mtime(e.get(), 0, 0);  // the same tree gives the same archive
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK ||
        archive_write_data(a.get(), f.content.data(), f.content.size()) !=
            static_cast<la_ssize_t>(f.content.size())) {
      return fail(libarchive_says(a.get()));
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) return fail(libarchive_says(a.get()));
  return Ok{};
}

}  // namespace coolhand::daemon
