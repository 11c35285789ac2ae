// Radix select: select_first + select_choose, then two (select_pass + select_choose) rounds, one
// per digit level. Every decision stays on the GPU.

#include "vk/primitives/radix_select.h"

#include <algorithm>
#include <string>

#include "gfxq/error.h"
#include "select_config.glsl"
#include "sort_config.glsl"
#include "vk/primitives/radix_sort.h"

namespace gfxq::vk {

namespace {

//! Entries of the candidate list: scan 1 copies the candidates when they are at most this many.
uint64_t list_capacity(uint64_t n) {
  return std::max<uint64_t>(1, (n + 1) / 2);
}

//! Scratch layout: header (state + histograms), candidate list.
struct SelectScratch {
  uint64_t header_bytes = 0, list = 0, bytes = 0;
  explicit SelectScratch(uint64_t n) {
    using detail::align256;
    header_bytes = uint64_t(SELECT_HEADER_WORDS) * 4;
    list = align256(header_bytes);
    bytes = list + align256(list_capacity(n) * 4);
  }
};

}  // namespace

uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n) {
  detail::check_sort_support(device, n, "radix select");
  return SelectScratch(n).bytes;
}

void record_radix_select(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args) {
  detail::record_radix_select_scans(device, cmd, args, SELECT_LEVELS);
}

void detail::record_radix_select_scans(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args,
                                       uint32_t scans) {
  const uint64_t n = args.n;
  check_sort_support(device, n, "radix select");
  if (n == 0 || args.k == 0 || args.k > n)
    throw Error(ErrorCode::InvalidInput,
                "radix select: k = " + std::to_string(args.k) + " is not in 1.." + std::to_string(n));
  const SelectScratch layout(n);
  check_range_holds(args.keys, n * 4, "radix select keys");
  check_range_holds(args.result, 12, "radix select result");
  check_range_holds(args.scratch, layout.bytes, "radix select scratch");

  const uint64_t cap = list_capacity(n);
  const BufferRange keys{args.keys.buffer, args.keys.offset, n * 4};
  const BufferRange header{args.scratch.buffer, args.scratch.offset, layout.header_bytes};
  const BufferRange list{args.scratch.buffer, args.scratch.offset + layout.list, cap * 4};
  const BufferRange result{args.result.buffer, args.result.offset, 12};
  const uint32_t key_type = uint32_t(args.key_type), descending = args.order == SortOrder::Descending ? 1u : 0u;
  const uint32_t groups = uint32_t(std::min<uint64_t>((n + SELECT_TILE - 1) / SELECT_TILE, SELECT_MAX_GROUPS));

  const Pipeline& first = device.pipeline("select_first", 2, 16);
  const Pipeline& scan = device.pipeline("select_pass", 3, 16);
  const Pipeline& choose = device.pipeline("select_choose", 2, 24);

  vkCmdFillBuffer(cmd, header.buffer->handle(), header.offset, header.bytes, 0);
  device.barrier(cmd);
  const uint32_t first_push[4] = {uint32_t(n), key_type, descending, 0};
  device.dispatch_ranges(cmd, first, {keys, header}, first_push, groups);
  for (uint32_t pass = 0; pass < std::min<uint32_t>(scans, SELECT_LEVELS); ++pass) {
    if (pass > 0) {
      // The list may be far shorter than n (scan 2): surplus workgroups find no tile and only
      // clear and merge an empty histogram.
      const uint32_t push[4] = {uint32_t(n), key_type, descending, pass};
      device.barrier(cmd);
      device.dispatch_ranges(cmd, scan, {keys, header, list}, push, groups);
    }
    const uint32_t push[6] = {uint32_t(n), uint32_t(args.k), key_type, descending, pass, uint32_t(cap)};
    device.barrier(cmd);
    device.dispatch_ranges(cmd, choose, {header, result}, push, 1);
  }
}

}  // namespace gfxq::vk
