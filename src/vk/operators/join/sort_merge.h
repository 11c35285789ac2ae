#pragma once
// Sort-merge join (GDB's SMJ, Red Fox's partition / merge skeleton): both sides' equi keys sorted
// with row ids (onesweep radix sort), the merge of the two key sequences cut by merge path into
// tiles of equal work (vk/primitives/merge_path.h), and per tile a sorted search in shared memory
// (shaders/vk/join_search.comp) that gives each probe key its run of equal build keys: lower bound
// with probe-first ties, upper bound with build-first ties. The runs go to the output routine's
// load-balanced expansion; the pairs come out grouped by probe row in key order, build rows
// ascending within. Needs an equi term.

#include "vk/operators/join/output.h"

namespace gfxq::vk::join {

//! Runs the sort-merge join of ctx.o through ctx.out.
void sort_merge(Context& ctx);

}  // namespace gfxq::vk::join
