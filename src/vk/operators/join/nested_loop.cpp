#include "vk/operators/join/nested_loop.h"

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/scratch.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_ninlj.comp (group_offset last, set by dispatch).
struct NestedPush {
  uint32_t m_a, m_b, blocks, block_rows, nterms, mode, c0_lo, c0_hi, c1_lo, c1_hi, group_offset;
};

}  // namespace

void nested_loop(Context& ctx) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const Oriented& o = ctx.o;
  const Prepared a = prepare(stages, *o.a, {}, o.swapped ? "right" : "left");
  const Prepared b = prepare(stages, *o.b, {}, o.swapped ? "left" : "right");
  const uint32_t block_rows = ctx.options.nested_block ? ctx.options.nested_block : JOIN_NINLJ_BLOCK;
  if (block_rows % JOIN_WG != 0)
    throw Error(ErrorCode::InvalidQuery, "join: JoinOptions::nested_block " + std::to_string(block_rows) +
                                             " is not a multiple of " + std::to_string(JOIN_WG));
  const uint64_t blocks = std::max<uint64_t>(1, prim::div_up(b.count, block_rows));
  const uint64_t slots = a.count * blocks;
  ctx.text = "nested-loop join (" + std::to_string(a.count) + " x " + std::to_string(b.count) + " rows, " +
             std::to_string(blocks) + " build block(s) of " + std::to_string(block_rows) +
             " rows per workgroup, through shared memory)";
  if (a.count == 0 || b.count == 0) {
    if (ctx.out.count_only()) {
      ctx.out.set_count(0);
    } else {
      ctx.out.write(0, Natural::AB, ctx.text, {});
    }
    return;
  }
  if (slots >= (uint64_t(1) << 32) || slots * 8 > device.caps().max_storage_buffer_range)
    throw Error(ErrorCode::Unsupported, "join: a nested loop over " + std::to_string(a.count) + " x " +
                                            std::to_string(b.count) + " rows needs " + std::to_string(slots) +
                                            " counts, past one binding (choose another algorithm)");
  const Buffer terms = upload_terms(device, o, o.terms);
  const Buffer counts = words(device, slots);
  const Buffer dummy = words(device, 4);
  CountScan scan(device, slots);
  const std::vector<BufferRange> a_cols = column_ranges(*o.a), b_cols = column_ranges(*o.b);
  const Pipeline& pipe = device.pipeline(terms_pipeline("join_ninlj", o.terms), 15, sizeof(NestedPush), true);
  const uint64_t groups = prim::div_up(a.count, JOIN_WG) * blocks;
  auto dispatch = [&](VkCommandBuffer cmd, uint32_t mode, uint64_t c0, uint64_t c1, const Buffer& out_a,
                      const Buffer& out_b) {
    const NestedPush push{uint32_t(a.count),
                          uint32_t(b.count),
                          uint32_t(blocks),
                          block_rows,
                          uint32_t(o.terms.size()),
                          mode,
                          uint32_t(c0),
                          uint32_t(c0 >> 32),
                          uint32_t(c1),
                          uint32_t(c1 >> 32),
                          0};
    std::vector<BufferRange> r{range32(a.rid, a.count),      range32(b.rid, b.count), range32(counts, slots),
                               range64(scan.offsets, slots), range32(out_a, c1 - c0), range32(out_b, c1 - c0),
                               {&terms, 0, terms.size()}};
    r.insert(r.end(), a_cols.begin(), a_cols.end());
    r.insert(r.end(), b_cols.begin(), b_cols.end());
    device.dispatch_ranges(cmd, pipe, r, &push, uint32_t(groups));
  };
  PassRecord& count = stages.run("join-count", ctx.text + ": pairs per (probe row, build block), then prefix sums",
                                 a.count * b.count, [&](VkCommandBuffer cmd) {
                                   dispatch(cmd, JOIN_SLOT_COUNT, 0, 0, dummy, dummy);
                                   device.barrier(cmd);
                                   scan.record(device, cmd, counts);
                                 });
  const uint64_t total = scan.total(stages, "join pairs");
  count.passed = total;
  if (ctx.out.count_only()) {
    ctx.out.set_count(total);
    return;
  }
  ctx.out.write(total, Natural::AB, ctx.text,
                [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& out_a, const Buffer& out_b) {
                  dispatch(cmd, JOIN_SLOT_WRITE, c0, c1, out_a, out_b);
                });
}

}  // namespace gfxq::vk::join
