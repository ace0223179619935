// Engine checkpoints: save_state/restore_state (engine.h). Every field of
// Engine::Impl that a later step reads and that compile() does not derive
// from the spec is listed here once; state_io.h turns the list into bytes
// and back. Effective parameters (profile overrides, consumer points) are
// not saved: restore recomputes them from the restored profile.
#include <algorithm>

#include "engine_impl.h"
#include "state_io.h"

namespace coolhand::policy {

namespace detail {

// Found by StateIo through ADL.
template <typename S>
requires std::is_same_v<std::remove_const_t<S>, Sample>
void visit_fields(StateIo& io, S& s) {
  io(s.t);
  io(s.mc);
}

namespace {

// Self: Engine::Impl or const Engine::Impl (save); a template, as the
// private Impl cannot be named here.
template <typename Self>
void visit_engine(StateIo& io, Self& m) {
  const std::size_t profiles = m.spec.profiles.size();
  io.index(m.profile, profiles);
  io.index(m.pending_profile, profiles);
  io(m.profile_pending);
  io(m.last_step);

  for (auto& s : m.sensors) {
    io(s.new_reading);
    io(s.fresh);
    io(s.reported_known);
    io(s.ema_valid);
    io(s.trend_mc);
    io(s.raw_mc);
    io(s.raw_at);
    io(s.prev_reading);
    io(s.value);
    io(s.prev_fresh_mc);
    io(s.ema_mc);
    io(s.ema_at);
    for (auto& h : s.history) SampleRing::visit_state(io, h);
    for (auto& q : s.tap_seq) io(q);
    for (auto& v : s.tap_held) io(v);
    io(s.taps_next_change);
    SampleRing::visit_state(io, s.samples);
    io(s.slope);
    io(s.next_change);
    io(s.drift);
    io(s.slope_drift);
  }
  for (auto& z : m.zones) {
    io(z.reached);
    for (auto& n : z.debounce) io(n);
    io(z.fired);
    io.index(z.severity_step, z.severities.size());
    io(z.debouncing);
  }
  for (auto& c : m.controllers) {
    for (auto& b : c.bindings) {
      io(b.request);
      io.index(b.held, m.devices[b.device].max_level, true);
      io(b.grant_mw);
      io(b.capped);
    }
    io(c.safe);
    io(c.last_change);
    io.index(c.row, c.rows.size());
    io(c.on);
    io(c.engaged);
    io(c.integral);
    io(c.output);
    io(c.last_update);
    io(c.last_mc);
  }
  for (auto& d : m.devices) {
    io.index(d.level, d.max_level, true);
    io(d.level_since);
    io(d.forced);
    io.index(d.escalated, d.max_level, true);
  }
  for (auto& r : m.last_resorts) {
    for (std::size_t c = 0; c < r.levels.size(); ++c) {
      io.index(r.levels[c], m.devices[r.candidates[c]].max_level, true);
    }
    // `taken` grows and shrinks within the capacity compile() reserved:
    // its size, then every reserved entry (zeros past the size).
    std::uint32_t n = static_cast<std::uint32_t>(r.taken.size());
    io.index(n, r.taken.capacity(), true);
    if constexpr (!std::is_const_v<Self>) {
      if (io.loading() && io.ok()) r.taken.resize(n);  // within capacity: no allocation
    }
    for (std::size_t i = 0; i < r.taken.capacity(); ++i) {
      std::uint16_t t = i < r.taken.size() ? r.taken[i] : std::uint16_t{0};
      io.index(t, std::max<std::size_t>(r.candidates.size(), 1));
      if constexpr (!std::is_const_v<Self>) {
        if (io.loading() && io.ok() && i < r.taken.size()) r.taken[i] = t;
      }
    }
    io(r.pending);
    if (io.loading() && (r.pending < -1 || r.pending > 1)) io.fail();
    io(r.since);
  }
  for (auto& c : m.consumers) {
    io(c.known);
    io(c.d_above);
    io(c.d_below);
    io(c.near);
  }

  auto& d = m.decision;
  io(d.at);
  for (std::size_t i = 0; i < d.devices.size(); ++i) {
    auto& dd = d.devices[i];
    io.index(dd.level, m.devices[i].max_level, true);
    io(dd.requested);
    std::optional<std::uint16_t> cause;
    if (dd.cause) cause = dd.cause->index;
    io.index(cause, m.controllers.size());
    if constexpr (!std::is_const_v<Self>) {
      if (io.loading() && io.ok()) {
        dd.cause = cause ? std::optional<ControllerId>(ControllerId{*cause}) : std::nullopt;
      }
    }
    io(dd.forced);
    io(dd.changed);
    io(dd.escalated);
  }
  for (auto& z : d.zones) {
    io.index(z.severity, kSeverityCount);
    io(z.temperature);
    io(z.trips_reached);
    io(z.last_resort_levels);
  }
  io.index(d.severity, kSeverityCount);
  for (auto& w : d.windows) io(w);
  io(d.next_step);
  for (auto& p : d.poll_intervals) io(p);
}

// The last resorts' `taken` must agree with their per-candidate levels
// (release gives back levels[taken.back()]).
template <typename Impl>
bool taken_consistent(const Impl& m) {
  for (const auto& r : m.last_resorts) {
    for (std::size_t c = 0; c < r.levels.size(); ++c) {
      const auto n = std::count(r.taken.begin(), r.taken.end(), static_cast<std::uint16_t>(c));
      if (static_cast<std::uint32_t>(n) != r.levels[c]) return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace detail

std::size_t Engine::max_state_size() const {
  detail::StateIo io = detail::StateIo::measure_max();
  detail::visit_engine(io, std::as_const(*impl_));
  return io.size();
}

std::size_t Engine::save_state(std::span<std::byte> out) const {
  detail::StateIo io = detail::StateIo::save(out);
  detail::visit_engine(io, std::as_const(*impl_));
  return io.ok() ? io.size() : 0;
}

bool Engine::restore_state(std::span<const std::byte> in) {
  detail::StateIo io = detail::StateIo::load(in);
  detail::visit_engine(io, *impl_);
  if (!io.ok() || io.size() != in.size()) return false;
  impl_->apply_profile();
  return detail::taken_consistent(*impl_);
}

const Decision& Engine::decision() const {
  return impl_->decision;
}

}  // namespace coolhand::policy
