// FlightRecorder: coolhandd's side of the flight recorder (issue 11). It
// owns the Ring the runtime's LoopRecorder writes into, the metadata a
// recording file carries, and the three ways records leave the daemon:
//   - dump_to_fd(): a whole recording into a caller's file descriptor
//     (D-Bus Record(h), so the caller's permissions decide where it goes);
//   - dump_to_dir(): a file in the record directory (SIGUSR1, and before a
//     critical action), keeping the newest kKeepDumps files;
//   - followers: `coolhandctl record --follow` gets one end of a socket
//     pair; after each event-loop wake-up flush() sends the records made
//     since the last flush. A follower that cannot keep up loses records
//     (counted, and announced in-stream by a `dropped` record); the daemon
//     never waits for it and arms no timer for it.
// Format: docs/recording-format.md. Ring rules: coolhand/recorder/ring.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coolhand/policy/spec.h"
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/ring.h"
#include "result.h"

namespace coolhand::daemon {

// CLOCK_MONOTONIC in ns: the recorder's timestamps (LoopRecorder's clock).
[[nodiscard]] std::uint64_t monotonic_ns();

class FlightRecorder {
 public:
  // Dumps kept in the record directory; older ones are deleted.
  static constexpr std::size_t kKeepDumps = 8;
  // Followers served at once; more are refused.
  static constexpr std::size_t kMaxFollowers = 4;

  // `records`: the ring's size (daemon.recorder.records). `dir`: where
  // dump_to_dir() writes; empty: nowhere (SIGUSR1 then only logs).
  FlightRecorder(std::size_t records, std::string dir, std::string boot_id, std::string version);
  ~FlightRecorder();
  FlightRecorder(const FlightRecorder&) = delete;
  FlightRecorder& operator=(const FlightRecorder&) = delete;

  [[nodiscard]] recorder::Ring& ring() { return ring_; }
  [[nodiscard]] const std::string& dir() const { return dir_; }

  // The running policy: its text (hashed for the header) and names.
  void set_policy(std::string text, const policy::PolicySpec& spec);
  [[nodiscard]] std::uint64_t policy_hash() const { return hash_; }

  // Write a whole recording to `fd` (not closed). The fd is put in
  // non-blocking mode: a pipe nobody reads fails the dump instead of
  // stalling the daemon.
  [[nodiscard]] Status dump_to_fd(int fd, const std::string& reason);
  // Write <dir>/recording-<UTC stamp>-<reason>[-N].chrec (0600; N numbers
  // the dumps after the first within one second) and delete all but the
  // newest kKeepDumps. Returns the path.
  [[nodiscard]] Result<std::string> dump_to_dir(const std::string& reason);

  // A new follower: returns the fd to hand to the client (the caller
  // closes it once sent). The client first receives a recording header
  // with no records, then records as they are made.
  [[nodiscard]] Result<int> follow();
  // Send each follower the records made since its last flush.
  void flush();
  [[nodiscard]] std::size_t followers() const { return followers_.size(); }

 private:
  struct Follower {
    int fd = -1;
    std::uint64_t next = 0;     // sequence number of the next record to send
    std::uint64_t dropped = 0;  // records not delivered since the last report
  };
  // The metadata with this dump's reason and time, set in place: a dump
  // copies neither the policy text nor the names.
  [[nodiscard]] const recorder::Metadata& stamped(const std::string& reason);
  bool send_to(Follower& f);
  // The record directory's dump files (names, unordered).
  [[nodiscard]] std::vector<std::string> list_dumps() const;
  // Delete all but the newest kKeepDumps of `names` (sorted in place, oldest
  // first: by time stamp, then number within the second).
  void prune_dumps(std::vector<std::string>& names) const;

  recorder::Ring ring_;
  std::string dir_;
  recorder::Metadata meta_;
  std::uint64_t hash_ = 0;
  std::vector<Follower> followers_;
};

}  // namespace coolhand::daemon
