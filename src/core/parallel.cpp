#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gfxq::detail {

unsigned worker_count(unsigned requested) noexcept {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& fn) {
  parallel_for_workers(count, threads, [&](size_t i, unsigned) { fn(i); });
}

void parallel_for_workers(size_t count, unsigned threads, const std::function<void(size_t, unsigned)>& fn) {
  if (count == 0) return;
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto work = [&](unsigned worker) {
    for (size_t i = next.fetch_add(1); i < count && !failed.load(std::memory_order_relaxed); i = next.fetch_add(1)) {
      try {
        fn(i, worker);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  const size_t wanted = std::min<size_t>(count, worker_count(threads)) - 1;
  helpers.reserve(wanted);
  for (size_t t = 0; t < wanted; ++t) {
    try {
      helpers.emplace_back(work, static_cast<unsigned>(t + 1));
    } catch (const std::system_error&) {
      break;  // the threads already running (and this one) take the rest
    }
  }
  work(0);
  for (std::thread& h : helpers) h.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gfxq::detail
