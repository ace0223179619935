// ReplayPorts and replay_segment (rules in replay.h).
#include "coolhand/recorder/replay.h"

#include <fmt/format.h>

#include <cstring>

#include "coolhand/recorder/layout.h"
#include "coolhand/recorder/loop_recorder.h"

namespace coolhand::recorder {

namespace {

constexpr std::uint32_t kUnknown = 0xFFFFFFFFU;

bool is_call(std::uint16_t k) {
  return k >= static_cast<std::uint16_t>(Kind::call_start) &&
         k <= static_cast<std::uint16_t>(Kind::call_set_profile);
}
bool is_port(std::uint16_t k) {
  return k >= static_cast<std::uint16_t>(Kind::port_read) &&
         k <= static_cast<std::uint16_t>(Kind::port_restore);
}
// Records the replayed loop produces itself (everything but daemon records).
bool replayed(std::uint16_t k) {
  return k < static_cast<std::uint16_t>(Kind::netlink);
}

std::string_view kind_name(std::uint16_t k) {
  const KindLayout* l = find_layout(k);
  return l ? l->name : std::string_view("unknown");
}

std::string describe(const Record& r) {
  std::string out(kind_name(r.kind));
  const KindLayout* l = find_layout(r.kind);
  if (!l) return out;
  for (const FieldLayout& f : l->fields) {
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
                            const policy::SamplingSpec& sampling) {
  ReplayResult out;
  const auto& rs = rec.records;
  if (!seg.complete || seg.begin >= rs.size() ||
      rs[seg.begin].kind != static_cast<std::uint16_t>(Kind::loop_created)) {
    out.divergence = Divergence{seg.begin,
                                "segment does not start at a loop_created record (its "
                                "start was overwritten); exact replay impossible"};
    return out;
  }
  const Record& created = rs[seg.begin];
  const std::size_t slots = created.index;
  const std::size_t devices = created.a;
  if (devices != engine->spec().devices.size()) {
    out.divergence = Divergence{seg.begin, fmt::format("recorded loop had {} devices, the policy "
                                                       "has {}",
                                                       devices, engine->spec().devices.size())};
    return out;
  }
  std::vector<policy::SensorId> ids(slots);
  std::size_t i = seg.begin + 1;
  for (std::size_t s = 0; s < slots; ++s, ++i) {
    if (i >= seg.end || rs[i].kind != static_cast<std::uint16_t>(Kind::slot_map) ||
        rs[i].index != s || rs[i].a >= engine->spec().sensors.size()) {
      out.divergence = Divergence{i, fmt::format("expected slot_map for slot {}", s)};
      return out;
    }
    ids[s] = policy::SensorId{static_cast<std::uint16_t>(rs[i].a)};
  }

  ReplayPorts ports(rs, seg.begin, seg.end, slots, devices);
  Ring scratch(seg.end - seg.begin + 64);
  policy::LoopConfig config{sampling, static_cast<std::uint32_t>(created.c)};
  LoopRecorder loop(scratch, static_cast<std::uint64_t>(created.b), std::move(engine), ids, config,
                    policy::LoopPorts{ports, ports, ports, nullptr});

  std::uint64_t seen = 0;  // scratch records compared so far
  std::size_t cursor = seg.begin;
  // Compare the replayed records [seen, total) with the recorded ones from
  // `cursor`, skipping daemon records in the recording.
  auto compare = [&]() -> bool {
    for (; seen < scratch.total(); ++seen) {
      while (cursor < seg.end && !replayed(rs[cursor].kind)) ++cursor;
      const Record& mine = scratch.at(seen);
      if (cursor >= seg.end) {
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

  for (std::size_t at = cursor; at < seg.end; ++at) {
    const Record& r = rs[at];
    if (!is_call(r.kind)) continue;
    if (at != cursor) {
      // Records between the last compared one and this call that the
      // replay did not produce (other than daemon records) diverge.
      while (cursor < at && !replayed(rs[cursor].kind)) ++cursor;
      if (cursor != at) {
        out.divergence = Divergence{
            cursor, "recorded " + describe(rs[cursor]) + ", the replay produced nothing more"};
        return out;
      }
    }
    ports.begin_call(at);
    const policy::Time now{r.b};
    switch (static_cast<Kind>(r.kind)) {
      case Kind::call_start:
        loop.start(now);
        break;
      case Kind::call_tick:
        (void)loop.tick(now);
        break;
      case Kind::call_push:
        if (r.index >= slots) break;
        loop.push(r.index, policy::MilliC(r.c), now);
        break;
      case Kind::call_sensor_gone:
        if (r.index >= slots) break;
        loop.sensor_gone(r.index, now);
        break;
      case Kind::call_resync:
        loop.resync(now);
        break;
      case Kind::call_resume:
        loop.resume(now);
        break;
      case Kind::call_verify:
        loop.verify_devices();
        break;
      case Kind::call_restore_all:
        loop.restore_all();
        break;
      case Kind::call_seed_level:
        if (r.index >= devices) break;
        loop.seed_level(r.index, r.a, now);
        break;
      case Kind::call_set_profile: {
        std::string name = "\x01no such profile";
        if (r.index == kAsWritten) name.clear();
        const auto& profiles = loop.loop().engine().spec().profiles;
        if (r.index < profiles.size()) name = profiles[r.index].name;
        (void)loop.set_profile(name);
        break;
      }
      default:
        break;
    }
    ++out.calls;
    if (ports.divergence()) {
      out.divergence = ports.divergence();
      return out;
    }
    if (!compare()) return out;
  }
  while (cursor < seg.end && !replayed(rs[cursor].kind)) ++cursor;
  if (cursor != seg.end) {
    out.divergence =
        Divergence{cursor, "recorded " + describe(rs[cursor]) + ", the replay produced nothing"};
  }
  return out;
}

}  // namespace coolhand::recorder
