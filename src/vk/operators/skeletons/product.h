#pragma once
//! \file product.h
//! PRODUCT (CROSS JOIN) on the compute path, Red Fox's three phases: count (left rows × right rows,
//! known without a pass), allocate (chunks of at most one binding or ProductOptions::chunk_pairs
//! pairs) and write (product.comp: position p of the output is the pair (p / right rows, p % right
//! rows), so the pairs come in (left row, right row) order, the CPU engine's; each invocation writes
//! 4 vectors of 4 positions as uvec4 stores, dividing only its first position and stepping from it
//! to the others, so no pair costs a division whatever the sides' sizes). A chunk's pairs are
//! row ids (ids of the sides' selections when given), or, for the benchmark and for callers that
//! keep the output on the device, one column word plane of one side written directly
//! (record_product_gather).

#include <cstdint>
#include <functional>
#include <vector>

#include "gfxq/result.h"
#include "vk/device.h"

namespace gfxq::vk::skel {

//! The sides of a PRODUCT.
struct ProductInput {
  uint64_t left_rows = 0;             //!< rows taking part on the left
  uint64_t right_rows = 0;            //!< rows taking part on the right
  const Buffer* left_ids = nullptr;   //!< optional: the left rows' ids (else 0 .. left_rows - 1)
  const Buffer* right_ids = nullptr;  //!< optional: the right rows' ids
};

//! One chunk of pairs: output positions [first, first + count).
struct ProductChunk {
  uint64_t first = 0;             //!< first output position
  uint64_t count = 0;             //!< pairs in the chunk
  const Buffer* left = nullptr;   //!< count left row ids
  const Buffer* right = nullptr;  //!< count right row ids
};

//! Knobs of the PRODUCT.
struct ProductOptions {
  //! Most pairs in one chunk; 0: one storage binding (and at most 2^30 − 2^20 pairs).
  uint64_t chunk_pairs = 0;
  //! Receives each chunk in output order and may read its buffers until it returns (required).
  std::function<void(const ProductChunk&)> consume;
};

//! Writes the pairs of left × right chunk by chunk (one submission per chunk, its pass appended to
//! `passes`), hands each to options.consume and returns their number. Error(ResultTooLarge) when
//! there are more than 2^64 − 1 pairs; Error(InvalidInput) without a consumer.
uint64_t product(Device& device, const ProductInput& input, const ProductOptions& options,
                 std::vector<PassRecord>& passes);

//! Records the pairs [first, first + count) into `left_out` and `right_out` (count uint32 each, in
//! buffers of at least padded_bytes(count) bytes: whole vectors).
void record_product_pairs(Device& device, VkCommandBuffer cmd, const ProductInput& input, uint64_t first,
                          uint64_t count, const Buffer& left_out, const Buffer& right_out);

//! Records out[i] = source[side row of pair first + i] for i < count: one 32-bit column plane of the
//! left (right == false) or right side of the PRODUCT, written as its output column (through the side's
//! selection when given). `out` holds at least padded_bytes(count) bytes.
void record_product_gather(Device& device, VkCommandBuffer cmd, const ProductInput& input, bool right,
                           const Buffer& source, uint64_t first, uint64_t count, const Buffer& out);

}  // namespace gfxq::vk::skel
