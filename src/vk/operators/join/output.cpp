#include "vk/operators/join/output.h"

#include <algorithm>
#include <tuple>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_expand.comp (group_offset last, set by dispatch).
struct ExpandPush {
  uint32_t units, mode, nterms, c0_lo, c0_hi, c1_lo, c1_hi, total_lo, total_hi, group_offset;
};

//! Most pairs one chunk holds by default: one binding, and one allocation of the H200
//! (maxMemoryAllocationSize 4,292,870,144 bytes) for each of the two id buffers.
uint64_t default_chunk(const Device& device) {
  return std::min<uint64_t>(device.max_binding_elements(), (uint64_t(1) << 30) - (uint64_t(1) << 20));
}

//! Sorts n (key, value) uint32 pairs in place by key, stably (onesweep radix sort; its fallback when
//! a look-back gave up).
void sort_pairs(Stages& stages, const Buffer& keys, const Buffer& values, uint64_t n, const std::string& what) {
  Device& device = stages.device();
  const Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, radix_sort_scratch_bytes(device, n, true)), MemoryKind::Device);
  RadixSortArgs args;
  args.n = n;
  args.keys_in = args.keys_out = range32(keys, n);
  args.values_in = args.values_out = range32(values, n);
  args.scratch = {&scratch, 0, scratch.size()};
  PassRecord& pass =
      stages.run("join-order", what, n, [&](VkCommandBuffer cmd) { record_radix_sort(device, cmd, args); });
  const RadixSortStatus status = radix_sort_status(device, args);
  pass.detail += ": " + status.describe();
  if (status.needs_fallback())
    stages.run("join-order-fallback",
               what + ": passes from " + std::to_string(status.failed_pass) +
                   " rerun by reduce-then-scan (a look-back hit its bound)",
               n, [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device, cmd, args, status); });
}

std::string pairs_text(uint64_t n) {
  return std::to_string(n) + " pairs (" + std::to_string(n * 8) + " bytes)";
}

}  // namespace

std::string terms_pipeline(const std::string& base, const std::vector<JoinTerm>& terms) {
  return has_band(terms) ? base + "_band" : base;
}

Output::Output(Stages& stages, const JoinOptions& options, bool swapped, JoinResult& result)
    : stages_(stages), options_(options), swapped_(swapped), result_(result) {}

void Output::set_count(uint64_t total) {
  result_.count = total;
  result_.ordered = true;
}

uint64_t Output::chunk_capacity() const {
  Device& device = stages_.device();
  return std::min(options_.chunk_pairs ? options_.chunk_pairs : default_chunk(device), device.max_binding_elements());
}

void Output::write(uint64_t total, Natural natural, const std::string& what, const WritePass& write, const Cuts& cuts) {
  Device& device = stages_.device();
  result_.count = total;
  const bool in_order = natural == Natural::AB && !swapped_;
  result_.ordered = options_.ordered || in_order || total <= 1;
  if (total == 0) return;
  const bool sort = options_.ordered && !in_order;
  uint64_t chunk = chunk_capacity();
  if (total > chunk && !options_.consume)
    throw Error(ErrorCode::ResultTooLarge, "join result of " + pairs_text(total) + " exceeds one chunk of " +
                                               std::to_string(chunk) +
                                               " pairs; give JoinOptions::consume to receive it in chunks");
  if (total > chunk && sort)
    throw Error(
        ErrorCode::ResultTooLarge,
        "join result of " + pairs_text(total) + " in (left row, right row) order: this algorithm writes " +
            (swapped_ ? "(right row, left row) order" : "pairs out of that order") + " and the order sort " +
            "needs every pair in one chunk of at most " + std::to_string(chunk) +
            " pairs (the nested-loop and the equi indexed-loop joins write that order in any number of chunks)");
  chunk = std::min(chunk, total);
  Buffer out_a, out_b;
  for (;;) {
    try {
      out_a = words(device, chunk);
      out_b = words(device, chunk);
      break;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfDeviceMemory) throw;
      if (!options_.consume || sort || chunk <= (uint64_t(1) << 20))
        throw Error(ErrorCode::ResultTooLarge, "join result of " + pairs_text(total) +
                                                   " does not fit device memory in chunks of " + std::to_string(chunk) +
                                                   " pairs (" + e.what() + ")");
      chunk /= 2;
    }
  }
  const Buffer& left = swapped_ ? out_b : out_a;
  const Buffer& right = swapped_ ? out_a : out_b;
  std::vector<uint64_t> bounds;  // chunk c holds the pairs at [bounds[c], bounds[c + 1])
  if (cuts && total > chunk) {
    bounds = cuts(chunk);
  } else {
    for (uint64_t c0 = 0; c0 < total; c0 += chunk) bounds.push_back(c0);
    bounds.push_back(total);
  }
  const uint64_t chunks = bounds.size() - 1;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t c0 = bounds[c], c1 = bounds[c + 1];
    PassRecord& pass = stages_.run(
        "join-write",
        what + (chunks > 1 ? " (chunk " + std::to_string(c + 1) + " of " + std::to_string(chunks) + ")" : ""), c1 - c0,
        [&](VkCommandBuffer cmd) { write(cmd, c0, c1, out_a, out_b); });
    pass.passed = c1 - c0;
    if (sort) {
      if (natural == Natural::AThenBRuns && !swapped_) {
        sort_pairs(stages_, left, right, total, "pairs by left row (stable: right rows stay ascending)");
      } else {
        sort_pairs(stages_, right, left, total, "pairs by right row");
        sort_pairs(stages_, left, right, total, "pairs by left row (stable)");
      }
    }
    if (options_.consume) options_.consume(JoinChunk{&left, &right, c0, c1 - c0});
  }
  result_.chunks = chunks;
  if (chunks == 1) {
    result_.left = std::move(swapped_ ? out_b : out_a);
    result_.right = std::move(swapped_ ? out_a : out_b);
  }
}

void emit_runs(Output& out, const Oriented& o, const Runs& runs, const std::vector<JoinTerm>& residual,
               Natural natural) {
  Stages& stages = out.stages();
  Device& device = stages.device();
  if (runs.units == 0) {
    if (out.count_only()) {
      out.set_count(0);
    } else {
      out.write(0, natural, runs.what, {});
    }
    return;
  }
  CountScan candidates(device, runs.units);
  // Without residual terms every candidate is a pair, written per probe where runs are short.
  const bool pairs_only = residual.empty() && !out.count_only();
  uint64_t total = 0, longest = 0;
  if (pairs_only) {
    stages.run("join-scan", runs.what + ": prefix sums of the run lengths (64-bit) and the longest run", runs.units,
               [&](VkCommandBuffer cmd) { candidates.record_longest(device, cmd, *runs.counts); });
    std::tie(total, longest) = candidates.total_and_longest(stages, "join candidates and the longest run");
  } else {
    stages.run("join-scan", runs.what + ": prefix sums of the run lengths (64-bit)", runs.units,
               [&](VkCommandBuffer cmd) { candidates.record(device, cmd, *runs.counts); });
    total = candidates.total(stages, "join candidates");
  }
  const Buffer terms = upload_terms(device, o, residual);
  const Buffer dummy = words(device, 4);
  const std::vector<BufferRange> a_cols = column_ranges(*o.a), b_cols = column_ranges(*o.b);
  const Pipeline& pipe = device.pipeline(terms_pipeline("join_expand", residual), 18, sizeof(ExpandPush), true);
  const BufferRange none{&dummy, 0, 16};
  auto dispatch = [&](VkCommandBuffer cmd, uint32_t mode, uint64_t c0, uint64_t c1, const BufferRange& a,
                      const BufferRange& b, const BufferRange& tile_counts, const BufferRange& tile_offsets,
                      uint64_t groups) {
    const ExpandPush push{uint32_t(runs.units),      mode,
                          uint32_t(residual.size()), uint32_t(c0),
                          uint32_t(c0 >> 32),        uint32_t(c1),
                          uint32_t(c1 >> 32),        uint32_t(total),
                          uint32_t(total >> 32),     0};
    std::vector<BufferRange> r{range64(candidates.offsets, runs.units),
                               range32(*runs.counts, runs.units),
                               range32(*runs.unit_rid, runs.units),
                               range32(*runs.unit_start, runs.units),
                               {runs.build_rid, 0, runs.build_rid->size()},
                               a,
                               b,
                               tile_counts,
                               tile_offsets,
                               {&terms, 0, terms.size()}};
    r.insert(r.end(), a_cols.begin(), a_cols.end());
    r.insert(r.end(), b_cols.begin(), b_cols.end());
    device.dispatch_ranges(cmd, pipe, r, &push, uint32_t(groups));
  };
  if (residual.empty()) {
    if (out.count_only()) {
      out.set_count(total);
      return;
    }
    if (longest <= JOIN_UNIT_RUNS) {
      // Short runs (unique build keys: at most one pair per probe): one invocation per probe writes
      // its run at its offset, no search for the units of the positions.
      out.write(
          total, natural,
          runs.what + ": each probe's run (at most " + std::to_string(longest) + " pairs) written by its invocation",
          [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& a, const Buffer& b) {
            dispatch(cmd, JOIN_EXPAND_UNITS, c0, c1, range32(a, c1 - c0), range32(b, c1 - c0), none, none,
                     prim::div_up(runs.units, JOIN_WG));
          });
      return;
    }
    out.write(total, natural, runs.what + ": load-balanced expansion of the runs",
              [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& a, const Buffer& b) {
                dispatch(cmd, JOIN_EXPAND_WRITE, c0, c1, range32(a, c1 - c0), range32(b, c1 - c0), none, none,
                         prim::div_up(c1 - c0, JOIN_EXPAND_TILE));
              });
    return;
  }
  const uint64_t tiles = prim::div_up(total, JOIN_EXPAND_TILE);
  if (tiles >= (uint64_t(1) << 32) || tiles * 8 > device.caps().max_storage_buffer_range)
    throw Error(ErrorCode::Unsupported, "join: " + std::to_string(total) +
                                            " candidate pairs to test against the residual terms need " +
                                            std::to_string(tiles) + " tiles, past one binding of tile offsets");
  const Buffer tile_counts = words(device, tiles);
  CountScan passing(device, tiles);
  PassRecord& filter = stages.run(
      "join-filter",
      runs.what + ": " + std::to_string(residual.size()) + " residual term(s) tested on the candidates, per " +
          std::to_string(JOIN_EXPAND_TILE) + "-candidate tile, then prefix sums",
      total, [&](VkCommandBuffer cmd) {
        dispatch(cmd, JOIN_EXPAND_COUNT, 0, 0, none, none, range32(tile_counts, tiles), none, tiles);
        device.barrier(cmd);
        passing.record(device, cmd, tile_counts);
      });
  const uint64_t pairs = passing.total(stages, "join pairs");
  filter.passed = pairs;
  if (out.count_only()) {
    out.set_count(pairs);
    return;
  }
  out.write(pairs, natural, runs.what + ": the candidates passing the residual terms, packed per tile",
            [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& a, const Buffer& b) {
              dispatch(cmd, JOIN_EXPAND_PACK, c0, c1, range32(a, c1 - c0), range32(b, c1 - c0),
                       range32(tile_counts, tiles), range64(passing.offsets, tiles), tiles);
            });
}

}  // namespace gfxq::vk::join
