// Ring: page-exact allocation, resizing and ordered copies (rules in ring.h).
//
// The only system calls in recorder/ are here, at allocation: mmap and
// munmap of the records' own pages (and their guard pages). put() makes
// none.
#include "coolhand/recorder/ring.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <new>

namespace coolhand::recorder {

namespace {

std::size_t page_size() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
}

std::size_t mapping_bytes(std::size_t capacity) {
  const std::size_t page = page_size();
  return (capacity * kRecordSize + page - 1) / page * page;
}

// An anonymous private mapping of `bytes`, populated: MAP_POPULATE write-
// faults every page of a private writable mapping now (zero-filled), so the
// ring's memory is resident and dirty from the start and put() never
// faults a fresh page in. It lies between two PROT_NONE guard pages,
// reserved first: the kernel merges adjacent anonymous mappings of the same
// protection into one (a 32 KiB ring showed in smaps as 40 kB, merged with
// its neighbour), so without them the ring is not a mapping of its own in
// /proc/PID/smaps, and an overrun would write into the neighbour unseen.
// The guards take address space only, no memory.
Record* map_records(std::size_t bytes) {
  const std::size_t page = page_size();
  void* base = ::mmap(nullptr, bytes + 2 * page, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  void* p = ::mmap(static_cast<char*>(base) + page, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) {
    ::munmap(base, bytes + 2 * page);
    throw std::bad_alloc();
  }
  return static_cast<Record*>(p);
}

// Unmaps what map_records() mapped: the records and their guards.
void unmap_records(Record* slots, std::size_t bytes) {
  const std::size_t page = page_size();
  ::munmap(reinterpret_cast<char*>(slots) - page, bytes + 2 * page);  // NOLINT
}

}  // namespace

Ring::Ring(std::size_t capacity) : capacity_(std::clamp(capacity, kMinCapacity, kMaxCapacity)) {
  mapped_ = mapping_bytes(capacity_);
  slots_ = map_records(mapped_);
}

Ring::~Ring() {
  if (slots_ != nullptr) unmap_records(slots_, mapped_);
}

void Ring::resize(std::size_t capacity) {
  capacity = std::clamp(capacity, kMinCapacity, kMaxCapacity);
  if (capacity == capacity_) return;
  const std::size_t bytes = mapping_bytes(capacity);
  Record* slots = map_records(bytes);
  const std::size_t keep = std::min(size(), capacity);
  const std::uint64_t from = total_ - keep;
  for (std::uint64_t seq = from; seq < total_; ++seq) slots[seq % capacity] = at(seq);
  unmap_records(slots_, mapped_);
  slots_ = slots;
  mapped_ = bytes;
  capacity_ = capacity;
  pos_ = static_cast<std::size_t>(total_ % capacity_);
  floor_ = from;
}

std::size_t Ring::copy_since(std::uint64_t from, std::span<Record> out) const {
  from = std::max(from, first());
  std::size_t n = 0;
  for (std::uint64_t seq = from; seq < total_ && n < out.size(); ++seq) out[n++] = at(seq);
  return n;
}

}  // namespace coolhand::recorder
