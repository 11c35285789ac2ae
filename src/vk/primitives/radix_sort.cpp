// LSD radix sort over 8-bit digits of the sort key, ping-ponging through scratch: the onesweep
// path (onesweep_histogram, 4 x onesweep_pass) and the reduce-then-scan path (4 x radix_upsweep,
// radix_scan, radix_downsweep), which is also the onesweep path's fallback and, with one upsweep
// and one downsweep dispatch per binding window, the path for more keys than one binding holds.

#include "vk/primitives/radix_sort.h"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/error.h"
#include "sort_config.glsl"

namespace gfxq::vk {

static_assert(uint32_t(SortKeyType::U32) == SORT_KEY_U32 && uint32_t(SortKeyType::I32) == SORT_KEY_I32 &&
              uint32_t(SortKeyType::F32) == SORT_KEY_F32);
static_assert(SORT_TILE == SORT_WG * SORT_KPT && SORT_BLOCK == SORT_TILE * SORT_BLOCK_TILES);
static_assert(SORT_BINS == 1 << SORT_RADIX_BITS && SORT_MAX_SUBGROUPS * SORT_MIN_SUBGROUP == SORT_WG);
// Ranking packs two 16-bit counters per word; the staging area reuses the counters' words.
static_assert(SORT_MAX_SUBGROUPS * SORT_BINS / 2 <= SORT_TILE && 128 * SORT_KPT < 65536);
// Onesweep: one invocation per digit; control words in order; the look-back's bound leaves most
// of lavapipe's 65,535 loop iterations per shader run (shared by all loops) to the other loops.
static_assert(SORT_BINS == SORT_WG && SORT_RADIX_BITS * ONESWEEP_PASSES == 32);
static_assert(ONESWEEP_MAX_LOOKBACK * 4 <= 65536);
//! Digit-pass tile shapes onesweep_pass.comp handles: at least one invocation per digit, kd[]
//! packing 4 digits, positions and counts in a tile of 16 bits, and rounds of at most
//! ONESWEEP_STAGE staged keys with the same number per invocation.
constexpr bool onesweep_tile_ok(uint32_t wg, uint32_t kpt, uint32_t tile) {
  const uint32_t rounds = (tile + ONESWEEP_STAGE - 1) / ONESWEEP_STAGE;  // onesweep_pass.comp's OS_ROUNDS
  return tile == wg * kpt && wg >= SORT_BINS && wg % SORT_WG == 0 && kpt % 4 == 0 && tile < 65536 &&
         tile % rounds == 0 && (tile / rounds) % wg == 0;
}
// Whole counter rows of SORT_BINS words each.
static_assert(ONESWEEP_COUNTER_WORDS % SORT_BINS == 0 && ONESWEEP_COUNTER_WORDS >= SORT_BINS);
static_assert(onesweep_tile_ok(ONESWEEP_WG_K, ONESWEEP_KPT_K, ONESWEEP_TILE_K) &&
              onesweep_tile_ok(ONESWEEP_WG_KV, ONESWEEP_KPT_KV, ONESWEEP_TILE_KV));
static_assert(ONESWEEP_STATUS >= ONESWEEP_COUNTERS + ONESWEEP_PASSES && ONESWEEP_HIST > ONESWEEP_STATUS &&
              ONESWEEP_DESC == ONESWEEP_HIST + ONESWEEP_PASSES * SORT_BINS && ONESWEEP_DESC_REGIONS == 2);
// The histogram loads whole uvec4s of a tile; its lane layout spreads 8 counter copies over runs
// of 32 invocations.
static_assert(ONESWEEP_HIST_TILE % (4 * ONESWEEP_HIST_WG) == 0 && ONESWEEP_HIST_WG % 32 == 0);
static_assert(RadixSortArgs::kMaxLookbackLimit == ONESWEEP_MAX_LOOKBACK);
static_assert(RadixSortArgs::kMaxWindows == SORT_OUT_WINDOWS);
// Window offsets (multiples of SORT_BLOCK keys) are valid storage-buffer offsets.
static_assert(SORT_BLOCK * 4 % 256 == 0);

namespace detail {

namespace {

//! Push constants of radix_upsweep / radix_downsweep (see the shaders).
struct PassPush {
  uint32_t n, nblocks, key_type, descending, hash, shift, mask, fanout, seed, flags, block_base, window_keys,
      group_offset;
};

uint64_t range_bytes(const BufferRange& r) {
  return r.bytes ? r.bytes : r.buffer->size() - r.offset;
}

//! The first `bytes` bytes of r.
BufferRange head(const BufferRange& r, uint64_t bytes) {
  return {r.buffer, r.offset, bytes};
}

uint64_t block_count(uint64_t n) {
  return (n + SORT_BLOCK - 1) / SORT_BLOCK;
}

}  // namespace

void check_fits_binding(const Device& device, uint64_t n, const char* what) {
  if (n > device.max_binding_elements())
    throw Error(ErrorCode::Unsupported,
                std::string(what) + " of " + std::to_string(n) + " keys: one storage binding holds at most " +
                    std::to_string(device.max_binding_elements()) + " 4-byte elements on this device");
}

void check_sort_support(const Device& device, uint64_t n, const char* what) {
  check_sort_device(device, what);
  check_fits_binding(device, n, what);
}

void check_sort_device(const Device& device, const char* what) {
  const VkCapabilities& c = device.caps();
  std::string missing;
  for (const auto& [has, op] : {std::pair{c.subgroup_ballot, " ballot"},
                                {c.subgroup_arithmetic, " arithmetic"},
                                {c.subgroup_shuffle, " shuffle"}})
    if (!has) missing += op;
  const uint32_t sg = c.subgroup_size;
  if (!missing.empty() || sg < SORT_MIN_SUBGROUP || sg > 128 || SORT_WG % sg != 0)
    throw Error(ErrorCode::Unsupported, std::string(what) +
                                            " needs subgroup basic, ballot, arithmetic and shuffle operations in "
                                            "compute shaders and a subgroup size of 8..128 dividing " +
                                            std::to_string(SORT_WG) + "; the device has subgroup size " +
                                            std::to_string(sg) + (missing.empty() ? "" : " and lacks" + missing));
}

void check_range_holds(const BufferRange& r, uint64_t bytes, const char* what) {
  if (!r.buffer || r.offset > r.buffer->size() || range_bytes(r) > r.buffer->size() - r.offset ||
      range_bytes(r) < bytes)
    throw Error(ErrorCode::Internal, std::string(what) + ": the range must hold " + std::to_string(bytes) +
                                         " bytes within its buffer" + (r.buffer ? "" : " (no buffer given)"));
}

bool ranges_overlap(const BufferRange& a, const BufferRange& b, uint64_t bytes) {
  return a.buffer && b.buffer && a.buffer->handle() == b.buffer->handle() && a.offset < b.offset + bytes &&
         b.offset < a.offset + bytes;
}

bool same_range(const BufferRange& a, const BufferRange& b) {
  return a.buffer && b.buffer && a.buffer->handle() == b.buffer->handle() && a.offset == b.offset;
}

uint64_t pass_hist_bytes(uint64_t n) {
  return align256(SORT_BINS * block_count(n) * 4);
}

void record_digit_pass(Device& device, VkCommandBuffer cmd, const DigitPass& pass) {
  const uint64_t window = pass.window_keys && pass.n > pass.window_keys ? pass.window_keys : pass.n;
  const uint32_t windows = window ? uint32_t((pass.n + window - 1) / window) : 1;
  const uint32_t nblocks = uint32_t(block_count(pass.n));
  const uint32_t bins = pass.mask + 1;
  const bool with_values = pass.values_out.buffer != nullptr;
  const bool generate = with_values && pass.values_in.buffer == nullptr;
  if (windows > SORT_OUT_WINDOWS || (windows > 1 && window % SORT_BLOCK != 0))
    throw Error(ErrorCode::Internal,
                "digit pass over " + std::to_string(windows) + " windows of " + std::to_string(window) + " keys");
  const uint32_t more = uint32_t(pass.more_values.size());
  if (more > SORT_MORE_VALUES || (more && (generate || !with_values || windows > 1)))
    throw Error(ErrorCode::Internal, "digit pass with " + std::to_string(more) + " more value columns (at most " +
                                         std::to_string(SORT_MORE_VALUES) + ", after read values, in one window)");
  PassPush push{uint32_t(pass.n),
                nblocks,
                uint32_t(pass.key_type),
                pass.descending ? 1u : 0u,
                pass.hash ? 1u : 0u,
                pass.shift,
                pass.mask,
                pass.fanout,
                pass.seed,
                (generate ? 1u : 0u) | more << 8,
                0u,
                uint32_t(window),
                0u};
  // Window w of a key/value range (w < windows; later windows repeat window 0 as a valid binding
  // the shader never writes).
  const auto win = [&](const BufferRange& r, uint32_t w) -> BufferRange {
    if (w >= windows) w = 0;
    return {r.buffer, r.offset + w * window * 4, std::min(window, pass.n - w * window) * 4};
  };
  const BufferRange hist = head(pass.block_hist, uint64_t(bins) * nblocks * 4);
  const BufferRange totals = head(pass.totals, SORT_BINS * 4);
  const auto set_window = [&](uint32_t w) {
    push.n = uint32_t(std::min(window, pass.n - w * window));
    push.block_base = uint32_t(w * window / SORT_BLOCK);
    return uint32_t(block_count(push.n));
  };

  for (uint32_t w = 0; w < windows; ++w) {
    // Every window's upsweep writes into the one histogram binding.
    if (w > 0) device.barrier(cmd);
    const uint32_t groups = set_window(w);
    device.dispatch_ranges(cmd, device.pipeline("radix_upsweep", 2, sizeof(PassPush), true),
                           {win(pass.keys_in, w), hist}, &push, groups);
  }
  device.barrier(cmd);
  device.dispatch_ranges(cmd, device.pipeline("radix_scan", 2, 4), {hist, totals}, &nblocks, bins);
  device.barrier(cmd);
  for (uint32_t w = 0; w < windows; ++w) {
    // Every window's downsweep may write into every output window.
    if (w > 0) device.barrier(cmd);
    const uint32_t groups = set_window(w);
    const BufferRange keys_in = win(pass.keys_in, w);
    std::vector<BufferRange> ranges = {keys_in, win(pass.keys_out, 0), hist, totals};
    if (with_values) {
      ranges.push_back(generate ? keys_in : win(pass.values_in, w));
      ranges.push_back(win(pass.values_out, 0));
    }
    if (more) {
      // Columns past `more` repeat the first column as valid bindings the shader never touches.
      for (uint32_t c = 0; c < SORT_MORE_VALUES; ++c)
        ranges.push_back(c < more ? pass.more_values[c].first : pass.values_in);
      for (uint32_t c = 0; c < SORT_MORE_VALUES; ++c)
        ranges.push_back(c < more ? pass.more_values[c].second : pass.values_out);
    }
    if (windows > 1) {
      for (uint32_t o = 1; o < SORT_OUT_WINDOWS; ++o) ranges.push_back(win(pass.keys_out, o));
      if (with_values)
        for (uint32_t o = 1; o < SORT_OUT_WINDOWS; ++o) ranges.push_back(win(pass.values_out, o));
    }
    const char* name = windows > 1   ? (with_values ? "radix_downsweep_kvw" : "radix_downsweep_kw")
                       : more        ? "radix_downsweep_kvm"
                       : with_values ? "radix_downsweep_kv"
                                     : "radix_downsweep_k";
    device.dispatch_ranges(cmd, device.pipeline(name, uint32_t(ranges.size()), sizeof(PassPush), true), ranges, &push,
                           groups);
  }
}

}  // namespace detail

namespace {

//! The onesweep digit-pass kernel of a sort: its pipeline (keyed_pipeline() adds the key type),
//! invocations and keys per tile (why each tile shape: sort_config.glsl).
struct OnesweepKernel {
  const char* pipeline;
  uint32_t invocations;
  uint32_t tile;
};

OnesweepKernel onesweep_kernel(bool with_values) {
  if (!with_values) return {"onesweep_pass_k", ONESWEEP_WG_K, ONESWEEP_TILE_K};
  return {"onesweep_pass_kv", ONESWEEP_WG_KV, ONESWEEP_TILE_KV};
}

//! Subgroups per counter row of the digit-pass kernel (its specialization constant
//! ONESWEEP_WAVES): the counter rows (a power of two of them, SORT_BINS words each) hold one per
//! subgroup where they fit.
uint32_t onesweep_waves(const Device& device, const OnesweepKernel& kernel) {
  constexpr uint32_t rows = std::bit_floor(uint32_t(ONESWEEP_COUNTER_WORDS / SORT_BINS));
  return std::max<uint32_t>(1, kernel.invocations / device.caps().subgroup_size / rows);
}

//! Tiles of the onesweep digit passes.
uint64_t onesweep_tile_count(uint64_t n, bool with_values) {
  const uint64_t tile = onesweep_kernel(with_values).tile;
  return (n + tile - 1) / tile;
}

//! Onesweep's counts are 30-bit descriptor fields: n < 2^30.
constexpr uint64_t kOnesweepMaxKeys = (uint64_t(1) << 30) - 1;

bool onesweep_path(uint64_t n) {
  return n <= kOnesweepMaxKeys;
}

//! Keys per binding window: binding_elements (0: the device's binding, else at most that) rounded
//! down to whole SORT_BLOCKs, so every window but the last holds whole blocks.
uint64_t window_keys(const Device& device, uint64_t binding_elements) {
  const uint64_t device_limit = device.max_binding_elements();
  const uint64_t limit = binding_elements ? std::min(binding_elements, device_limit) : device_limit;
  return std::max<uint64_t>(SORT_BLOCK, limit / SORT_BLOCK * SORT_BLOCK);
}

//! Binding windows of `window` keys that n keys span (1 when they fit one).
uint32_t window_count(uint64_t n, uint64_t window) {
  return n <= window ? 1 : uint32_t((n + window - 1) / window);
}

//! Error(Unsupported) unless one dispatch may bind the windowed downsweep's storage buffers (push
//! descriptors and per-stage storage buffers).
void check_window_bindings(const Device& device, bool with_values) {
  const uint32_t need = with_values ? 6 + 2 * (SORT_OUT_WINDOWS - 1) : 4 + (SORT_OUT_WINDOWS - 1);
  const uint32_t have = std::min(device.caps().max_push_descriptors, device.caps().max_storage_buffers_per_stage);
  if (have < need)
    throw Error(ErrorCode::Unsupported, "radix sort over several binding windows binds " + std::to_string(need) +
                                            " storage buffers in one dispatch; the device allows " +
                                            std::to_string(have));
}

//! Whether n keys in windows of `window` keys take the onesweep path (one binding, n < 2^30).
bool runs_onesweep(uint64_t n, uint64_t window) {
  return n <= window && onesweep_path(n);
}

//! Error(Unsupported) unless n keys fit kMaxWindows windows of `window` keys and 32-bit positions.
void check_windows(const Device& device, uint64_t n, uint64_t window) {
  if (n > UINT32_MAX)
    throw Error(ErrorCode::Unsupported,
                "radix sort of " + std::to_string(n) + " keys: key positions are 32-bit, at most 4294967295 keys");
  if (n > RadixSortArgs::kMaxWindows * window)
    throw Error(ErrorCode::Unsupported, "radix sort of " + std::to_string(n) + " keys: more than " +
                                            std::to_string(RadixSortArgs::kMaxWindows) + " binding windows of " +
                                            std::to_string(window) + " keys (one storage binding holds at most " +
                                            std::to_string(device.max_binding_elements()) +
                                            " 4-byte elements on this device)");
}

//! Tiles of the onesweep histogram pass.
uint64_t hist_tile_count(uint64_t n) {
  return (n + ONESWEEP_HIST_TILE - 1) / ONESWEEP_HIST_TILE;
}

//! Scratch layout: tmp keys, tmp values (with values; both only with `temporaries`), block
//! histograms and digit totals of the reduce-then-scan passes, onesweep's control words (onesweep
//! path only: counters, status, histograms and two descriptor regions).
struct SortScratch {
  uint64_t keys = 0, values = 0, hist = 0, totals = 0, ctrl = 0, ctrl_bytes = 0, bytes = 0;
  uint64_t window = 0;  //!< keys per binding window (set by checked_layout)
  SortScratch(uint64_t n, bool with_values, bool temporaries) {
    using detail::align256;
    values = temporaries ? align256(n * 4) : 0;
    hist = values + (temporaries && with_values ? align256(n * 4) : 0);
    totals = hist + detail::pass_hist_bytes(n);
    ctrl = totals + align256(SORT_BINS * 4);
    ctrl_bytes = onesweep_path(n)
                     ? (ONESWEEP_DESC + ONESWEEP_DESC_REGIONS * onesweep_tile_count(n, with_values) * SORT_BINS) * 4
                     : 0;
    bytes = ctrl + align256(ctrl_bytes);
  }
};

BufferRange at(const BufferRange& r, uint64_t offset) {
  return {r.buffer, r.offset + offset, 0};
}

//! Push constants of onesweep_pass (see the shader).
struct OnesweepPush {
  uint32_t n, ntiles, key_flip, pass, flags, lookback_limit, group_offset;
};

//! The buffers of LSD pass p (0..3): in -> tmp -> out -> tmp -> out, so an in-place sort
//! (out == in) is safe and every pass's input survives its pass.
struct PassBuffers {
  BufferRange keys_in, keys_out, values_in, values_out;
};

PassBuffers pass_buffers(const RadixSortArgs& args, const SortScratch& layout, uint32_t p) {
  const bool to_tmp = p % 2 == 0;
  const BufferRange tmp_keys = args.tmp_keys.buffer ? args.tmp_keys : at(args.scratch, layout.keys);
  const BufferRange tmp_values = args.tmp_keys.buffer ? args.tmp_values : at(args.scratch, layout.values);
  PassBuffers b;
  b.keys_in = p == 0 ? args.keys_in : (to_tmp ? args.keys_out : tmp_keys);
  b.keys_out = to_tmp ? tmp_keys : args.keys_out;
  if (args.values_out.buffer) {
    b.values_in = p == 0 ? args.values_in : (to_tmp ? args.values_out : tmp_values);
    b.values_out = to_tmp ? tmp_values : args.values_out;
  }
  return b;
}

//! Reduce-then-scan passes first..3.
void record_digit_passes(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args, const SortScratch& layout,
                         uint32_t first) {
  using namespace detail;
  DigitPass pass;
  pass.n = args.n;
  pass.key_type = args.key_type;
  pass.descending = args.order == SortOrder::Descending;
  pass.mask = SORT_BINS - 1;
  pass.block_hist = at(args.scratch, layout.hist);
  pass.totals = at(args.scratch, layout.totals);
  pass.window_keys = layout.window;
  for (uint32_t p = first; p < ONESWEEP_PASSES; ++p) {
    const PassBuffers b = pass_buffers(args, layout, p);
    pass.shift = p * SORT_RADIX_BITS;
    pass.keys_in = b.keys_in;
    pass.keys_out = b.keys_out;
    pass.values_in = b.values_in;
    pass.values_out = b.values_out;
    if (p > first) device.barrier(cmd);
    record_digit_pass(device, cmd, pass);
  }
}

//! Onesweep: zero the control words up to descriptor region 1 (pass 0 zeroes that one), the
//! histogram pass, then the look-back passes 0 .. passes-1 (all four sort).
void record_onesweep(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args, const SortScratch& layout,
                     uint32_t passes = ONESWEEP_PASSES) {
  const uint64_t n = args.n, bytes = n * 4;
  const bool with_values = args.values_out.buffer != nullptr;
  const OnesweepKernel kernel = onesweep_kernel(with_values);
  const uint32_t ntiles = uint32_t(onesweep_tile_count(n, with_values)), hist_tiles = uint32_t(hist_tile_count(n));
  const BufferRange ctrl{args.scratch.buffer, args.scratch.offset + layout.ctrl, layout.ctrl_bytes};
  vkCmdFillBuffer(cmd, ctrl.buffer->handle(), ctrl.offset, (ONESWEEP_DESC + uint64_t(ntiles) * SORT_BINS) * 4, 0);
  device.barrier(cmd);
  const uint32_t key_flip = detail::key_flip(args.key_type, args.order);
  const uint32_t hist_push[3] = {uint32_t(n), hist_tiles, key_flip};
  const BufferRange keys{args.keys_in.buffer, args.keys_in.offset, bytes};
  device.dispatch_ranges(
      cmd, device.pipeline(detail::keyed_pipeline("onesweep_histogram", args.key_type), 3, sizeof hist_push),
      {keys, ctrl, keys}, hist_push, std::min<uint32_t>(hist_tiles, ONESWEEP_HIST_GROUPS));
  const std::string pass_pipeline = detail::keyed_pipeline(kernel.pipeline, args.key_type);
  const bool generate = with_values && args.values_in.buffer == nullptr;
  const uint32_t limit = std::min(args.lookback_limit, RadixSortArgs::kMaxLookbackLimit);
  // One wave (the shader's default) keeps the pipeline's plain name.
  const uint32_t waves = onesweep_waves(device, kernel), specialization = waves > 1 ? waves : 0;
  for (uint32_t p = 0; p < passes; ++p) {
    device.barrier(cmd);
    const PassBuffers b = pass_buffers(args, layout, p);
    const OnesweepPush push{uint32_t(n), ntiles, key_flip, p, p == 0 && generate ? 1u : 0u, limit, 0u};
    const BufferRange keys_in{b.keys_in.buffer, b.keys_in.offset, bytes},
        keys_out{b.keys_out.buffer, b.keys_out.offset, bytes};
    if (with_values) {
      // Generated values: binding 3 gets any valid range (the keys); the shader does not read it.
      const BufferRange values_in =
          b.values_in.buffer ? BufferRange{b.values_in.buffer, b.values_in.offset, bytes} : keys_in;
      device.dispatch_ranges(cmd, device.pipeline(pass_pipeline, 5, sizeof(OnesweepPush), true, specialization),
                             {keys_in, keys_out, ctrl, values_in, {b.values_out.buffer, b.values_out.offset, bytes}},
                             &push, ntiles);
    } else {
      device.dispatch_ranges(cmd, device.pipeline(pass_pipeline, 3, sizeof(OnesweepPush), true, specialization),
                             {keys_in, keys_out, ctrl}, &push, ntiles);
    }
  }
}

//! The checks record_radix_sort makes on its arguments; returns the scratch layout.
SortScratch checked_layout(const Device& device, const RadixSortArgs& args) {
  using namespace detail;
  const uint64_t n = args.n;
  check_sort_device(device, "radix sort");
  const uint64_t window = window_keys(device, args.binding_elements);
  check_windows(device, n, window);
  const bool with_values = args.values_out.buffer != nullptr;
  const uint64_t bytes = n * 4;
  if (window_count(n, window) > 1) check_window_bindings(device, with_values);
  const bool temporaries = args.tmp_keys.buffer == nullptr;
  SortScratch layout(n, with_values, temporaries);
  layout.window = window;
  check_range_holds(args.keys_in, bytes, "radix sort keys_in");
  check_range_holds(args.keys_out, bytes, "radix sort keys_out");
  check_range_holds(args.scratch, layout.bytes, "radix sort scratch");
  if (!temporaries) {
    check_range_holds(args.tmp_keys, bytes, "radix sort tmp_keys");
    if (with_values) check_range_holds(args.tmp_values, bytes, "radix sort tmp_values");
    const BufferRange tmp_values = with_values ? args.tmp_values : BufferRange{};
    for (const BufferRange* r : {&args.keys_in, &args.keys_out, &args.values_in, &args.values_out, &tmp_values})
      if (ranges_overlap(args.tmp_keys, *r, bytes) || (r != &tmp_values && ranges_overlap(tmp_values, *r, bytes)))
        throw Error(ErrorCode::Internal, "radix sort: tmp_keys or tmp_values overlaps another range of the sort");
  }
  if (ranges_overlap(args.keys_in, args.keys_out, bytes) && !same_range(args.keys_in, args.keys_out))
    throw Error(ErrorCode::Internal, "radix sort: keys_out partly overlaps keys_in");
  if (with_values) {
    check_range_holds(args.values_out, bytes, "radix sort values_out");
    if (args.values_in.buffer) {
      check_range_holds(args.values_in, bytes, "radix sort values_in");
      if (ranges_overlap(args.values_in, args.values_out, bytes) && !same_range(args.values_in, args.values_out))
        throw Error(ErrorCode::Internal, "radix sort: values_out partly overlaps values_in");
    }
  }
  return layout;
}

}  // namespace

std::string RadixSortStatus::describe() const {
  if (!onesweep && windows > 1)
    return "reduce-then-scan LSD radix sort over " + std::to_string(windows) + " binding windows of " +
           std::to_string(window_keys) + " keys (4 passes of 8-bit digits, " + std::to_string(4 * (2 * windows + 1)) +
           " dispatches)";
  if (!onesweep) return "reduce-then-scan LSD radix sort (4 passes of 8-bit digits, 12 dispatches)";
  const std::string tiles = std::to_string(tile_keys) + "-key tiles";
  if (failed_pass >= ONESWEEP_PASSES)
    return "onesweep LSD radix sort (one 4-digit histogram pass + 4 decoupled look-back passes over " + tiles + ")";
  return "onesweep LSD radix sort (" + tiles + ") whose pass " + std::to_string(failed_pass) +
         " gave up (its look-back hit its bound, or the subgroups did not fit its counter rows): passes " +
         std::to_string(failed_pass) + "..3 rerun by reduce-then-scan";
}

uint64_t radix_sort_scratch_bytes(const Device& device, uint64_t n, bool with_values, bool temporaries) {
  detail::check_sort_device(device, "radix sort");
  check_windows(device, n, window_keys(device, 0));
  return n == 0 ? 0 : SortScratch(n, with_values, temporaries).bytes;
}

void record_radix_sort(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args) {
  if (args.n == 0) {
    detail::check_sort_device(device, "radix sort");
    return;
  }
  const SortScratch layout = checked_layout(device, args);
  if (runs_onesweep(args.n, layout.window))
    record_onesweep(device, cmd, args, layout);
  else
    record_digit_passes(device, cmd, args, layout, 0);
}

void detail::record_radix_sort_stages(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args, uint32_t stages) {
  if (stages < 1 || stages > 1 + ONESWEEP_PASSES)
    throw Error(ErrorCode::InvalidInput, "radix sort stages: " + std::to_string(stages) + " is not in 1.." +
                                             std::to_string(1 + ONESWEEP_PASSES));
  const SortScratch layout = checked_layout(device, args);
  if (args.n == 0 || !runs_onesweep(args.n, layout.window))
    throw Error(ErrorCode::InvalidInput,
                "radix sort stages: a sort of " + std::to_string(args.n) + " keys does not take the onesweep path");
  record_onesweep(device, cmd, args, layout, stages - 1);
}

std::string detail::keyed_pipeline(std::string_view base, SortKeyType type) {
  const char* suffix = type == SortKeyType::I32 ? "_i32" : (type == SortKeyType::F32 ? "_f32" : "_u32");
  return std::string(base) + suffix;
}

uint32_t detail::key_flip(SortKeyType type, SortOrder order) {
  return (type == SortKeyType::I32 ? 0x80000000u : 0u) ^ (order == SortOrder::Descending ? 0xffffffffu : 0u);
}

uint32_t detail::onesweep_tile_keys(bool with_values) {
  return onesweep_kernel(with_values).tile;
}

RadixSortStatus radix_sort_status(Device& device, const RadixSortArgs& args) {
  RadixSortStatus status;
  if (args.n == 0) return status;
  const SortScratch layout = checked_layout(device, args);
  status.window_keys = layout.window;
  status.windows = window_count(args.n, layout.window);
  if (!runs_onesweep(args.n, layout.window)) return status;
  status.onesweep = true;
  status.tile_keys = onesweep_kernel(args.values_out.buffer != nullptr).tile;
  uint32_t word = 0;
  device.download(*args.scratch.buffer, &word, 4, args.scratch.offset + layout.ctrl + ONESWEEP_STATUS * 4);
  if (word != 0) status.failed_pass = uint32_t(std::countr_zero(word));
  return status;
}

void record_radix_sort_fallback(Device& device, VkCommandBuffer cmd, const RadixSortArgs& args,
                                const RadixSortStatus& status) {
  if (!status.needs_fallback()) return;
  record_digit_passes(device, cmd, args, checked_layout(device, args), status.failed_pass);
}

}  // namespace gfxq::vk
