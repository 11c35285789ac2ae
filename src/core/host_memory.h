#pragma once
// Host memory limits: results and generated tables are refused with Error(ResultTooLarge) before
// anything is allocated when they would not fit.

#include <cstdint>
#include <string_view>

namespace gfxq {

//! Physical memory of this machine in bytes (sysconf), or 0 when the system does not say.
uint64_t host_memory_bytes() noexcept;

//! The default limit on one result or generated table: half the physical memory (2^62 bytes when
//! unknown), leaving room for the inputs and the copy a caller makes.
uint64_t default_host_limit() noexcept;

//! Throws Error(ResultTooLarge) naming `what` when `count` items of `bytes_each` bytes exceed
//! `limit` bytes (0: default_host_limit()); the product is checked without overflow.
void check_host_bytes(uint64_t count, uint64_t bytes_each, uint64_t limit, std::string_view what);

}  // namespace gfxq
