// Giving back start-up heap. coolhandd allocates most of its heap once, at
// start and on reload (YAML parsing, command line, discovery), frees most of
// it, and then runs a small loop: wake, read a few files, step the engine,
// write, sleep. glibc's free() returns memory to the kernel only from the
// top of the heap and only above M_TRIM_THRESHOLD (128 KiB by default), so
// free pages below a live allocation stay resident and dirty for the
// daemon's whole life. malloc_trim(0) gives back every whole free page of
// the heap (glibc >= 2.8 walks all free chunks, not only the top; see
// malloc_trim(3)). Its effect is measured in docs/benchmarks.md ("Memory").
//
// File-backed pages (code, read-only data) are not touched: they are clean,
// shared with every other process mapping the same files, and counted once
// among them by Pss; dropping them from this process's page tables would only
// move the RssFile counter, not free memory.
#pragma once

namespace coolhand::daemon {

struct TrimReport {
  bool heap_released = false;  // malloc_trim() gave pages back to the kernel
};

// Returns the free heap to the kernel. Called after start-up and after each
// reload, from the event loop's thread.
TrimReport release_startup_memory();

}  // namespace coolhand::daemon
