// Ring: the flight recorder's preallocated ring of fixed-size records.
//
// Rules:
// - The ring is allocated once, in the constructor (capacity records of 32
//   bytes). put() writes one record in place: no allocation, no lock, no
//   system call, no clock read. It is meant for one thread (coolhandd's
//   event loop); nothing here is synchronised.
// - When the ring is full the oldest record is overwritten and counted in
//   lost(). total() counts every record ever put; the record with sequence
//   number s (0-based, s < total()) is still in the ring iff
//   s >= total() - size().
// - Timestamps: every record carries the ring's current time in ns. The
//   caller sets it with set_time() (coolhandd: CLOCK_MONOTONIC once per
//   event it handles; the simulator: its virtual clock). Time never goes
//   backwards in the ring: an earlier value is ignored, so a reader can
//   require non-decreasing stamps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "coolhand/recorder/record.h"

namespace coolhand::recorder {

class Ring {
 public:
  // Smallest and largest capacity accepted (records); others are clamped.
  static constexpr std::size_t kMinCapacity = 16;
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 24;  // 512 MiB of records

  explicit Ring(std::size_t capacity);
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

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

  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  [[nodiscard]] std::uint64_t total() const { return total_; }
  [[nodiscard]] std::size_t size() const {
    return total_ < capacity_ ? static_cast<std::size_t>(total_) : capacity_;
  }
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
  std::unique_ptr<Record[]> slots_;  // NOLINT(*-avoid-c-arrays): one allocation, no init loop
  std::size_t capacity_ = 0;
  std::size_t pos_ = 0;  // next slot to write
  std::uint64_t total_ = 0;
  std::uint64_t now_ns_ = 0;
};

}  // namespace coolhand::recorder
