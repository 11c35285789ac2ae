#pragma once
// Sorting on the raster path (ORDER BY), after Govindaraju et al. (SIGMOD 2004): a bitonic sorting
// network of full-screen fragment passes over records laid out in power-of-two tiles
// (docs/RASTER.md "Sorting (ORDER BY)"):
//   - pairs (the ORDER BY workhorse): records (32-bit order key, position), two per RGBA32UI texel;
//     each pass renders into a ping-pong target, every fragment fetches its texel and its partner
//     texel (q XOR j/2, in the partner's tile when the distance spans tiles), compares (key, position)
//     lexicographically and keeps the min or the max by its place in the network (the steps j = 2
//     and j = 1 of a stage in one pass). The position tie-break makes the sort stable and exact;
//     padding records (key 0xffffffff, position >= n) sort last.
//   - blending (keys only, the paper's comparator): the same network on an R32F target where each
//     step copies the keys and blends the partners' keys in with glBlendEquation(GL_MIN) at the
//     lower positions and GL_MAX at the upper ones. Keys are mapped to the (key - kmin)-th normal
//     float, on which min/max blending is exact: possible when the key span is below 2^32 - 2^25.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/result.h"
#include "gl/raster_input.h"

namespace gfxq::gl {

class Context;

//! The sorted order of some rows by one column.
struct SortOutput {
  std::vector<uint64_t> rows;      //!< row ids in sorted order (stable), at most `limit`
  std::vector<uint32_t> keys;      //!< their 32-bit order keys (core/order_key.h), same order
  std::string algorithm;           //!< what ran, for the report
  std::vector<PassRecord> passes;  //!< the GPU passes (summed per kind), for the report
};

//! Sorts all rows of `input`'s column `slot` (or only `rows`, ascending ids, when given) on the GPU.
//! Ascending, or descending by key, stable in both directions (ties keep ascending row ids); the
//! pair network. Error(Unsupported) past 2^31 padded records; the GL state is reset on return.
SortOutput sort_rows(Context& context, const RasterInput& input, size_t slot, bool descending,
                     const RasterOptions& options, const std::vector<uint64_t>* rows = nullptr,
                     std::optional<uint64_t> limit = std::nullopt);

//! Whether the blending network can sort keys spanning [lo, hi] (order keys, after the direction
//! is applied): hi - lo below 2^32 - 2^25, the number of normal floats of both signs.
bool blend_applicable(uint32_t lo, uint32_t hi) noexcept;

//! The float bits of the `index`-th normal float in increasing order (index < 2^32 - 2^25):
//! negative normals from 0xff7fffff downwards, then positive normals from 0x00800000 upwards.
uint32_t normal_float_bits(uint32_t index) noexcept;

//! The index of normal float bits `bits` (inverse of normal_float_bits).
uint32_t normal_float_index(uint32_t bits) noexcept;

//! The sorted keys of some rows by one column, keys only.
struct KeySortOutput {
  std::vector<uint32_t> keys;      //!< order keys (core/order_key.h) in sorted order, at most `limit`
  std::string algorithm;           //!< what ran, for the report
  std::vector<PassRecord> passes;  //!< the GPU passes (summed per kind), for the report
};

//! Sorts the order keys of `input`'s column `slot` (or of `rows` only) with the blending network.
//! Error(Unsupported) when blend_applicable does not hold for the keys' span.
KeySortOutput sort_keys_blend(Context& context, const RasterInput& input, size_t slot, bool descending,
                              const RasterOptions& options, const std::vector<uint64_t>* rows = nullptr,
                              std::optional<uint64_t> limit = std::nullopt);

}  // namespace gfxq::gl
