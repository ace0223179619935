// See memory.h for why and which mappings.
#include "memory.h"

#include <malloc.h>
#include <sys/mman.h>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace coolhand::daemon {

namespace {

struct Mapping {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  std::string_view perms;
  std::string_view path;
};

std::string_view next_field(std::string_view& line) {
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  const auto n = line.find(' ');
  const auto f = line.substr(0, n);
  line.remove_prefix(n == std::string_view::npos ? line.size() : n);
  return f;
}

bool parse_hex(std::string_view s, std::uintptr_t& v) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return !s.empty() && r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

// "start-end perms offset dev inode   path"; the path may be absent.
std::optional<Mapping> parse_header(std::string_view line) {
  Mapping m;
  const auto range = next_field(line);
  const auto dash = range.find('-');
  if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), m.start) ||
      !parse_hex(range.substr(dash + 1), m.end) || m.start >= m.end) {
    return std::nullopt;
  }
  m.perms = next_field(line);
  if (m.perms.size() != 4) return std::nullopt;
  for (int i = 0; i < 3; ++i) {
    if (next_field(line).empty()) return std::nullopt;  // offset, dev, inode
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  m.path = line;
  return m;
}

bool droppable(const Mapping& m) {
  return (m.perms == "r-xp" || m.perms == "r--p") && !m.path.empty() && m.path.front() == '/';
}

// "Anonymous:       12 kB" -> 12
std::optional<std::uint64_t> anonymous_kb(std::string_view line) {
  constexpr std::string_view kKey = "Anonymous:";
  if (line.substr(0, kKey.size()) != kKey) return std::nullopt;
  line.remove_prefix(kKey.size());
  const auto digits = next_field(line);
  std::uint64_t kb = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), kb);
  if (r.ec != std::errc{} || r.ptr != digits.data() + digits.size()) return std::nullopt;
  return kb;
}

}  // namespace

bool droppable_file_mapping(std::string_view header_line) {
  const auto m = parse_header(header_line);
  return m && droppable(*m);
}

TrimReport release_startup_memory() {
  malloc_trim(0);
  TrimReport report;
  // smaps is read whole before any madvise(), so the advice cannot change
  // what is being read.
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  struct Range {
    std::uintptr_t start;
    std::uintptr_t end;
  };
  std::optional<Range> candidate;
  std::vector<Range> drop;
  while (std::getline(smaps, line)) {
    if (auto m = parse_header(line)) {
      candidate.reset();
      if (droppable(*m)) candidate = Range{m->start, m->end};
    } else if (auto kb = anonymous_kb(line); kb && candidate) {
      if (*kb == 0) drop.push_back(*candidate);
      candidate.reset();
    }
  }
  for (const Range& m : drop) {
    ++report.mappings;
    report.bytes += m.end - m.start;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address comes from the kernel's own map.
    if (madvise(reinterpret_cast<void*>(m.start), m.end - m.start, MADV_DONTNEED) != 0) {
      ++report.failures;
    }
  }
  return report;
}

}  // namespace coolhand::daemon
