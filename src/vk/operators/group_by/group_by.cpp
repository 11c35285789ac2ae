// The GROUP BY driver: checks the input, estimates the group count, lets the optimizer choose,
// runs the chosen variant (hash variants stride by stride into one global table, resized and rerun
// on overflow; the sort variant over the whole input), then decodes the result arrays.

#include "vk/operators/group_by/group_by.h"

#include <algorithm>
#include <bit>
#include <optional>

#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/operators/group_by/common.h"
#include "vk/operators/group_by/global_table.h"
#include "vk/operators/group_by/optimizer.h"
#include "vk/operators/group_by/partitioned.h"
#include "vk/operators/group_by/shared_table.h"
#include "vk/operators/group_by/sort_based.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

namespace {

using gb::StageRunner;

std::string slots_text(uint64_t v) {
  if (v && std::has_single_bit(v)) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

//! The sort-based variant end to end; returns its description.
std::string run_sort(StageRunner& runner, const GroupByInput& input, const gb::Layout& layout,
                     const GroupByOptions& options, GroupByResult& out) {
  gb::SortGroupBy sort(runner.device(), input, layout, options);
  sort.run(runner);
  const gb::ResultLayout& rl = sort.result_layout();
  const std::vector<uint32_t> words = runner.download(sort.result(), rl.words, "result arrays");
  gb::decode(input, layout, rl, words, out);
  std::string text = sort.describe();
  if (options.stride_rows && options.stride_rows < gb::input_rows(input))
    text += " (no strides: the sort takes every row at once)";
  return text;
}

//! A hash variant end to end (`choice.variant` is not Sort); returns its description, or nullopt
//! when the table outgrew the device under Auto (the caller then runs the sort variant).
std::optional<std::string> run_hash(StageRunner& runner, const GroupByInput& input, const gb::Layout& layout,
                                    const GroupByOptions& options, const gb::Choice& choice, GroupByResult& out) {
  Device& device = runner.device();
  const bool a64 = gb::use_atomic64(device, options);
  const std::vector<gb::RowSource> strides = gb::make_strides(device, input, layout, options.stride_rows);
  const gb::KernelLaunch launch =
      choice.variant == GroupByVariant::GlobalTable ? gb::KernelLaunch{} : gb::shared_launch(choice);
  std::optional<gb::StridePartitioner> partitioner;
  if (choice.variant == GroupByVariant::Partitioned) partitioner.emplace(device, input, layout, strides[0].count);
  const uint64_t max_cap = gb::max_table_cap(device, layout);
  std::string resizes;
  uint64_t cap = choice.table_slots;
  for (;;) {
    gb::HashTable table = gb::make_table(device, layout, cap);
    bool overflow = false;
    uint64_t groups = 0;
    for (size_t s = 0; s < strides.size() && !overflow; ++s) {
      const gb::RowSource& src = strides[s];
      std::string detail = launch.kernel == gb::TableKernel::Global
                               ? "rows into a global table of " + slots_text(cap) + " slots of " +
                                     std::to_string(layout.slot_words * 4) + " bytes"
                               : gb::describe_shared(layout, launch, src.count, cap);
      if (partitioner) detail = partitioner->describe() + "; " + detail;
      if (strides.size() > 1)
        detail += "; stride " + std::to_string(s + 1) + " of " + std::to_string(strides.size()) + " (rows " +
                  std::to_string(src.first) + ".." + std::to_string(src.first + src.count - 1) + ")";
      PassRecord& pass = runner.run("group-by-aggregate", detail, src.count, [&](VkCommandBuffer cmd) {
        if (s == 0) {
          gb::record_clear(device, cmd, table);
          device.barrier(cmd);
        }
        gb::RowSource rows = src;
        if (partitioner) {
          rows = partitioner->record(cmd, src);
        }
        gb::record_table_kernel(device, cmd, layout, a64, table, rows, launch);
      });
      const std::vector<uint32_t> ctrl = runner.download(table.ctrl, 2, "table control words");
      overflow = ctrl[GB_CTRL_OVERFLOW] != 0;
      groups = ctrl[GB_CTRL_GROUPS];
      pass.passed = groups;
      if (overflow) {
        if (cap >= max_cap) {
          if (options.variant != GroupByVariant::Auto)
            throw Error(ErrorCode::Unsupported, "GROUP BY hash table of " + std::to_string(cap) +
                                                    " slots overflowed and one storage binding holds no more");
          resizes += "; a table of " + slots_text(cap) + " slots overflowed at the device's largest table";
          return std::nullopt;
        }
        const uint64_t next = std::min(max_cap, std::max(4 * cap, std::bit_ceil(4 * groups)));
        const std::string note = "table of " + slots_text(cap) + " slots overflowed in stride " + std::to_string(s + 1) +
                                 " (" + std::to_string(groups) + " groups claimed): resized to " + slots_text(next) +
                                 " slots and rerun from the first stride";
        runner.add("group-by-resize", note, groups, StageRunner::Clock::now());
        resizes += "; " + note;
        cap = next;
      }
    }
    if (overflow) continue;
    gb::TableFinalizer finalizer(device, layout, table, groups);
    finalizer.run(runner);
    const gb::ResultLayout& rl = finalizer.result_layout();
    const std::vector<uint32_t> words = runner.download(finalizer.result(), rl.words, "result arrays");
    gb::decode(input, layout, rl, words, out);
    std::string text = launch.kernel == gb::TableKernel::Global
                           ? "global table of " + slots_text(cap) + " slots (" + std::to_string(layout.slot_words * 4) +
                                 "-byte slots, linear probing, " + (a64 ? "64-bit" : "32-bit") + " atomics)"
                           : gb::describe_shared(layout, launch, strides[0].count, cap);
    if (partitioner) text = partitioner->describe() + "; " + text;
    if (strides.size() > 1) text += "; " + std::to_string(strides.size()) + " strides into the one table";
    return text + resizes + "; output ordered by " + finalizer.describe();
  }
}

}  // namespace

GroupByResult group_by(Device& device, const GroupByInput& input, const GroupByOptions& options) {
  const gb::Layout layout = gb::make_layout(input);
  prim::require_features(device, "GROUP BY", true);
  if (!device.caps().subgroup_shuffle)
    throw Error(ErrorCode::Unsupported, "GROUP BY needs subgroup shuffles (" + device.caps().device_name + ")");
  GroupByResult out;
  StageRunner runner(device);
  const uint64_t n = gb::input_rows(input);
  if (n == 0) {
    gb::decode(input, layout, gb::ResultLayout::make(layout, layout.keys, 0), {}, out);
    out.variant = options.variant;
    out.algorithm = "compute GROUP BY of no rows: no groups (no GPU work)";
    out.reason = "no rows";
    out.estimate.method = "no rows";
    return out;
  }
  const bool hash = options.variant != GroupByVariant::Sort;
  const bool need_estimate = options.full_estimate || options.variant == GroupByVariant::Auto ||
                             (hash && (options.table_slots == 0 ||
                                       (options.variant == GroupByVariant::Partitioned && options.rows_per_group == 0)));
  if (need_estimate) {
    out.estimate = gb::estimate_groups(runner, input, layout, options.full_estimate);
  } else {
    out.estimate.method = "none (forced sizes)";
  }
  gb::Choice choice = gb::choose(device, input, layout, options, out.estimate.value);
  out.variant = choice.variant;
  out.reason = choice.reason;
  std::string text;
  if (choice.variant != GroupByVariant::Sort) {
    if (const auto hashed = run_hash(runner, input, layout, options, choice, out)) {
      text = *hashed;
    } else {
      out.variant = GroupByVariant::Sort;
      out.reason += "; the hash table outgrew one storage binding: switched to the sort-based variant";
      text = run_sort(runner, input, layout, options, out);
    }
  } else {
    text = run_sort(runner, input, layout, options, out);
  }
  out.algorithm = std::string("compute GROUP BY, ") + to_string(out.variant) + " variant: " + text + "; estimated " +
                  std::to_string(out.estimate.value) + " groups (" + out.estimate.method + "), " +
                  std::to_string(out.groups) + " groups";
  out.passes = std::move(runner.passes());
  return out;
}

}  // namespace gfxq::vk
