#pragma once
// The sort-family primitives' key semantics and their CPU references: the oracle the Vulkan
// versions (src/vk/primitives/{radix_sort,bitonic_sort,radix_select,split}.h) are tested against.
// Plain std::stable_sort and friends on std::vector; keys are raw 32-bit words whose meaning is a
// SortKeyType, ordered through the order-preserving keys of core/order_key.h.

#include <cstdint>
#include <vector>

namespace gfxq {

//! How a raw 32-bit key word is ordered.
enum class SortKeyType : uint32_t {
  U32,  //!< unsigned integer
  I32,  //!< int32 (int_key order)
  F32,  //!< float32 in gfxq's total order (float_key: -0.0 == +0.0, every NaN equal and largest)
};

//! Direction of a sort or selection. Descending is stable too: equal keys keep their input order.
enum class SortOrder : uint32_t { Ascending, Descending };

//! How split assigns a partition to a key; `u` below is the ascending sort key (cpu::sort_key).
enum class PartitionKind : uint32_t {
  Radix,  //!< (u >> shift) & (fanout - 1): range partitions in key order; fanout a power of two
  Hash,   //!< hi32(murmur3_fmix32(u ^ seed) * fanout): any fanout; equal keys (-0.0, +0.0) agree
};

//! A partition function for split: fanout 1..65536; Radix: fanout a power of two and
//! shift + log2(fanout) <= 32, shift < 32.
struct Partitioner {
  PartitionKind kind = PartitionKind::Radix;  //!< radix bits or hash
  uint32_t fanout = 256;                      //!< number of partitions F
  uint32_t shift = 0;                         //!< Radix: lowest partition bit of the sort key
  uint32_t seed = 0;                          //!< Hash: seed mixed into the key
};

//! What radix select finds: the k-th key of the order and how many keys precede / equal it.
//! The Vulkan version writes these three words, in this order, to its result buffer.
struct SelectResult {
  uint32_t key = 0;    //!< raw bits of the k-th key, canonical (F32: -0.0 -> +0.0, NaN -> 0x7fc00000)
  uint32_t less = 0;   //!< keys strictly before it in the order
  uint32_t equal = 0;  //!< keys equal to it (k-th key's tie group), so less < k <= less + equal
  bool operator==(const SelectResult&) const = default;
};

namespace cpu {

//! The unsigned key whose ascending order is `order` over raw words of `type`.
//! Example: sort_key(I32, Ascending, -1) = 0x7fffffff; sort_key(U32, Descending, 5) = ~5u.
uint32_t sort_key(SortKeyType type, SortOrder order, uint32_t raw) noexcept;
//! The canonical raw word of a sort key (inverse of sort_key up to F32 canonicalisation).
uint32_t key_from_sort_key(SortKeyType type, SortOrder order, uint32_t key) noexcept;
//! murmur3's 32-bit finaliser (fmix32), the hash of PartitionKind::Hash.
uint32_t fmix32(uint32_t h) noexcept;
//! The partition (0..fanout-1) of a raw key.
//! Example: Radix, fanout 16, shift 28, U32: 0xa0000001 -> 10.
uint32_t partition_of(const Partitioner& p, SortKeyType type, uint32_t raw) noexcept;

//! Stable sort of `keys` (raw words, bits unchanged) by `type`/`order`; `values` (same size, or
//! nullptr) move with their keys. Example: U32 ascending, keys {3,1,2,1}, values {0,1,2,3}
//! -> keys {1,1,2,3}, values {1,3,2,0}.
void radix_sort(std::vector<uint32_t>& keys, std::vector<uint32_t>* values, SortKeyType type, SortOrder order);

//! Number of outputs of sort_chunks: each chunk of `chunk` inputs keeps min(keep, its size)
//! (keep 0: all).
uint64_t chunk_sort_output_count(uint64_t n, uint32_t chunk, uint32_t keep) noexcept;
//! Each consecutive chunk of `chunk` keys sorted stably on its own; of chunk c, the first
//! min(keep, size) (keep 0: all) go to keys_out[c * keep ...]. values (or nullptr) move along.
//! Example: keys {4,3,2,1,9,8}, chunk 4, keep 2, ascending -> {1,2,8,9}.
void sort_chunks(const std::vector<uint32_t>& keys, const std::vector<uint32_t>* values, uint32_t chunk, uint32_t keep,
                 SortKeyType type, SortOrder order, std::vector<uint32_t>& keys_out, std::vector<uint32_t>* values_out);

//! The k-th key (1-based, 1 <= k <= keys.size()) in `order`. Example: {5,1,4,1}, k = 2, U32
//! ascending -> {key 1, less 0, equal 2}; k-th largest is k with Descending.
SelectResult radix_select(const std::vector<uint32_t>& keys, uint64_t k, SortKeyType type, SortOrder order);

//! Stable partition of keys (and values, or nullptr) by `p`: keys_out holds partition 0, then 1,
//! ..., each in input order. Returns the F+1 partition offsets (offsets[F] = n).
//! Example: Radix fanout 2 shift 0, U32 keys {3,2,5,4} -> keys {2,4,3,5}, offsets {0,2,4}.
std::vector<uint32_t> split(const std::vector<uint32_t>& keys, const std::vector<uint32_t>* values,
                            const Partitioner& p, SortKeyType type, std::vector<uint32_t>& keys_out,
                            std::vector<uint32_t>* values_out);

}  // namespace cpu
}  // namespace gfxq
