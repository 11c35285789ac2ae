#pragma once
// The global hash table every hash variant ends in (Karnagel et al.): open addressing over
// cap + 1 slots in one buffer (the last slot is the GB_EMPTY key's, which no hash reaches), linear
// probing from the high word of hash * cap, keys claimed by compare-and-swap, states updated by
// atomics; and its finalization into the ordered result: the used slots listed (collect), their
// keys sorted with their slot numbers (onesweep radix sort; two stable sorts for two key columns),
// and the slots gathered in key order into the result arrays (common.h, ResultLayout).
//
// Overflow: a row that finds neither its key nor a free slot within min(cap, GB_PROBE_LIMIT)
// probes sets GB_CTRL_OVERFLOW and is not counted; the driver then resizes the table and reruns
// (the report says so). GB_CTRL_GROUPS counts the claimed slots, the groups of the table.

#include <cstdint>
#include <string>
#include <vector>

#include "vk/operators/group_by/common.h"
#include "vk/primitives/radix_sort.h"

namespace gfxq::vk::gb {

//! A hash table in device memory and its control words.
struct HashTable {
  uint64_t cap = 0;  //!< slots reached by hashing (the table holds cap + 1)
  Buffer table;      //!< (cap + 1) * Layout::slot_words words, zero when fresh
  Buffer ctrl;       //!< GB_CTRL_WORDS words
};

//! Bytes of a table of `cap` hashed slots.
uint64_t table_bytes(const Layout& layout, uint64_t cap);
//! The largest table, bytes: just below NVIDIA's maxMemoryAllocationSize (4,292,870,144 bytes on
//! the H200; VkCapabilities does not hold the device's value yet).
inline constexpr uint64_t kMaxTableBytes = (uint64_t(1) << 32) - (uint64_t(4) << 20);
//! The most hashed slots a table on `device` may have (one binding, kMaxTableBytes, 2^31 - 1).
uint64_t max_table_cap(const Device& device, const Layout& layout);
//! A table of `cap` slots. Error(Unsupported) past max_table_cap naming the sizes.
HashTable make_table(Device& device, const Layout& layout, uint64_t cap);
//! Records zeroing the table and its control words.
void record_clear(Device& device, VkCommandBuffer cmd, const HashTable& table);

//! The table kernels (group_by_table.comp): the global one, the shared ones by table size, and the
//! few-groups (private) ones by the same sizes.
enum class TableKernel { Global, SharedS, SharedM, SharedL, PrivateS, PrivateM, PrivateL };

//! Whether the kernel is a few-groups (private) one.
inline bool is_private(TableKernel kernel) {
  return kernel == TableKernel::PrivateS || kernel == TableKernel::PrivateM || kernel == TableKernel::PrivateL;
}
//! Words of a kernel's shared memory (0 for the global kernel).
uint32_t shared_words(TableKernel kernel);
//! Bytes of shared memory the kernel takes.
uint32_t shared_bytes(TableKernel kernel);

//! How a few-groups kernel lays out its shared memory: a key table of `slots` slots mapping keys
//! to `ids` dense group ids, each group's accumulators in `copies` copies (GB_WG: one per
//! invocation, no atomics; fewer: shared atomics).
struct FewShape {
  uint32_t slots = 0;   //!< key table slots (at least twice the ids)
  uint32_t ids = 0;     //!< groups a workgroup holds (0: not one fits)
  uint32_t copies = 0;  //!< copies of each group's accumulators, a power of two up to GB_WG
};
//! The shape of few-groups kernel `kernel` for `groups` groups: the most copies (GB_WG, or the
//! largest power of two below) with which at least `groups` ids fit its shared memory (with a key
//! table of twice as many slots); ids for the groups and an eighth more (at least 8), as far as
//! they fit, and the rest of the memory to key table slots. One copy and fewer ids than groups
//! where even one copy leaves too few: a workgroup's rows of keys without an id then go to the
//! global table (exact, slower).
FewShape few_shape(TableKernel kernel, const Layout& layout, uint64_t groups);

//! Slots of a shared kernel's table reached by hashing (one more holds the GB_EMPTY key's); for a
//! few-groups kernel the most groups a workgroup holds (its ids with one copy).
uint32_t shared_capacity(TableKernel kernel, const Layout& layout);
//! "16 KiB", "28 KiB", "44 KiB" (shared memory of the kernel).
std::string shared_size_text(TableKernel kernel);

//! How the table kernel runs over a stride.
struct KernelLaunch {
  TableKernel kernel = TableKernel::Global;  //!< which kernel
  uint32_t rows_per_group = 0;               //!< shared kernels: rows per workgroup (multiple of GB_STEP)
  FewShape few;                              //!< few-groups kernels: their layout
};

//! Records the table kernel over the rows of `source` into `table` (no barriers).
void record_table_kernel(Device& device, VkCommandBuffer cmd, const Layout& layout, bool atomic64,
                         const HashTable& table, const RowSource& source, const KernelLaunch& launch);

//! The finalization of a filled table of `groups` groups into the ordered result arrays: collect,
//! sort, gather. Owns its buffers; record() records all of it into one command buffer (the
//! benchmark), run() one stage per submission, checking each sort and rerunning a failed onesweep
//! pass by its fallback.
class TableFinalizer {
 public:
  //! The finalization of `table` (of `layout`, holding `groups` groups): makes its buffers.
  TableFinalizer(Device& device, const Layout& layout, const HashTable& table, uint64_t groups);
  //! Records the whole finalization (barriers between its steps; none before or after).
  void record(VkCommandBuffer cmd);
  //! Runs it stage by stage, sorts checked (fallbacks recorded as passes of their own).
  void run(StageRunner& runner);
  //! Whether every onesweep sort of the last record()/run() completed without its fallback (for
  //! the benchmark; run() completes failed ones itself).
  bool sorts_completed();
  //! The result arrays (valid after run(), or after record()'s commands when sorts_completed()).
  const Buffer& result() const noexcept { return result_; }
  //! Their layout.
  const ResultLayout& result_layout() const noexcept { return layout_out_; }
  //! The sorts' description for the report.
  std::string describe() const;

 private:
  void record_collect(VkCommandBuffer cmd);
  void record_gather(VkCommandBuffer cmd);
  RadixSortArgs sort_args(uint32_t which) const;

  Device& device_;
  const Layout& layout_;
  const HashTable& table_;
  uint64_t groups_;
  ResultLayout layout_out_;
  Buffer keys0_, keys1_, slots_, sorted_keys_, sorted_slots_, perm_, perm2_, gathered_, scratch0_, scratch1_, result_;
  std::vector<RadixSortStatus> status_;
};

}  // namespace gfxq::vk::gb
