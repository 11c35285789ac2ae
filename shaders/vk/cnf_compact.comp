#version 450
// cnf_compact: writes the rows marked in a cnf_flags mask (cnf_scan.comp, MODE_FLAGS), in row order:
// their row ids and/or the order keys of a value column. The mask comes in blocks of BLOCK = 2048
// rows (cnf_mask_config.glsl: row r of a block is bit (r >> 2) & 31 of the block's word
// (r >> 7) * 4 + (r & 3)); the k-th marked row of block b goes to output position
// offsets[block_base + b] + k, and only positions below `limit` are written, at index
// position - out_base of the bound outputs.
// Each subgroup (S = gl_SubgroupSize invocations) takes whole blocks: subgroup t of the dispatch's
// T takes blocks t, t + T, t + 2T ... (a workgroup's subgroups take consecutive blocks, and the
// workgroups stream through the chunk together like cnf_flags' tiles). It walks a block in pieces
// of 16 S rows: in row group g (0..15) of a piece, lane l has row 16 S p + S g + l of the block;
// a ballot of the row group's mask bits ranks its marked rows, which are staged at their ranks in
// the subgroup's own region of shared memory (16 S rows; no bank conflicts: the marked lanes of a
// row group write consecutive words). After a subgroup barrier the lanes write the staged rows out,
// consecutive lanes to consecutive output positions in runs aligned to S (coalesced stores). No
// workgroup barrier: every subgroup works alone, whatever its size.
// Variants (defines): WRITE_IDS (row ids), WRITE_KEYS (keys of the value column, read at the
// staged rows), both for pairs.
// Bindings: 0 = mask (uint[], from the chunk's start), 1 = offsets (uint[]: exclusive prefix sums of
//   the per-block counts, all chunks); WRITE_IDS alone: 2 = ids (uint[]); WRITE_KEYS: 2 = value
//   column (uint[], raw int32/float32 bits from the chunk's start), 3 = keys (uint[]), and with
//   WRITE_IDS 4 = ids.
// Push constants: rows (in this chunk), block_base (index of the chunk's first block), first_row
//   (row id of the chunk's row 0), limit, out_base, value_float (1: the value column is FLOAT).
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "cnf_mask_config.glsl"
#include "gfxq_constants.h"
#include "sort_config.glsl"
#include "sort_keys.glsl"

#define WG uint(GFXQ_WORKGROUP_SIZE)
#define BLOCK uint(CNF_MASK_BLOCK)
#define WORDS uint(CNF_MASK_BLOCK_WORDS)
#define LANE_ROWS uint(CNF_COMPACT_LANE_ROWS)

layout(local_size_x = GFXQ_WORKGROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Mask { uint mask[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
#if defined(WRITE_KEYS)
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) writeonly buffer Keys { uint keys[]; };
#if defined(WRITE_IDS)
layout(std430, binding = 4) writeonly buffer Ids { uint ids[]; };
#endif
#else
layout(std430, binding = 2) writeonly buffer Ids { uint ids[]; };
#endif

layout(push_constant) uniform Params {
  uint rows;
  uint block_base;
  uint first_row;
  uint limit;
  uint out_base;
  uint value_float;
} pc;

// The chunk-local rows of each subgroup's current piece, at their ranks (subgroup s: from
// s * LANE_ROWS * S; subgroups hold at most 128 invocations and fill the workgroup).
shared uint s_rows[WG * LANE_ROWS];

void main() {
  const uint lanes = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  const uint quad = lane >> 2;  // the lane's bit in a vector's words, less the row group's part
  const uint region = gl_SubgroupID * LANE_ROWS * lanes;
  const uint piece_rows = LANE_ROWS * lanes;
  const uint blocks = (pc.rows + BLOCK - 1u) / BLOCK;
  const uint teams = gl_NumWorkGroups.x * gl_NumSubgroups;
  bool done = false;
  for (uint block = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID; block < blocks && !done; block += teams) {
    // Output position of the piece's first marked row (uniform in the subgroup).
    uint start = offsets[pc.block_base + block];
    for (uint first = 0u; first < BLOCK; first += piece_rows) {
      // Stage the piece's marked rows at their ranks. Every mask load of the piece comes first;
      // no divergent branch precedes a ballot (NVIDIA does not reconverge a subgroup after one).
      // Row group g's rows first + g S + l lie in one vector of 128 rows (S divides 128 and
      // `first` is a multiple of 128): lane l reads word 4 v + (l & 3) of vector
      // v = first / 128 + g S / 128, bit ((g S) & 127) / 4 + l / 4 (with S = 32 four row groups
      // share a word, and the compiler sees it).
      uint words[LANE_ROWS];
      [[unroll]] for (uint g = 0u; g < LANE_ROWS; ++g) {
        const uint v = (first >> 7) + ((g * lanes) >> 7);
        words[g] = mask[block * WORDS + v * 4u + (lane & 3u)];
      }
      const uint row = block * BLOCK + first + lane;  // chunk-local row of the lane in row group 0
      uint marked = 0u;
      [[unroll]] for (uint g = 0u; g < LANE_ROWS; ++g) {
        const bool bit = ((words[g] >> (((g * lanes) & 127u) / 4u + quad)) & 1u) != 0u;
        const uvec4 ballot = subgroupBallot(bit);
        const uint rank = subgroupBallotExclusiveBitCount(ballot);  // outside the branch
        if (bit) s_rows[region + marked + rank] = row + g * lanes;
        marked += subgroupBallotBitCount(ballot);
      }
      // Blocks come in row order along a subgroup's walk: past the limit, nothing more to write.
      if (start >= pc.limit) {
        done = true;
        break;
      }
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      // Positions start .. stop - 1, in runs of `lanes` aligned to multiples of `lanes`.
      const uint stop = min(start + marked, pc.limit);
      for (uint run = start & ~(lanes - 1u); run < stop; run += lanes) {
        const uint pos = run + lane;
        if (pos - start < stop - start) {  // start <= pos < stop (below start wraps around)
          const uint staged = s_rows[region + pos - start];
#if defined(WRITE_IDS)
          ids[pos - pc.out_base] = pc.first_row + staged;
#endif
#if defined(WRITE_KEYS)
          keys[pos - pc.out_base] = sort_key(values[staged], pc.value_float != 0u ? SORT_KEY_F32 : SORT_KEY_I32, 0u);
#endif
        }
      }
      start += marked;
      // The next piece reuses the region.
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
  }
}
