// OriginalStore: the value every knob had before coolhandd first wrote it,
// kept on disk so a crash (SIGKILL, abort, OOM kill) cannot turn a throttled
// value into the "original" of the next instance.
//
// Rules:
// - Before the daemon's first write to a knob the store records its original
//   in the state file (default /run/coolhand/originals; the unit's
//   RuntimeDirectory=). Every change is written atomically: a temporary file
//   in the same directory, fsync, rename, fsync of the directory. With no
//   entry left the file is removed.
// - On start, a state file left by a previous instance is the truth about
//   originals: load() reads it, bindings take their originals from it, and
//   restore() writes them back before the new instance writes anything.
// - A state file from another boot (its boot_id differs from
//   /proc/sys/kernel/random/boot_id) is ignored with a log line: a reboot
//   reset the knobs, so their current values are the originals.
// - A corrupt file (bad header, bad line, missing or wrong `end`) is logged
//   and never trusted blindly: of its entries, only those whose knob is bound
//   with a discovered range, and whose value is inside it, are restored.
// - Any value, from any file, is restored only if original_acceptable()
//   (discovery.h) accepts it for the bound knob; a knob that no longer exists
//   is dropped with a log line.
//
// Calling context: the daemon's one thread; the store is owned by the app
// and handed to Runtime::create (RuntimeOptions::originals).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "discovery.h"
#include "log.h"
#include "sysfs.h"

namespace coolhand::daemon {

// The state file's contents. Format (one item per line, '\n'-terminated):
//   coolhand-originals 1
//   boot_id <text>
//   knob <original> <path relative to the sysfs root>   (any number)
//   end <number of knob lines>
// Lines starting with '#' are comments.
struct StateFile {
  std::string boot_id;                            // "" when the file names none
  std::map<std::string, std::int64_t> originals;  // by sysfs-relative path
  // Why the file is not intact ("line 3: bad value 'x'", "no end line");
  // empty for an intact file. Lines with problems are skipped.
  std::vector<std::string> problems;
};

// The largest state file parse_state() reads (bytes).
inline constexpr std::size_t kMaxStateBytes = 1 << 20;

// Parse state-file text; never throws. Paths must be relative, without ".."
// components, control characters or a trailing space.
[[nodiscard]] StateFile parse_state(std::string_view text);
// The text parse_state() reads back into the same boot_id and originals.
[[nodiscard]] std::string format_state(std::string_view boot_id,
                                       const std::map<std::string, std::int64_t>& originals);

class OriginalStore {
 public:
  // `state_path`: the state file (e.g. "/run/coolhand/originals"); empty
  // keeps originals in memory only (dry run, unit tests). `boot_id`: this
  // boot's id, "" when unknown (files are then not checked against it).
  OriginalStore(std::string state_path, std::string boot_id, Logger& log);

  // Read a state file left by a previous instance; logs what it found.
  void load();
  // The recorded original of `path`, if any, as recorded (tests, log lines).
  [[nodiscard]] std::optional<std::int64_t> original_of(const std::string& path) const;
  // Discovery's OriginalLookup: the recorded original of `target` if
  // original_acceptable() takes it, and, for a corrupt file's entry, only
  // with a discovered range; otherwise nullopt (logged), so discovery reads
  // the knob's current value instead.
  [[nodiscard]] std::optional<std::int64_t> original_for(const KnobTarget& target) const;
  // A knob was bound: record its targets' originals (as discovery settled
  // them) and ranges, and persist before the caller's first write.
  void remember(const KnobBinding& binding);
  // The running policy no longer drives `path` (its original was written back).
  void forget(const std::string& path);

  enum class Keep : std::uint8_t {
    bound,  // start: keep the entries of knobs the running policy drives
    none,   // exit and --restore: nothing stays bound
  };
  // Write back every recorded original that differs from the knob's current
  // value (within the rules above); drop the entries that are done and not
  // kept. Entries whose write failed stay for a later --restore. Returns the
  // number of entries left.
  std::size_t restore(Sysfs& fs, Keep keep);

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  struct Entry {
    std::int64_t original = 0;
    std::optional<KnobTarget> target;  // set while a binding drives the knob
    bool from_corrupt_file = false;    // restore only inside a discovered range
  };
  [[nodiscard]] bool restorable(const std::string& path, const Entry& e) const;
  void persist();

  std::string path_;
  std::string boot_id_;
  Logger& log_;
  std::map<std::string, Entry> entries_;
  bool persist_failing_ = false;  // logged once until a write succeeds
};

}  // namespace coolhand::daemon
