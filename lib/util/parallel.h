// The one thread pool: independent items spread over cores, the calling thread among them.
#ifndef ABICHECK_LIB_UTIL_PARALLEL_H_
#define ABICHECK_LIB_UTIL_PARALLEL_H_

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace abicheck {

// `requested` threads, or every core when it is 0, but never more than `items` (and at least 1).
inline size_t ThreadsFor(size_t items, size_t requested = 0) {
  const size_t cores = requested > 0 ? requested : std::thread::hardware_concurrency();
  return std::max<size_t>(1, std::min(cores, items));
}

// fn(i) for every i in [0, n), on `threads` threads; each takes the next index off one counter,
// so uneven items balance. Returns when all are done. fn must not throw.
template <typename F>
void ParallelFor(size_t n, size_t threads, F&& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_UTIL_PARALLEL_H_
