// Giving back start-up memory. coolhandd touches most of its code once, at
// start and on reload (YAML parsing, command line, discovery), and then
// runs a small loop: wake, read a few files, step the engine, write, sleep.
// Everything start-up touched stays in the process's resident set unless
// given back, and on a handheld that is most of the daemon's RSS:
// - heap: malloc_trim() returns the free heap to the kernel;
// - code and read-only data: the binary's and the shared libraries' text,
//   constants and symbol tables (the dynamic linker reads those of every
//   library while it relocates; a C++ runtime's are large) are clean pages
//   backed by their files, so dropping them from this process's page tables
//   with madvise(MADV_DONTNEED) loses nothing; a page the loop needs again
//   is mapped back from the page cache on its next use (a minor fault, no
//   I/O while the file is cached).
// Only private, non-writable, file-backed mappings with no anonymous pages
// are dropped. Writable mappings hold state; a read-only mapping with
// anonymous pages is relocated data made read-only afterwards (RELRO: the
// GOT, vtables), whose relocated contents exist nowhere else. Nothing can
// write a non-writable mapping between the check and the madvise() in a
// single-threaded daemon that does not dlopen().
#pragma once

#include <cstddef>
#include <string_view>

namespace coolhand::daemon {

struct TrimReport {
  std::size_t mappings = 0;  // clean file mappings advised
  std::size_t bytes = 0;     // their total size
  std::size_t failures = 0;  // madvise() calls that failed (mapping kept)
};

// True for a /proc/PID/smaps mapping header line ("start-end perms offset
// dev inode path") whose mapping may be dropped when it has no anonymous
// pages: permissions r-xp or r--p and an absolute path (not [vdso],
// [vsyscall], [heap] or anonymous).
[[nodiscard]] bool droppable_file_mapping(std::string_view header_line);

// Trims the heap and drops this process's clean file mappings as described
// above. Reads /proc/self/smaps; returns what was advised.
TrimReport release_startup_memory();

}  // namespace coolhand::daemon
