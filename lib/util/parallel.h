// The one thread pool: independent items spread over cores, the calling thread among them.
#ifndef ABICHECK_LIB_UTIL_PARALLEL_H_
#define ABICHECK_LIB_UTIL_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
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

// fill(i, &text) for every i in [0, n) on `threads` threads, as ParallelFor, and emit(text) for
// each in the order of i, always on the calling thread (a library caller's sink need not be
// thread-safe): between its own items it sends every text that is ready in order, and at the end
// it waits for the rest. At most 2 * threads texts exist at a time; a sent text's buffer is reused
// for a later i. So a long output is neither held whole nor written into fresh pages chunk after
// chunk (a demangled listing of libtorch_cuda.so is 40 MB, and faulting its pages in cost more
// than writing it). `text` comes empty. fill must not throw; when emit throws, the items under
// way finish, no other is started, and the exception leaves ParallelForInOrder.
// Long: the pool, its buffers and the in-order sending share one lock and are read as one.
template <typename Fill, typename Emit>
void ParallelForInOrder(size_t n, size_t threads, Fill&& fill, Emit&& emit) {
  std::mutex mu;
  std::condition_variable ready_cv, spare_cv;
  std::vector<std::string> done(n), spare;
  std::vector<char> ready(n, 0);
  const size_t max_buffers = 2 * std::max<size_t>(threads, 1);
  size_t buffers = 0, next = 0, next_out = 0;
  // A buffer, then an index (an index is taken only with a buffer in hand, so every item taken
  // can finish); false when every index is taken.
  auto take = [&](std::unique_lock<std::mutex>& lock, std::string* text, size_t* i) {
    spare_cv.wait(lock, [&] { return next >= n || !spare.empty() || buffers < max_buffers; });
    if (next >= n) return false;
    if (!spare.empty()) {
      *text = std::move(spare.back());
      spare.pop_back();
    } else {
      ++buffers;
    }
    *i = next++;
    return true;
  };
  auto make = [&](std::unique_lock<std::mutex>& lock, std::string* text, size_t i) {
    lock.unlock();
    text->clear();
    fill(i, text);
    lock.lock();
    done[i] = std::move(*text);
    ready[i] = 1;
    ready_cv.notify_one();
  };
  // Sends the texts ready in order (with `wait`, waiting for the next one first) and puts their
  // buffers back.
  auto send = [&](std::unique_lock<std::mutex>& lock, bool wait) {
    if (wait) ready_cv.wait(lock, [&] { return ready[next_out] != 0; });
    while (next_out < n && ready[next_out] != 0) {
      std::string out = std::move(done[next_out++]);
      lock.unlock();
      emit(out);
      lock.lock();
      spare.push_back(std::move(out));
      spare_cv.notify_one();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) {
    pool.emplace_back([&] {
      std::unique_lock<std::mutex> lock(mu);
      std::string text;
      for (size_t i; take(lock, &text, &i);) make(lock, &text, i);
      spare_cv.notify_all();  // the others may wait for a buffer when none is left to take
    });
  }
  // The caller's turn: it sends before it takes, since the buffers it would wait for may be
  // texts waiting to go; false once every index is taken.
  auto caller_turn = [&](std::unique_lock<std::mutex>& lock) {
    send(lock, false);
    if (next >= n) return false;
    if (spare.empty() && buffers >= max_buffers) {
      if (next_out < next) send(lock, true);
      return true;
    }
    std::string text;
    size_t i = 0;
    if (take(lock, &text, &i)) make(lock, &text, i);
    return true;
  };
  auto all_sent = [&] { return next_out >= n; };
  std::exception_ptr failure;  // from emit: no index is handed out any more, and the pool ends
  try {
    std::unique_lock<std::mutex> lock(mu);
    while (caller_turn(lock)) {
    }
    while (!all_sent()) send(lock, true);
  } catch (...) {
    failure = std::current_exception();
    std::lock_guard<std::mutex> lock(mu);
    next = n;
    spare_cv.notify_all();
  }
  for (std::thread& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace abicheck

#endif  // ABICHECK_LIB_UTIL_PARALLEL_H_
