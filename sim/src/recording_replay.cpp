// Replaying a flight recording, exact or what-if (recording_replay.h).
#include "coolhand/sim/recording_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "coolhand/policy/loop.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/record.h"
#include "coolhand/recorder/replay.h"

namespace coolhand::sim {

namespace {

using policy::Time;
using recorder::Kind;
using recorder::Record;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// What-if: most ticks of the candidate's own between two recorded calls.
constexpr std::size_t kMaxWakeTicks = 100000;

bool is(const Record& r, Kind k) {
  return r.kind == static_cast<std::uint16_t>(k);
}
bool is_call(const Record& r) {
  return recorder::is_call_kind(r.kind);
}
// The `now` a call record carries (ms); none for verify/restore_all/set_profile.
std::optional<policy::Time> call_now(const Record& r) {
  switch (static_cast<Kind>(r.kind)) {
    case Kind::call_start:
    case Kind::call_tick:
    case Kind::call_push:
    case Kind::call_sensor_gone:
    case Kind::call_resync:
    case Kind::call_resume:
    case Kind::call_seed_level:
      return policy::Time(r.b);
    default:
      return std::nullopt;
  }
}

std::string where(const recorder::Recording& rec, const std::string& file, std::size_t i) {
  return fmt::format("{}: record {} (byte {})", file, i, rec.offset_of(i));
}

// The daemon's levels over time, from its step and device_decision records.
struct DaemonLevels {
  std::vector<std::int64_t> at_ms;                 // per recorded step
  std::vector<std::vector<std::uint32_t>> levels;  // [step][recorded device]

  explicit DaemonLevels(const recorder::Recording& rec) {
    const std::size_t devices = rec.meta.devices.size();
    for (const Record& r : rec.records) {
      if (is(r, Kind::step)) {
        at_ms.push_back(r.b);
        levels.push_back(levels.empty() ? std::vector<std::uint32_t>(devices, 0) : levels.back());
      } else if (is(r, Kind::device_decision) && !levels.empty() && r.index < devices) {
        levels.back()[r.index] = r.a;
      }
    }
  }
  // The level in force at `t_ms` (the last step at or before it); none before the first.
  [[nodiscard]] std::optional<std::uint32_t> at(std::size_t device, std::int64_t t_ms) const {
    const auto it = std::upper_bound(at_ms.begin(), at_ms.end(), t_ms);
    if (it == at_ms.begin()) return std::nullopt;
    return levels[static_cast<std::size_t>(it - at_ms.begin() - 1)][device];
  }
};

// Collects the replay's steps: decisions.csv rows, every sensor's value and
// the levels next to the daemon's.
class StepLog final : public policy::LoopObserver {
 public:
  StepLog(RecordingReplay& out, const DaemonLevels& daemon,
          std::vector<std::optional<std::size_t>> recorded_device)
      : out_(out), daemon_(daemon), recorded_device_(std::move(recorded_device)) {}
  void attach(const policy::ControlLoop& loop, std::size_t segment) {
    loop_ = &loop;
    segment_ = segment;
  }
  void stepped(const policy::Decision& d, policy::Time /*now*/) override {
    const policy::PolicySpec& spec = loop_->engine().spec();
    ++out_.steps;
    out_.decisions_csv += fmt::format("{:.3f},{},{}", static_cast<double>(d.at.count()) / 1000.0,
                                      segment_, policy::to_string(d.severity));
    for (const auto& dd : d.devices) {
      std::string cause;
      if (dd.forced) {
        cause = "forced";
      } else if (dd.cause) {
        cause = spec.controllers[dd.cause->index].name;
      }
      out_.decisions_csv += fmt::format(",{},{}", dd.level, cause);
    }
    out_.decisions_csv += "\n";
    out_.sensors.append(loop_->engine(), d.at);
    // Levels: one entry per time, the state after the last step at that
    // time (a tick may settle in several steps at one `now`), as the
    // daemon's levels are looked up.
    LevelTracks& l = out_.levels;
    const double t = static_cast<double>(d.at.count()) / 1000.0;
    const bool same_time = !l.time_s.empty() && l.time_s.back() == t;
    if (!same_time) l.time_s.push_back(t);
    for (std::size_t i = 0; i < d.devices.size() && i < l.replay.size(); ++i) {
      const auto level =
          recorded_device_[i] ? daemon_.at(*recorded_device_[i], d.at.count()) : std::nullopt;
      const double theirs = level ? static_cast<double>(*level) : kNaN;
      if (same_time) {
        l.replay[i].back() = d.devices[i].level;
        l.daemon[i].back() = theirs;
      } else {
        l.replay[i].push_back(d.devices[i].level);
        l.daemon[i].push_back(theirs);
      }
    }
  }

 private:
  RecordingReplay& out_;
  const DaemonLevels& daemon_;
  std::vector<std::optional<std::size_t>> recorded_device_;  // by the replay's device index
  const policy::ControlLoop* loop_ = nullptr;
  std::size_t segment_ = 0;
};

// What-if ports: the recorded inputs held between records (see the header).
class HoldPorts final : public policy::SensorPort,
                        public policy::KnobPort,
                        public policy::WindowPort {
 public:
  HoldPorts(const recorder::Recording& rec, const recorder::Segment& seg, std::size_t slots,
            std::vector<std::optional<std::size_t>> recorded_device)
      : values_(slots),
        states_(slots),
        watches_(slots),
        recorded_device_(std::move(recorded_device)) {
    bounds_.resize(rec.meta.devices.size());
    std::int64_t now = 0;
    for (std::size_t i = seg.begin; i < seg.end; ++i) {
      const Record& r = rec.records[i];
      // A timeline must not go back (a damaged file's `now` may).
      if (const auto t = call_now(r)) now = std::max(now, t->count());
      if (is(r, Kind::call_push) && r.index < slots) {
        values_[r.index].emplace_back(now, policy::MilliC(r.c));
      } else if (is(r, Kind::port_read) && r.index < slots) {
        values_[r.index].emplace_back(now, (r.a & recorder::kReadOk) != 0
                                               ? std::optional<policy::MilliC>(policy::MilliC(r.c))
                                               : std::nullopt);
      } else if (is(r, Kind::port_sensor_state) && r.index < slots) {
        states_[r.index].emplace_back(now, r.a);
      } else if (is(r, Kind::port_bound) && r.index < bounds_.size()) {
        bounds_[r.index].emplace_back(now, r.a);
      } else if (is(r, Kind::port_watch) && r.index < slots) {
        watches_[r.index].emplace_back(now, r.a);
      }
    }
  }
  void set_time(policy::Time now) { now_ = now.count(); }

  policy::SensorRead read(std::size_t slot, bool /*rebind*/) override {
    const auto* v = latest(values_[slot]);
    if (!v) return {std::nullopt, "no recorded reading yet"};
    if (!*v) return {std::nullopt, "failed (recorded)"};
    return {**v, {}};
  }
  [[nodiscard]] bool present(std::size_t slot) const override {
    const auto* s = latest(states_[slot]);
    return !s || (*s & recorder::kStatePresent) != 0;
  }
  [[nodiscard]] policy::Delivery delivery(std::size_t slot) const override {
    const auto* s = latest(states_[slot]);
    return s && (*s & recorder::kStatePushed) != 0 ? policy::Delivery::pushed
                                                   : policy::Delivery::polled;
  }
  [[nodiscard]] bool bound(std::size_t device) const override {
    if (!recorded_device_[device]) return false;
    const auto* b = latest(bounds_[*recorded_device_[device]]);
    return b && *b != 0;
  }
  bool rebind(std::size_t device) override { return bound(device); }
  bool apply(std::size_t /*device*/, std::uint32_t /*level*/) override { return true; }
  void verify(std::size_t /*device*/) override {}
  void restore(std::size_t /*device*/) override {}
  // As the platform answered the daemon's last window for the slot: when it
  // took windows, the loop reads the sensor once after setting one, as the
  // daemon's did.
  bool watch(std::size_t slot, const policy::Window& /*w*/) override {
    const auto* w = latest(watches_[slot]);
    return w && *w != 0;
  }

 private:
  // The last entry at or before now_, or null.
  template <typename T>
  const T* latest(const std::vector<std::pair<std::int64_t, T>>& timeline) const {
    const auto it = std::upper_bound(
        timeline.begin(), timeline.end(), now_,
        [](std::int64_t t, const std::pair<std::int64_t, T>& e) { return t < e.first; });
    return it == timeline.begin() ? nullptr : &std::prev(it)->second;
  }

  std::vector<std::vector<std::pair<std::int64_t, std::optional<policy::MilliC>>>> values_;
  std::vector<std::vector<std::pair<std::int64_t, std::uint32_t>>> states_;
  std::vector<std::vector<std::pair<std::int64_t, std::uint32_t>>> bounds_;
  std::vector<std::vector<std::pair<std::int64_t, std::uint32_t>>> watches_;
  std::vector<std::optional<std::size_t>> recorded_device_;
  std::int64_t now_ = 0;
};

std::unique_ptr<policy::Engine> compile(const config::PolicyDocument& doc, std::string* error) {
  auto c = policy::Engine::compile(doc.spec);
  if (!c.errors.empty()) {
    const auto& e = c.errors.front();
    *error = "policy does not compile: " + e.path + "." + e.key + ": " + e.message;
  }
  return std::move(c.engine);
}

// Stretches where the replay's level differs from the daemon's.
std::vector<LevelDifference> differences(const LevelTracks& l) {
  std::vector<LevelDifference> out;
  for (std::size_t d = 0; d < l.devices.size(); ++d) {
    std::optional<LevelDifference> open;
    for (std::size_t k = 0; k < l.time_s.size(); ++k) {
      const double mine = l.replay[d][k];
      const double theirs = l.daemon[d][k];
      const bool differ = !std::isnan(theirs) && mine != theirs;
      if (open && (!differ || open->candidate != mine || open->daemon != theirs)) {
        open->to_s = l.time_s[k];
        out.push_back(*open);
        open.reset();
      }
      if (differ && !open)
        open =
            LevelDifference{l.devices[d], l.time_s[k], l.time_s[k],
                            static_cast<std::uint32_t>(theirs), static_cast<std::uint32_t>(mine)};
    }
    if (open) {
      open->to_s = l.time_s.back();
      out.push_back(*open);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LevelDifference& a, const LevelDifference& b) {
    return a.from_s < b.from_s;
  });
  return out;
}

}  // namespace

std::string RecordingReplay::levels_csv() const {
  std::string out = "time_s";
  for (const auto& d : levels.devices) out += fmt::format(",{0}_daemon,{0}_replay", d);
  out += "\n";
  for (std::size_t k = 0; k < levels.time_s.size(); ++k) {
    out += fmt::format("{:.3f}", levels.time_s[k]);
    for (std::size_t d = 0; d < levels.devices.size(); ++d) {
      const double theirs = levels.daemon[d][k];
      out += std::isnan(theirs) ? std::string(",") : fmt::format(",{:g}", theirs);
      out += fmt::format(",{:g}", levels.replay[d][k]);
    }
    out += "\n";
  }
  return out;
}

std::string RecordingReplay::differences_csv() const {
  std::string out = "device,from_s,to_s,daemon_level,replay_level\n";
  for (const auto& d : differences)
    out +=
        fmt::format("{},{:.3f},{:.3f},{},{}\n", d.device, d.from_s, d.to_s, d.daemon, d.candidate);
  return out;
}

std::variant<config::PolicyDocument, std::string> embedded_policy(const recorder::Recording& rec,
                                                                  const std::string& file) {
  auto r = config::parse_policy(rec.meta.policy_text, file + " (embedded policy)");
  if (r.document && r.errors.empty()) return std::move(*r.document);
  std::string msg;
  for (const auto& e : r.errors) msg += (msg.empty() ? "" : "\n") + e.to_string();
  return msg.empty() ? file + " (embedded policy): cannot be read" : msg;
}

std::variant<RecordingReplay, std::string> replay_recording(
    const recorder::Recording& rec, const std::string& file,
    const std::optional<config::PolicyDocument>& policy, bool exact) {
  RecordingReplay out;
  exact = exact || !policy;
  out.what_if = !exact;
  const std::optional<config::PolicyDocument>& candidate = policy;
  config::PolicyDocument embedded;
  if (!candidate) {
    auto e = embedded_policy(rec, file);
    if (auto* msg = std::get_if<std::string>(&e)) return *msg;
    embedded = std::get<config::PolicyDocument>(std::move(e));
  }
  const config::PolicyDocument& doc = candidate ? *candidate : embedded;
  std::string error;
  auto probe = compile(doc, &error);
  if (!probe) return file + ": " + error;
  const policy::PolicySpec& spec = probe->spec();

  // Devices by name: the replay's index -> the recording's, and back.
  std::vector<std::optional<std::size_t>> recorded_device(spec.devices.size());
  std::vector<std::optional<std::size_t>> device_of_recorded(rec.meta.devices.size());
  for (std::size_t d = 0; d < spec.devices.size(); ++d)
    for (std::size_t r = 0; r < rec.meta.devices.size(); ++r)
      if (rec.meta.devices[r] == spec.devices[d].name) {
        recorded_device[d] = r;
        device_of_recorded[r] = d;
      }
  for (std::size_t d = 0; d < spec.devices.size(); ++d)
    if (!recorded_device[d])
      out.notes.push_back("device '" + spec.devices[d].name +
                          "' is not in the recording: its levels are not compared");

  const DaemonLevels daemon(rec);
  out.sensors.init(*probe);
  for (const auto& d : spec.devices) out.levels.devices.push_back(d.name);
  out.levels.replay.resize(spec.devices.size());
  out.levels.daemon.resize(spec.devices.size());
  out.decisions_csv = "time_s,segment,severity";
  for (const auto& d : spec.devices)
    out.decisions_csv += "," + d.name + "_level," + d.name + "_cause";
  out.decisions_csv += "\n";
  StepLog log(out, daemon, recorded_device);

  const auto segs = recorder::segments(rec);
  for (std::size_t si = 0; si < segs.size(); ++si) {
    const recorder::Segment& seg = segs[si];
    if (!seg.replayable()) {
      out.notes.push_back(fmt::format(
          "{}: segment {} (records {}..{}) lost its start to the ring's wrap and holds no whole "
          "checkpoint; not replayed",
          file, si, seg.begin, seg.end));
      continue;
    }
    if (!candidate && seg.policy_hash != rec.policy_hash) {
      out.notes.push_back(fmt::format(
          "{}: segment {} (records {}..{}) ran an earlier policy (hash {:016x}); not replayed",
          file, si, seg.begin, seg.end, seg.policy_hash));
      continue;
    }
    // The recorded loop's shape: from loop_created and its slot_maps, or
    // from the checkpoint a wrapped segment starts at.
    std::optional<recorder::Checkpoint> cp;
    std::vector<std::uint32_t> slot_sensors;  // per slot: the recording's sensor index
    std::int32_t lost_after = 0;
    std::size_t first = seg.begin;  // where issuing starts
    if (seg.complete) {
      const Record& created = rec.records[seg.begin];
      lost_after = created.c;
      for (std::size_t i = seg.begin + 1; i < seg.end && slot_sensors.size() < created.index; ++i) {
        const Record& m = rec.records[i];
        if (!is(m, Kind::slot_map) || m.a >= rec.meta.sensors.size())
          return where(rec, file, i) + ": expected the slot_map of slot " +
                 std::to_string(slot_sensors.size());
        slot_sensors.push_back(m.a);
      }
    } else {
      std::string why;
      cp = recorder::read_checkpoint(rec.records, *seg.checkpoint, seg.end, &why);
      if (!cp) return where(rec, file, *seg.checkpoint) + ": " + why;
      lost_after = cp->header.lost_after_failures;
      for (const std::uint16_t m : cp->slot_map) {
        if (m >= rec.meta.sensors.size())
          return where(rec, file, cp->begin) + ": the checkpoint maps a slot to sensor " +
                 std::to_string(m) + " of " + std::to_string(rec.meta.sensors.size());
        slot_sensors.push_back(m);
      }
      first = cp->end;
      out.notes.push_back(fmt::format(
          "{}: segment {} lost its start to the ring's wrap; replayed from the checkpoint at "
          "record {} (t = {:.3f} s)",
          file, si, cp->begin, static_cast<double>(rec.records[cp->begin].t_ns) / 1e9));
    }
    const std::size_t slots = slot_sensors.size();
    std::vector<policy::SensorId> ids;
    for (const std::uint32_t m : slot_sensors) {
      // The candidate's sensor of the same name must be physical.
      const auto id = probe->sensor_id(rec.meta.sensors[m]);
      if (!id || spec.sensors[id->index].kind != policy::SensorSpec::Kind::physical)
        return file + ": the policy has no physical sensor '" + rec.meta.sensors[m] +
               "' that the recording reads";
      ids.push_back(*id);
    }
    std::size_t physical = 0;
    for (const auto& s : spec.sensors) physical += s.kind == policy::SensorSpec::Kind::physical;
    if (ids.size() != physical)
      return file + ": the policy has " + std::to_string(physical) +
             " physical sensors, the recording " + std::to_string(ids.size());
    const policy::LoopConfig config{doc.spec.sampling, static_cast<std::uint32_t>(lost_after)};

    if (exact) {
      // One pass: replay_segment checks every record against the recording
      // and the step log observes the same replayed loop.
      recorder::ReplayOptions options;
      options.observer = &log;
      options.on_loop = [&log, si](const policy::ControlLoop& l) { log.attach(l, si); };
      auto res =
          recorder::replay_segment(rec, seg, compile(doc, &error), doc.spec.sampling, options);
      if (res.divergence)
        return where(rec, file, res.divergence->record) +
               ": the replay differs from the daemon: " + res.divergence->message;
      out.compared += res.compared;
    } else {
      HoldPorts ports(rec, seg, slots, recorded_device);
      policy::ControlLoop loop(compile(doc, &error), ids, config,
                               policy::LoopPorts{ports, ports, ports, &log});
      log.attach(loop, si);
      // Devices by name onto the candidate's; a profile the candidate does
      // not have (or an unknown index) is not switched to.
      const auto device_of = [&device_of_recorded](std::uint16_t d) -> std::optional<std::size_t> {
        return d < device_of_recorded.size() ? device_of_recorded[d] : std::nullopt;
      };
      const auto profile_of = [&rec](std::uint16_t p) -> std::optional<std::string_view> {
        if (p == recorder::kAsWritten) return std::string_view();
        if (p < rec.meta.profiles.size()) return std::string_view(rec.meta.profiles[p]);
        return std::nullopt;
      };
      std::optional<policy::Time> wake;
      // A wrapped segment has no recorded start: the candidate starts cold
      // at its first call.
      bool started = false;
      bool cold = !seg.complete;
      std::uint64_t last_call_ns = 0;  // the records' clock at the call before
      for (std::size_t i = first; i < seg.end; ++i) {
        const Record& r = rec.records[i];
        if (!is_call(r)) continue;
        // A call without `now` (set_profile, verify, restore_all) happened
        // at its record's time stamp (the same monotonic clock in coolhandd).
        const Time at = call_now(r).value_or(Time(static_cast<std::int64_t>(r.t_ns / 1000000)));
        // The ticks the candidate asks for before this call. The loop wakes
        // at most every kMinWake, so a gap of the records' own clock
        // (t_ns, which the reader checks is in order) holds at most
        // gap / kMinWake + 2 of them; and at most kMaxWakeTicks (a suspend
        // of hours, or a time stamp a damaged file makes years long). Only a
        // call whose `now` disagrees with its record's clock (a damaged
        // file: coolhandd stamps both from CLOCK_MONOTONIC) meets the first
        // bound.
        const std::uint64_t gap_ns = started ? r.t_ns - std::min(r.t_ns, last_call_ns) : 0;
        const std::size_t max_ticks = static_cast<std::size_t>(std::min<std::uint64_t>(
            kMaxWakeTicks,
            gap_ns / static_cast<std::uint64_t>(
                         std::chrono::nanoseconds(policy::ControlLoop::kMinWake).count()) +
                2));
        last_call_ns = r.t_ns;
        std::size_t ticks = 0;
        while (started && wake && *wake < at && ticks < max_ticks) {
          ports.set_time(*wake);
          wake = loop.tick(*wake);
          ++ticks;
        }
        if (ticks == max_ticks && wake && *wake < at) {
          out.notes.push_back(fmt::format(
              "{}: the policy asked for more than {} wake-ups since the call before{}; the last "
              "{:.3f} s of that gap are skipped",
              where(rec, file, i), max_ticks,
              max_ticks < kMaxWakeTicks ? " (more than the records' own clock allows)" : "",
              static_cast<double>((at - *wake).count()) / 1000.0));
          wake = at;
        }
        ports.set_time(at);
        if (cold) {
          cold = false;
          started = true;
          loop.start(at);
        }
        if (is(r, Kind::call_start)) started = true;
        if (!started) continue;
        const auto asked = recorder::issue_call(loop, r, slots, device_of, profile_of);
        if (is(r, Kind::call_tick)) wake = asked;
      }
    }
    ++out.segments;
  }
  if (out.segments == 0)
    return file + ": nothing to replay: no complete segment" +
           (candidate ? std::string() : std::string(" ran the embedded policy"));
  // (With --policy the hash is not checked: the point is to try another text.)
  if (!exact) out.differences = differences(out.levels);
  return out;
}

}  // namespace coolhand::sim
