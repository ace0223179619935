// libarchive loaded with dlopen (libarchive_dl.h says why).
#include "libarchive_dl.h"

#include <dlfcn.h>

namespace coolhand::daemon {

namespace {

SysError load_error(std::string detail) {
  return SysError{"load", kLibArchiveSoname, 0,
                  std::move(detail) + " (needed to read probe archives: install libarchive13)"};
}

std::string dl_says() {
  const char* s = ::dlerror();
  return s != nullptr ? s : "unknown dlerror";
}

// Looks `name` up in `handle` into `fn`; false (and `why` set) if missing.
template <typename Fn>
bool bind(void* handle, const char* name, Fn& fn, std::string& why) {
  ::dlerror();
  void* sym = ::dlsym(handle, name);
  if (sym == nullptr) {
    why = std::string("symbol ") + name + " not found: " + dl_says();
    return false;
  }
  fn = reinterpret_cast<Fn>(sym);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  return true;
}

}  // namespace

void LibArchive::DlClose::operator()(void* dl_handle) const {
  ::dlclose(dl_handle);
}

Result<LibArchive> load_libarchive() {
  LibArchive la;
  la.handle.reset(::dlopen(kLibArchiveSoname, RTLD_NOW | RTLD_LOCAL));
  if (!la.handle) return load_error("cannot load: " + dl_says());
  void* handle = la.handle.get();
  std::string why;
#define COOLHAND_BIND(fn) bind(handle, #fn, la.fn, why)
  const bool ok = COOLHAND_BIND(archive_read_new) && COOLHAND_BIND(archive_read_free) &&
                  COOLHAND_BIND(archive_read_support_filter_gzip) &&
                  COOLHAND_BIND(archive_read_support_format_tar) &&
                  COOLHAND_BIND(archive_read_open_fd) && COOLHAND_BIND(archive_read_next_header) &&
                  COOLHAND_BIND(archive_read_data) && COOLHAND_BIND(archive_error_string) &&
                  COOLHAND_BIND(archive_entry_pathname) && COOLHAND_BIND(archive_entry_filetype) &&
                  COOLHAND_BIND(archive_entry_hardlink);
#undef COOLHAND_BIND
  if (!ok) return load_error(why);  // la's destructor closes the library
  return la;
}

}  // namespace coolhand::daemon
