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

//! Workgroups of each scan: one per tile up to SELECT_MAX_GROUPS.
uint32_t select_groups(uint64_t n) {
  return uint32_t(std::max<uint64_t>(1, std::min<uint64_t>((n + SELECT_TILE - 1) / SELECT_TILE, SELECT_MAX_GROUPS)));
}

//! Scratch layout: header (state + histograms), the candidate regions (room for every key a
//! workgroup reads: groups x tiles per group x SELECT_TILE keys, at least n), their counts.
//! Without room for the regions in one binding, scan 1 copies nothing (`copies` false): three
//! scans of the keys.
struct SelectScratch {
  uint64_t header_bytes = 0, list = 0, list_entries = 0, counts = 0, bytes = 0;
  bool copies = false;
  SelectScratch(const Device& device, uint64_t n) {
    using detail::align256;
    const uint64_t tiles = (n + SELECT_TILE - 1) / SELECT_TILE, groups = select_groups(n);
    header_bytes = uint64_t(SELECT_HEADER_WORDS) * 4;
    list = align256(header_bytes);
    list_entries = groups * ((tiles + groups - 1) / groups) * SELECT_TILE;
    copies = list_entries <= device.max_binding_elements();
    counts = copies ? list + align256(list_entries * 4) : list;
    bytes = copies ? counts + align256(groups * SELECT_WG * 4) : list;
  }
};

}  // namespace

uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n) {
  detail::check_sort_support(device, n, "radix select");
  return SelectScratch(device, n).bytes;
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
  const SelectScratch layout(device, n);
  check_range_holds(args.keys, n * 4, "radix select keys");
  check_range_holds(args.result, 12, "radix select result");
  check_range_holds(args.scratch, layout.bytes, "radix select scratch");

  const BufferRange keys{args.keys.buffer, args.keys.offset, n * 4};
  const BufferRange header{args.scratch.buffer, args.scratch.offset, layout.header_bytes};
  // Without regions, scan 1 copies nothing and scan 2 reads the keys: bind the header in their place.
  const BufferRange list =
      layout.copies ? BufferRange{args.scratch.buffer, args.scratch.offset + layout.list, layout.list_entries * 4}
                    : header;
  const BufferRange counts = layout.copies ? BufferRange{args.scratch.buffer, args.scratch.offset + layout.counts,
                                                         uint64_t(select_groups(n)) * SELECT_WG * 4}
                                           : header;
  const BufferRange result{args.result.buffer, args.result.offset, 12};
  const uint32_t key_type = uint32_t(args.key_type), descending = args.order == SortOrder::Descending ? 1u : 0u;
  const uint32_t groups = select_groups(n);
  // Copying the candidates pays when they are at most half of the keys.
  const uint32_t cap = layout.copies ? uint32_t(n / 2) : 0;

  const Pipeline& first = device.pipeline("select_first", 2, 16);
  const Pipeline& scan = device.pipeline("select_pass", 4, 16);
  const Pipeline& choose = device.pipeline("select_choose", 2, 24);

  vkCmdFillBuffer(cmd, header.buffer->handle(), header.offset, header.bytes, 0);
  device.barrier(cmd);
  const uint32_t first_push[4] = {uint32_t(n), key_type, descending, 0};
  device.dispatch_ranges(cmd, first, {keys, header}, first_push, groups);
  for (uint32_t pass = 0; pass < std::min<uint32_t>(scans, SELECT_LEVELS); ++pass) {
    if (pass > 0) {
      const uint32_t push[4] = {uint32_t(n), key_type, descending, pass};
      device.barrier(cmd);
      device.dispatch_ranges(cmd, scan, {keys, header, list, counts}, push, groups);
    }
    const uint32_t push[6] = {uint32_t(n), uint32_t(args.k), key_type, descending, pass, uint32_t(cap)};
    device.barrier(cmd);
    device.dispatch_ranges(cmd, choose, {header, result}, push, 1);
  }
}

}  // namespace gfxq::vk
