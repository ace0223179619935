// The simulator's one way of spreading independent runs over the machine's
// cores (tune's candidates and baselines, the port chain's device check).
// Each task writes only its own result slot and reads shared inputs that no
// task changes, so the results do not depend on the thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace coolhand::sim {

// `requested` threads, or with 0 every core (at least 1).
[[nodiscard]] unsigned worker_threads(unsigned requested);

// Runs fn(0), ..., fn(n - 1), each index once, on worker_threads(threads)
// threads (the caller's among them; no more than n), handing out indices
// in order as threads fall free; returns when all have returned.
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& fn);

}  // namespace coolhand::sim
