#pragma once
// Gather and scatter of 4-byte elements through uint32 indices (GDB's gather/scatter), with GDB's
// multi-pass variant: pass p handles only the indices that fall in the p-th of `passes` equal
// ranges of the indexed buffer, so each pass touches a region that may fit in cache. The passes
// also cut an indexed buffer larger than one binding into bound windows: more passes than asked
// are used when a range would exceed one binding. No scratch. Barrier rules: see map.h.

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vk/device.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

//! out[i] = src[idx[i]] for i < n; out[i] is left unchanged where idx[i] >= src_n. src_n is at
//! most 2^32 (Error(InvalidInput) beyond). `out` must not overlap `src` or `idx`.
//! Example: src = {10, 20, 30}, idx = {2, 0, 2, 7} -> out = {30, 10, 30, unchanged}
void gather(Device& device, VkCommandBuffer cmd, const BufferRange& src, uint64_t src_n, const BufferRange& idx,
            uint64_t n, const BufferRange& out, uint32_t passes = 1, const PrimTuning& tuning = {});

//! out[idx[i]] = in[i] for i < n; indices >= out_n are skipped; where indices repeat, one of their
//! values lands (which one is unspecified). out_n is at most 2^32 (Error(InvalidInput) beyond).
//! `out` must not overlap `in` or `idx`.
//! Example: in = {10, 20, 30}, idx = {2, 0, 9}, out_n = 3 -> out = {20, unchanged, 10}
void scatter(Device& device, VkCommandBuffer cmd, const BufferRange& in, const BufferRange& idx, uint64_t n,
             const BufferRange& out, uint64_t out_n, uint32_t passes = 1, const PrimTuning& tuning = {});

}  // namespace gfxq::vk
