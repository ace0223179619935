// Random state-file text (originals.h) through parse_state: no crash, no UB;
// every accepted path stays inside the sysfs root (relative, no ".."), and
// what an intact file holds survives format_state and a second parse.
// Seeds: fuzz/daemon/corpus/state_file/, e.g.
//   ./fuzz/daemon/fuzz_state_file -max_total_time=120 <copy of the seeds>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "originals.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto f = coolhand::daemon::parse_state(text);
  for (const auto& [path, value] : f.originals) {
    (void)value;
    if (path.empty() || path.front() == '/' || path.find('\n') != std::string::npos) std::abort();
    if (path == ".." || path.rfind("../", 0) == 0 || path.find("/../") != std::string::npos ||
        (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0)) {
      std::abort();
    }
  }
  if (f.problems.empty()) {
    const auto again =
        coolhand::daemon::parse_state(coolhand::daemon::format_state(f.boot_id, f.originals));
    if (!again.problems.empty() || again.originals != f.originals) std::abort();
  }
  return 0;
}
