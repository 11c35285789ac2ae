#include "vk/primitives/reduce.h"

#include <string>

#include "gfxq/error.h"

namespace gfxq::vk {

namespace {

//! Push constants of reduce_partial.comp.
struct PartialPush {
  uint32_t count, tiles_per_group, partial_base, accept, key, masked;
};
//! Push constants of reduce_final.comp.
struct FinalPush {
  uint32_t partial_count;
};

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Count: return "count";
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  throw Error(ErrorCode::Internal, "unknown reduce operation");
}

}  // namespace

namespace prim {

void record_partials(Device& device, VkCommandBuffer cmd, ReduceOp op, ElemType type, const BufferRange& in,
                     const TileGrid& grid, const ReduceFilter& filter, const BufferRange& partials) {
  const Pipeline& p =
      device.pipeline(std::string("reduce_partial_") + op_name(op) + "_" + type_suffix(type), 3, sizeof(PartialPush));
  const bool masked = filter.mask.buffer != nullptr;
  for (uint64_t c = 0; c < grid.chunks; ++c) {
    // Every chunk writes its partials through the same binding: order the writes for validation.
    if (c > 0) device.barrier(cmd);
    const PartialPush push{static_cast<uint32_t>(grid.count(c)),
                           static_cast<uint32_t>(grid.tiles_per_group),
                           static_cast<uint32_t>(grid.partial_base(c)),
                           filter.pred.accept,
                           filter.pred.key,
                           masked ? 1u : 0u};
    const BufferRange chunk = sub_range(in, grid.first(c), grid.count(c), 4);
    device.dispatch_ranges(cmd, p,
                           {chunk, masked ? sub_range(filter.mask, grid.first(c), grid.count(c), 4) : chunk, partials},
                           &push, static_cast<uint32_t>(grid.groups(c)));
  }
}

}  // namespace prim

uint64_t reduce_scratch_bytes(const Device& device, uint64_t n, const PrimTuning& tuning) {
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, 4);
  return prim::align_up(std::max<uint64_t>(1, grid.partials()) * 16, prim::kRangeAlign);
}

void reduce(Device& device, VkCommandBuffer cmd, ReduceOp op, ElemType type, const BufferRange& in, uint64_t n,
            const BufferRange& result, const BufferRange& scratch, const ReduceFilter& filter,
            const PrimTuning& tuning) {
  prim::require_features(device, "reduce");
  if (op == ReduceOp::Sum && type == ElemType::F32)
    throw Error(ErrorCode::Unsupported, "reduce: SUM of FLOAT values is not exact; the primitive sums integers only");
  prim::check_predicate(filter.pred, type, "reduce");
  prim::check_range(result, 2, 8, "reduce result");
  const uint64_t scratch_bytes = reduce_scratch_bytes(device, n, tuning);
  prim::check_range(scratch, scratch_bytes, 1, "reduce scratch");
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, 4);
  const BufferRange partials{scratch.buffer, scratch.offset, scratch_bytes};
  if (n > 0) {
    prim::check_range(in, n, 4, "reduce input");
    if (filter.mask.buffer) prim::check_range(filter.mask, n, 4, "reduce mask");
    prim::record_partials(device, cmd, op, type, in, grid, filter, partials);
    device.barrier(cmd);
  }
  const std::string final_name = op == ReduceOp::Count || op == ReduceOp::Sum
                                     ? std::string("reduce_final_sum")
                                     : std::string("reduce_final_") + op_name(op) + "_" + prim::type_suffix(type);
  const FinalPush push{static_cast<uint32_t>(grid.partials())};
  device.dispatch_ranges(cmd, device.pipeline(final_name, 2, sizeof(FinalPush)),
                         {partials, {result.buffer, result.offset, 16}}, &push, 1);
}

}  // namespace gfxq::vk
