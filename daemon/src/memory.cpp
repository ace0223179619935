// See memory.h for why.
#include "memory.h"

#include <malloc.h>

namespace coolhand::daemon {

TrimReport release_startup_memory() {
  TrimReport report;
  report.heap_released = malloc_trim(0) != 0;
  return report;
}

}  // namespace coolhand::daemon
