#pragma once
// Prefix sums of uint32 values by reduce-then-scan, in three passes whatever n is: each workgroup
// reduces its run of tiles to a 64-bit partial; one workgroup scans the partials (the spine);
// each workgroup then scans its tiles again, starting from its carried-in prefix. Totals and
// carries are 64-bit, so n and totals beyond 2^32 are exact. Barrier rules: see map.h. Needs
// subgroup arithmetic and shaderInt64 (Error(Unsupported)).

#include <vulkan/vulkan.h>

#include <cstdint>

#include "vk/device.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

//! Exclusive (out[i] = in[0] + ... + in[i-1]) or inclusive (... + in[i]).
enum class ScanKind { Exclusive, Inclusive };

//! Width of scan()'s output elements.
enum class ScanWidth {
  U32,  //!< uint32, modulo 2^32 (exact while the total stays below 2^32)
  U64,  //!< uint64, exact
};

//! Scratch bytes scan() needs for n elements (at least 256).
uint64_t scan_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning = {});

//! Prefix sums of in[0..n) (uint32) into out[0..n) (`width`), and the exact uint64 total of all n
//! values at `total` unless total.buffer is null. n == 0 writes only the total (0). `out` must not
//! overlap `in`. `scratch` holds scan_scratch_bytes(n) bytes.
//! Example: Exclusive, in = {3, 1, 4, 1} -> out = {0, 3, 4, 8}, total = 9
void scan(Device& device, VkCommandBuffer cmd, ScanKind kind, ScanWidth width, const BufferRange& in, uint64_t n,
          const BufferRange& out, const BufferRange& total, const BufferRange& scratch, const PrimTuning& tuning = {});

namespace prim {
//! Records the spine: one workgroup turns `count` partials ({value, count} uint64 pairs) into
//! carries[i] = sum of the values before partial i, carries[count] = total[0] = the sum of all
//! (`carries` holds count + 1 uint64, `total` one). No barrier before or after.
void record_spine(Device& device, VkCommandBuffer cmd, const BufferRange& partials, uint64_t count,
                  const BufferRange& carries, const BufferRange& total);
}  // namespace prim

}  // namespace gfxq::vk
