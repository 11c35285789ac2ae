#include "vk/primitives/map.h"

#include <string>

#include "core/order_key.h"
#include "gfxq/error.h"

namespace gfxq::vk {

namespace {

//! The accept bits of `op` (bit 0: <, bit 1: ==, bit 2: >).
uint32_t accept_bits(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return 1;
    case CmpOp::Le: return 3;
    case CmpOp::Gt: return 4;
    case CmpOp::Ge: return 6;
    case CmpOp::Eq: return 2;
    case CmpOp::Ne: return 5;
  }
  throw Error(ErrorCode::Internal, "unknown comparison operator");
}

//! Push constants of map_compare.comp and map_keys.comp (group_offset last, set by dispatch).
struct ComparePush {
  uint32_t count, accept, key, group_offset;
};
struct KeysPush {
  uint32_t count, group_offset;
};

//! One dispatch per chunk of `n` elements, one tile per workgroup, `in` and `out` chunked alike.
template <class Push>
void dispatch_tiles(Device& device, VkCommandBuffer cmd, const Pipeline& p, const BufferRange& in, uint64_t n,
                    const BufferRange& out, Push push, const PrimTuning& tuning) {
  const prim::TileGrid grid = prim::TileGrid::make(device, n, tuning, 4);
  for (uint64_t c = 0; c < grid.chunks; ++c) {
    push.count = static_cast<uint32_t>(grid.count(c));
    device.dispatch_ranges(
        cmd, p,
        {prim::sub_range(in, grid.first(c), grid.count(c), 4), prim::sub_range(out, grid.first(c), grid.count(c), 4)},
        &push, static_cast<uint32_t>(prim::div_up(grid.count(c), GFXQ_PRIM_TILE)));
  }
}

}  // namespace

Predicate Predicate::always() {
  return {7, 0, std::nullopt};
}
Predicate Predicate::u32(CmpOp op, uint32_t c) {
  return {accept_bits(op), c, ElemType::U32};
}
Predicate Predicate::i32(CmpOp op, int32_t c) {
  return {accept_bits(op), int_key(c), ElemType::I32};
}
Predicate Predicate::f32(CmpOp op, float c) {
  return {accept_bits(op), float_key(c), ElemType::F32};
}

namespace prim {

void check_predicate(const Predicate& pred, ElemType type, const char* what) {
  if (pred.type && *pred.type != type)
    throw Error(ErrorCode::Internal, std::string(what) + ": a predicate for " + type_suffix(*pred.type) +
                                         " values applied to a " + type_suffix(type) + " column");
}

const char* type_suffix(ElemType type) {
  switch (type) {
    case ElemType::U32: return "u32";
    case ElemType::I32: return "i32";
    case ElemType::F32: return "f32";
  }
  throw Error(ErrorCode::Internal, "unknown element type");
}

}  // namespace prim

void map_compare(Device& device, VkCommandBuffer cmd, ElemType type, const BufferRange& in, uint64_t n,
                 const Predicate& pred, const BufferRange& flags, const PrimTuning& tuning) {
  prim::check_predicate(pred, type, "map_compare");
  if (n == 0) return;
  prim::check_range(in, n, 4, "map_compare input");
  prim::check_range(flags, n, 4, "map_compare flags");
  const Pipeline& p =
      device.pipeline(std::string("map_compare_") + prim::type_suffix(type), 2, sizeof(ComparePush), true);
  dispatch_tiles(device, cmd, p, in, n, flags, ComparePush{0, pred.accept, pred.key, 0}, tuning);
}

void map_keys(Device& device, VkCommandBuffer cmd, KeyMap f, const BufferRange& in, uint64_t n, const BufferRange& out,
              const PrimTuning& tuning) {
  if (n == 0) return;
  prim::check_range(in, n, 4, "map_keys input");
  prim::check_range(out, n, 4, "map_keys output");
  const char* name = f == KeyMap::I32ToKey   ? "map_keys_i32_to_key"
                     : f == KeyMap::F32ToKey ? "map_keys_f32_to_key"
                     : f == KeyMap::KeyToI32 ? "map_keys_key_to_i32"
                                             : "map_keys_key_to_f32";
  const Pipeline& p = device.pipeline(name, 2, sizeof(KeysPush), true);
  dispatch_tiles(device, cmd, p, in, n, out, KeysPush{0, 0}, tuning);
}

}  // namespace gfxq::vk
