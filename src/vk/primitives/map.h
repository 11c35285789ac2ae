#pragma once
// Map primitives (GDB's map): a predicate evaluated over a column into 0/1 flags, and order-key
// transforms. Also the element types and the comparison predicate that reduce() and compact()
// evaluate inline.
//
// Every primitive here and in reduce.h, scan.h, compact.h and gather_scatter.h:
// - records into the caller's command buffer and never submits; it records the barriers between
//   its own passes, none before its first pass and none after its last. The caller owes
//   Device::barrier() between earlier writes of the primitive's inputs (or earlier uses of its
//   outputs and scratch) and the primitive, and between the primitive and later reads of its
//   outputs in the same command buffer; Device::submit() makes outputs visible to the host.
// - takes 64-bit element counts; buffer ranges start at byte offsets that are multiples of 16 and
//   of minStorageBufferOffsetAlignment (Error(Internal) otherwise), and columns larger than one
//   binding are processed in chunks (PrimTuning::binding_elements).

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "gfxq/query.h"
#include "vk/device.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

//! The 4-byte element types of the primitives.
enum class ElemType {
  U32,  //!< unsigned (flags, counts, row ids, order keys)
  I32,  //!< INT (int32)
  F32,  //!< FLOAT (float32) in gfxq's total order: -0.0 == +0.0, every NaN equal and largest
};

//! A comparison `x op constant`, evaluated on order keys (core/order_key.h): the kernels compare
//! the key of x (identity for U32, int_key for I32, float_key for F32) with the constant's key.
struct Predicate {
  uint32_t accept = 7;           //!< bit 0: x < constant passes, bit 1: x == constant, bit 2: x > constant
  uint32_t key = 0;              //!< the constant's order key
  std::optional<ElemType> type;  //!< the column type the constant is for; empty for always()

  //! True for every element (of any type).
  static Predicate always();
  //! `x op c` on U32 columns.
  static Predicate u32(CmpOp op, uint32_t c);
  //! `x op c` on I32 columns.
  static Predicate i32(CmpOp op, int32_t c);
  //! `x op c` on F32 columns in the total order (c = -0.0 is +0.0; c = NaN matches NaNs).
  static Predicate f32(CmpOp op, float c);
  //! `x != 0` on U32 columns: selects by a column of flags.
  static Predicate nonzero() { return u32(CmpOp::Ne, 0); }
};

//! flags[i] = pred(in[i]) ? 1 : 0 (uint32) for i < n. `flags` may be `in` (in place).
//! Error(Internal) when pred was made for another type than `type`.
//! Example: I32, in = {3, -1, 7, 5}, Predicate::i32(CmpOp::Lt, 5) -> flags = {1, 1, 0, 0}
void map_compare(Device& device, VkCommandBuffer cmd, ElemType type, const BufferRange& in, uint64_t n,
                 const Predicate& pred, const BufferRange& flags, const PrimTuning& tuning = {});

//! The value transforms of map_keys().
enum class KeyMap {
  I32ToKey,  //!< int_key: int32 -> order key
  F32ToKey,  //!< float_key: float32 -> order key (canonical: -0.0 as +0.0, every NaN as 0x7fc00000)
  KeyToI32,  //!< int_from_key
  KeyToF32,  //!< float_from_key
};

//! out[i] = f(in[i]) for i < n, f one of KeyMap. `out` may be `in` (in place).
//! Example: I32ToKey, in = {-1, 0, 5} -> out = {0x7fffffff, 0x80000000, 0x80000005}
void map_keys(Device& device, VkCommandBuffer cmd, KeyMap f, const BufferRange& in, uint64_t n, const BufferRange& out,
              const PrimTuning& tuning = {});

namespace prim {
//! Error(Internal) unless `pred` applies to columns of `type`.
void check_predicate(const Predicate& pred, ElemType type, const char* what);
//! "u32", "i32" or "f32": the suffix of a kernel variant's name.
const char* type_suffix(ElemType type);
}  // namespace prim

}  // namespace gfxq::vk
