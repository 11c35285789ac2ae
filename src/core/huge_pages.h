#pragma once
// Large host buffers (loaded columns, hash tables) backed by transparent huge pages where the
// kernel offers them on request (madvise mode): one page fault per 2 MiB instead of per 4 KiB,
// which is most of the cost of filling fresh memory on some machines.

#include <cstddef>
#include <vector>

namespace gfxq::detail {

//! From this many threads touching fresh memory together, huge pages pay for buffers that are
//! written once (the string merge's): with 4 KiB pages their faults queue on the process's page
//! tables (16 cores: a load of 2^24 unique strings 6 % faster with huge pages), while on a 2-core
//! virtual machine a fresh huge page cost about three times the system time of small pages.
constexpr unsigned kHugePageThreads = 8;

//! Asks for huge pages for the 2 MiB-aligned part of [p, p + bytes); a hint, without effect where
//! the kernel has none.
void advise_huge_pages(void* p, size_t bytes) noexcept;

//! Gives the whole pages of [p, p + bytes) back to the kernel (their contents are lost; touched
//! again, they read as zeros): the unused end of a buffer that is kept.
void release_pages(void* p, size_t bytes) noexcept;

//! Resizes `v` to `n` elements, advising huge pages for new storage before it is first touched.
template <class T>
void resize_huge(std::vector<T>& v, size_t n) {
  if (n > v.capacity()) {
    std::vector<T> grown;
    grown.reserve(n);
    advise_huge_pages(grown.data(), n * sizeof(T));
    grown.assign(v.begin(), v.end());
    v.swap(grown);
  }
  v.resize(n);
}

}  // namespace gfxq::detail
