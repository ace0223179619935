// OriginalStore and the state-file format (rules in originals.h).
#include "originals.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <utility>

namespace coolhand::daemon {

namespace {

constexpr std::string_view kHeader = "coolhand-originals 1";

// A path the state file may name: relative to the sysfs root, no ".."
// component, no control character (a newline would split the line), no
// leading or trailing space. Restore writes to these paths, so nothing in
// the file may point outside the sysfs root.
bool valid_path(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.front() == ' ' || p.back() == ' ') return false;
  for (const char c : p) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t slash = std::min(p.find('/', start), p.size());
    if (p.substr(start, slash - start) == "..") return false;
    start = slash + 1;
  }
  return true;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc{} || ptr != end || s.empty()) return std::nullopt;
  return v;
}

// "word rest": the first space-separated word and the remainder.
std::pair<std::string_view, std::string_view> split_word(std::string_view line) {
  const std::size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return {line, {}};
  return {line.substr(0, sp), line.substr(sp + 1)};
}

// Write `text` to `path` atomically: temporary file, fsync, rename, fsync
// of the directory (so the rename itself survives a power cut).
Status write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno_error("create", tmp, errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return errno_error("write", tmp, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) < 0) {
    const int err = errno;
    ::close(fd);
    return errno_error("fsync", tmp, err);
  }
  if (::close(fd) < 0) return errno_error("close", tmp, errno);
  if (::rename(tmp.c_str(), path.c_str()) < 0) return errno_error("rename", path, errno);
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return errno_error("open", dir, errno);
  const int r = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (r < 0) return errno_error("fsync", dir, err);
  return Ok{};
}

// The whole file, or an error; a file larger than kMaxStateBytes is an error.
Result<std::string> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno_error("open", path, errno);
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return errno_error("read", path, err);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxStateBytes) {
      ::close(fd);
      return SysError{"read", path, 0, "larger than 1 MiB"};
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

StateFile parse_state(std::string_view text) {
  StateFile out;
  if (text.size() > kMaxStateBytes) {
    out.problems.emplace_back("larger than 1 MiB");
    return out;
  }
  std::size_t knob_lines = 0;
  bool header = false;
  bool ended = false;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    const bool terminated = nl != std::string_view::npos;
    if (!terminated) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    const auto bad = [&](std::string_view why) {
      out.problems.push_back(fmt::format("line {}: {}", line_no, why));
    };
    if (!terminated) {
      bad("not terminated by a newline (truncated?)");
      break;
    }
    if (line.empty() || line.front() == '#') continue;
    if (ended) {
      bad("text after the end line");
      break;
    }
    if (!header) {
      if (line != kHeader) {
        bad(fmt::format("expected '{}'", kHeader));
        break;  // not a state file (or another version): nothing in it is usable
      }
      header = true;
      continue;
    }
    const auto [word, rest] = split_word(line);
    if (word == "boot_id") {
      if (!out.boot_id.empty() || rest.empty()) {
        bad("a second or empty boot_id");
      } else {
        out.boot_id = std::string(rest);
      }
    } else if (word == "knob") {
      ++knob_lines;
      const auto [value, path] = split_word(rest);
      const auto v = to_int(value);
      if (!v) {
        bad(fmt::format("bad value '{}'", value));
      } else if (!valid_path(path)) {
        bad("bad path (empty, absolute, '..' or a control character)");
      } else if (!out.originals.emplace(std::string(path), *v).second) {
        bad(fmt::format("{} named twice", path));
      }
    } else if (word == "end") {
      ended = true;
      const auto n = to_int(rest);
      if (!n || *n < 0 || static_cast<std::size_t>(*n) != knob_lines) {
        bad(fmt::format("end says '{}' but {} knob lines came before it", rest, knob_lines));
      }
    } else {
      bad(fmt::format("unknown item '{}'", word));
    }
  }
  if (!header && out.problems.empty()) out.problems.emplace_back("empty file");
  if (header && out.boot_id.empty()) out.problems.emplace_back("no boot_id line");
  if (header && !ended && out.problems.empty()) out.problems.emplace_back("no end line");
  if (!header) out.originals.clear();
  return out;
}

std::string format_state(std::string_view boot_id,
                         const std::map<std::string, std::int64_t>& originals) {
  std::string out = "# coolhandd: each knob's value before coolhandd first wrote it\n";
  out += fmt::format("{}\nboot_id {}\n", kHeader, boot_id.empty() ? "unknown" : boot_id);
  for (const auto& [path, value] : originals) out += fmt::format("knob {} {}\n", value, path);
  out += fmt::format("end {}\n", originals.size());
  return out;
}

OriginalStore::OriginalStore(std::string state_path, std::string boot_id, Logger& log)
    : path_(std::move(state_path)), boot_id_(std::move(boot_id)), log_(log) {}

void OriginalStore::load() {
  if (path_.empty()) return;
  auto text = read_file(path_);
  if (!text) {
    if (text.error().err == ENOENT) {
      log_.debug("state file {}: none (no earlier instance left knobs throttled)", path_);
    } else {
      log_.error("state file {} is unusable ({}); originals are the knobs' current values", path_,
                 text.error().to_string());
    }
    return;
  }
  StateFile f = parse_state(*text);
  const bool other_boot =
      !boot_id_.empty() && !f.boot_id.empty() && f.boot_id != "unknown" && f.boot_id != boot_id_;
  if (other_boot) {
    log_.warning(
        "state file {} is from another boot (boot_id {}, now {}); ignoring it: the reboot "
        "reset the knobs",
        path_, f.boot_id, boot_id_);
    persist();  // nothing recorded yet: removes the stale file
    return;
  }
  const bool corrupt = !f.problems.empty();
  if (corrupt) {
    std::string why;
    for (const auto& p : f.problems) why += (why.empty() ? "" : "; ") + p;
    log_.warning(
        "state file {} is corrupt ({}); of its {} readable entries only values inside a bound "
        "knob's discovered range will be restored",
        path_, why, f.originals.size());
  } else {
    log_.info("state file {}: {} original(s) left by an earlier instance", path_,
              f.originals.size());
  }
  for (auto& [p, v] : f.originals) entries_[p] = Entry{v, std::nullopt, corrupt};
}

std::optional<std::int64_t> OriginalStore::original_of(const std::string& path) const {
  auto it = entries_.find(path);
  if (it == entries_.end()) return std::nullopt;
  return it->second.original;
}

std::optional<std::int64_t> OriginalStore::original_for(const KnobTarget& t) const {
  auto it = entries_.find(t.path);
  if (it == entries_.end()) return std::nullopt;
  const Entry& e = it->second;
  const std::string range =
      t.min && t.max ? fmt::format("[{}, {}]", *t.min, *t.max) : "(no discovered range)";
  if (e.from_corrupt_file && !(t.min && t.max && original_acceptable(t, e.original))) {
    log_.warning(
        "{}: original {} from the corrupt state file is not trusted {}; taking the "
        "current value",
        t.path, e.original, range);
    return std::nullopt;
  }
  // An intact file from this boot holds what the daemon itself read from the
  // knob, which may lie above the advertised range (firmware sets RAPL PL1
  // above constraint_0_max_power_uw): it is the original, restored as such.
  if (e.from_corrupt_file) {
    log_.info("{}: original {} from the corrupt state file is inside {}; kept", t.path, e.original,
              range);
  }
  return e.original;
}

void OriginalStore::remember(const KnobBinding& binding) {
  bool changed = false;
  for (const KnobTarget& t : binding.targets) {
    auto [it, added] = entries_.try_emplace(t.path, Entry{t.original, t, false});
    Entry& e = it->second;
    e.target = t;
    // original_for() decided (and logged) what discovery took: from now on
    // that is the original, checked against this knob's range.
    if (added || e.from_corrupt_file || e.original != t.original) changed = true;
    e.original = t.original;
    e.from_corrupt_file = false;
  }
  if (changed) persist();
}

void OriginalStore::forget(const std::string& path) {
  if (entries_.erase(path) > 0) persist();
}

// An intact entry is what the daemon read from the knob, restored as it is
// (firmware values above the advertised range included). An entry of a
// corrupt file only inside the range a bound knob gives.
bool OriginalStore::restorable(const std::string& path, const Entry& e) const {
  if (!e.from_corrupt_file) return true;
  if (!e.target) {
    log_.warning(
        "{}: original {} not restored: the state file is corrupt and no bound knob "
        "gives a range to check it against",
        path, e.original);
    return false;
  }
  if (!(e.target->min && e.target->max && original_acceptable(*e.target, e.original))) {
    log_.warning(
        "{}: original {} from the corrupt state file not restored: outside the knob's "
        "range",
        path, e.original);
    return false;
  }
  return true;
}

std::size_t OriginalStore::restore(Sysfs& fs, Keep keep) {
  bool changed = false;
  for (auto it = entries_.begin(); it != entries_.end();) {
    const std::string& path = it->first;
    const Entry& e = it->second;
    bool done = true;
    if (!restorable(path, e)) {
      // dropped below (or kept as bound: the running policy drives it)
    } else if (!fs.exists(path)) {
      log_.warning("{}: no longer exists; its original {} is dropped", path, e.original);
    } else if (auto cur = fs.read_integer(path); !cur || *cur != e.original) {
      if (auto st = fs.write_integer(path, e.original); st) {
        log_.info("{}: original {} restored", path, e.original);
      } else {
        log_.error("{}; kept for a later restore", st.error().to_string());
        done = false;
      }
    }
    const bool stays = !done || (keep == Keep::bound && e.target);
    if (stays) {
      ++it;
    } else {
      it = entries_.erase(it);
      changed = true;
    }
  }
  if (changed) persist();
  return entries_.size();
}

void OriginalStore::persist() {
  if (path_.empty()) return;
  Status st = Ok{};
  if (entries_.empty()) {
    if (::unlink(path_.c_str()) < 0 && errno != ENOENT) st = errno_error("unlink", path_, errno);
  } else {
    std::map<std::string, std::int64_t> originals;
    for (const auto& [p, e] : entries_) originals.emplace(p, e.original);
    st = write_atomically(path_, format_state(boot_id_, originals));
  }
  if (!st) {
    if (!persist_failing_) {
      log_.error("state file: {}; a crash now could leave knobs throttled", st.error().to_string());
    }
    persist_failing_ = true;
  } else if (persist_failing_) {
    log_.info("state file {}: written again", path_);
    persist_failing_ = false;
  }
}

}  // namespace coolhand::daemon
