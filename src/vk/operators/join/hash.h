#pragma once
// Hash joins (GDB's HJ, Karnagel et al.'s table layouts). Both need an equi term; the build side
// (b) is the smaller one.
// - Partitioned: both sides split by the same hash partition function (vk/primitives/split.h, one or
//   two passes, fanout up to 65536) so that a partition's build rows fit a shared-memory table; every
//   partition becomes work items of at most `cap` build rows and JOIN_HASH_PROBE_CHUNK probe rows
//   (oversized partitions, from skewed keys, become several items), one workgroup each
//   (shaders/vk/join_hash_part.comp): chained shared-memory table, probes, residual terms per pair;
//   slots are (item, invocation). Pairs in no particular order.
// - Global: one table in device memory (shaders/vk/join_hash_global.comp): a slot per distinct build
//   key (open addressing), or direct addressing when the keys' measured range is small; the build
//   rows grouped by slot, so each probe's matches are one run for the output routine's load-balanced
//   expansion. Pairs grouped by probe row in row order, build rows in no particular order within.

#include "vk/operators/join/output.h"

namespace gfxq::vk::join {

//! Build rows one partitioned work item holds on `device` (a power of two; 5 words of shared memory
//! each), or `forced` when nonzero.
uint32_t hash_build_rows(const Device& device, uint32_t forced);

//! Runs the radix-partitioned hash join of ctx.o through ctx.out.
void hash_partitioned(Context& ctx);

//! Runs the global-table hash join of ctx.o through ctx.out.
void hash_global(Context& ctx);

}  // namespace gfxq::vk::join
