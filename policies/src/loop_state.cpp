// ControlLoop checkpoints (loop.h): the loop's own fields, then the
// engine's state (state.cpp), in one buffer.
#include <utility>

#include "coolhand/policy/loop.h"
#include "state_io.h"

namespace coolhand::policy {

template <typename Io, typename Self>
void ControlLoop::visit_state(Io& io, Self& self) {
  for (auto& s : self.slots_) {
    io(s.failures);
    io(s.lost);
    io(s.ever_read);
    io(s.next_poll);
    io(s.last_sample);
    io(s.sent_window);
  }
  for (auto& a : self.applied_) io(a);
  io(self.last_step_);
  io(self.dirty_);
  auto& c = self.counters_;
  io(c.samples);
  io(c.pushed_samples);
  io(c.read_failures);
  io(c.sensors_lost);
  io(c.steps);
  io(c.resyncs);
  io(c.resumes);
}

std::size_t ControlLoop::max_state_size() const {
  detail::StateIo io = detail::StateIo::measure();
  visit_state(io, std::as_const(*this));
  bool stepped = last_ != nullptr;
  io(stepped);
  return io.size() + engine_->max_state_size();
}

std::size_t ControlLoop::save_state(std::span<std::byte> out) const {
  detail::StateIo io = detail::StateIo::save(out);
  visit_state(io, std::as_const(*this));
  bool stepped = last_ != nullptr;
  io(stepped);
  if (!io.ok()) return 0;
  const std::size_t engine = engine_->save_state(out.subspan(io.size()));
  return engine == 0 ? 0 : io.size() + engine;
}

bool ControlLoop::restore_state(std::span<const std::byte> in) {
  detail::StateIo io = detail::StateIo::load(in);
  visit_state(io, *this);
  bool stepped = false;
  io(stepped);
  if (!io.ok()) return false;
  if (!engine_->restore_state(in.subspan(io.size()))) return false;
  last_ = stepped ? &engine_->decision() : nullptr;
  return true;
}

}  // namespace coolhand::policy
