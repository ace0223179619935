// Arbitration, the fourth stage of a step: one level per device from the
// requests of every controller bound to it.
//
// Rules, per device:
// 1. The deepest requested level wins; its controller is the decision's
//    `cause` (the first in spec order on a tie). With no request above 0 the
//    device is released (no cause).
// 2. A zone's last resort (escalation.cpp) sets a floor on the level like
//    one more request; the device is `escalated` while the floor is deeper
//    than every controller's request. A device held by a fired
//    force_deepest trip targets its limit_level.
// 3. The target is clamped to [min_level, limit_level] (profile overrides
//    applied); that is `requested`.
// 4. Unless forced, the applied level moves from the last applied level
//    towards the target by at most max_step_up (deeper) or max_step_down
//    (shallower) per step, and not at all until min_dwell has passed since the
//    last change; a move shallower also waits until release_dwell has passed
//    since the last change. A forced device goes straight to its target: a
//    critical action does not wait.
// While the applied level lags the target, the engine asks for a step when
// the next move is allowed: at the end of the dwell, or one min_interval
// later when only the step limit held it back.
#include <algorithm>
#include <cstdint>

#include "engine_impl.h"

namespace coolhand::policy {

void Engine::Impl::arbitrate(Time now) {
  for (std::size_t di = 0; di < devices.size(); ++di) {
    DeviceRt& d = devices[di];
    DeviceDecision& out = decision.devices[di];
    std::uint32_t best = 0;
    std::optional<ControllerId> cause;
    for (const auto& [ci, bi] : d.bound) {
      const std::uint32_t request = controllers[ci].bindings[bi].request;
      if (request > best) {
        best = request;
        cause = ControllerId{ci};
      }
    }
    const bool escalated = !d.forced && d.escalated > best;
    const std::uint32_t lo = std::min(d.min_level, d.limit_level);
    const std::uint32_t target =
        d.forced ? d.limit_level : std::clamp(std::max(best, d.escalated), lo, d.limit_level);

    // The dwell that applies to the move towards the target (rule 4).
    const Millis dwell = target < d.level ? std::max(d.min_dwell, d.release_dwell) : d.min_dwell;
    std::uint32_t level = target;
    if (!d.forced && target != d.level) {
      const bool dwelling = d.level_since && dwell > Millis{0} && now < *d.level_since + dwell;
      if (dwelling) {
        level = d.level;
      } else if (target > d.level && d.max_step_up > 0) {
        level = std::min(target, d.level + d.max_step_up);
      } else if (target < d.level && d.max_step_down > 0) {
        level = std::max(target, d.level - std::min(d.level, d.max_step_down));
      }
    }

    out.changed = level != d.level;
    if (out.changed) {
      d.level = level;
      d.level_since = now;
    }
    out.level = level;
    out.requested = target;
    out.cause = cause;
    out.forced = d.forced;
    out.escalated = escalated;
    if (level != target) {
      const Time dwell_end = d.level_since.value_or(now) + dwell;
      want_step(dwell_end > now ? dwell_end : now + spec.sampling.min_interval);
    }
  }
}

}  // namespace coolhand::policy
