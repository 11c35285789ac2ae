#include "vk/operators/skeletons/product.h"

#include <algorithm>

#include "gfxq/error.h"
#include "skeleton_config.glsl"
#include "vk/operators/join/common.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/select.h"

namespace gfxq::vk::skel {

namespace {

//! Push constants of product.comp (group_offset last, set by dispatch).
struct ProductPush {
  uint32_t count, l0, r0, right_n, flags, step_l, step_r, group_offset;
};

ProductPush push_of(const ProductInput& input, uint64_t first, uint64_t count, bool right) {
  const uint32_t flags = (input.left_ids ? 1u : 0u) | (input.right_ids ? 2u : 0u) | (right ? 4u : 0u);
  // The chunk's first pair (l0, r0): each invocation divides its first 32-bit offset from it, not a
  // 64-bit position, then steps by PRODUCT_STEP positions as pairs.
  return {uint32_t(count),
          uint32_t(first / input.right_rows),
          uint32_t(first % input.right_rows),
          uint32_t(input.right_rows),
          flags,
          uint32_t(PRODUCT_STEP / input.right_rows),
          uint32_t(PRODUCT_STEP % input.right_rows),
          0};
}

//! Workgroups of product.comp for `count` positions.
uint32_t product_groups(uint64_t count) {
  return uint32_t(prim::div_up(count, uint64_t(4) * PRODUCT_VECS * SKELETON_WG));
}

void check_chunk(const Device& device, const ProductInput& input, uint64_t count) {
  if (count > device.max_binding_elements() || input.left_rows >= (uint64_t(1) << 32) ||
      input.right_rows >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, "PRODUCT chunk of " + std::to_string(count) + " pairs of " +
                                            std::to_string(input.left_rows) + " x " + std::to_string(input.right_rows) +
                                            " rows: chunks hold one binding, sides 32-bit row ids");
}

}  // namespace

void record_product_pairs(Device& device, VkCommandBuffer cmd, const ProductInput& input, uint64_t first,
                          uint64_t count, const Buffer& left_out, const Buffer& right_out) {
  if (count == 0) return;
  check_chunk(device, input, count);
  const ProductPush push = push_of(input, first, count, false);
  const Buffer& l = input.left_ids ? *input.left_ids : left_out;
  const Buffer& r = input.right_ids ? *input.right_ids : left_out;
  device.dispatch_ranges(cmd, device.pipeline("product_ids", 4, sizeof(ProductPush), true),
                         {{&l, 0, 0}, {&r, 0, 0}, {&left_out, 0, 0}, {&right_out, 0, 0}}, &push, product_groups(count));
}

void record_product_gather(Device& device, VkCommandBuffer cmd, const ProductInput& input, bool right,
                           const Buffer& source, uint64_t first, uint64_t count, const Buffer& out) {
  if (count == 0) return;
  check_chunk(device, input, count);
  const ProductPush push = push_of(input, first, count, right);
  const Buffer* ids = right ? input.right_ids : input.left_ids;
  device.dispatch_ranges(cmd, device.pipeline("product_gather", 4, sizeof(ProductPush), true),
                         {{&source, 0, 0}, {ids ? ids : &source, 0, 0}, {&out, 0, 0}, {&out, 0, 0}}, &push,
                         product_groups(count));
}

uint64_t product(Device& device, const ProductInput& input, const ProductOptions& options,
                 std::vector<PassRecord>& passes) {
  if (input.left_rows && input.right_rows > UINT64_MAX / input.left_rows)
    throw Error(ErrorCode::ResultTooLarge, "PRODUCT of " + std::to_string(input.left_rows) + " x " +
                                               std::to_string(input.right_rows) + " rows: more than 2^64 - 1 pairs");
  if (!options.consume) throw Error(ErrorCode::InvalidInput, "PRODUCT: no consumer for the pairs");
  const uint64_t total = input.left_rows * input.right_rows;
  if (total == 0) return 0;
  const uint64_t binding = std::min<uint64_t>(device.max_binding_elements(), (uint64_t(1) << 30) - (uint64_t(1) << 20));
  const uint64_t chunk = std::min(options.chunk_pairs ? options.chunk_pairs : binding, binding);
  join::Stages stages(device, passes);
  const uint64_t first_chunk = std::min(total, chunk);
  Buffer left = device.create_buffer(padded_bytes(first_chunk), MemoryKind::Device);
  Buffer right = device.create_buffer(padded_bytes(first_chunk), MemoryKind::Device);
  for (uint64_t first = 0; first < total; first += chunk) {
    const uint64_t count = std::min(chunk, total - first);
    stages.run("product-write",
               "pairs " + std::to_string(first) + ".." + std::to_string(first + count) + " of " +
                   std::to_string(total) + " (" + std::to_string(count * 8) + " bytes)",
               count,
               [&](VkCommandBuffer cmd) { record_product_pairs(device, cmd, input, first, count, left, right); });
    options.consume({first, count, &left, &right});
  }
  return total;
}

}  // namespace gfxq::vk::skel
