#include "vk/operators/join/hash.h"

#include <algorithm>
#include <bit>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/map.h"
#include "vk/primitives/reduce.h"
#include "vk/primitives/scratch.h"
#include "vk/primitives/split.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_hash_part.comp (group_offset last, set by dispatch).
struct PartPush {
  uint32_t items, mode, nterms, c0_lo, c0_hi, c1_lo, c1_hi, group_offset;
};
//! Push constants of join_hash_global.comp (group_offset last, set by dispatch).
struct GlobalPush {
  uint32_t n, cap, mode, allow_direct, build, grouped, column, key_norm, range_norm, group_offset;
};
//! Push constants of join_probe_tiles.comp (group_offset last, set by dispatch).
struct ProbePush {
  uint32_t n, has_selection, norm, cap, allow_direct, build, mode, grouped, store, range_norm, c0_lo, c0_hi, c1_lo,
      c1_hi, group_offset;
};

//! The global hash join's table, built (join_hash_global.comp): what a probe reads.
struct GlobalTable {
  const Buffer* table;       //!< cap + 1 entries (key, row id), one per distinct build key
  const Buffer* slot_count;  //!< grouped: build rows per slot
  const Buffer* slot_start;  //!< grouped: uint64 first index into build_rid per slot
  const Buffer* build_rid;   //!< grouped: build row ids grouped by slot
  const Buffer* range;       //!< the build keys' smallest and largest
  uint32_t range_norm = 0;   //!< how the kernels read `range` (JOIN_NORM_*: join_global_range)
  uint32_t cap = 0;          //!< slots reached by hashing
  bool direct = false;       //!< direct addressing allowed
  uint64_t build = 0;        //!< build rows
  bool grouped = false;      //!< duplicate build keys: a key's matches are a run of build_rid
};

//! The text naming how the table holds a build side's matches.
std::string layout_text(const Oriented& o, bool grouped) {
  const std::string b_name = o.swapped ? "left" : "right";
  return grouped ? ", duplicate " + b_name +
                       " keys: build rows grouped by key (rows per slot, prefix sums, scatter), one run per probe"
                 : ", unique " + b_name + " keys: a probe's match is its key's entry";
}

//! How probe_tiles ended.
enum class TileProbe {
  Done,        //!< the pairs (or the count) are the result
  LongRuns,    //!< a run is longer than JOIN_UNIT_RUNS: nothing written
  Duplicates,  //!< the build flagged duplicate keys (a table of unique keys was probed): nothing written
};

//! Probes `table` with the probe side's key column `key` (column index, JOIN_NORM_*) read in place by
//! tiles (join_probe_tiles.comp): a count pass with the prefix sums of the tiles' pairs and the
//! longest run, read back in one wait, then the write passes. Unique build keys: the count pass also
//! stores each row's match (4 bytes written and read back per row, against a second random entry read
//! of 32 bytes), so the write pass is a sequential compaction; `flags` (the build's duplicate flag,
//! for a table not yet grouped) is read in the same wait, so the host learns whether the keys were
//! unique without a wait of its own. Having written nothing, returns LongRuns when a run is longer
//! than JOIN_UNIT_RUNS (the caller then takes the probe with prepared keys and the load-balanced
//! expansion) and Duplicates when the flag is set (the caller groups the build rows and probes again).
TileProbe probe_tiles(Context& ctx, std::pair<uint32_t, uint32_t> key, const GlobalTable& t, const Buffer* flags) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const JoinSide& a = *ctx.o.a;
  const uint64_t n = a.count(), tiles = prim::div_up(n, JOIN_PROBE_TILE);
  const Buffer tile_counts = words(device, tiles);
  const Buffer stats = words(device, 4);
  const Buffer dummy = words(device, 4);
  const bool store = !t.grouped && !ctx.out.count_only();
  const std::optional<Buffer> match = store ? std::optional<Buffer>(words(device, n)) : std::nullopt;
  CountScan scan(device, tiles);
  const Pipeline& pipe = device.pipeline("join_probe_tiles", 13, sizeof(ProbePush), true);
  const Buffer& column = *a.keys[key.first].buffer;
  const uint64_t runs_slots = t.grouped ? t.cap + 1 : 4;  // the grouped arrays' elements (dummies when unique)
  auto dispatch = [&](VkCommandBuffer cmd, uint32_t mode, uint64_t c0, uint64_t c1, const Buffer& out_a,
                      const Buffer& out_b) {
    const ProbePush push{uint32_t(n),  a.selection ? 1u : 0u, key.second,
                         t.cap,        t.direct ? 1u : 0u,    uint32_t(t.build),
                         mode,         t.grouped ? 1u : 0u,   store ? 1u : 0u,
                         t.range_norm, uint32_t(c0),          uint32_t(c0 >> 32),
                         uint32_t(c1), uint32_t(c1 >> 32),    0};
    device.dispatch_ranges(
        cmd, pipe,
        {a.selection ? range32(*a.selection, n) : range32(dummy, 4), range32(column, a.rows),
         range64(*t.table, t.cap + 1), range32(*t.slot_count, runs_slots),
         range64(*t.slot_start, t.grouped ? runs_slots : 2), range32(*t.build_rid, t.grouped ? t.build : 4),
         range32(*t.range, 65), range32(tile_counts, tiles), range64(scan.offsets, tiles),
         range32(out_a, std::max<uint64_t>(1, c1 - c0)), range32(out_b, std::max<uint64_t>(1, c1 - c0)),
         range32(stats, 4), match ? range32(*match, n) : range32(dummy, 4)},
        &push, uint32_t(tiles));
  };
  stages.run("join-probe",
             "global table probed by " + std::to_string(JOIN_PROBE_TILE) +
                 "-row tiles of the key column: " + (store ? "each row's match stored, " : "") +
                 "pairs per tile, their prefix sums (64-bit) and the longest run",
             n, [&](VkCommandBuffer cmd) {
               vkCmdFillBuffer(cmd, stats.handle(), 0, VK_WHOLE_SIZE, 0);
               if (flags) {
                 device.barrier(cmd);
                 const VkBufferCopy flag{0, 4, 4};  // stats[1]: read with the longest run
                 vkCmdCopyBuffer(cmd, flags->handle(), stats.handle(), 1, &flag);
               }
               device.barrier(cmd);
               dispatch(cmd, JOIN_PROBE_COUNT, 0, 0, dummy, dummy);
               device.barrier(cmd);
               scan.record(device, cmd, tile_counts);
               device.barrier(cmd);
               // Where total_and_longest reads the longest run (low word) and the flag (high word).
               const VkBufferCopy longest{0, 256, 8};
               vkCmdCopyBuffer(cmd, stats.handle(), scan.total_buffer.handle(), 1, &longest);
             });
  const auto [total, stats_word] = scan.total_and_longest(
      stages, flags ? "join pairs, the longest run and whether build keys repeat" : "join pairs and the longest run");
  const uint64_t longest = uint32_t(stats_word);
  if (stats_word >> 32) return TileProbe::Duplicates;
  if (longest > JOIN_UNIT_RUNS) return TileProbe::LongRuns;
  if (flags) ctx.text += layout_text(ctx.o, false);
  ctx.text += t.grouped ? ", probed by tiles of the key column (a count pass, then each probe's run written at its "
                          "tile's offset)"
                        : ", probed by tiles of the key column (a count pass storing each probe's match, then "
                          "the matches compacted at the tiles' offsets)";
  if (ctx.out.count_only()) {
    ctx.out.set_count(total);
    return TileProbe::Done;
  }
  // Pairs in probe row order; each row's run (at most one pair for unique build keys) in table order.
  ctx.out.write(total, longest <= 1 ? Natural::AB : Natural::Unordered,
                t.grouped ? "global table probed by tiles: each probe's run (at most " + std::to_string(longest) +
                                " pairs) at its tile's offset"
                          : "global table probed by tiles: the stored matches compacted at the tiles' offsets",
                [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& out_a, const Buffer& out_b) {
                  dispatch(cmd, JOIN_PROBE_WRITE, c0, c1, out_a, out_b);
                });
  return TileProbe::Done;
}

//! The seed of the partition hash (the shared tables hash keys without one, so partition bits and
//! bucket bits are independent).
constexpr uint32_t kPartitionSeed = 0x9747b28cu;

//! Shared-memory words one build row takes in join_hash_part: two bucket heads, key, row id, link.
constexpr uint32_t kWordsPerBuildRow = 5;

void no_pairs(Context& ctx, Natural natural) {
  if (ctx.out.count_only()) {
    ctx.out.set_count(0);
  } else {
    ctx.out.write(0, natural, ctx.text, {});
  }
}

//! A side split into `fanout` hash partitions: keys, row ids and the fanout + 1 offsets (downloaded).
struct Partitioned {
  Buffer key, rid;
  std::vector<uint32_t> offsets;
};

Partitioned split_side(Stages& stages, const Prepared& side, uint32_t fanout, const std::string& name) {
  Device& device = stages.device();
  Partitioned out{words(device, side.count), words(device, side.count), {}};
  const Buffer offsets = words(device, fanout + 1);
  SplitArgs args;
  args.n = side.count;
  args.partitioner = Partitioner{PartitionKind::Hash, fanout, 0, kPartitionSeed};
  args.keys_in = range32(side.key, side.count);
  args.keys_out = range32(out.key, side.count);
  args.values_in = range32(side.rid, side.count);
  args.values_out = range32(out.rid, side.count);
  args.offsets = range32(offsets, fanout + 1);
  const Buffer scratch = device.create_buffer(
      std::max<uint64_t>(16, split_scratch_bytes(device, side.count, args.partitioner, true)), MemoryKind::Device);
  args.scratch = {&scratch, 0, scratch.size()};
  stages.run("join-partition",
             name + " side into " + std::to_string(fanout) + " hash partitions (" +
                 (fanout > 256 ? "two passes" : "one pass") + " of the split primitive)",
             side.count, [&](VkCommandBuffer cmd) { record_split(device, cmd, args); });
  out.offsets = stages.download<uint32_t>(offsets, fanout + 1, name + " partition offsets");
  return out;
}

}  // namespace

uint32_t hash_build_rows(const Device& device, uint32_t forced) {
  if (forced) {
    if (!std::has_single_bit(forced) || forced < 16)
      throw Error(ErrorCode::InvalidQuery, "join: JoinOptions::hash_build_rows " + std::to_string(forced) +
                                               " is not a power of two of at least 16");
    return forced;
  }
  // Leave 1 KiB of the shared memory to the driver.
  const uint64_t budget = device.caps().max_shared_memory > 1024 ? device.caps().max_shared_memory - 1024 : 0;
  const uint64_t rows = budget / (4 * kWordsPerBuildRow);
  return rows >= 16 ? std::bit_floor(uint32_t(std::min<uint64_t>(rows, 1u << 14))) : 0;
}

void hash_partitioned(Context& ctx) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const Oriented& o = ctx.o;
  const std::string a_name = o.swapped ? "right" : "left", b_name = o.swapped ? "left" : "right";
  const uint32_t cap = hash_build_rows(device, ctx.options.hash_build_rows);
  if (cap == 0)
    throw Error(ErrorCode::Unsupported, "join: the partitioned hash join needs shared memory for 16 build rows (" +
                                            std::to_string(device.caps().max_shared_memory) + " bytes here)");
  bool hashed = false;
  const auto [a_spec, b_spec] = equi_keys(o, hashed);
  const std::vector<JoinTerm> residual = residual_terms(o, hashed);
  const Prepared a = prepare(stages, *o.a, a_spec, a_name);
  const Prepared b = prepare(stages, *o.b, b_spec, b_name);
  uint32_t fanout = ctx.options.hash_partitions;
  if (fanout == 0)
    fanout = uint32_t(
        std::clamp<uint64_t>(std::bit_ceil(std::max<uint64_t>(1, prim::div_up(b.count, cap / 2))), 2, kSplitMaxFanout));
  if (!std::has_single_bit(fanout) || fanout > kSplitMaxFanout)
    throw Error(ErrorCode::InvalidQuery, "join: JoinOptions::hash_partitions " + std::to_string(fanout) +
                                             " is not a power of two up to " + std::to_string(kSplitMaxFanout));
  ctx.text = std::string("radix-partitioned hash join: ") + (hashed ? "hashed multi-column equi keys" : "equi key") +
             ", " + std::to_string(fanout) + " hash partitions of both sides, shared-memory tables of up to " +
             std::to_string(cap) + " " + b_name + " rows per work item";
  if (a.count == 0 || b.count == 0) return no_pairs(ctx, Natural::Unordered);
  const Partitioned pa = split_side(stages, a, fanout, a_name);
  const Partitioned pb = split_side(stages, b, fanout, b_name);
  // Work items: every partition with rows on both sides, cut into build and probe chunks.
  std::vector<uint32_t> items;
  uint64_t split_partitions = 0, largest = 0;
  for (uint32_t p = 0; p < fanout; ++p) {
    const uint32_t b0 = pb.offsets[p], b_rows = pb.offsets[p + 1] - b0;
    const uint32_t a0 = pa.offsets[p], a_rows = pa.offsets[p + 1] - a0;
    largest = std::max<uint64_t>(largest, b_rows);
    if (b_rows == 0 || a_rows == 0) continue;
    if (b_rows > cap) ++split_partitions;
    for (uint32_t bs = 0; bs < b_rows; bs += cap)
      for (uint32_t as = 0; as < a_rows; as += JOIN_HASH_PROBE_CHUNK)
        items.insert(items.end(), {b0 + bs, std::min(cap, b_rows - bs), a0 + as,
                                   std::min<uint32_t>(JOIN_HASH_PROBE_CHUNK, a_rows - as)});
  }
  const uint64_t n_items = items.size() / JOIN_HASH_ITEM_WORDS;
  ctx.text += ", " + std::to_string(n_items) + " work items (largest " + b_name + " partition " +
              std::to_string(largest) + " rows; " + std::to_string(split_partitions) + " partition(s) past " +
              std::to_string(cap) + " split into several)" +
              (residual.empty() ? "" : ", " + std::to_string(residual.size()) + " residual term(s)");
  if (n_items == 0) return no_pairs(ctx, Natural::Unordered);
  const uint64_t slots = n_items * JOIN_WG;
  if (slots >= (uint64_t(1) << 32) || slots * 8 > device.caps().max_storage_buffer_range)
    throw Error(ErrorCode::Unsupported,
                "join: " + std::to_string(n_items) + " hash work items need more counts than one binding holds");
  const Buffer item_buffer = words(device, items.size());
  device.upload(item_buffer, items.data(), items.size() * 4);
  const Buffer terms = upload_terms(device, o, residual);
  const Buffer counts = words(device, slots);
  const Buffer dummy = words(device, 4);
  CountScan scan(device, slots);
  const std::vector<BufferRange> a_cols = column_ranges(*o.a), b_cols = column_ranges(*o.b);
  const Pipeline& pipe = device.pipeline(terms_pipeline("join_hash_part", residual), 18, sizeof(PartPush), true, cap);
  auto dispatch = [&](VkCommandBuffer cmd, uint32_t mode, uint64_t c0, uint64_t c1, const Buffer& out_a,
                      const Buffer& out_b) {
    const PartPush push{uint32_t(n_items),  mode,         uint32_t(residual.size()), uint32_t(c0),
                        uint32_t(c0 >> 32), uint32_t(c1), uint32_t(c1 >> 32),        0};
    std::vector<BufferRange> r{range32(item_buffer, items.size()), range32(pa.key, a.count), range32(pa.rid, a.count),
                               range32(pb.key, b.count),           range32(pb.rid, b.count), range32(counts, slots),
                               range64(scan.offsets, slots),       range32(out_a, c1 - c0),  range32(out_b, c1 - c0),
                               {&terms, 0, terms.size()}};
    r.insert(r.end(), a_cols.begin(), a_cols.end());
    r.insert(r.end(), b_cols.begin(), b_cols.end());
    device.dispatch_ranges(cmd, pipe, r, &push, uint32_t(n_items));
  };
  PassRecord& count =
      stages.run("join-count", "shared-memory tables per work item: pairs per invocation, then prefix sums", a.count,
                 [&](VkCommandBuffer cmd) {
                   dispatch(cmd, JOIN_SLOT_COUNT, 0, 0, dummy, dummy);
                   device.barrier(cmd);
                   scan.record(device, cmd, counts);
                 });
  const uint64_t total = scan.total(stages, "join pairs");
  count.passed = total;
  if (ctx.out.count_only()) return ctx.out.set_count(total);
  // Chunks end between work items. A workgroup links its shared table's chains by atomic
  // exchanges, so the order of a slot's pairs may differ from one dispatch to the next (it did on
  // the H200; lavapipe runs them in one order): a slot split between two write passes would lose
  // some pairs and repeat others. A work item is written whole by one pass.
  auto cuts = [&](uint64_t chunk) {
    const Buffer starts = dwords(device, n_items);
    std::vector<VkBufferCopy> regions(n_items);
    for (uint64_t g = 0; g < n_items; ++g) regions[g] = {g * JOIN_WG * 8, g * 8, 8};
    stages.run("join-cuts", "each work item's first output position", n_items, [&](VkCommandBuffer cmd) {
      vkCmdCopyBuffer(cmd, scan.offsets.handle(), starts.handle(), uint32_t(n_items), regions.data());
    });
    std::vector<uint64_t> first = stages.download<uint64_t>(starts, n_items, "work items' first output positions");
    first.push_back(total);
    std::vector<uint64_t> bounds{0};
    for (uint64_t g = 0; g < n_items; ++g) {
      if (first[g + 1] - first[g] > chunk)
        throw Error(ErrorCode::Unsupported,
                    "join: work item " + std::to_string(g) + " of the partitioned hash join has " +
                        std::to_string(first[g + 1] - first[g]) + " pairs, more than one output chunk of " +
                        std::to_string(chunk) + " pairs (an item is written by one pass): give a larger chunk");
      if (first[g + 1] - bounds.back() > chunk) bounds.push_back(first[g]);
    }
    bounds.push_back(total);
    return bounds;
  };
  ctx.out.write(
      total, Natural::Unordered, "shared-memory tables per work item: the pairs at their offsets",
      [&](VkCommandBuffer cmd, uint64_t c0, uint64_t c1, const Buffer& out_a, const Buffer& out_b) {
        dispatch(cmd, JOIN_SLOT_WRITE, c0, c1, out_a, out_b);
      },
      cuts);
}

void hash_global(Context& ctx) {
  Stages& stages = ctx.stages;
  Device& device = stages.device();
  const Oriented& o = ctx.o;
  const std::string a_name = o.swapped ? "right" : "left", b_name = o.swapped ? "left" : "right";
  bool hashed = false;
  const auto [a_spec, b_spec] = equi_keys(o, hashed);
  const std::vector<JoinTerm> residual = residual_terms(o, hashed);
  // One key column without residual terms: the probe reads the column by tiles (join_probe_tiles),
  // without prepared keys and row ids of its own; else the probe side is prepared.
  const bool tiles = residual.empty() && a_spec.columns.size() == 1 && !a_spec.filters() && !ctx.options.no_tile_probe;
  std::optional<Prepared> prepared_a;
  if (!tiles) prepared_a = prepare(stages, *o.a, a_spec, a_name);
  const uint64_t a_count = tiles ? o.a->count() : prepared_a->count;
  // One build key column that drops no rows, without a selection: the build reads the column in
  // place (row i has id i), without prepared keys and row ids; else the build side is prepared.
  const bool b_column = b_spec.columns.size() == 1 && !b_spec.filters() && !o.b->selection;
  std::optional<Prepared> prepared_b;
  if (!b_column) prepared_b = prepare(stages, *o.b, b_spec, b_name);
  const uint64_t b_count = b_column ? o.b->rows : prepared_b->count;
  // Where the build reads its keys: the column's raw values (normalised by the kernels), or prepared keys.
  const uint32_t b_norm = b_column ? b_spec.columns[0].second : JOIN_NORM_RAW;
  const Buffer& b_keys = b_column ? *o.b->keys[b_spec.columns[0].first].buffer : prepared_b->key;
  ctx.text = std::string("global-table hash join: ") + (hashed ? "hashed multi-column equi keys" : "equi key");
  if (a_count == 0 || b_count == 0) {
    emit_runs(ctx.out, o, Runs{0, nullptr, nullptr, nullptr, nullptr, ctx.text}, residual, Natural::Unordered);
    return;
  }
  // The build keys' range: direct addressing when it is at most twice the build rows. A key column is
  // reduced in its own type's order, which its order keys keep (join_global_range).
  const ElemType range_type = b_norm == JOIN_NORM_ORDER_INT     ? ElemType::I32
                              : b_norm == JOIN_NORM_ORDER_FLOAT ? ElemType::F32
                                                                : ElemType::U32;
  const Buffer range = dwords(device, 64);  // minimum at byte 0, maximum at byte 256 (binding offsets)
  const Buffer reduce_scratch = device.create_buffer(reduce_scratch_bytes(device, b_count), MemoryKind::Device);
  stages.run("join-range", b_name + " keys: smallest and largest", b_count, [&](VkCommandBuffer cmd) {
    reduce(device, cmd, ReduceOp::Min, range_type, range32(b_keys, b_count), b_count, {&range, 0, 16},
           {&reduce_scratch, 0, reduce_scratch.size()});
    device.barrier(cmd);
    reduce(device, cmd, ReduceOp::Max, range_type, range32(b_keys, b_count), b_count, {&range, 256, 16},
           {&reduce_scratch, 0, reduce_scratch.size()});
  });
  // The device decides direct addressing from the range (no wait here): the table is sized for open
  // addressing, which a dense range of at most twice the build rows fits too.
  const bool direct_allowed = !hashed;
  const uint64_t cap = std::bit_ceil(std::max<uint64_t>(64, 2 * b_count));
  if (cap >= (uint64_t(1) << 31) || (cap + 1) * 8 > device.caps().max_storage_buffer_range)
    throw Error(ErrorCode::Unsupported, "join: a global hash table of " + std::to_string(cap) + " slots for " +
                                            std::to_string(b_count) + " build rows is past 2^31 slots or one " +
                                            "storage binding (use the partitioned hash join or sort-merge)");
  // 64-bit atomics claim an entry (key, row id) at once; 32-bit ones claim the key word and store
  // the row word after it, which the probes read in later dispatches (after a barrier) only.
  const bool a64 = device.caps().buffer_int64_atomics && !ctx.options.no_int64_atomics;
  ctx.text +=
      std::string(direct_allowed ? ", direct addressing where the " + b_name +
                                       " keys' range is at most twice its rows (decided on the device), else"
                                 : ",") +
      " open addressing (linear probing), " + std::to_string(cap) + " slots of one 64-bit entry (key, " + b_name +
      " row) for " + std::to_string(b_count) + " " + b_name + " rows" + (b_column ? " read from the key column" : "") +
      ", claimed by " +
      (a64 ? "a 64-bit compare-and-swap" : "a 32-bit compare-and-swap of the key word, the row id stored after");
  const Buffer table = dwords(device, cap + 1);
  const Buffer flags = words(device, 4);
  const Buffer dummy = words(device, 4);
  // Duplicate build keys (flagged by the build): rows per slot, their prefix sums, row ids by slot.
  std::optional<Buffer> slot_count, slot_fill, build_rid;
  std::optional<CountScan> starts;
  // The prepared probe's runs and matches.
  std::optional<Buffer> unit_start, counts, match;
  const Pipeline& pipe =
      device.pipeline(a64 ? "join_hash_global_a64" : "join_hash_global", 12, sizeof(GlobalPush), true);
  // Rows a dispatch reads: the build side (its column or prepared keys) or the prepared probe side.
  struct Rows {
    uint64_t n;
    const Buffer* keys;
    const Buffer* rids;  // nullptr: row i has id i (the build's key column)
    uint32_t norm;       // JOIN_NORM_* of keys
  };
  const Rows build_rows{b_count, &b_keys, b_column ? nullptr : &prepared_b->rid, b_norm};
  auto dispatch = [&](VkCommandBuffer cmd, uint32_t mode, const Rows& rows) {
    const bool grouped = slot_count.has_value();
    const GlobalPush push{uint32_t(rows.n),
                          uint32_t(cap),
                          mode,
                          direct_allowed ? 1u : 0u,
                          uint32_t(b_count),
                          grouped ? 1u : 0u,
                          rows.rids ? 0u : 1u,
                          rows.norm,
                          b_norm,
                          0};
    const uint64_t slots = grouped ? cap + 1 : 4;
    auto per_probe = [&](const std::optional<Buffer>& buffer) {
      return buffer ? range32(*buffer, rows.n) : range32(dummy, 4);
    };
    device.dispatch_ranges(
        cmd, pipe,
        {range32(*rows.keys, rows.n), rows.rids ? range32(*rows.rids, rows.n) : range32(dummy, 4),
         range64(table, cap + 1), range32(grouped ? *slot_count : dummy, slots),
         range64(grouped ? starts->offsets : dummy, grouped ? slots : 2), range32(grouped ? *slot_fill : dummy, slots),
         range32(grouped ? *build_rid : dummy, grouped ? b_count : 4), per_probe(unit_start), per_probe(counts),
         range32(range, 65), per_probe(match), range32(flags, 4)},
        &push, uint32_t(prim::div_up(rows.n, JOIN_WG)));
  };
  stages.run("join-build", "global table: one entry (key, row id) per distinct key, duplicate keys flagged", b_count,
             [&](VkCommandBuffer cmd) {
               vkCmdFillBuffer(cmd, table.handle(), 0, VK_WHOLE_SIZE, JOIN_EMPTY);
               vkCmdFillBuffer(cmd, flags.handle(), 0, VK_WHOLE_SIZE, 0);
               device.barrier(cmd);
               dispatch(cmd, JOIN_GLOBAL_INSERT, build_rows);
             });
  bool grouped = false;
  auto group = [&] {
    ctx.text += layout_text(o, true);
    grouped = true;
    slot_count = words(device, cap + 1);
    slot_fill = words(device, cap + 1);
    build_rid = words(device, b_count);
    starts.emplace(device, cap + 1);
    stages.run("join-group", "global table: build rows per slot, prefix sums, build rows grouped by slot", b_count,
               [&](VkCommandBuffer cmd) {
                 vkCmdFillBuffer(cmd, slot_count->handle(), 0, VK_WHOLE_SIZE, 0);
                 vkCmdFillBuffer(cmd, slot_fill->handle(), 0, VK_WHOLE_SIZE, 0);
                 device.barrier(cmd);
                 dispatch(cmd, JOIN_GLOBAL_COUNT, build_rows);
                 device.barrier(cmd);
                 starts->record(device, cmd, *slot_count);
                 device.barrier(cmd);
                 dispatch(cmd, JOIN_GLOBAL_SCATTER, build_rows);
               });
  };
  if (tiles) {
    // The duplicate flag comes with the probe's count (one wait); when set, the rows are grouped and
    // the table probed again.
    TileProbe probed = probe_tiles(
        ctx, a_spec.columns[0],
        GlobalTable{&table, &dummy, &dummy, &dummy, &range, b_norm, uint32_t(cap), direct_allowed, b_count, false},
        &flags);
    if (probed == TileProbe::Duplicates) {
      group();
      probed = probe_tiles(ctx, a_spec.columns[0],
                           GlobalTable{&table, &*slot_count, &starts->offsets, &*build_rid, &range, b_norm,
                                       uint32_t(cap), direct_allowed, b_count, true},
                           nullptr);
    }
    if (probed == TileProbe::Done) return;
  } else if (stages.download<uint32_t>(flags, 1, "whether build keys repeat")[0] != 0) {
    group();
  } else {
    ctx.text += layout_text(o, false);
  }
  if (residual.size()) ctx.text += ", " + std::to_string(residual.size()) + " residual term(s)";
  if (!prepared_a) prepared_a = prepare(stages, *o.a, a_spec, a_name);
  const Prepared& a = *prepared_a;
  unit_start = words(device, a.count);
  counts = words(device, a.count);
  if (!grouped) match = words(device, a.count);
  stages.run(
      "join-probe",
      grouped ? "global table: the run of each probe's key" : "global table: each probe's match (its key's entry)",
      a.count, [&](VkCommandBuffer cmd) {
        dispatch(cmd, JOIN_GLOBAL_PROBE, Rows{a.count, &a.key, &a.rid, JOIN_NORM_RAW});
      });
  // Unique build keys: at most one pair per probe, probes in row order.
  emit_runs(ctx.out, o, Runs{a.count, &a.rid, &*unit_start, &*counts, grouped ? &*build_rid : &*match, ctx.text},
            residual, grouped ? Natural::Unordered : Natural::AB);
}

}  // namespace gfxq::vk::join
