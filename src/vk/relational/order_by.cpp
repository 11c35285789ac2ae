#include "vk/relational/order_by.h"

#include <algorithm>

#include "core/order_key.h"
#include "vk/primitives/radix_sort.h"
#include "vk/relational/quantile.h"

namespace gfxq::vk {

namespace {

// The first `kept` row ids of the selected rows sorted stably by the order column.
// `sort_path` receives which sort path ran (RadixSortStatus::describe).
std::vector<uint32_t> sort_rows(QueryContext& ctx, const DeviceSelection& selection, const BoundOrder& order,
                                uint64_t kept, uint64_t sort_window, std::string& sort_path) {
  Device& device = ctx.device();
  const DeviceColumn& column = ctx.column(order.column);
  const uint64_t m = selection.count;
  Buffer keys = device.create_buffer(padded_bytes(m), MemoryKind::Device);
  Buffer ids = device.create_buffer(padded_bytes(m), MemoryKind::Device);
  RadixSortArgs args;
  args.n = m;
  args.order = order.descending ? SortOrder::Descending : SortOrder::Ascending;
  args.binding_elements = sort_window;
  args.keys_out = {&keys, 0, m * 4};
  args.values_out = {&ids, 0, m * 4};
  if (selection.all) {
    // The column itself, with the row ids the sort generates.
    args.key_type = column.type == Type::Int32 ? SortKeyType::I32 : SortKeyType::F32;
    args.keys_in = {&column.buffer, 0, m * 4};
  } else {
    CompactTarget target;
    target.ids = &ids;
    target.keys = &keys;
    target.values = &column;
    target.limit = uint32_t(m);
    target.chunk_starts = output_windows(ctx, selection);
    ctx.run("compact", "(order key of " + order.column.name + ", row id) of the selected rows", ctx.plan().rows,
            [&](VkCommandBuffer cmd) {
              record_cnf_compact(device, cmd, ctx.plan(), selection.mask, selection.offsets, target);
            })
        .passed = m;
    args.key_type = SortKeyType::U32;
    args.keys_in = args.keys_out;
    args.values_in = args.values_out;
  }
  // The temporaries in buffers of their own: no buffer larger than the keys (one allocation each).
  Buffer tmp_keys = device.create_buffer(padded_bytes(m), MemoryKind::Device);
  Buffer tmp_ids = device.create_buffer(padded_bytes(m), MemoryKind::Device);
  args.tmp_keys = {&tmp_keys, 0, m * 4};
  args.tmp_values = {&tmp_ids, 0, m * 4};
  Buffer scratch = device.create_buffer(std::max<uint64_t>(16, radix_sort_scratch_bytes(device, m, true, false)),
                                        MemoryKind::Device);
  args.scratch = {&scratch, 0, scratch.size()};
  ctx.run("radix-sort",
          "stable LSD radix sort of " + std::to_string(m) + " (key, row id) pairs, " +
              (order.descending ? "descending" : "ascending"),
          m, [&](VkCommandBuffer cmd) { record_radix_sort(device, cmd, args); });
  const RadixSortStatus status = radix_sort_status(device, args);
  if (status.needs_fallback())
    ctx.run("radix-sort-fallback", status.describe(), m,
            [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device, cmd, args, status); });
  sort_path = status.describe();
  return ctx.download<uint32_t>(ids, kept, "sorted row ids");
}

// The first n rows in the stable order, for n < selection.count: threshold by radix select,
// compaction of the rows before it and of the first tie rows, a small stable sort on the host.
std::vector<uint32_t> top_rows(QueryContext& ctx, const CnfProgram& program, const DeviceSelection& selection,
                               const BoundOrder& order, uint64_t n, const SortLimits& limits) {
  const SortOrder dir = order.descending ? SortOrder::Descending : SortOrder::Ascending;
  const DeviceKeys keys = selected_keys(ctx, selection, order.column);
  const SelectResult threshold = select_kth(ctx, keys, n, dir, limits);
  std::vector<uint32_t> rows;
  if (threshold.less > 0) {
    const CnfProgram before =
        with_key_clause(program, order.column, order.descending ? CmpOp::Gt : CmpOp::Lt, threshold.key);
    rows = select_row_ids(ctx, before);
  }
  const auto start = QueryContext::Clock::now();
  const Column& column = ctx.query().column(order.column);
  auto key = [&](uint32_t row) {
    return column.type == Type::Int32 ? int_key(column.as<int32_t>()[row]) : float_key(column.as<float>()[row]);
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](uint32_t a, uint32_t b) { return order.descending ? key(a) > key(b) : key(a) < key(b); });
  ctx.add("sort", "stable sort of the " + std::to_string(rows.size()) + " rows before the threshold on the host",
          rows.size(), std::nullopt, start);
  const std::vector<uint32_t> ties =
      select_row_ids(ctx, with_key_clause(program, order.column, CmpOp::Eq, threshold.key), n - rows.size());
  rows.insert(rows.end(), ties.begin(), ties.end());
  return rows;
}

// Whether the top-k programs (the WHERE plus a clause on the order column) fit the CNF kernels.
bool fits(const CnfProgram& program, const BoundColumn& c) {
  if (program.slots.size() < kMaxCnfSlots) return true;
  return std::any_of(program.slots.begin(), program.slots.end(),
                     [&](const BoundColumn& s) { return same_column(s, c); });
}

}  // namespace

Table run_order_by(QueryContext& ctx, std::string& algorithm, const SortLimits& limits) {
  const uint64_t sort_window = limits.window;
  const BoundQuery& q = ctx.query();
  const BoundOrder& order = *q.order_by;
  const uint64_t limit = q.limit.value_or(UINT64_MAX);
  const std::string by = order.column.name + (order.descending ? " DESC" : " ASC");
  std::vector<uint32_t> rows;
  if (limit == 0) {
    algorithm = "compute: ORDER BY " + by + " under LIMIT 0 (no GPU work)";
  } else {
    const CnfProgram program = compile_cnf(q.where);
    const DeviceSelection selection = mark_rows(ctx, program);
    const std::string where = program.outcome == CnfProgram::Outcome::Rows
                                  ? "fused CNF selection (" + program.summary() + ") + "
                                  : std::string();
    if (selection.count == 0) {
      algorithm = "compute: " + where + "ORDER BY " + by + " of no rows";
    } else if (limit < selection.count && limit <= kTopK && fits(program, order.column)) {
      rows = top_rows(ctx, program, selection, order, limit, limits);
      algorithm = "compute: " + where + "top-" + std::to_string(limit) + " by " + by +
                  ": radix select of the threshold key" +
                  select_windows_text(ctx.device(), selection.count, sort_window) +
                  ", compaction of the rows before it and of the first ties, small stable sort on the host";
    } else {
      std::string sort_path;
      rows = sort_rows(ctx, selection, order, std::min(limit, selection.count), sort_window, sort_path);
      algorithm = "compute: " + where + "stable radix sort of (key, row id) pairs by " + by + " (" + sort_path + ")";
      if (q.limit) algorithm += ", first " + std::to_string(limit);
    }
  }
  return project_rows(ctx, rows, algorithm);
}

}  // namespace gfxq::vk
