// Benchmark cases of the compute backend: the copy ceiling, then selections, aggregates, the
// median and sorts over one 4-byte column already on the device. Times are the best of
// env.repeats GPU-timestamp intervals around the kernels only (no uploads, no host work); each
// case checks its result against a CPU computation. Ratios are bytes/s against
// compute.ceiling_copy at the same size (bytes = what the operator must read + write); the scan,
// row-id and median cases also time a copy of the column in turn with the operator and give that
// ratio in the note. The GPU is kept busy while timing (best_interleaved).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "bench.h"
#include "core/order_key.h"
#include "gfxq/error.h"
#include "vk/primitives/radix_select.h"
#include "vk/primitives/radix_sort.h"
#include "vk/relational/aggregate.h"
#include "vk/relational/select.h"
#include "vk_timing.h"

namespace gfxq::bench {
namespace {

using vk::Buffer;
using vk::MemoryKind;

// The column every scan case reads: n float32 values uniform in [0, 1). The host copy is kept
// between the cases of one size; each case uploads it (untimed), so no device object outlives
// the device.
const Column& float_column(Env& env, uint64_t rows) {
  static Column column;
  static uint64_t seed = 0;
  if (column.size() != rows || seed != env.seed || column.name.empty()) {
    std::vector<float> v(rows);
    uint64_t s = env.seed;
    for (float& f : v) f = float(mix(s) >> 40) * 0x1p-24f;
    column = Column::floats("a", std::move(v));
    seed = env.seed;
  }
  return column;
}

// n random int32 sort keys over the full range (host copy kept like float_column's).
const std::vector<int32_t>& int_keys(Env& env, uint64_t rows) {
  static std::vector<int32_t> keys;
  static uint64_t seed = 0;
  if (keys.size() != rows || seed != env.seed) {
    keys.resize(rows);
    uint64_t s = env.seed ^ 0x1234;
    for (int32_t& k : keys) k = int32_t(uint32_t(mix(s)));
    seed = env.seed;
  }
  return keys;
}

// The float column of `rows` rows on the device.
struct FloatData {
  const std::vector<float>& host;
  vk::DeviceColumn device;
};

FloatData float_data(Env& env, uint64_t rows) {
  const Column& c = float_column(env, rows);
  return {c.as<float>(), vk::upload_column(device_of(env), c)};
}

// A CNF over the float column `d`, uploaded, and the scan plan of its rows: what every scan case
// records. Holds pointers to its own members and to `d`, so it stays where it was made.
struct FloatScan {
  vk::CnfProgram program;
  Buffer words;
  vk::CnfInput input;
  vk::ScanPlan plan;
  FloatScan(vk::Device& device, const FloatData& d, vk::CnfProgram cnf, uint64_t rows)
      : program(std::move(cnf)),
        words(vk::upload_program(device, program)),
        input{&program, &words, {&d.device}},
        plan(vk::plan_scan(device, rows)) {}
  FloatScan(const FloatScan&) = delete;
  FloatScan& operator=(const FloatScan&) = delete;
};

// Times `record` interleaved with a copy and a read-only pass of the column; appends the copy ratio
// and the read-only pass's time over the operator's to `note` (1: as fast as reading the column).
double timed_with_copy(Env& env, uint64_t rows, uint64_t bytes, const std::function<void(VkCommandBuffer)>& record,
                       std::string& note) {
  vk::Device& device = device_of(env);
  const CopyReference copy(device, rows);
  const std::vector<double> t = best_interleaved(env, {record, [&](VkCommandBuffer cmd) { copy.record(device, cmd); },
                                                       [&](VkCommandBuffer cmd) { copy.record_read(device, cmd); }});
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "; %.3f of a copy timed in turn with it (%.4f ms); a read-only pass timed in turn %.4f ms (%.3f of "
                "its speed)",
                copy.ratio(bytes, t[0], t[1]), t[1] * 1e3, t[2] * 1e3, t[2] / t[0]);
  note += buf;
  return t[0];
}

// `a op literal` AND ... over the float column (one slot).
vk::CnfProgram float_program(std::initializer_list<std::pair<CmpOp, double>> clauses) {
  BoundCnf cnf;
  const BoundColumn a{Side::Left, 0, Type::Float32, "a"};
  for (const auto& [op, literal] : clauses) cnf.clauses.push_back(BoundClause{{BoundComparison{a, op, literal}}});
  return vk::compile_cnf(cnf);
}

uint64_t cpu_count(const std::vector<float>& v, float lo, float hi, bool closed) {
  uint64_t n = 0;
  for (float f : v) n += closed ? (f >= lo && f <= hi) : (f < hi);
  return n;
}

Measurement ceiling_copy(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const uint64_t bytes = vk::padded_bytes(rows);
  Buffer src = device.create_buffer(bytes, MemoryKind::Device);
  // dst has room for a skewed copy: dst at byte kSkew, so that src[i] and dst[i] do not sit at the
  // same offset of two equally aligned allocations (the same DRAM channel and bank).
  constexpr uint64_t kSkew = 259 * 256;
  Buffer dst = device.create_buffer(bytes + kSkew, MemoryKind::Device);
  std::vector<uint32_t> host(bytes / 4);
  std::iota(host.begin(), host.end(), 7u);
  device.upload(src, host.data(), bytes);
  // Ranges of at most one binding each (whole uvec4).
  const uint64_t per = device.max_binding_elements() / 64 * 64 * 4;
  // Every variant is timed and the best is the ceiling: one uvec4 per invocation, four per
  // invocation, four per invocation over a grid-stride loop of 1024 / 4096 workgroups, and
  // vkCmdCopyBuffer. Each variant's figure is in the note.
  struct Variant {
    const char* name;
    uint32_t per_group;  // uvec4 per workgroup and step
    uint32_t grid;       // 0: one workgroup per block
    uint64_t skew;       // byte offset of the destination in dst
  };
  const Variant variants[] = {{"copy_u32x4", 256, 0, 0},           {"copy_u32x4", 256, 0, kSkew},
                              {"copy_u32x4_x4", 1024, 0, 0},       {"copy_u32x4_x4", 1024, 0, kSkew},
                              {"copy_u32x4_gs", 1024, 1024, 0},    {"copy_u32x4_gs", 1024, 4096, 0},
                              {"copy_u32x4_gs", 1024, 4096, kSkew}};
  double s = std::numeric_limits<double>::infinity();
  std::string note = "best of:";
  auto report = [&](const std::string& name, double t) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " %s %.4f ms (%.0f GB/s);", name.c_str(), t * 1e3, 2.0 * double(bytes) / t / 1e9);
    note += buf;
    s = std::min(s, t);
  };
  std::vector<uint32_t> back(bytes / 4);
  bool ok = true;
  for (const Variant& v : variants) {
    const vk::Pipeline& p = device.pipeline(v.name, 2, 8, v.grid == 0);
    device.submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, 0); });
    const double t = best_seconds(env, [&](VkCommandBuffer cmd) {
      for (uint64_t off = 0; off < bytes; off += per) {
        const uint64_t n = std::min(per, bytes - off);
        const uint32_t push[2] = {uint32_t(n / 16), 0};
        const uint64_t blocks = (n / 16 + v.per_group - 1) / v.per_group;
        device.dispatch_ranges(cmd, p, {{&src, off, n}, {&dst, off + v.skew, n}}, push,
                               uint32_t(v.grid ? std::min<uint64_t>(v.grid, blocks) : blocks));
      }
    });
    device.download(dst, back.data(), bytes, v.skew);
    ok = ok && back == host;
    report(std::string(v.name) + (v.grid ? "/" + std::to_string(v.grid) : std::string()) + (v.skew ? "+skew" : ""), t);
  }
  device.submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, 0); });
  const double t = best_seconds(env, [&](VkCommandBuffer cmd) {
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
  });
  report("vkCmdCopyBuffer", t);
  device.download(dst, back.data(), bytes);
  ok = ok && back == host;
  return {s, 2 * bytes, rows, note + " bytes = read + write", ok};
}

// The read-only ceiling of a scan: read_u32x4 kernels (8 uvec4 per invocation, one block per
// workgroup or a grid-stride loop over 264..8448 workgroups) that read the column and store
// nothing. Its ratio to ceiling_copy is the most a one-column scan can reach on the device.
Measurement ceiling_read(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const uint64_t bytes = vk::padded_bytes(rows);
  const Buffer src = device.create_buffer(bytes, MemoryKind::Device);
  const Buffer dst = device.create_buffer(bytes, MemoryKind::Device);
  std::vector<uint32_t> values(bytes / 4);
  std::iota(values.begin(), values.end(), 7u);
  device.upload(src, values.data(), bytes);
  device.submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, 0); });
  const uint64_t per = device.max_binding_elements() / 64 * 64 * 4;
  double s = std::numeric_limits<double>::infinity();
  std::string note = "best of:";
  for (const uint32_t grid : {0u, 264u, 528u, 1056u, 2112u, 4224u, 8448u}) {
    const vk::Pipeline& p = device.pipeline(grid ? "read_u32x4_gs" : "read_u32x4_x8", 2, 8, grid == 0);
    const double t = best_seconds(env, [&](VkCommandBuffer cmd) {
      for (uint64_t off = 0; off < bytes; off += per) {
        const uint64_t n = std::min(per, bytes - off);
        const uint32_t push[2] = {uint32_t(n / 16), 0};
        const uint64_t blocks = (n / 16 + 2047) / 2048;
        device.dispatch_ranges(cmd, p, {{&src, off, n}, {&dst, off, n}}, push,
                               uint32_t(grid ? std::min<uint64_t>(grid, blocks) : blocks));
      }
    });
    char buf[96];
    std::snprintf(buf, sizeof buf, " %s %.4f ms (%.0f GB/s);",
                  grid ? ("grid " + std::to_string(grid)).c_str() : "blocks", t * 1e3, double(bytes) / t / 1e9);
    note += buf;
    s = std::min(s, t);
  }
  // Nothing is stored: the column's XOR never equals the kernel's trigger.
  std::vector<uint32_t> back(bytes / 4);
  device.download(dst, back.data(), bytes);
  const bool ok = std::all_of(back.begin(), back.end(), [](uint32_t w) { return w == 0; });
  return {s, bytes, rows, note + " bytes = read", ok};
}

// COUNT(*) over a CNF on the float column.
Measurement count_case(Env& env, uint64_t rows, const vk::CnfProgram& program, uint64_t want, const char* what) {
  vk::Device& device = device_of(env);
  const FloatData d = float_data(env, rows);
  const FloatScan scan(device, d, program, rows);
  const vk::CnfInput& input = scan.input;
  const vk::ScanPlan& plan = scan.plan;
  const Buffer counts = device.create_buffer(std::max<uint64_t>(16, plan.groups * 4ull), MemoryKind::Device);
  std::string note = std::string(what) + ": cnf_count, " + std::to_string(plan.groups) + " workgroups";
  const double s = timed_with_copy(
      env, rows, 4 * rows, [&](VkCommandBuffer cmd) { vk::record_cnf_count(device, cmd, input, plan, counts); }, note);
  std::vector<uint32_t> back(plan.groups);
  device.download(counts, back.data(), back.size() * 4);
  const uint64_t got = std::accumulate(back.begin(), back.end(), uint64_t(0));
  return {s, 4 * rows, rows, note, got == want};
}

Measurement select_count(Env& env, uint64_t rows) {
  const FloatData d = float_data(env, rows);
  return count_case(env, rows, float_program({{CmpOp::Lt, 0.5}}), cpu_count(d.host, 0, 0.5f, false),
                    "COUNT(*) WHERE a < 0.5");
}

Measurement range_count(Env& env, uint64_t rows) {
  const FloatData d = float_data(env, rows);
  return count_case(env, rows, float_program({{CmpOp::Ge, 0.2}, {CmpOp::Le, 0.7}}), cpu_count(d.host, 0.2f, 0.7f, true),
                    "COUNT(*) WHERE a BETWEEN 0.2 AND 0.7");
}

// SUM / MIN / MAX of a WHERE a < 0.5 in one fused pass.
Measurement filtered_aggregate(Env& env, uint64_t rows, AggKind kind) {
  vk::Device& device = device_of(env);
  const FloatData d = float_data(env, rows);
  const FloatScan scan(device, d, float_program({{CmpOp::Lt, 0.5}}), rows);
  const vk::CnfInput& input = scan.input;
  const vk::ScanPlan& plan = scan.plan;
  const Buffer partials = device.create_buffer(plan.groups * sizeof(vk::AggPartial), MemoryKind::Device);
  const bool sum = kind == AggKind::Sum;
  const vk::AggWants wants{sum, kind == AggKind::Min, kind == AggKind::Max};
  std::string kernel, timing;  // the kernel the timed runs recorded; the copy ratios
  const double s = timed_with_copy(
      env, rows, 4 * rows,
      [&](VkCommandBuffer cmd) { kernel = vk::record_cnf_aggregate(device, cmd, input, 0, wants, plan, partials); },
      timing);
  const std::string note = std::string(sum                    ? "SUM(a) WHERE a < 0.5: exact fixed-point bins"
                                       : kind == AggKind::Min ? "MIN(a) WHERE a < 0.5"
                                                              : "MAX(a) WHERE a < 0.5") +
                           ", " + kernel + ", one pass" + timing;
  std::vector<vk::AggPartial> back(plan.groups);
  device.download(partials, back.data(), back.size() * sizeof(vk::AggPartial));
  const vk::AggTotals t = vk::combine_partials(back);
  // The CPU reference: row-order double sum, total-order min/max.
  double cpu_sum = 0, abs_sum = 0;
  uint64_t n = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (float f : d.host)
    if (f < 0.5f) {
      cpu_sum += f;
      abs_sum += std::fabs(f);
      lo = std::min(lo, f);
      hi = std::max(hi, f);
      ++n;
    }
  bool ok = t.count == n;
  if (sum) ok = ok && std::fabs(vk::float_sum(t) - cpu_sum) <= double(n) * 0x1p-53 * abs_sum;
  if (kind == AggKind::Min) ok = ok && n > 0 && float_from_key(t.min_key) == lo;
  if (kind == AggKind::Max) ok = ok && n > 0 && float_from_key(t.max_key) == hi;
  return {s, 4 * rows, rows, note, ok};
}

// WHERE a < 0.5 as row ids: the one-pass kernel (cnf_select_s1_iv, 16384-row tiles of 512 x 8),
// the three-stage path (cnf_flags, scan of the block counts, cnf_compact), each of its stages
// alone and a copy, timed in turn. The one-pass and the three-stage ids go to buffers of their own
// and both are checked against the CPU; the path the operator takes (the one-pass kernel, or its
// fallback when the look-back hit its bound) is named and timed as the case's figure.
Measurement select_rowids(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  const FloatData d = float_data(env, rows);
  const FloatScan scan(device, d, float_program({{CmpOp::Lt, 0.5}}), rows);
  const vk::CnfInput& input = scan.input;
  const vk::ScanPlan& plan = scan.plan;
  const std::optional<vk::SelectLayout> layout = vk::plan_select(input, plan, rows);
  if (plan.chunks.size() > 1 || !layout) throw Error(ErrorCode::Unsupported, "row ids larger than one binding");
  const vk::BlockOffsets offsets_layout{plan.blocks()};
  const Buffer counts = device.create_buffer(std::max<uint64_t>(16, plan.blocks() * 4), MemoryKind::Device);
  const Buffer mask = device.create_buffer(std::max<uint64_t>(16, plan.mask_words() * 4), MemoryKind::Device);
  const Buffer offsets = device.create_buffer(offsets_layout.bytes(), MemoryKind::Device);
  const Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, vk::block_offsets_scratch_bytes(device, plan)), MemoryKind::Device);
  const Buffer ids = device.create_buffer(vk::padded_bytes(layout->out_elements), MemoryKind::Device);
  const Buffer staged_ids = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  const Buffer ctrl = device.create_buffer(layout->ctrl_words() * 4, MemoryKind::Device);
  vk::CompactTarget target;
  target.ids = &staged_ids;
  const CopyReference copy(device, rows);
  auto flags = [&](VkCommandBuffer cmd) { vk::record_cnf_flags(device, cmd, input, plan, counts, mask); };
  auto offsets_scan = [&](VkCommandBuffer cmd) {
    vk::record_block_offsets(device, cmd, plan, counts, offsets, scratch);
  };
  auto compact = [&](VkCommandBuffer cmd) { vk::record_cnf_compact(device, cmd, plan, mask, offsets, target); };
  auto three_stage = [&](VkCommandBuffer cmd) {
    flags(cmd);
    device.barrier(cmd);
    offsets_scan(cmd);
    device.barrier(cmd);
    compact(cmd);
  };
  const SelectTiles tiles = vk::resolve_select_tiles(device, SelectTiles::Auto);
  auto one_pass = [&](VkCommandBuffer cmd) {
    vk::record_cnf_select(device, cmd, input, plan, *layout, ctrl, ids, vk::kSelectMaxLookback, tiles);
  };
  // Each stage alone reads what the previous records of the same repeat left (the same mask,
  // counts and offsets every time).
  const std::vector<double> t = best_interleaved(env, {[&](VkCommandBuffer cmd) { copy.record(device, cmd); },
                                                       three_stage, one_pass, flags, offsets_scan, compact});
  // The CPU's row ids; each path's ids of the last timed run against them.
  std::vector<uint32_t> want;
  for (uint64_t r = 0; r < rows; ++r)
    if (d.host[r] < 0.5f) want.push_back(uint32_t(r));
  auto check = [&](const Buffer& buffer, uint64_t total) {
    if (total != want.size()) return false;
    std::vector<uint32_t> got(total);
    device.download(buffer, got.data(), total * 4);
    return got == want;
  };
  uint64_t staged_total = 0;
  device.download(offsets, &staged_total, 8, offsets_layout.total_offset());
  const bool staged_ok = check(staged_ids, staged_total);
  std::vector<uint32_t> words(layout->ctrl_words());
  device.download(ctrl, words.data(), words.size() * 4);
  const auto selected = vk::select_counts(*layout, words);
  const bool one_pass_ok = !selected || check(ids, selected->front());
  const std::string path =
      selected
          ? "one-pass cnf_select, " + std::to_string(layout->tile_rows) + "-row tiles" + vk::select_tiles_words(tiles)
          : "one-pass look-back hit its bound in the last run: one-pass + three-stage fallback";
  const uint64_t bytes = 4 * rows + 4 * want.size();
  // A fallback costs the one-pass attempt and the rerun.
  const double best = selected ? t[2] : t[2] + t[1];
  char note[640];
  std::snprintf(note, sizeof note,
                "WHERE a < 0.5 row ids by %s: %.4f ms; one-pass %.4f ms, three stages %.4f ms (alone: cnf_flags "
                "%.4f ms, scan of %llu block counts %.4f ms, cnf_compact %.4f ms), copy %.4f ms, timed in turn; "
                "bytes = 4n + 4 * selected; of a copy: %.3f (one-pass %.3f, three stages %.3f)",
                path.c_str(), best * 1e3, t[2] * 1e3, t[1] * 1e3, t[3] * 1e3,
                static_cast<unsigned long long>(plan.blocks()), t[4] * 1e3, t[5] * 1e3, t[0] * 1e3,
                copy.ratio(bytes, best, t[0]), copy.ratio(bytes, t[2], t[0]), copy.ratio(bytes, t[1], t[0]));
  return {best, bytes, rows, note, staged_ok && one_pass_ok};
}

// Whether the median cases sample: GFXQ_SELECT_SAMPLE=0 / 1 forces it off / on (the library's
// ComputeOptions::select_sample, for the primitive these cases call), else Auto.
vk::RadixSelectArgs::Sample bench_sample() {
  const char* v = std::getenv("GFXQ_SELECT_SAMPLE");
  const std::string value = v ? v : "";
  if (value.empty()) return vk::RadixSelectArgs::Sample::Auto;
  if (value != "0" && value != "1")
    throw Error(ErrorCode::InvalidQuery, "GFXQ_SELECT_SAMPLE='" + value + "': expected 0 or 1");
  return value == "1" ? vk::RadixSelectArgs::Sample::On : vk::RadixSelectArgs::Sample::Off;
}

// The median of the float column, or with `narrow` of 1 + a / 4096 (every key in one bucket of
// the first digit: radix select's three-scan case).
Measurement median(Env& env, uint64_t rows, bool narrow) {
  vk::Device& device = device_of(env);
  FloatData d = float_data(env, rows);
  std::vector<float> narrowed;
  if (narrow) {
    narrowed.resize(rows);
    for (uint64_t i = 0; i < rows; ++i) narrowed[i] = 1.0f + d.host[i] * 0x1p-12f;
    device.upload(d.device.buffer, narrowed.data(), rows * 4);
  }
  const std::vector<float>& host = narrow ? narrowed : d.host;
  const uint64_t k = quantile_rank(0.5, rows);
  const Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, vk::radix_select_scratch_bytes(device, rows)), MemoryKind::Device);
  const Buffer result = device.create_buffer(16, MemoryKind::Device);
  vk::RadixSelectArgs args;
  args.n = rows;
  args.k = k;
  args.key_type = SortKeyType::F32;
  args.keys = {&d.device.buffer, 0, rows * 4};
  args.result = {&result, 0, 16};
  args.scratch = {&scratch, 0, scratch.size()};
  args.sample = bench_sample();
  // One scan of the same column (the fused count) for the "scans" figure, and a copy, in turn.
  const FloatScan scan(device, d, float_program({{CmpOp::Lt, 0.5}}), rows);
  const vk::CnfInput& input = scan.input;
  const vk::ScanPlan& plan = scan.plan;
  const Buffer counts = device.create_buffer(std::max<uint64_t>(16, plan.groups * 4ull), MemoryKind::Device);
  const CopyReference copy(device, rows);
  const std::vector<double> t = best_interleaved(
      env, {[&](VkCommandBuffer cmd) { vk::record_radix_select(device, cmd, args); },
            [&](VkCommandBuffer cmd) { vk::record_cnf_count(device, cmd, input, plan, counts); },
            [&](VkCommandBuffer cmd) { copy.record(device, cmd); },
            [&](VkCommandBuffer cmd) { vk::detail::record_radix_select_scans(device, cmd, args, 1); },
            [&](VkCommandBuffer cmd) { vk::detail::record_radix_select_scans(device, cmd, args, 2); }});
  // One more whole select: the timed prefixes leave the scratch's state of a select recorded only
  // in part. Its result is checked and its path named.
  device.submit([&](VkCommandBuffer cmd) { vk::record_radix_select(device, cmd, args); });
  uint32_t got[3] = {};
  device.download(result, got, 12);
  bool ok = got[1] < k && k <= uint64_t(got[1]) + got[2];
  if (rows <= (uint64_t(1) << 24)) {
    std::vector<float> v = host;
    std::nth_element(v.begin(), v.begin() + (k - 1), v.end());
    ok = ok && std::bit_cast<uint32_t>(v[k - 1]) == got[0];
  }
  const vk::RadixSelectPath path = vk::radix_select_path(device, args);
  const bool sampled = path != vk::RadixSelectPath::Unsampled;
  char note[512];
  std::snprintf(note, sizeof note,
                "radix select (rank %llu, %s)%s, %.2f scans of the column (goal <= 3; scan %.4f ms, copy %.4f ms "
                "timed in turn with it); through %s %.4f ms, through %s %.4f ms",
                static_cast<unsigned long long>(k), vk::radix_select_path_name(path), narrow ? " of 1 + a / 4096" : "",
                t[0] / t[1], t[1] * 1e3, t[2] * 1e3, sampled ? "sample + bracket" : "scan 1", t[3] * 1e3,
                sampled ? "scan + check" : "scan 2", t[4] * 1e3);
  return {t[0], 4 * rows, rows, note, ok};
}

Measurement sort_case(Env& env, uint64_t rows, bool pairs) {
  vk::Device& device = device_of(env);
  const std::vector<int32_t>& host = int_keys(env, rows);
  const Buffer keys = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  device.upload(keys, host.data(), rows * 4);
  const Buffer out = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  const Buffer values = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  const Buffer scratch = device.create_buffer(std::max<uint64_t>(16, vk::radix_sort_scratch_bytes(device, rows, pairs)),
                                              MemoryKind::Device);
  vk::RadixSortArgs args;
  args.n = rows;
  args.key_type = SortKeyType::I32;
  args.keys_in = {&keys, 0, rows * 4};
  args.keys_out = {&out, 0, rows * 4};
  if (pairs) args.values_out = {&values, 0, rows * 4};
  args.scratch = {&scratch, 0, scratch.size()};
  const double s = best_seconds(env, [&](VkCommandBuffer cmd) { vk::record_radix_sort(device, cmd, args); });
  // The status of the last timed run: after a fallback the time is not that of a whole sort, so the
  // case is not "checked" (the note says why; the fallback still completes the output).
  const vk::RadixSortStatus status = vk::radix_sort_status(device, args);
  if (status.needs_fallback())
    device.submit([&](VkCommandBuffer cmd) { vk::record_radix_sort_fallback(device, cmd, args, status); });
  std::vector<int32_t> got(rows);
  device.download(out, got.data(), rows * 4);
  bool ok = !status.needs_fallback() && std::is_sorted(got.begin(), got.end());
  if (rows <= (uint64_t(1) << 24)) {
    std::vector<int32_t> want = host;
    std::sort(want.begin(), want.end());
    ok = ok && got == want;
  }
  if (pairs && ok) {
    // Row ids: a permutation consistent with the keys and stable (ascending within equal keys).
    std::vector<uint32_t> ids(rows);
    device.download(values, ids.data(), rows * 4);
    for (uint64_t i = 0; i < rows && ok; ++i)
      ok = ids[i] < rows && host[ids[i]] == got[i] && (i == 0 || got[i] != got[i - 1] || ids[i] > ids[i - 1]);
  }
  std::string what = (pairs ? "int32 keys + row ids; bytes = read + write of keys and ids: "
                            : "int32 keys; bytes = one read + write of the keys: ") +
                     status.describe();
  if (status.onesweep) {
    // Each stage's share: the sort recorded up to stage 1..4 and whole, in turn; differences of
    // the best prefix times (the prefixes leave no sorted output, the whole sort was checked above).
    std::vector<std::function<void(VkCommandBuffer)>> prefixes;
    for (uint32_t stages = 1; stages <= 5; ++stages)
      prefixes.push_back(
          [&, stages](VkCommandBuffer cmd) { vk::detail::record_radix_sort_stages(device, cmd, args, stages); });
    const std::vector<double> t = best_interleaved(env, prefixes);
    char stage_note[256];
    std::snprintf(stage_note, sizeof stage_note,
                  "; stages (differences of prefix times, in turn): fill + histogram %.4f ms, digit passes %.4f, "
                  "%.4f, %.4f, %.4f ms",
                  t[0] * 1e3, (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3, (t[4] - t[3]) * 1e3);
    what += stage_note;
  }
  return {s, (pairs ? 16 : 8) * rows, rows, what, ok};
}

const Registrar r_copy{{"compute.ceiling_copy", "compute", "", false, ceiling_copy}};
const Registrar r_read{{"compute.ceiling_read", "compute", "compute.ceiling_copy", false, ceiling_read}};
const Registrar r_count{{"compute.select_count", "compute", "compute.ceiling_copy", false, select_count}};
const Registrar r_range{{"compute.range_count", "compute", "compute.ceiling_copy", false, range_count}};
const Registrar r_sum{{"compute.filtered_sum", "compute", "compute.ceiling_copy", false,
                       [](Env& e, uint64_t n) { return filtered_aggregate(e, n, AggKind::Sum); }}};
const Registrar r_min{{"compute.filtered_min", "compute", "compute.ceiling_copy", false,
                       [](Env& e, uint64_t n) { return filtered_aggregate(e, n, AggKind::Min); }}};
const Registrar r_max{{"compute.filtered_max", "compute", "compute.ceiling_copy", false,
                       [](Env& e, uint64_t n) { return filtered_aggregate(e, n, AggKind::Max); }}};
const Registrar r_rowids{{"compute.select_rowids", "compute", "compute.ceiling_copy", false, select_rowids}};
const Registrar r_median{{"compute.median", "compute", "compute.ceiling_copy", false,
                          [](Env& e, uint64_t n) { return median(e, n, false); }}};
const Registrar r_median_narrow{{"compute.median_narrow", "compute", "compute.ceiling_copy", false,
                                 [](Env& e, uint64_t n) { return median(e, n, true); }}};
const Registrar r_sort{{"compute.sort_keys", "compute", "compute.ceiling_copy", false,
                        [](Env& e, uint64_t n) { return sort_case(e, n, false); }}};
const Registrar r_pairs{{"compute.sort_pairs", "compute", "compute.ceiling_copy", false,
                         [](Env& e, uint64_t n) { return sort_case(e, n, true); }}};

}  // namespace
}  // namespace gfxq::bench
