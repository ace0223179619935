// parallel_for over std::thread (parallel.h).
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace coolhand::sim {

unsigned worker_threads(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& fn) {
  if (n == 0) return;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) fn(i);
  };
  const unsigned extra =
      static_cast<unsigned>(std::min<std::size_t>(worker_threads(threads), n)) - 1;
  std::vector<std::thread> pool;
  pool.reserve(extra);
  for (unsigned t = 0; t < extra; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace coolhand::sim
