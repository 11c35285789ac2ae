#include "core/parallel.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
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

void parallel_copy(void* to, const void* from, size_t bytes, unsigned threads) {
  constexpr size_t kPiece = size_t{4} << 20;
  if (bytes < 2 * kPiece || worker_count(threads) == 1) {
    std::memcpy(to, from, bytes);
    return;
  }
  const size_t pieces = std::min<size_t>(worker_count(threads), bytes / kPiece);
  const size_t per = ((bytes + pieces - 1) / pieces + 63) / 64 * 64;
  parallel_for(pieces, threads, [&](size_t i) {
    const size_t begin = std::min(bytes, i * per), end = std::min(bytes, begin + per);
    std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, end - begin);
  });
}

void advise_parallel(const void* p, uint64_t bytes, int advice, unsigned threads) noexcept {
  constexpr uint64_t kPage = 4096, kMinPiece = 16u << 20;
  const auto begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (!p || end <= begin) return;
  const uint64_t whole = end - begin, workers = worker_count(threads);
  const uint64_t pieces = std::clamp<uint64_t>(whole / kMinPiece, 1, 4 * workers);
  const uint64_t per = (whole / pieces + kPage - 1) / kPage * kPage;
  const auto advise = [&](size_t i) {
    const uint64_t from = std::min(whole, i * per), to = std::min(whole, from + per);
    if (to > from) ::madvise(reinterpret_cast<void*>(begin + from), to - from, advice);
  };
  if (pieces == 1 || workers == 1) {
    for (size_t i = 0; i < pieces; ++i) advise(i);
    return;
  }
  try {
    parallel_for(pieces, threads, advise);
  } catch (...) {  // no thread to be had (nothing else throws): the advice only saves time
  }
}

}  // namespace gfxq::detail
