// Ring: the flight recorder's preallocated ring of fixed-size records.
//
// Rules:
// - The ring is allocated in the constructor (capacity records of 32 bytes)
//   and again only by resize(). put() writes one record in place: no
//   allocation, no lock, no system call, no clock read. It is meant for one
//   thread (coolhandd's event loop); nothing here is synchronised.
// - Memory: the records are an anonymous mmap of their own, exactly
//   capacity * 32 bytes rounded up to whole pages (the default 262144
//   records are 8 MiB, a whole number of pages), populated at allocation.
//   Nothing else shares those pages (no malloc header, no other object;
//   a PROT_NONE guard page on each side keeps the kernel from merging the
//   mapping with a neighbour, so smaps shows it whole and alone), so
//   the ring adds its own size to the process's Private_Dirty, no more, and
//   recording never faults a fresh page in later.
// - When the ring is full the oldest record is overwritten and counted in
//   lost(). total() counts every record ever put; the record with sequence
//   number s (0-based, s < total()) is still in the ring iff
//   first() <= s < total().
// - resize() (a policy reload with another daemon.recorder.records) keeps
//   the newest records that fit in the new capacity; every record it drops,
//   and every record already lost before, stays counted in lost(). Growing
//   brings nothing lost back: first() does not move back.
// - Timestamps: every record carries the ring's current time in ns. The
//   caller sets it with set_time() (coolhandd: CLOCK_MONOTONIC once per
//   event it handles; the simulator: its virtual clock). Time never goes
//   backwards in the ring: an earlier value is ignored, so a reader can
//   require non-decreasing stamps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "coolhand/recorder/record.h"

namespace coolhand::recorder {

class Ring {
 public:
  // Smallest and largest capacity accepted (records); others are clamped.
  static constexpr std::size_t kMinCapacity = 16;
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 24;  // 512 MiB of records

  // `capacity` is clamped to [kMinCapacity, kMaxCapacity]. Throws
  // std::bad_alloc when the pages cannot be mapped.
  explicit Ring(std::size_t capacity);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // A new capacity (clamped like the constructor's), keeping the newest
  // records that fit; total(), time() and sequence numbers carry on. The
  // new pages are mapped before the old ones are released: on failure
  // (std::bad_alloc) the ring is unchanged. Never call it while recording.
  void resize(std::size_t capacity);

  void set_time(std::uint64_t now_ns) {
    if (now_ns > now_ns_) now_ns_ = now_ns;
  }
  [[nodiscard]] std::uint64_t time() const { return now_ns_; }

  // Append one record stamped with time(); overwrites the oldest when full.
  void put(Kind kind, std::uint16_t index, std::uint32_t a = 0, std::int64_t b = 0,
           std::int32_t c = 0, std::int32_t d = 0) {
    Record& r = slots_[pos_];
    r.t_ns = now_ns_;
    r.kind = static_cast<std::uint16_t>(kind);
    r.index = index;
    r.a = a;
    r.b = b;
    r.c = c;
    r.d = d;
    if (++pos_ == capacity_) pos_ = 0;
    ++total_;
  }

  // In-place writing (checkpoints, checkpoint.h): the next `n` slots as one
  // run of memory, or an empty span when they would wrap past the ring's
  // end. The caller may use them as scratch and must fill each with a whole
  // record before commit(n), which makes them the next n records (as n
  // put() calls would). Nothing else may touch the ring in between.
  [[nodiscard]] std::span<Record> next_slots(std::size_t n) {
    if (n > capacity_ - pos_) return {};
    return {slots_ + pos_, n};
  }
  void commit(std::size_t n) {
    pos_ = (pos_ + n) % capacity_;
    total_ += n;
  }

  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  [[nodiscard]] std::uint64_t total() const { return total_; }
  // Records held: those put since the last resize kept, up to capacity.
  [[nodiscard]] std::size_t size() const {
    const std::uint64_t since = total_ - floor_;
    return since < capacity_ ? static_cast<std::size_t>(since) : capacity_;
  }
  // Bytes mapped for the records (capacity * 32 rounded up to pages).
  [[nodiscard]] std::size_t mapped_bytes() const { return mapped_; }
  [[nodiscard]] std::uint64_t lost() const { return total_ - size(); }

  // Copy records with sequence numbers >= `from` (oldest first) into `out`,
  // at most out.size(). Records older than the ring holds are skipped.
  // Returns how many were copied; the next call may pass from + copied,
  // or first() when `from` had already been overwritten.
  std::size_t copy_since(std::uint64_t from, std::span<Record> out) const;
  // Sequence number of the oldest record still held.
  [[nodiscard]] std::uint64_t first() const { return total_ - size(); }
  // Record with sequence number `seq` (first() <= seq < total()).
  [[nodiscard]] const Record& at(std::uint64_t seq) const {
    return slots_[static_cast<std::size_t>(seq % capacity_)];
  }

 private:
  Record* slots_ = nullptr;  // capacity_ records in a mapping of mapped_ bytes
  std::size_t mapped_ = 0;
  std::size_t capacity_ = 0;
  std::size_t pos_ = 0;  // next slot to write: total_ % capacity_
  std::uint64_t total_ = 0;
  // Sequence number of the oldest record kept by the last resize (0 before
  // any): records older than it are gone even when the ring has room.
  std::uint64_t floor_ = 0;
  std::uint64_t now_ns_ = 0;
};

}  // namespace coolhand::recorder
