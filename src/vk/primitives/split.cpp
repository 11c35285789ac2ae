// Split: one counting pass (fanout <= 256) or two LSD passes over the partition number's low and
// high digits; offsets from the pass totals (split_offsets) or from the grouped keys (split_bounds).

#include "vk/primitives/split.h"

#include <bit>
#include <string>

#include "gfxq/error.h"
#include "sort_config.glsl"
#include "vk/primitives/radix_sort.h"

namespace gfxq::vk {

namespace {

//! Bits of the partition number: ceil(log2(fanout)).
uint32_t partition_bits(uint32_t fanout) {
  return uint32_t(std::bit_width(fanout - 1));
}

void check_partitioner(const Partitioner& p) {
  if (p.fanout == 0 || p.fanout > kSplitMaxFanout)
    throw Error(ErrorCode::InvalidInput,
                "split: fanout " + std::to_string(p.fanout) + " is not in 1.." + std::to_string(kSplitMaxFanout));
  if (p.kind == PartitionKind::Radix &&
      (!std::has_single_bit(p.fanout) || p.shift >= 32 || p.shift + partition_bits(p.fanout) > 32))
    throw Error(ErrorCode::InvalidInput,
                "split: a radix fanout must be a power of two whose bits fit the key (fanout " +
                    std::to_string(p.fanout) + ", shift " + std::to_string(p.shift) + ")");
}

//! Scratch layout: tmp keys and values (two passes only), block histograms, digit totals.
struct SplitScratch {
  uint64_t keys = 0, values = 0, hist = 0, totals = 0, bytes = 0;
  SplitScratch(uint64_t n, const Partitioner& p, bool with_values) {
    using detail::align256;
    const bool two = p.fanout > SORT_BINS;
    values = two ? align256(n * 4) : 0;
    hist = values + (two && with_values ? align256(n * 4) : 0);
    totals = hist + detail::pass_hist_bytes(n);
    bytes = totals + align256(SORT_BINS * 4);
  }
};

}  // namespace

uint64_t split_scratch_bytes(const Device& device, uint64_t n, const Partitioner& p, bool with_values) {
  check_partitioner(p);
  detail::check_sort_support(device, n, "split");
  return SplitScratch(n, p, with_values).bytes;
}

void record_split(Device& device, VkCommandBuffer cmd, const SplitArgs& args) {
  using namespace detail;
  const Partitioner& p = args.partitioner;
  check_partitioner(p);
  const uint64_t n = args.n;
  check_sort_support(device, n, "split");
  const uint64_t bytes = n * 4;
  const bool with_values = args.values_out.buffer != nullptr;
  const SplitScratch layout(n, p, with_values);
  check_range_holds(args.offsets, (uint64_t(p.fanout) + 1) * 4, "split offsets");
  const BufferRange offsets{args.offsets.buffer, args.offsets.offset, (uint64_t(p.fanout) + 1) * 4};
  if (n == 0) {
    vkCmdFillBuffer(cmd, offsets.buffer->handle(), offsets.offset, offsets.bytes, 0);
    return;
  }
  check_range_holds(args.keys_in, bytes, "split keys_in");
  check_range_holds(args.keys_out, bytes, "split keys_out");
  check_range_holds(args.scratch, layout.bytes, "split scratch");
  if (ranges_overlap(args.keys_in, args.keys_out, bytes))
    throw Error(ErrorCode::Internal, "split: keys_out overlaps keys_in");
  if (with_values) {
    check_range_holds(args.values_out, bytes, "split values_out");
    if (args.values_in.buffer) {
      check_range_holds(args.values_in, bytes, "split values_in");
      if (ranges_overlap(args.values_in, args.values_out, bytes))
        throw Error(ErrorCode::Internal, "split: values_out overlaps values_in");
    }
  }

  const bool hash = p.kind == PartitionKind::Hash;
  const uint32_t bits = partition_bits(p.fanout);
  DigitPass pass;
  pass.n = n;
  pass.key_type = args.key_type;
  pass.hash = hash;
  pass.fanout = p.fanout;
  pass.seed = p.seed;
  pass.block_hist = {args.scratch.buffer, args.scratch.offset + layout.hist, 0};
  pass.totals = {args.scratch.buffer, args.scratch.offset + layout.totals, 0};
  pass.keys_in = args.keys_in;
  pass.values_in = args.values_in;
  const uint32_t base_shift = hash ? 0 : p.shift;
  if (bits <= SORT_RADIX_BITS) {
    pass.shift = base_shift;
    pass.mask = (1u << bits) - 1;
    pass.keys_out = args.keys_out;
    pass.values_out = args.values_out;
    record_digit_pass(device, cmd, pass);
    device.barrier(cmd);
    const uint32_t push[3] = {uint32_t(n), pass.mask + 1, p.fanout};
    device.dispatch_ranges(cmd, device.pipeline("split_offsets", 2, 12), {pass.totals, offsets}, push, 1);
    return;
  }
  // Two stable passes, low digit then high digit, through scratch: stable by the whole number.
  const BufferRange tmp_keys{args.scratch.buffer, args.scratch.offset + layout.keys, 0};
  const BufferRange tmp_values{args.scratch.buffer, args.scratch.offset + layout.values, 0};
  pass.shift = base_shift;
  pass.mask = SORT_BINS - 1;
  pass.keys_out = tmp_keys;
  if (with_values) pass.values_out = tmp_values;
  record_digit_pass(device, cmd, pass);
  device.barrier(cmd);
  pass.shift = base_shift + SORT_RADIX_BITS;
  pass.mask = (1u << (bits - SORT_RADIX_BITS)) - 1;
  pass.keys_in = tmp_keys;
  pass.keys_out = args.keys_out;
  if (with_values) {
    pass.values_in = tmp_values;
    pass.values_out = args.values_out;
  }
  record_digit_pass(device, cmd, pass);
  device.barrier(cmd);
  const struct {
    uint32_t n, fanout, key_type, hash, shift, mask, seed, group_offset;
  } push{uint32_t(n), p.fanout, uint32_t(args.key_type), hash ? 1u : 0u, base_shift, hash ? 0xffffffffu : p.fanout - 1,
         p.seed,      0u};
  device.dispatch_ranges(cmd, device.pipeline("split_bounds", 2, sizeof(push), true),
                         {BufferRange{args.keys_out.buffer, args.keys_out.offset, bytes}, offsets}, &push,
                         (p.fanout + SORT_WG) / SORT_WG);
}

}  // namespace gfxq::vk
