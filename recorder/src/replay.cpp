// ReplayPorts and replay_segment (rules in replay.h).
#include "coolhand/recorder/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "coolhand/recorder/layout.h"
#include "coolhand/recorder/loop_recorder.h"

namespace coolhand::recorder {

namespace {

constexpr std::uint32_t kUnknown = 0xFFFFFFFFU;

bool is_call(std::uint16_t k) {
  return is_call_kind(k);
}
bool is_port(std::uint16_t k) {
  return k >= static_cast<std::uint16_t>(Kind::port_read) &&
         k <= static_cast<std::uint16_t>(Kind::port_restore);
}

std::string_view kind_name(std::uint16_t k) {
  const KindLayout* l = find_layout(k);
  return l ? l->name() : std::string_view("unknown");
}

std::string describe(const Record& r) {
  std::string out(kind_name(r.kind));
  const KindLayout* l = find_layout(r.kind);
  if (!l) return out;
  for (const FieldLayout& f : l->fields()) {
    if (f.name == "t_ns" || f.name == "kind") continue;
    out += fmt::format(" {}={}", f.name, field_value(r, f));
  }
  return out;
}

bool same_but_time(const Record& x, const Record& y) {
  Record a = x;
  Record b = y;
  a.t_ns = 0;
  b.t_ns = 0;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

ReplayPorts::ReplayPorts(std::span<const Record> records, std::size_t begin, std::size_t end,
                         std::size_t slots, std::size_t devices)
    : records_(records),
      end_(std::min(end, records.size())),
      pos_(begin),
      sensor_state_(slots, kUnknown),
      bound_state_(devices, kUnknown) {}

void ReplayPorts::set_state(std::span<const std::uint32_t> sensor_state,
                            std::span<const std::uint32_t> bound_state) {
  for (std::size_t i = 0; i < sensor_state.size() && i < sensor_state_.size(); ++i) {
    sensor_state_[i] = sensor_state[i];
  }
  for (std::size_t i = 0; i < bound_state.size() && i < bound_state_.size(); ++i) {
    bound_state_[i] = bound_state[i];
  }
}

void ReplayPorts::begin_call(std::size_t call) {
  pos_ = call + 1;
}

void ReplayPorts::diverge(std::size_t at, std::string message) const {
  if (!divergence_) divergence_ = Divergence{at, std::move(message)};
}

const Record* ReplayPorts::next(Kind want, std::size_t index, const char* what) const {
  for (; pos_ < end_; ++pos_) {
    const Record& r = records_[pos_];
    if (is_call(r.kind) || r.kind == static_cast<std::uint16_t>(Kind::loop_created)) break;
    if (r.kind == static_cast<std::uint16_t>(Kind::port_sensor_state)) {
      if (r.index < sensor_state_.size()) sensor_state_[r.index] = r.a;
      continue;
    }
    if (r.kind == static_cast<std::uint16_t>(Kind::port_bound)) {
      if (r.index < bound_state_.size()) bound_state_[r.index] = r.a;
      continue;
    }
    if (!is_port(r.kind)) continue;
    if (r.kind != static_cast<std::uint16_t>(want) || r.index != index) {
      diverge(pos_, fmt::format("the loop asked {} {}; the recording answered {}", what, index,
                                describe(r)));
      return nullptr;
    }
    return &records_[pos_++];
  }
  diverge(pos_, fmt::format("the loop asked {} {}; the recording has no more answers for this "
                            "call",
                            what, index));
  return nullptr;
}

policy::SensorRead ReplayPorts::read(std::size_t slot, bool /*rebind*/) {
  const Record* r = next(Kind::port_read, slot, "to read slot");
  if (!r || (r->a & kReadOk) == 0) return {std::nullopt, "failed (recorded)"};
  return {policy::MilliC(r->c), {}};
}

// State answers: consume pending state records first (next() with a kind
// that never matches stops at the first port answer without consuming it).
bool ReplayPorts::present(std::size_t slot) const {
  for (; pos_ < end_; ++pos_) {
    const Record& r = records_[pos_];
    if (r.kind == static_cast<std::uint16_t>(Kind::port_sensor_state)) {
      if (r.index < sensor_state_.size()) sensor_state_[r.index] = r.a;
    } else if (r.kind == static_cast<std::uint16_t>(Kind::port_bound)) {
      if (r.index < bound_state_.size()) bound_state_[r.index] = r.a;
    } else if (is_port(r.kind) || is_call(r.kind)) {
      break;
    }
  }
  if (slot >= sensor_state_.size()) return false;
  return sensor_state_[slot] != kUnknown && (sensor_state_[slot] & kStatePresent) != 0;
}

policy::Delivery ReplayPorts::delivery(std::size_t slot) const {
  (void)present(slot);
  if (slot >= sensor_state_.size() || sensor_state_[slot] == kUnknown) {
    return policy::Delivery::polled;
  }
  return (sensor_state_[slot] & kStatePushed) != 0 ? policy::Delivery::pushed
                                                   : policy::Delivery::polled;
}

bool ReplayPorts::bound(std::size_t device) const {
  (void)present(0);
  if (device >= bound_state_.size()) return false;
  return bound_state_[device] != kUnknown && bound_state_[device] != 0;
}

bool ReplayPorts::rebind(std::size_t device) {
  const Record* r = next(Kind::port_rebind, device, "to rebind device");
  return r && r->a != 0;
}

bool ReplayPorts::apply(std::size_t device, std::uint32_t level) {
  const Record* r = next(Kind::port_apply, device, "to apply device");
  if (!r) return false;
  if (r->a != level) {
    diverge(pos_ - 1, fmt::format("the loop applied level {} to device {}; the recorded loop {}",
                                  level, device, r->a));
  }
  return r->c != 0;
}

void ReplayPorts::verify(std::size_t device) {
  (void)next(Kind::port_verify, device, "to verify device");
}

void ReplayPorts::restore(std::size_t device) {
  (void)next(Kind::port_restore, device, "to restore device");
}

bool ReplayPorts::watch(std::size_t slot, const policy::Window& /*w*/) {
  const Record* r = next(Kind::port_watch, slot, "to watch slot");
  return r && r->a != 0;
}

ReplayResult replay_segment(const Recording& rec, const Segment& seg,
                            std::unique_ptr<policy::Engine> engine,
                            const policy::SamplingSpec& sampling, const ReplayOptions& options) {
  ReplayResult out;
  const auto& rs = rec.records;
  const std::size_t seg_end = std::min(seg.end, rs.size());
  // Where the replay starts: loop_created, or the first whole checkpoint.
  std::optional<Checkpoint> cp;
  std::size_t slots = 0;
  std::size_t devices = 0;
  CheckpointHeader head;
  std::vector<policy::SensorId> ids;
  const std::size_t sensors = engine->spec().sensors.size();
  if (seg.complete && seg.begin < rs.size() &&
      rs[seg.begin].kind == static_cast<std::uint16_t>(Kind::loop_created)) {
    const Record& created = rs[seg.begin];
    head = CheckpointHeader{created.index, created.a, static_cast<std::uint64_t>(created.b),
                            created.c};
    slots = created.index;
    std::size_t i = seg.begin + 1;
    for (std::size_t s = 0; s < slots; ++s, ++i) {
      if (i >= seg_end || rs[i].kind != static_cast<std::uint16_t>(Kind::slot_map) ||
          rs[i].index != s || rs[i].a >= sensors) {
        out.divergence = Divergence{i, fmt::format("expected slot_map for slot {}", s)};
        return out;
      }
      ids.push_back(policy::SensorId{static_cast<std::uint16_t>(rs[i].a)});
    }
  } else if (seg.checkpoint) {
    std::string why;
    cp = read_checkpoint(rs, *seg.checkpoint, seg_end, &why);
    if (!cp) {
      out.divergence = Divergence{*seg.checkpoint, "checkpoint unusable: " + why};
      return out;
    }
    head = cp->header;
    slots = head.slots;
    for (const std::uint16_t id : cp->slot_map) {
      if (id >= sensors) {
        out.divergence = Divergence{cp->begin, fmt::format("checkpoint maps a slot to sensor {} "
                                                           "of {}",
                                                           id, sensors)};
        return out;
      }
      ids.push_back(policy::SensorId{id});
    }
  } else {
    out.divergence = Divergence{seg.begin,
                                "segment does not start at a loop_created record (its "
                                "start was overwritten) and holds no whole checkpoint; exact "
                                "replay impossible"};
    return out;
  }
  devices = head.devices;
  if (devices != engine->spec().devices.size()) {
    out.divergence = Divergence{seg.begin, fmt::format("recorded loop had {} devices, the policy "
                                                       "has {}",
                                                       devices, engine->spec().devices.size())};
    return out;
  }

  std::size_t cursor = cp ? cp->end : seg.begin;
  ReplayPorts ports(rs, cursor, seg_end, slots, devices);
  Ring scratch(seg_end - seg.begin + 64);
  policy::LoopConfig config{sampling, static_cast<std::uint32_t>(head.lost_after_failures)};
  LoopRecorder loop(scratch, head.policy_hash, std::move(engine), ids, config,
                    policy::LoopPorts{ports, ports, ports, options.observer});
  loop.set_checkpoint_interval(0);  // the recorded checkpoints are checked instead
  std::uint64_t seen = 0;           // scratch records compared so far
  if (cp) {
    if (!loop.restore(*cp)) {
      out.divergence = Divergence{cp->begin, "checkpoint does not fit the policy's loop"};
      return out;
    }
    ports.set_state(cp->sensor_state, cp->bound_state);
    seen = scratch.total();  // loop_created and slot_map of the scratch loop
  }
  if (options.on_loop) options.on_loop(loop.loop());

  // Compare the replayed records [seen, total) with the recorded ones from
  // `cursor`, skipping records a replay does not make.
  auto compare = [&]() -> bool {
    for (; seen < scratch.total(); ++seen) {
      while (cursor < seg_end && !replayed_kind(rs[cursor].kind)) ++cursor;
      const Record& mine = scratch.at(seen);
      if (cursor >= seg_end) {
        out.divergence =
            Divergence{cursor, "replay produced " + describe(mine) + " after the recording's end"};
        return false;
      }
      if (!same_but_time(mine, rs[cursor])) {
        out.divergence = Divergence{
            cursor, "recorded " + describe(rs[cursor]) + ", replay produced " + describe(mine)};
        return false;
      }
      if (mine.kind == static_cast<std::uint16_t>(Kind::step)) ++out.steps;
      ++out.compared;
      ++cursor;
    }
    return true;
  };
  if (!compare()) return out;

  const auto device_of = [devices](std::uint16_t d) -> std::optional<std::size_t> {
    if (d < devices) return d;
    return std::nullopt;
  };
  // Every recorded set_profile is made again, an unknown name included (the
  // recorded loop refused it, and recorded that).
  const auto& profiles = loop.loop().engine().spec().profiles;
  const auto profile_of = [&profiles](std::uint16_t p) -> std::optional<std::string_view> {
    if (p == kAsWritten) return std::string_view();
    if (p < profiles.size()) return std::string_view(profiles[p].name);
    return std::string_view("\x01no such profile");
  };

  for (std::size_t at = cursor; at < seg_end; ++at) {
    const Record& r = rs[at];
    if (r.kind == static_cast<std::uint16_t>(Kind::checkpoint)) {
      // The replayed loop's state must be the recorded one here.
      if (const auto mark = read_checkpoint(rs, at, seg_end)) {
        if (!std::ranges::equal(loop.state_payload(), mark->payload)) {
          out.divergence =
              Divergence{at, "the replayed loop's state differs from the recorded checkpoint's"};
          return out;
        }
        ++out.checkpoints;
      }
      continue;
    }
    if (!is_call(r.kind)) continue;
    if (at != cursor) {
      // Records between the last compared one and this call that the
      // replay did not produce (other than daemon records) diverge.
      while (cursor < at && !replayed_kind(rs[cursor].kind)) ++cursor;
      if (cursor != at) {
        out.divergence = Divergence{
            cursor, "recorded " + describe(rs[cursor]) + ", the replay produced nothing more"};
        return out;
      }
    }
    ports.begin_call(at);
    (void)issue_call(loop, r, slots, device_of, profile_of);
    ++out.calls;
    if (ports.divergence()) {
      out.divergence = ports.divergence();
      return out;
    }
    if (!compare()) return out;
  }
  while (cursor < seg_end && !replayed_kind(rs[cursor].kind)) ++cursor;
  if (cursor != seg_end) {
    out.divergence =
        Divergence{cursor, "recorded " + describe(rs[cursor]) + ", the replay produced nothing"};
  }
  return out;
}

}  // namespace coolhand::recorder
