// Benchmark cases of Red Fox's relational skeletons on the compute path (src/vk/operators/skeletons),
// data already on the device, each with a uvec4 copy timed in the same case (Red Fox's measure: the
// operator's bytes over the copy bandwidth):
//   compute.product_columns: PRODUCT of 1024 x rows/1024 rows, one int32 column per side written as
//     the two output columns (product_gather): 8 bytes written per pair; ratio to a copy of the
//     same bytes (goal >= 0.9);
//   compute.project_columns: PROJECT of two int32 columns through the ascending ids of every other
//     row (the gather primitive): reads ids and values, writes the two output columns;
//   compute.sort_rows_2keys: ORDER BY a, b DESC of the two int32 columns below (multi-column row
//     sort: 2 key planes, two radix sorts of pairs); compare with compute.sort_pairs (one plane);
//   compute.distinct_rows (the rule's pick: the dense table, in as many key slices as its rule gives: the note
//     says how many), compute.distinct_rows_1slice and compute.intersect_rows_1slice (the dense table forced
//     to one slice: its insert's atomics go to a table larger than the L2 past 2^24 rows, the path before the
//     slices), compute.distinct_rows_nostats (the same without
//     column statistics: the key ranges' pass and its download run first), compute.distinct_rows_hash (hash forced),
//     compute.distinct_rows_sort (sort-based forced: one sort of packed keys), compute.union_rows,
//     compute.intersect_rows (the rule's pick: dense), compute.intersect_rows_nostats, compute.intersect_rows_sort
//     (sort forced), compute.except_all_rows (sort-based: the ALL variants always sort): rows of two int32 columns (a
//     in [0, rows/16), b in [0, 4): about rows/4 distinct rows; each operand of a set operation has `rows` rows), with
//     the columns' min and max given as statistics (as the engine's column facts) but in the _nostats and hash
//     cases. Time = the sum of the
//     stages' GPU timestamps (the key ranges' stage included), best of env.repeats after 1 s of back-to-back runs; the
//     note gives the share of the copy bandwidth of the input + output bytes including and excluding the sort (the
//     row-ids and row-sort stages; the dense and hash variants have none) (goal >= 0.72 excluding it) and each stage
//     (set-marks: the fused marks and the compaction after the sort; set-dense: the dense table's one stage).
//     The kept row ids are checked against a host set.
// Peers: bench/peers.py's peer.torch.distinct_rows / intersect_rows (torch.unique, torch.isin) on the
// same distribution.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "bench.h"
#include "gfxq/error.h"
#include "vk/operators/skeletons/product.h"
#include "vk/operators/skeletons/rows.h"
#include "vk/primitives/gather_scatter.h"
#include "vk_timing.h"

namespace gfxq::bench {
namespace {

vk::Buffer upload(vk::Device& device, const std::vector<uint32_t>& w) {
  vk::Buffer b = device.create_buffer(vk::padded_bytes(w.size()), vk::MemoryKind::Device);
  if (!w.empty()) device.upload(b, w.data(), w.size() * 4);
  return b;
}

std::string ratio_note(double op_s, double copy_s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "op %.4f ms, copy of the same bytes %.4f ms timed in turn: %.3f of the copy",
                op_s * 1e3, copy_s * 1e3, copy_s / op_s);
  return buf;
}

Measurement product_case(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const uint64_t left = 1024, right = std::max<uint64_t>(1, rows / left), pairs = left * right;
  std::vector<uint32_t> lv(left), rv(right);
  for (uint64_t i = 0; i < left; ++i) lv[i] = uint32_t(i * 7 + 1);
  for (uint64_t i = 0; i < right; ++i) rv[i] = uint32_t(i * 3 + 2);
  const vk::Buffer lb = upload(device, lv), rb = upload(device, rv);
  const vk::Buffer lo = device.create_buffer(vk::padded_bytes(pairs), vk::MemoryKind::Device);
  const vk::Buffer ro = device.create_buffer(vk::padded_bytes(pairs), vk::MemoryKind::Device);
  const vk::skel::ProductInput in{left, right, nullptr, nullptr};
  const CopyReference copy(device, pairs);  // moves 8 bytes per pair (read + write)
  const auto best = best_interleaved(env, {[&](VkCommandBuffer cmd) {
                                             vk::skel::record_product_gather(device, cmd, in, false, lb, 0, pairs, lo);
                                             vk::skel::record_product_gather(device, cmd, in, true, rb, 0, pairs, ro);
                                           },
                                           [&](VkCommandBuffer cmd) { copy.record(device, cmd); }});
  std::vector<uint32_t> gl(pairs), gr(pairs);
  device.download(lo, gl.data(), pairs * 4);
  device.download(ro, gr.data(), pairs * 4);
  bool ok = true;
  for (uint64_t p = 0; p < pairs && ok; ++p) ok = gl[p] == lv[p / right] && gr[p] == rv[p % right];
  return {best[0], 8 * pairs, pairs,
          "PRODUCT " + std::to_string(left) + " x " + std::to_string(right) + ", 2 int32 output columns; " +
              ratio_note(best[0], best[1]) + (ok ? " (checked)" : " (WRONG)"),
          ok};
}

Measurement project_case(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const uint64_t m = rows / 2;
  std::vector<uint32_t> a(rows), b(rows), ids(m);
  uint64_t s = env.seed;
  for (uint64_t i = 0; i < rows; ++i) a[i] = uint32_t(mix(s)), b[i] = uint32_t(mix(s));
  for (uint64_t i = 0; i < m; ++i) ids[i] = uint32_t(2 * i + 1);
  const vk::Buffer ab = upload(device, a), bb = upload(device, b), ib = upload(device, ids);
  const vk::Buffer ao = device.create_buffer(vk::padded_bytes(m), vk::MemoryKind::Device);
  const vk::Buffer bo = device.create_buffer(vk::padded_bytes(m), vk::MemoryKind::Device);
  // Bytes: the ids (4m), the two columns' lines the gathers touch (every other row: all of them,
  // 8 * rows) and the two outputs (8m).
  const uint64_t bytes = 4 * m + 8 * rows + 8 * m;
  const CopyReference copy(device, bytes / 8);
  const auto best = best_interleaved(env, {[&](VkCommandBuffer cmd) {
                                             vk::gather(device, cmd, {&ab, 0, 0}, rows, {&ib, 0, 0}, m, {&ao, 0, 0});
                                             vk::gather(device, cmd, {&bb, 0, 0}, rows, {&ib, 0, 0}, m, {&bo, 0, 0});
                                           },
                                           [&](VkCommandBuffer cmd) { copy.record(device, cmd); }});
  std::vector<uint32_t> ga(m), gb(m);
  device.download(ao, ga.data(), m * 4);
  device.download(bo, gb.data(), m * 4);
  bool ok = true;
  for (uint64_t i = 0; i < m && ok; ++i) ok = ga[i] == a[ids[i]] && gb[i] == b[ids[i]];
  return {best[0], bytes, m,
          "PROJECT of 2 int32 columns through the ids of every other row (gather); " + ratio_note(best[0], best[1]) +
              (ok ? " (checked)" : " (WRONG)"),
          ok};
}

//! Two int32 columns: a in [0, rows / 16), b in [0, 4).
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> set_data(uint64_t rows, uint64_t seed) {
  std::vector<uint32_t> a(rows), b(rows);
  const uint64_t range = std::max<uint64_t>(1, rows / 16);
  uint64_t s = seed;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t r = mix(s);
    a[i] = uint32_t(r % range);
    b[i] = uint32_t((r >> 40) % 4);
  }
  return {a, b};
}

//! The set and sort cases check their rows on the host: sized for 2^24 and 2^26 rows.
void check_size(uint64_t rows) {
  if (rows > (uint64_t(1) << 26))
    throw Error(ErrorCode::Unsupported, "the skeleton cases are sized for up to 2^26 rows (their host check)");
}

Measurement set_case(Env& env, uint64_t rows, vk::skel::SetKind kind, vk::skel::DistinctAlgorithm algorithm,
                     bool statistics, uint32_t dense_slices) {
  check_size(rows);
  vk::Device& device = device_of(env);
  const bool distinct = kind == vk::skel::SetKind::Distinct;
  const auto [la, lb] = set_data(rows, env.seed);
  const auto [ra, rb] = set_data(distinct ? 0 : rows, env.seed + 1);
  const vk::Buffer lab = upload(device, la), lbb = upload(device, lb), rab = upload(device, ra),
                   rbb = upload(device, rb);
  vk::skel::RowsInput in;
  in.left_rows = rows;
  in.right_rows = distinct ? 0 : rows;
  for (const auto& [l, r] : {std::pair{&lab, &rab}, std::pair{&lbb, &rbb}}) {
    vk::skel::RowColumn c;
    c.type = Type::Int32;
    c.left.word0 = l;
    if (!distinct) c.right.word0 = r;
    in.columns.push_back(c);
  }
  // Column statistics (as the engine's column facts): each column's min and max over both operands.
  if (statistics)
    for (size_t k = 0; k < 2; ++k) {
      const auto& lv = k ? lb : la;
      const auto& rv = k ? rb : ra;
      uint32_t lo = UINT32_MAX, hi = 0;
      for (const auto* v : {&lv, &rv})
        for (uint32_t x : *v) lo = std::min(lo, x), hi = std::max(hi, x);
      if (lo <= hi) in.columns[k].range = std::pair{int32_t(lo), int32_t(hi)};
    }
  const uint64_t input_bytes = 8 * (in.left_rows + in.right_rows);
  const CopyReference copy(device, input_bytes / 8);
  const double copy_s = best_seconds(env, [&](VkCommandBuffer cmd) { copy.record(device, cmd); });
  using clock = std::chrono::steady_clock;
  std::vector<uint32_t> ids;
  auto run = [&](std::vector<PassRecord>& passes) {
    std::string how;
    vk::skel::SkeletonOptions options;
    (distinct ? options.distinct : options.set) = algorithm;
    options.dense_slices = dense_slices;
    ids = vk::skel::set_rows(device, in, kind, passes, how, options);
    return how;
  };
  const auto warm = clock::now();
  while (clock::now() - warm < std::chrono::seconds(1)) {
    std::vector<PassRecord> p;
    run(p);
  }
  double best = 1e300, best_marks = 0;
  std::string how;
  std::map<std::string, double> stages;
  for (int r = 0; r < std::max(1, env.repeats); ++r) {
    std::vector<PassRecord> passes;
    const std::string h = run(passes);
    double total = 0, marks = 0;
    std::map<std::string, double> st;
    for (const auto& p : passes) {
      total += p.gpu_ms.value_or(0) / 1e3;
      if (p.kind != "row-ids" && p.kind != "row-sort" && p.kind != "row-sort-fallback")
        marks += p.gpu_ms.value_or(0) / 1e3;
      st[p.kind] += p.gpu_ms.value_or(0);
    }
    if (total < best) best = total, best_marks = marks, how = h, stages = st;
  }
  // Check against a host set of the rows (the CPU engine's rule for each kind).
  std::unordered_map<uint64_t, uint64_t> right_count, used;
  right_count.reserve(in.right_rows);
  used.reserve(rows);
  for (uint64_t i = 0; i < in.right_rows; ++i) ++right_count[uint64_t(ra[i]) << 32 | rb[i]];
  std::vector<uint32_t> want;
  for (uint64_t i = 0; i < rows + (kind == vk::skel::SetKind::Union ? rows : 0); ++i) {
    const uint64_t key = i < rows ? uint64_t(la[i]) << 32 | lb[i] : uint64_t(ra[i - rows]) << 32 | rb[i - rows];
    const uint64_t in_right = i < rows && right_count.count(key) ? right_count[key] : 0;
    uint64_t& u = used[key];
    bool keep = u == 0;
    if (kind == vk::skel::SetKind::Intersect) keep = u == 0 && in_right > 0;
    if (kind == vk::skel::SetKind::ExceptAll) keep = u >= in_right;
    ++u;
    if (keep) want.push_back(uint32_t(i));
  }
  const bool ok = ids == want;
  const uint64_t bytes = input_bytes + 4 * ids.size();
  const double bw_copy = double(input_bytes) / copy_s;  // the copy moves input_bytes (read + write)
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "; %zu rows kept%s; %.4f ms in all (%.3f of the copy bandwidth for the %llu input + output bytes), "
                "%.4f ms excluding the sort (%.3f); GPU stages:",
                ids.size(), ok ? " (checked)" : " (WRONG)", best * 1e3, (double(bytes) / best) / bw_copy,
                static_cast<unsigned long long>(bytes), best_marks * 1e3, (double(bytes) / best_marks) / bw_copy);
  std::string note = how + buf;
  for (const auto& [kind_name, ms] : stages) {
    char s[96];
    std::snprintf(s, sizeof s, " %s %.4f ms;", kind_name.c_str(), ms);
    note += s;
  }
  return {best, bytes, in.left_rows + in.right_rows, note, ok};
}

Measurement sort_case(Env& env, uint64_t rows) {
  check_size(rows);
  vk::Device& device = device_of(env);
  const auto [a, b] = set_data(rows, env.seed);
  const vk::Buffer ab = upload(device, a), bb = upload(device, b);
  vk::skel::RowsInput in;
  in.left_rows = rows;
  for (const auto& [buf, desc] : {std::pair{&ab, false}, std::pair{&bb, true}}) {
    vk::skel::RowColumn c;
    c.type = Type::Int32;
    c.left.word0 = buf;
    c.descending = desc;
    in.columns.push_back(c);
  }
  const CopyReference copy(device, rows);
  const double copy_s = best_seconds(env, [&](VkCommandBuffer cmd) { copy.record(device, cmd); });
  std::vector<uint32_t> ids;
  std::string how;
  auto run = [&] {
    std::vector<PassRecord> passes;
    ids = vk::skel::sort_rows(device, in, UINT64_MAX, passes, how);
    double s = 0;
    for (const auto& p : passes) s += p.gpu_ms.value_or(0) / 1e3;
    return s;
  };
  using clock = std::chrono::steady_clock;
  const auto warm = clock::now();
  while (clock::now() - warm < std::chrono::seconds(1)) run();
  double best = 1e300;
  for (int r = 0; r < std::max(1, env.repeats); ++r) best = std::min(best, run());
  std::vector<uint32_t> want(rows);
  std::iota(want.begin(), want.end(), 0u);
  std::stable_sort(want.begin(), want.end(),
                   [&](uint32_t x, uint32_t y) { return a[x] != a[y] ? a[x] < a[y] : b[x] > b[y]; });
  const bool ok = ids == want;
  char buf[200];
  std::snprintf(buf, sizeof buf, "; %s; %.4f ms, %.1f copies of the row ids' 4 bytes per row (copy %.4f ms)",
                ok ? "checked" : "WRONG", best * 1e3, best / copy_s, copy_s * 1e3);
  return {best, 8 * rows + 4 * rows, rows, "ORDER BY a, b DESC of two int32 columns: " + how + buf, ok};
}

const bool registered = [] {
  Registrar{{"compute.sort_rows_2keys", "compute", "compute.ceiling_copy", false, sort_case}};
  Registrar{{"compute.product_columns", "compute", "compute.ceiling_copy", false, product_case}};
  Registrar{{"compute.project_columns", "compute", "compute.ceiling_copy", false, project_case}};
  using vk::skel::SetKind;
  using vk::skel::DistinctAlgorithm;
  for (const auto& [name, kind, algorithm, statistics, slices] :
       {std::tuple{"compute.distinct_rows", SetKind::Distinct, DistinctAlgorithm::Auto, true, 0u},
        std::tuple{"compute.distinct_rows_1slice", SetKind::Distinct, DistinctAlgorithm::Dense, true, 1u},
        std::tuple{"compute.distinct_rows_nostats", SetKind::Distinct, DistinctAlgorithm::Auto, false, 0u},
        std::tuple{"compute.distinct_rows_hash", SetKind::Distinct, DistinctAlgorithm::Hash, false, 0u},
        std::tuple{"compute.distinct_rows_sort", SetKind::Distinct, DistinctAlgorithm::Sort, true, 0u},
        std::tuple{"compute.union_rows", SetKind::Union, DistinctAlgorithm::Auto, true, 0u},
        std::tuple{"compute.intersect_rows", SetKind::Intersect, DistinctAlgorithm::Auto, true, 0u},
        std::tuple{"compute.intersect_rows_1slice", SetKind::Intersect, DistinctAlgorithm::Dense, true, 1u},
        std::tuple{"compute.intersect_rows_nostats", SetKind::Intersect, DistinctAlgorithm::Auto, false, 0u},
        std::tuple{"compute.intersect_rows_sort", SetKind::Intersect, DistinctAlgorithm::Sort, true, 0u},
        std::tuple{"compute.except_all_rows", SetKind::ExceptAll, DistinctAlgorithm::Auto, true, 0u}})
    Registrar{
        {name, "compute", "compute.ceiling_copy", false, [kind, algorithm, statistics, slices](Env& e, uint64_t n) {
           return set_case(e, n, kind, algorithm, statistics, slices);
         }}};
  return true;
}();

}  // namespace
}  // namespace gfxq::bench
