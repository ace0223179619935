// Ring: allocation and ordered copies (rules in ring.h).
#include "coolhand/recorder/ring.h"

#include <algorithm>

namespace coolhand::recorder {

Ring::Ring(std::size_t capacity) : capacity_(std::clamp(capacity, kMinCapacity, kMaxCapacity)) {
  // new Record[n]() value-initialises: every page is touched now, at start,
  // so recording never faults a fresh page in later (Private_Dirty is the
  // ring's full size from the start, not growing with use).
  slots_ = std::make_unique<Record[]>(capacity_);  // NOLINT(*-avoid-c-arrays)
}

std::size_t Ring::copy_since(std::uint64_t from, std::span<Record> out) const {
  from = std::max(from, first());
  std::size_t n = 0;
  for (std::uint64_t seq = from; seq < total_ && n < out.size(); ++seq) out[n++] = at(seq);
  return n;
}

}  // namespace coolhand::recorder
