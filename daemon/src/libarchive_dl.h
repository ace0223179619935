// libarchive, loaded at run time for reading probe archives.
//
// coolhandd reads a probe archive only when --sysfs-root names a file, yet
// linking libarchive (Debian's libarchive13) makes every start load it with
// libxml2, ICU, nettle, acl and bz2, whose relocated data cost about 188 kB
// of Private_Dirty (docs/benchmarks.md, "libarchive in coolhandd"). So the
// reader dlopen()s "libarchive.so.13" (the soname of libarchive 3.x) on first
// use and looks up the few functions it calls, as systemd does for its
// optional libraries. The declarations come from <archive.h> (libarchive-dev);
// only the loading is ours. Writing (probe_archive_write.cpp, coolhandctl)
// links libarchive as usual.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>

#include "result.h"

namespace coolhand::daemon {

// The functions of libarchive the probe reader calls, by their own names,
// and the library's handle: closed (dlclose) when this goes, so a daemon
// that read an archive at start does not keep libarchive, libxml2 and ICU
// mapped for its life. Move-only.
struct LibArchive {
  struct DlClose {
    void operator()(void* dl_handle) const;
  };
  std::unique_ptr<void, DlClose> handle;
  decltype(&::archive_read_new) archive_read_new;
  decltype(&::archive_read_free) archive_read_free;
  decltype(&::archive_read_support_filter_gzip) archive_read_support_filter_gzip;
  decltype(&::archive_read_support_format_tar) archive_read_support_format_tar;
  decltype(&::archive_read_open_fd) archive_read_open_fd;
  decltype(&::archive_read_next_header) archive_read_next_header;
  decltype(&::archive_read_data) archive_read_data;
  decltype(&::archive_error_string) archive_error_string;
  decltype(&::archive_entry_pathname) archive_entry_pathname;
  decltype(&::archive_entry_filetype) archive_entry_filetype;
  decltype(&::archive_entry_hardlink) archive_entry_hardlink;
};

inline constexpr const char* kLibArchiveSoname = "libarchive.so.13";

// libarchive, loaded (dlopen) for as long as the result lives. An error
// names the library or the symbol that is missing and what dlerror() said.
[[nodiscard]] Result<LibArchive> load_libarchive();

}  // namespace coolhand::daemon
