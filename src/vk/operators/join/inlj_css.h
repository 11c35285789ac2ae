#pragma once
// Indexed nested-loop join on a CSS-tree (GDB's INLJ): the build side's keys sorted (onesweep radix
// sort with row ids), a CSS-tree built over them on the GPU (vk/primitives/css_tree.h), and every
// probe row's interval of build keys found by two searches of the tree (shaders/vk/join_inlj.comp):
// equi terms through keys both sides share (join_prepare), any other operator and band joins from
// the probe's raw value through exact key bounds. Each probe's matches are one run of the sorted
// build side, written by the output routine's load-balanced expansion; with equi keys the pairs
// come out in (probe row, build row) order.

#include "vk/operators/join/output.h"

namespace gfxq::vk::join {

//! Runs the indexed nested-loop join of ctx.o through ctx.out.
void indexed_loop(Context& ctx);

}  // namespace gfxq::vk::join
