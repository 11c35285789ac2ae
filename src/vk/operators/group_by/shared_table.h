#pragma once
// The few-groups variants (Karnagel et al.'s workgroup-private tables): each workgroup aggregates
// its run of rows in a hash table of its own in shared memory (shared atomics only in the hot
// loop) and at the end merges each of its groups into the global table, one global update per
// group and workgroup. A row whose key finds no room in the shared table goes to the global table
// at once, so more groups than the table holds cost speed, never correctness. Private (up to 2^10
// groups) keeps a small table only to
// map keys to dense group ids: each group's accumulators have a copy per invocation where they fit
// (plain loads and stores, no atomics), else a few copies updated by shared atomics, added up
// once per workgroup at the end and merged into the global table. Kernel:
// group_by_table.comp (group_by_shared_*, group_by_private_*).

#include <string>

#include "vk/operators/group_by/global_table.h"
#include "vk/operators/group_by/optimizer.h"

namespace gfxq::vk::gb {

//! How the shared-table kernel runs for `choice` (Private, SharedTable or Partitioned).
KernelLaunch shared_launch(const Choice& choice);

//! The report's words for a shared-table launch over `rows` rows, e.g. "workgroup-private
//! 44 KiB shared tables (2815 slots), 1024 workgroups x 262144 rows, merged into a global table of
//! 2^11 slots".
std::string describe_shared(const Layout& layout, const KernelLaunch& launch, uint64_t rows, uint64_t table_slots);

}  // namespace gfxq::vk::gb
