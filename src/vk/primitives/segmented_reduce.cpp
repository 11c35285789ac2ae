#include "vk/primitives/segmented_reduce.h"

#include <algorithm>
#include <string>

#include "gfxq/error.h"
#include "segmented_config.glsl"
#include "sort_config.glsl"
#include "vk/primitives/scan.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

static_assert(kSegmentFloatSumWords == SEG_SUM_FLOAT_WORDS);
static_assert(uint32_t(SegmentOp::Sum) == SEG_OP_SUM_INT && uint32_t(SegmentOp::Min) == SEG_OP_MIN &&
              uint32_t(SegmentOp::Max) == SEG_OP_MAX);

namespace {

//! Push constants of segmented_reduce.comp.
struct SegPush {
  uint32_t n, group_offset;
};

//! Scratch: chunk counts, chunk offsets (exclusive scan), the scan's own scratch.
struct SegScratch {
  uint64_t chunks = 0, counts = 0, offsets = 0, scan = 0, bytes = 0;
  SegScratch(const Device& device, uint64_t n) {
    chunks = std::max<uint64_t>(1, (n + SEG_CHUNK - 1) / SEG_CHUNK);
    const uint64_t words = prim::align_up(chunks * 4, prim::kRangeAlign);
    counts = 0;
    offsets = words;
    scan = 2 * words;
    bytes = scan + scan_scratch_bytes(device, chunks);
  }
};

uint32_t key_config(const SegmentedReduceArgs& args) {
  uint32_t c = uint32_t(args.keys.size());
  for (size_t k = 0; k < args.key_types.size(); ++k) c |= uint32_t(args.key_types[k]) << (SEG_CFG_TYPE_SHIFT + 2 * k);
  return c;
}

//! Workgroups covering every chunk (one chunk per subgroup).
uint32_t grid(const Device& device, uint64_t chunks) {
  const uint64_t per_group = SEG_WG / device.caps().subgroup_size;
  return uint32_t((chunks + per_group - 1) / per_group);
}

void check(const Device& device, const SegmentedReduceArgs& args) {
  prim::require_features(device, "segmented reduction", true);
  if (!device.caps().subgroup_shuffle)
    throw Error(ErrorCode::Unsupported,
                "segmented reduction needs subgroup shuffles (" + device.caps().device_name + ")");
  if (SEG_WG % device.caps().subgroup_size != 0)
    throw Error(ErrorCode::Unsupported, "segmented reduction needs a subgroup size dividing " + std::to_string(SEG_WG));
  if (args.keys.empty() || args.keys.size() > SEG_MAX_KEYS || args.key_types.size() != args.keys.size())
    throw Error(ErrorCode::InvalidInput,
                "segmented reduction takes 1 to " + std::to_string(SEG_MAX_KEYS) + " key columns with one type each");
  if (!args.segment_keys.empty() && args.segment_keys.size() != args.keys.size())
    throw Error(ErrorCode::InvalidInput, "segmented reduction: segment keys for some key columns only");
  if (args.n >= (uint64_t(1) << 32) || args.n > device.max_binding_elements())
    throw Error(ErrorCode::Unsupported, "segmented reduction of " + std::to_string(args.n) +
                                            " rows: at most one storage binding of 32-bit rows");
  for (const SegmentReduction& r : args.reductions)
    if (r.op == SegmentOp::Sum && r.type == SortKeyType::U32)
      throw Error(ErrorCode::InvalidInput, "segmented reduction: SUM of U32 values is not supported");
}

BufferRange sub(const BufferRange& r, uint64_t offset) {
  return {r.buffer, r.offset + offset, 0};
}

}  // namespace

uint64_t segmented_reduce_scratch_bytes(const Device& device, uint64_t n) {
  return SegScratch(device, n).bytes;
}

void record_segment_count(Device& device, VkCommandBuffer cmd, const SegmentedReduceArgs& args) {
  check(device, args);
  const SegScratch s(device, args.n);
  const BufferRange counts{args.scratch.buffer, args.scratch.offset + s.counts, s.chunks * 4};
  const BufferRange offsets{args.scratch.buffer, args.scratch.offset + s.offsets, s.chunks * 4};
  if (args.n > 0) {
    std::vector<BufferRange> ranges(args.keys.begin(), args.keys.end());
    while (ranges.size() < SEG_MAX_KEYS) ranges.push_back(args.keys[0]);
    ranges.push_back(counts);
    const SegPush push{uint32_t(args.n), 0};
    device.dispatch_ranges(cmd, device.pipeline("segmented_heads", 5, sizeof(SegPush), true, 0, key_config(args)),
                           ranges, &push, grid(device, s.chunks));
    device.barrier(cmd);
  }
  scan(device, cmd, ScanKind::Exclusive, ScanWidth::U32, counts, args.n ? s.chunks : 0, offsets, args.segments,
       sub(args.scratch, s.scan));
}

void record_segmented_reduce(Device& device, VkCommandBuffer cmd, const SegmentedReduceArgs& args) {
  check(device, args);
  const SegScratch s(device, args.n);
  auto fill = [&](const BufferRange& r, uint32_t word) {
    if (r.buffer) vkCmdFillBuffer(cmd, r.buffer->handle(), r.offset, r.bytes ? r.bytes : VK_WHOLE_SIZE, word);
  };
  fill(args.counts, 0);
  for (const SegmentReduction& r : args.reductions) fill(r.out, r.op == SegmentOp::Min ? 0xffffffffu : 0u);
  if (args.n == 0) return;
  device.barrier(cmd);
  const bool a64 = args.int64_atomics && device.caps().buffer_int64_atomics;
  const BufferRange key0 = args.keys[0];
  const BufferRange offsets{args.scratch.buffer, args.scratch.offset + s.offsets, s.chunks * 4};
  // Unused writable bindings get the chunk counts of the scratch, which this step does not read.
  const BufferRange unused{args.scratch.buffer, args.scratch.offset + s.counts, s.chunks * 4};
  const SegPush push{uint32_t(args.n), 0};
  // One dispatch per SEG_MAX_REDUCTIONS reductions (at least one: counts, firsts and keys come
  // with the first). They update distinct outputs, but all bind `unused`, which synchronization
  // validation counts as written: a barrier between them.
  const size_t dispatches = std::max<size_t>(1, (args.reductions.size() + SEG_MAX_REDUCTIONS - 1) / SEG_MAX_REDUCTIONS);
  for (size_t d = 0; d < dispatches; ++d) {
    uint32_t ops = 0;
    uint32_t config = key_config(args);
    std::vector<BufferRange> ranges(args.keys.begin(), args.keys.end());
    while (ranges.size() < SEG_MAX_KEYS) ranges.push_back(key0);
    std::vector<BufferRange> values, outs;
    for (uint32_t r = 0; r < SEG_MAX_REDUCTIONS; ++r) {
      const size_t i = d * SEG_MAX_REDUCTIONS + r;
      if (i < args.reductions.size()) {
        const SegmentReduction& red = args.reductions[i];
        const uint32_t op =
            red.op == SegmentOp::Sum && red.type == SortKeyType::F32 ? SEG_OP_SUM_FLOAT : uint32_t(red.op);
        ops |= op << (3 * r) | uint32_t(red.type) << (SEG_TYPE_SHIFT + 2 * r);
        values.push_back(red.values);
        outs.push_back(red.out);
      } else {
        values.push_back(key0);
        outs.push_back(unused);
      }
    }
    ranges.insert(ranges.end(), values.begin(), values.end());
    ranges.insert(ranges.end(), outs.begin(), outs.end());
    const bool first = d == 0;
    if (first && args.counts.buffer) config |= SEG_CFG_COUNTS;
    if (first && args.firsts.buffer) config |= SEG_CFG_FIRSTS;
    if (first && !args.segment_keys.empty()) config |= SEG_CFG_KEYS;
    ranges.push_back((config & SEG_CFG_COUNTS) ? args.counts : unused);
    ranges.push_back((config & SEG_CFG_FIRSTS) ? args.firsts : unused);
    for (size_t k = 0; k < SEG_MAX_KEYS; ++k)
      ranges.push_back((config & SEG_CFG_KEYS) && k < args.segment_keys.size() ? args.segment_keys[k] : unused);
    ranges.push_back(offsets);
    if (ops == 0 && !(config & (SEG_CFG_COUNTS | SEG_CFG_FIRSTS | SEG_CFG_KEYS))) continue;
    if (d > 0) device.barrier(cmd);
    const Pipeline& p =
        device.pipeline(a64 ? "segmented_reduce_a64" : "segmented_reduce", 19, sizeof(SegPush), true, ops, config);
    device.dispatch_ranges(cmd, p, ranges, &push, grid(device, s.chunks));
  }
}

}  // namespace gfxq::vk
