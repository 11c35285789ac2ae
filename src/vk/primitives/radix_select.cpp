// Radix select: select_first + select_choose, then two (select_pass + select_choose) rounds, one
// per digit level; each scan is one dispatch per binding window of the keys. Sampled: sample,
// bracket, scan, check, then the levels over the candidates and the whole select, each gated on
// its path. Every decision stays on the GPU.

#include "vk/primitives/radix_select.h"

#include <algorithm>
#include <string>
#include <vector>

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

//! Keys per binding window: binding_elements (0: the device's binding, else at most that) rounded
//! down to whole 256-byte units (a valid storage-buffer offset on every device), at least one.
uint64_t select_window_keys(const Device& device, uint64_t binding_elements) {
  const uint64_t device_limit = device.max_binding_elements();
  const uint64_t limit = binding_elements ? std::min(binding_elements, device_limit) : device_limit;
  return std::max<uint64_t>(64, limit / 64 * 64);
}

//! How the keys are cut into binding windows and the scratch layout: the header (state +
//! histograms), then per window the candidate regions (room for every key a workgroup of that
//! window reads: groups x tiles per group x SELECT_TILE keys, at least the window's keys), then per
//! window their counts. One window: the layout of a select within one binding. Without room for
//! every window's regions in one binding each, scan 1 copies nothing (`copies` false): three scans
//! of the keys.
struct SelectScratch {
  uint64_t window = 0;  //!< keys per window (the last one may hold fewer)
  uint32_t windows = 1;
  uint64_t header_bytes = 0, bytes = 0;
  std::vector<uint64_t> list, list_entries, counts;  //!< per window: byte offsets, entries
  bool copies = true;
  SelectScratch(const Device& device, uint64_t n, uint64_t binding_elements) {
    using detail::align256;
    window = std::min(n, select_window_keys(device, binding_elements));
    windows = window ? uint32_t((n + window - 1) / window) : 1;
    header_bytes = uint64_t(SELECT_HEADER_WORDS) * 4;
    uint64_t at = align256(header_bytes);
    for (uint32_t w = 0; w < windows; ++w) {
      const uint64_t keys = window_n(n, w), tiles = (keys + SELECT_TILE - 1) / SELECT_TILE;
      const uint64_t groups = select_groups(keys);
      list.push_back(at);
      list_entries.push_back(groups * ((tiles + groups - 1) / groups) * SELECT_TILE);
      copies = copies && list_entries.back() <= device.max_binding_elements();
      at += align256(list_entries.back() * 4);
    }
    for (uint32_t w = 0; w < windows; ++w) {
      counts.push_back(at);
      at += align256(uint64_t(select_groups(window_n(n, w))) * SELECT_WG * 4);
    }
    bytes = copies ? at : align256(header_bytes);
  }
  //! Keys in window w.
  uint64_t window_n(uint64_t n, uint32_t w) const { return std::min(window, n - w * window); }
};

//! Error(Unsupported) past 2^32 - 1 keys (32-bit counts and ranks).
void check_select_size(uint64_t n) {
  if (n > UINT32_MAX)
    throw Error(ErrorCode::Unsupported,
                "radix select of " + std::to_string(n) + " keys: at most 2^32 - 1 (32-bit counts and ranks)");
}

//! Whether the select is sampled: asked for (Auto: n >= SELECT_SAMPLE_AUTO), enough keys, and
//! candidate regions in the scratch.
bool sampled(const SelectScratch& layout, const RadixSelectArgs& args) {
  using Sample = RadixSelectArgs::Sample;
  const bool on = args.sample == Sample::On || (args.sample == Sample::Auto && args.n >= SELECT_SAMPLE_AUTO);
  return on && args.n >= SELECT_SAMPLE_MIN && layout.copies;
}

}  // namespace

const char* radix_select_path_name(RadixSelectPath path) {
  switch (path) {
    case RadixSelectPath::Unsampled: return "unsampled";
    case RadixSelectPath::Candidates: return "sampled: candidates";
    case RadixSelectPath::Bound: return "sampled: bracket bound";
    case RadixSelectPath::Fallback: return "sampled: bracket missed, full select";
  }
  return "unknown";
}

bool radix_select_sampled(const Device& device, const RadixSelectArgs& args) {
  check_select_size(args.n);
  return sampled(SelectScratch(device, args.n, args.binding_elements), args);
}

RadixSelectPath radix_select_path(Device& device, const RadixSelectArgs& args) {
  if (!radix_select_sampled(device, args)) return RadixSelectPath::Unsampled;
  uint32_t word = 0;
  device.download(*args.scratch.buffer, &word, 4, args.scratch.offset + SELECT_PATH * 4);
  switch (word) {
    case SELECT_PATH_CANDIDATES: return RadixSelectPath::Candidates;
    case SELECT_PATH_BOUND: return RadixSelectPath::Bound;
    case SELECT_PATH_FALLBACK: return RadixSelectPath::Fallback;
    default:
      throw Error(ErrorCode::Internal, "radix select: path word " + std::to_string(word) + " after a sampled select");
  }
}

uint64_t radix_select_scratch_bytes(const Device& device, uint64_t n, uint64_t binding_elements) {
  detail::check_sort_device(device, "radix select");
  check_select_size(n);
  return SelectScratch(device, n, binding_elements).bytes;
}

uint64_t radix_select_window_keys(const Device& device, uint64_t binding_elements) {
  return select_window_keys(device, binding_elements);
}

uint32_t radix_select_windows(const Device& device, uint64_t n, uint64_t binding_elements) {
  return SelectScratch(device, n, binding_elements).windows;
}

void record_radix_select(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args) {
  detail::record_radix_select_scans(device, cmd, args, SELECT_LEVELS);
}

void detail::record_radix_select_scans(Device& device, VkCommandBuffer cmd, const RadixSelectArgs& args,
                                       uint32_t scans) {
  const uint64_t n = args.n;
  check_sort_device(device, "radix select");
  check_select_size(n);
  if (n == 0 || args.k == 0 || args.k > n)
    throw Error(ErrorCode::InvalidInput,
                "radix select: k = " + std::to_string(args.k) + " is not in 1.." + std::to_string(n));
  const SelectScratch layout(device, n, args.binding_elements);
  check_range_holds(args.keys, n * 4, "radix select keys");
  check_range_holds(args.result, 12, "radix select result");
  check_range_holds(args.scratch, layout.bytes, "radix select scratch");

  const BufferRange header{args.scratch.buffer, args.scratch.offset, layout.header_bytes};
  // Window w's keys, regions and counts. Without regions, scan 1 copies nothing and scan 2 reads
  // the keys: bind the header in their place.
  const auto keys = [&](uint32_t w) {
    return BufferRange{args.keys.buffer, args.keys.offset + w * layout.window * 4, layout.window_n(n, w) * 4};
  };
  const auto list = [&](uint32_t w) {
    return layout.copies
               ? BufferRange{args.scratch.buffer, args.scratch.offset + layout.list[w], layout.list_entries[w] * 4}
               : header;
  };
  const auto counts = [&](uint32_t w) {
    return layout.copies ? BufferRange{args.scratch.buffer, args.scratch.offset + layout.counts[w],
                                       uint64_t(select_groups(layout.window_n(n, w))) * SELECT_WG * 4}
                         : header;
  };
  const BufferRange result{args.result.buffer, args.result.offset, 12};
  const uint32_t key_type = uint32_t(args.key_type), descending = args.order == SortOrder::Descending ? 1u : 0u;
  // Copying the candidates pays when they are at most half of the keys.
  const uint32_t cap = layout.copies ? uint32_t(n / 2) : 0;

  const Pipeline& first = device.pipeline("select_first", 2, 16);
  const Pipeline& scan = device.pipeline("select_pass", 4, 16);
  const Pipeline& choose = device.pipeline("select_choose", 2, 24);

  vkCmdFillBuffer(cmd, header.buffer->handle(), header.offset, header.bytes, 0);
  // One dispatch per window, each adding into the same histogram (a barrier between them: they
  // update the same words).
  // Scan 1 is followed by one more dispatch per window (pass | SELECT_FOLLOWUP) that counts the
  // candidates scan 1 copied (when it copied, scan 1 counts nothing). `gate`: 0, or the sampled
  // path the dispatches belong to. Over the candidates (SELECT_GATE_CANDIDATES) every level reads
  // the regions with select_pass and nothing is copied, so there is no follow-up.
  const auto histogram = [&](uint32_t pass, uint32_t gate) {
    const bool followups = pass == 1 && gate != SELECT_GATE_CANDIDATES;
    for (uint32_t d = 0; d < layout.windows * (followups ? 2 : 1); ++d) {
      const uint32_t w = d % layout.windows, followup = d >= layout.windows ? SELECT_FOLLOWUP : 0u;
      const uint32_t window_n = uint32_t(layout.window_n(n, w)), groups = select_groups(window_n);
      const uint32_t push[4] = {window_n, key_type, descending, pass | followup | gate};
      device.barrier(cmd);
      if (pass == 0 && gate != SELECT_GATE_CANDIDATES)
        device.dispatch_ranges(cmd, first, {keys(w), header}, push, groups);
      else
        device.dispatch_ranges(cmd, scan, {keys(w), header, list(w), counts(w)}, push, groups);
    }
  };
  const auto levels = [&](uint32_t count, uint32_t gate) {
    for (uint32_t pass = 0; pass < count; ++pass) {
      histogram(pass, gate);
      const uint32_t push[6] = {uint32_t(n), uint32_t(args.k), key_type, descending, pass | gate, uint32_t(cap)};
      device.barrier(cmd);
      device.dispatch_ranges(cmd, choose, {header, result}, push, 1);
    }
  };
  if (!sampled(layout, args)) {
    levels(std::min<uint32_t>(scans, SELECT_LEVELS), 0);
    return;
  }

  // The bracket: sample ranks r - margin and r + margin around rank k's place r in the sample; a
  // side past the sample's ends is open (bounds bit clear).
  const uint64_t margin = args.sample_margin ? args.sample_margin : SELECT_SAMPLE_MARGIN;
  const uint64_t r = (args.k - 1) * SELECT_SAMPLE / n;
  const bool has_lo = r >= margin, has_hi = r + margin < SELECT_SAMPLE;
  const uint32_t bounds = (has_lo ? 1u : 0u) | (has_hi ? 2u : 0u);
  const uint32_t ranks[2] = {has_lo ? uint32_t(r - margin) : 0u, has_hi ? uint32_t(r + margin) : SELECT_SAMPLE - 1u};
  device.barrier(cmd);
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const uint32_t push[5] = {uint32_t(n), uint32_t(w * layout.window), uint32_t(layout.window_n(n, w)), key_type,
                              descending};
    device.dispatch_ranges(cmd, device.pipeline("select_sample", 2, 20), {keys(w), header}, push,
                           SELECT_SAMPLE / SELECT_SAMPLE_WG);
  }
  device.barrier(cmd);
  device.dispatch_ranges(cmd, device.pipeline("select_bracket", 1, 8), {header}, ranks, 1);
  if (scans < 2) return;
  const Pipeline& sample_scan = device.pipeline(detail::keyed_pipeline("select_sample_scan", args.key_type), 4, 12);
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const uint32_t window_n = uint32_t(layout.window_n(n, w));
    const uint32_t push[3] = {window_n, detail::key_flip(args.key_type, args.order), bounds};
    device.barrier(cmd);
    device.dispatch_ranges(cmd, sample_scan, {keys(w), header, list(w), counts(w)}, push, select_groups(window_n));
  }
  const uint32_t check[3] = {uint32_t(args.k), key_type, descending};
  device.barrier(cmd);
  device.dispatch_ranges(cmd, device.pipeline("select_check", 2, 12), {header, result}, check, 1);
  if (scans < 3) return;
  levels(SELECT_LEVELS, SELECT_GATE_CANDIDATES);
  levels(SELECT_LEVELS, SELECT_GATE_FALLBACK);
}

}  // namespace gfxq::vk
