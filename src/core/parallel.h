#pragma once
// Host-side parallel loops for the loaders and writers (CSV, binary column files, Arrow): the
// caller's thread works too, and a thread that cannot start leaves its share to the others.

#include <cstddef>
#include <functional>

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

}  // namespace gfxq::detail
