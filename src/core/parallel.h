#pragma once
// Host-side parallel loops for the loaders and writers (CSV, binary column files, Arrow): the
// caller's thread works too, and a thread that cannot start leaves its share to the others.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/huge_pages.h"

namespace gfxq::detail {

//! The threads to use: `requested`, or std::thread::hardware_concurrency() when 0; at least 1.
unsigned worker_count(unsigned requested) noexcept;

//! Runs fn(i) for every i in [0, count) on up to `threads` threads (the caller's included), handing
//! out indices in increasing order from a shared counter. When fn throws, the indices not yet
//! started are skipped and the first exception is rethrown once every thread has ended.
void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& fn);

//! parallel_for that also tells fn which thread runs it: fn(i, worker), worker in
//! [0, worker_count(threads)) and the same for every index one thread runs (the caller's is 0), so
//! fn can keep per-thread state between indices.
void parallel_for_workers(size_t count, unsigned threads, const std::function<void(size_t, unsigned)>& fn);

//! memcpy of `bytes` bytes on up to `threads` threads (0: all cores), in pieces of at least 4 MiB;
//! one thread below 8 MiB. Filling write-combined staging memory needs several threads to reach the bus.
void parallel_copy(void* to, const void* from, size_t bytes, unsigned threads);

//! madvise(`advice`) on the whole pages of [p, p + bytes) in pieces of at least 16 MiB on up to
//! `threads` threads, errors ignored (for advice that only saves time: mapping a file's pages, or
//! giving back memory before it is freed, each a serial step of tens of ms per GB on one thread).
void advise_parallel(const void* p, uint64_t bytes, int advice, unsigned threads) noexcept;

//! Resizes `v` to `n` elements as resize_huge() does (without huge pages unless `huge`), new
//! storage first touched on up to `threads` threads, a piece each: the kernel zeroes a fresh page
//! when it is first touched, which on one thread is most of the cost of a large vector (the zeros
//! are then written at memory speed).
template <class T>
void resize_parallel(std::vector<T>& v, size_t n, unsigned threads, bool huge = true) {
  if (n > v.capacity()) {
    std::vector<T> grown;
    grown.reserve(n);
    if (huge) advise_huge_pages(grown.data(), n * sizeof(T));
    constexpr size_t kPiece = size_t{2} << 20, kPage = 4096;
    const size_t bytes = n * sizeof(T);
    parallel_for((bytes + kPiece - 1) / kPiece, threads, [&](size_t i) {
      auto* storage = reinterpret_cast<volatile char*>(grown.data());
      for (size_t b = i * kPiece; b < std::min(bytes, (i + 1) * kPiece); b += kPage) storage[b] = 0;
    });
    grown.assign(v.begin(), v.end());
    v.swap(grown);
  }
  v.resize(n);
}

}  // namespace gfxq::detail
