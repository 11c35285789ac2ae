#pragma once
// What the GROUP BY variants share: the slot layout of the hash tables (aggregate states), the
// result arrays every variant ends in and their decoding into host columns, the strides of the
// input, and the stage runner that submits each stage with GPU timestamps for the report.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gfxq/result.h"
#include "gfxq/table.h"
#include "vk/device.h"
#include "vk/operators/group_by/group_by.h"

namespace gfxq::vk::gb {

//! One aggregate state of a hash-table slot (and of the result arrays).
struct StateSpec {
  uint32_t kind = 0;        //!< GB_STATE_SUM_INT, _MIN, _MAX or _SUM_FLOAT
  uint32_t binding = 0;     //!< value binding 0..3 of the table kernels
  size_t value = 0;         //!< index into GroupByInput::values
  Type type = Type::Int32;  //!< the value column's type
  uint32_t offset = 0;      //!< word offset within a slot
};

//! The states a GROUP BY keeps per group and the slot layout of its hash tables.
struct Layout {
  uint32_t keys = 1;              //!< key columns
  std::vector<Type> key_types;    //!< their types
  std::vector<StateSpec> states;  //!< in slot order (SUM_INT first)
  std::vector<size_t> bindings;   //!< value binding -> GroupByInput::values index
  std::vector<size_t> quantiles;  //!< indices of the MEDIAN / QUANTILE / KTH_LARGEST aggregates
  bool counts = false;            //!< COUNT or AVG asked: the hash tables count rows per slot
  uint32_t slot_words = 2;        //!< words per slot (even)
  //! Words per slot of the shared-table kernel's table (planes): the keys, the count when
  //! counted, the states (no padding).
  uint32_t shared_words = 2;
  //! Words of one copy of a group's accumulators in the few-groups (private) kernels: the count
  //! (when counted), 2 per INT sum, 1 per MIN and MAX (FLOAT sums are kept once per group).
  uint32_t private_words = 0;
  //! Specialization constant 0 of the table kernels (GB_STATES).
  uint32_t spec_states() const;
  //! Specialization constant 1 (GB_CONFIG): bindings, types, keys, selection.
  uint32_t spec_config(bool selection) const;
  //! The state of (kind, value column), or -1.
  int state_of(uint32_t kind, size_t value) const;
};

//! The layout for `input`'s aggregates. Error(InvalidInput) for an aggregate the input cannot
//! feed; Error(Unsupported) beyond GB_MAX_STATES states or GB_MAX_VALUE_BINDINGS value columns.
Layout make_layout(const GroupByInput& input);

//! Where each result array lies in the result words of `groups` groups (word offsets, each region
//! 64-word aligned so it can be bound as a range): key columns (order keys), counts, then per
//! state its array (SUM_INT two words per group, MIN/MAX one order key, SUM_FLOAT
//! GB_SUM_FLOAT_WORDS), then per quantile aggregate one order key per group.
struct ResultLayout {
  uint64_t groups = 0;             //!< groups
  std::vector<uint64_t> key;       //!< per key column
  uint64_t count = 0;              //!< rows per group
  std::vector<uint64_t> state;     //!< per state of the Layout
  std::vector<uint64_t> quantile;  //!< per entry of Layout::quantiles
  uint64_t words = 0;              //!< all
  //! The layout for `groups` groups of `layout` with `key_columns` key arrays.
  static ResultLayout make(const Layout& layout, uint32_t key_columns, uint64_t groups);
};

//! The host columns of the result words: keys (canonical values), then each aggregate.
//! Error(Overflow) for an INT SUM outside int64.
void decode(const GroupByInput& input, const Layout& layout, const ResultLayout& result,
            const std::vector<uint32_t>& words, GroupByResult& out);

//! One stride of the input: the ranges its kernels bind and its rows.
struct RowSource {
  std::vector<BufferRange> keys;    //!< per key column: the stride's window, or the whole column
  std::vector<BufferRange> values;  //!< per value binding of the layout
  BufferRange rows;                 //!< the stride's window of row ids (buffer null: no selection)
  uint64_t count = 0;               //!< rows (or row ids) of the stride
  uint64_t first = 0;               //!< position of its first row (or id) in the input
};

//! The strides of `input` of at most `stride_rows` rows each (a multiple of GB_STEP): windows of
//! the columns without a selection, windows of the row ids with one (the columns then bound
//! whole, which needs them to fit one binding: Error(Unsupported) otherwise).
std::vector<RowSource> make_strides(const Device& device, const GroupByInput& input, const Layout& layout,
                                    uint64_t stride_rows);

//! The rows a GROUP BY reads: the selection's count, or all rows.
inline uint64_t input_rows(const GroupByInput& input) {
  return input.selection ? input.selected : input.rows;
}

//! Submits stages, one command buffer each, between two GPU timestamps, and keeps their passes.
class StageRunner {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StageRunner(Device& device) : device_(device) {}
  //! Runs record(cmd) as one pass (Device::run_pass: timed and waited for, or recorded into the batch) and
  //! appends its pass (GPU time when timed, wall time); returns the
  //! pass's index in passes() (a reference would not survive the next pass).
  size_t run(std::string kind, std::string detail, uint64_t items, const std::function<void(VkCommandBuffer)>& record);
  //! Downloads `count` words of `buffer` at byte `offset` (a "download" pass).
  std::vector<uint32_t> download(const Buffer& buffer, uint64_t count, const std::string& what, uint64_t offset = 0);
  //! Appends a host pass timed from `start`; returns its index in passes().
  size_t add(std::string kind, std::string detail, uint64_t items, Clock::time_point start);
  //! The device.
  Device& device() noexcept { return device_; }
  //! The passes so far.
  std::vector<PassRecord>& passes() noexcept { return passes_; }

 private:
  Device& device_;
  std::vector<PassRecord> passes_;
};

//! Whether the kernels use 64-bit buffer atomics (the device has them and the options allow).
bool use_atomic64(const Device& device, const GroupByOptions& options);

//! A device buffer of `bytes` (at least 16), device-local.
Buffer device_buffer(Device& device, uint64_t bytes);

}  // namespace gfxq::vk::gb
