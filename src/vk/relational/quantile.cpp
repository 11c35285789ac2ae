#include "vk/relational/quantile.h"

#include <bit>

#include "core/order_key.h"
#include "gfxq/error.h"
#include "vk/primitives/radix_select.h"

namespace gfxq::vk {

DeviceKeys selected_keys(QueryContext& ctx, const DeviceSelection& selection, const BoundColumn& c) {
  const DeviceColumn& column = ctx.column(c);
  DeviceKeys keys;
  keys.count = selection.count;
  if (selection.all) {
    keys.column = &column.buffer;
    keys.type = column.type == Type::Int32 ? SortKeyType::I32 : SortKeyType::F32;
    return keys;
  }
  if (keys.count == 0) return keys;
  Device& device = ctx.device();
  keys.owned = device.create_buffer(padded_bytes(keys.count), MemoryKind::Device);
  keys.type = SortKeyType::U32;
  CompactTarget target;
  target.keys = &keys.owned;
  target.values = &column;
  target.limit = uint32_t(keys.count);
  target.chunk_starts = output_windows(ctx, selection);
  ctx.run("compact", "order keys of " + c.name + " for the selected rows", ctx.plan().rows,
          [&](VkCommandBuffer cmd) {
            record_cnf_compact(device, cmd, ctx.plan(), selection.mask, selection.offsets, target);
          })
      .passed = keys.count;
  return keys;
}

SelectResult select_kth(QueryContext& ctx, const DeviceKeys& keys, uint64_t k, SortOrder order,
                        const SortLimits& limits) {
  const uint64_t window = limits.window;
  Device& device = ctx.device();
  Buffer scratch = device.create_buffer(std::max<uint64_t>(16, radix_select_scratch_bytes(device, keys.count, window)),
                                        MemoryKind::Device);
  Buffer result = device.create_buffer(16, MemoryKind::Device);
  RadixSelectArgs args;
  args.n = keys.count;
  args.k = k;
  args.key_type = keys.type;
  args.order = order;
  args.keys = keys.range();
  args.result = {&result, 0, 16};
  args.scratch = {&scratch, 0, scratch.size()};
  args.binding_elements = window;
  if (limits.select_sample)
    args.sample = *limits.select_sample ? RadixSelectArgs::Sample::On : RadixSelectArgs::Sample::Off;
  PassRecord& pass =
      ctx.run("radix-select",
              std::string(order == SortOrder::Ascending ? "ascending" : "descending") + " rank " + std::to_string(k) +
                  " of " + std::to_string(keys.count) + " keys" + select_windows_text(device, keys.count, window),
              keys.count, [&](VkCommandBuffer cmd) { record_radix_select(device, cmd, args); });
  // A sampled select names the path it took.
  if (const RadixSelectPath path = radix_select_path(device, args); path != RadixSelectPath::Unsampled)
    pass.detail += std::string(", ") + radix_select_path_name(path);
  const auto words = ctx.download<uint32_t>(result, 3, "selected key");
  SelectResult r{words[0], words[1], words[2]};
  switch (keys.type) {
    case SortKeyType::U32: break;
    case SortKeyType::I32: r.key = int_key(std::bit_cast<int32_t>(r.key)); break;
    case SortKeyType::F32: r.key = float_key(std::bit_cast<float>(r.key)); break;
  }
  return r;
}

std::string select_windows_text(const Device& device, uint64_t n, uint64_t window) {
  const uint32_t windows = radix_select_windows(device, n, window);
  if (windows < 2) return {};
  return " over " + std::to_string(windows) + " binding windows of " +
         std::to_string(radix_select_window_keys(device, window)) + " keys";
}

Value quantile_value(QueryContext& ctx, const DeviceKeys& keys, const BoundAggregate& agg, Type type,
                     const SortLimits& limits) {
  const uint64_t m = keys.count;
  if (m == 0) return std::monostate{};
  uint64_t k = 0;
  SortOrder order = SortOrder::Ascending;
  switch (agg.kind) {
    case AggKind::Median:
    case AggKind::Quantile: k = quantile_rank(agg.q, m); break;
    case AggKind::KthLargest:
      if (uint64_t(agg.k) > m) return std::monostate{};
      k = uint64_t(agg.k);
      order = SortOrder::Descending;
      break;
    default: throw Error(ErrorCode::Internal, "quantile_value: " + agg.name + " is not a quantile");
  }
  const uint32_t key = select_kth(ctx, keys, k, order, limits).key;
  if (type == Type::Int32) return int_from_key(key);
  return float_from_key(key);
}

}  // namespace gfxq::vk
