#pragma once
// What the device-level primitives (map, reduce, scan, compact, gather/scatter) share: the tuning
// knobs, the tile grid that splits a column into chunks (one storage-buffer binding each) and runs
// of tiles (one workgroup each), and checks of caller-provided buffer ranges.
//
// Layout of every tiled kernel (shaders/common/wg_constants.glsl): a workgroup of 256 invocations
// handles tiles of 4096 4-byte elements, as 4 rows of 256 uvec4 (row-major, so each uvec4 load of
// a subgroup is contiguous). A column larger than one binding is processed chunk by chunk; a chunk
// holds a whole number of tiles, so only a column's last tile is partial. The tiled passes of
// reduce, scan and compact give each workgroup a run of `tiles_per_group` consecutive tiles, which
// bounds the number of per-workgroup partials by about `max_groups` for any n.

#include <algorithm>
#include <cstdint>
#include <string>

#include "gfxq/error.h"
#include "vk/device.h"
#include "wg_constants.glsl"

namespace gfxq::vk {

//! Knobs of the primitives. The defaults suit every device; tests shrink them to force many
//! chunks and many tiles per workgroup on small inputs.
struct PrimTuning {
  //! Largest number of 4-byte elements one binding may hold (chunk length); 0: the device's
  //! Device::max_binding_elements(). Rounded down to whole tiles (at least one tile); bindings of
  //! 8-byte elements get half as many elements.
  uint64_t binding_elements = 0;
  //! Upper bound on the workgroups of one tiled pass, about the number of partials the spine
  //! combines; 0: GFXQ_PRIM_MAX_GROUPS.
  uint32_t max_groups = 0;
};

namespace prim {

//! `v` rounded up to a multiple of `a`.
constexpr uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}
//! ceil(a / b).
constexpr uint64_t div_up(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}
//! Offsets of scratch regions and of ranges the primitives bind: 256 bytes is the largest
//! minStorageBufferOffsetAlignment Vulkan allows.
constexpr uint64_t kRangeAlign = 256;

//! How a column of n elements is cut into chunks, tiles and workgroup runs.
struct TileGrid {
  uint64_t n = 0;                 //!< elements
  uint64_t chunk = 0;             //!< elements per chunk, a multiple of GFXQ_PRIM_TILE
  uint64_t chunks = 0;            //!< ceil(n / chunk)
  uint64_t tiles_per_group = 1;   //!< tiles one workgroup of a tiled pass handles
  uint64_t groups_per_chunk = 0;  //!< workgroups of a full chunk

  //! The grid for n elements whose widest binding holds `elem_bytes`-byte elements (4 or 8).
  static TileGrid make(const Device& device, uint64_t n, const PrimTuning& tuning, uint32_t elem_bytes) {
    TileGrid g;
    g.n = n;
    const uint64_t device_limit = device.max_binding_elements();
    const uint64_t limit = tuning.binding_elements ? std::min(tuning.binding_elements, device_limit) : device_limit;
    g.chunk = std::max<uint64_t>(GFXQ_PRIM_TILE, limit * 4 / elem_bytes / GFXQ_PRIM_TILE * GFXQ_PRIM_TILE);
    g.chunks = div_up(n, g.chunk);
    // Each chunk is one dispatch without group offsets, so its grid must fit maxComputeWorkGroupCount.
    const uint64_t max_groups = std::min<uint64_t>(tuning.max_groups ? tuning.max_groups : GFXQ_PRIM_MAX_GROUPS,
                                                   device.caps().max_workgroup_count[0]);
    g.tiles_per_group = std::max<uint64_t>(1, div_up(div_up(n, GFXQ_PRIM_TILE), max_groups));
    g.groups_per_chunk = div_up(g.chunk / GFXQ_PRIM_TILE, g.tiles_per_group);
    return g;
  }
  //! First element of chunk c.
  uint64_t first(uint64_t c) const { return c * chunk; }
  //! Elements in chunk c.
  uint64_t count(uint64_t c) const { return std::min(chunk, n - c * chunk); }
  //! Workgroups of a tiled pass over chunk c.
  uint64_t groups(uint64_t c) const { return div_up(div_up(count(c), GFXQ_PRIM_TILE), tiles_per_group); }
  //! Index of chunk c's first workgroup among all workgroups of a tiled pass (its first partial).
  uint64_t partial_base(uint64_t c) const { return c * groups_per_chunk; }
  //! Workgroups (partials) of a tiled pass over the whole column.
  uint64_t partials() const { return chunks ? partial_base(chunks - 1) + groups(chunks - 1) : 0; }
};

//! Error(Internal) unless `r` names a buffer whose bytes from r.offset hold `count` elements of
//! `elem_bytes` bytes (and r.bytes, when set, covers them) and r.offset is a multiple of 16.
inline void check_range(const BufferRange& r, uint64_t count, uint64_t elem_bytes, const char* what) {
  if (!r.buffer) throw Error(ErrorCode::Internal, std::string(what) + ": no buffer");
  const uint64_t need = count * elem_bytes;
  const uint64_t have = r.offset <= r.buffer->size() ? r.buffer->size() - r.offset : 0;
  if (r.offset % 16 != 0 || need > have || (r.bytes && need > r.bytes))
    throw Error(ErrorCode::Internal, std::string(what) + ": a range at byte " + std::to_string(r.offset) + " of " +
                                         std::to_string(r.bytes ? r.bytes : have) + " bytes cannot hold " +
                                         std::to_string(count) + " elements of " + std::to_string(elem_bytes) +
                                         " bytes (offsets must be multiples of 16)");
}

//! Elements [first, first + count) of `r` (elem_bytes each) as a range to bind; at least 4 bytes,
//! so an empty tail still binds a valid range.
inline BufferRange sub_range(const BufferRange& r, uint64_t first, uint64_t count, uint64_t elem_bytes) {
  return {r.buffer, r.offset + first * elem_bytes, std::max<uint64_t>(4, count * elem_bytes)};
}

//! The most invocations a primitive's workgroup has (GROUP BY's shared-table kernels take
//! GB_SHARED_WG only where the device allows it: gb::shared_table_workgroups).
inline constexpr uint32_t kMaxWorkgroupInvocations = 512;

//! What `c` lacks for the primitives, as " feature" phrases (empty: nothing): subgroup arithmetic,
//! shaderInt64, workgroups of kMaxWorkgroupInvocations and, when `ballot`, subgroup ballot with
//! subgroups of 8 to 128 invocations.
inline std::string missing_features(const VkCapabilities& c, bool ballot) {
  std::string missing;
  if (!c.subgroup_arithmetic) missing += " subgroup arithmetic";
  if (!c.shader_int64) missing += " shaderInt64";
  if (ballot && (!c.subgroup_ballot || c.subgroup_size < 8 || c.subgroup_size > 128))
    missing += " subgroup ballot with 8 to 128 invocations per subgroup";
  // The widest kernels (the onesweep sort's passes, one-pass row ids) run 512 invocations per
  // workgroup; Vulkan guarantees only 128.
  if (c.max_workgroup_invocations < kMaxWorkgroupInvocations || c.max_workgroup_size[0] < kMaxWorkgroupInvocations)
    missing += " workgroups of " + std::to_string(kMaxWorkgroupInvocations) + " invocations";
  return missing;
}

//! Error(Unsupported) naming `what` and the device unless missing_features() is empty.
inline void require_features(const Device& device, const char* what, bool ballot = false) {
  const std::string missing = missing_features(device.caps(), ballot);
  if (!missing.empty())
    throw Error(ErrorCode::Unsupported,
                std::string(what) + " needs" + missing + " (" + device.caps().device_name + ")");
}

}  // namespace prim
}  // namespace gfxq::vk
