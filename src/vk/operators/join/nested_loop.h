#pragma once
// Blocked nested-loop join (GDB's NINLJ): every probe row against every build row through shared
// memory, any condition (shaders/vk/join_ninlj.comp). Slots are (probe row, build block); the pairs
// come out in (probe row, build row) order. The fallback for non-equi conditions of tiny inputs.

#include "vk/operators/join/output.h"

namespace gfxq::vk::join {

//! Runs the nested-loop join of ctx.o through ctx.out.
void nested_loop(Context& ctx);

}  // namespace gfxq::vk::join
