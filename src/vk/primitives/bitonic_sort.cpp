// Bitonic chunk sort: one dispatch of bitonic_chunks (k or kv), one workgroup per 2048-key tile.

#include "vk/primitives/bitonic_sort.h"

#include <bit>
#include <string>

#include "gfxq/error.h"
#include "sort_config.glsl"
#include "vk/primitives/radix_sort.h"

namespace gfxq::vk {

static_assert(kBitonicMaxChunk == BITONIC_TILE);

void record_bitonic_sort(Device& device, VkCommandBuffer cmd, const BitonicSortArgs& args) {
  using namespace detail;
  if (args.chunk == 0 || args.chunk > kBitonicMaxChunk || !std::has_single_bit(args.chunk))
    throw Error(ErrorCode::InvalidInput, "bitonic sort: chunk " + std::to_string(args.chunk) +
                                             " is not a power of two in 1.." + std::to_string(kBitonicMaxChunk));
  const uint64_t n = args.n;
  check_fits_binding(device, n, "bitonic sort");
  if (n == 0) return;
  const uint32_t per = (args.keep == 0 || args.keep > args.chunk) ? args.chunk : args.keep;
  const uint64_t in_bytes = n * 4;
  const uint64_t out_bytes = cpu::chunk_sort_output_count(n, args.chunk, per) * 4;
  const bool with_values = args.values_out.buffer != nullptr;
  const bool generate = with_values && args.values_in.buffer == nullptr;
  check_range_holds(args.keys_in, in_bytes, "bitonic sort keys_in");
  check_range_holds(args.keys_out, out_bytes, "bitonic sort keys_out");
  const bool in_place_ok = per == args.chunk;
  const auto check_alias = [&](const BufferRange& in, const BufferRange& out, const char* what) {
    if (ranges_overlap(in, out, in_bytes) && !(in_place_ok && same_range(in, out)))
      throw Error(ErrorCode::Internal, std::string("bitonic sort: ") + what +
                                           " overlaps its input (only the very same range, keeping whole chunks)");
  };
  check_alias(args.keys_in, args.keys_out, "keys_out");
  if (with_values) {
    check_range_holds(args.values_out, out_bytes, "bitonic sort values_out");
    if (!generate) {
      check_range_holds(args.values_in, in_bytes, "bitonic sort values_in");
      check_alias(args.values_in, args.values_out, "values_out");
    }
  }

  const struct {
    uint32_t n, key_type, descending, chunk, per, flags, group_offset;
  } push{uint32_t(n),
         uint32_t(args.key_type),
         args.order == SortOrder::Descending ? 1u : 0u,
         args.chunk,
         per,
         generate ? 1u : 0u,
         0u};
  const BufferRange keys_in{args.keys_in.buffer, args.keys_in.offset, in_bytes};
  const BufferRange keys_out{args.keys_out.buffer, args.keys_out.offset, out_bytes};
  const uint32_t groups = uint32_t((n + BITONIC_TILE - 1) / BITONIC_TILE);
  if (with_values) {
    const BufferRange values_in =
        generate ? keys_in : BufferRange{args.values_in.buffer, args.values_in.offset, in_bytes};
    const BufferRange values_out{args.values_out.buffer, args.values_out.offset, out_bytes};
    device.dispatch_ranges(cmd, device.pipeline("bitonic_chunks_kv", 4, sizeof(push), true),
                           {keys_in, keys_out, values_in, values_out}, &push, groups);
  } else {
    device.dispatch_ranges(cmd, device.pipeline("bitonic_chunks_k", 2, sizeof(push), true), {keys_in, keys_out}, &push,
                           groups);
  }
}

}  // namespace gfxq::vk
