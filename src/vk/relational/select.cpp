#include "vk/relational/select.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "cnf_interval_config.glsl"
#include "cnf_mask_config.glsl"
#include "cnf_select_config.glsl"
#include "gfxq/error.h"
#include "vk/engine/resident.h"
#include "vk/primitives/scan.h"

namespace gfxq::vk {

static_assert(kSelectMaxLookback == CNF_SELECT_MAX_LOOKBACK && kSelectMaxLookback * 4 <= 65536);
// cnf_select.comp gives each subgroup a ring of at least 8 staged ids per invocation.
static_assert(CNF_SELECT_STAGE >= 8 * CNF_SELECT_WG_S1_IV && CNF_SELECT_STAGE >= 8 * CNF_SELECT_WG_S1 &&
              CNF_SELECT_STAGE >= 8 * CNF_SELECT_WG_S8);
// A mask block is 2048 rows, 64 words, 256 bytes: chunks (multiples of kChunkAlign rows) start
// at block boundaries, and their mask ranges at multiples of 256 bytes.
static_assert(kCnfBlock == CNF_MASK_BLOCK && kCnfBlock / 32 == CNF_MASK_BLOCK_WORDS && kChunkAlign % kCnfBlock == 0 &&
              kCnfBlock / 8 % 256 == 0);

namespace {

// Push constants of cnf_scan.comp.
struct ScanPush {
  uint32_t rows, group_base, terms, float_slots, slot_count, value_slot, intervals;
};

// The set of order keys a single-column program of literal comparisons accepts, as sorted,
// disjoint inclusive intervals; nullopt for other programs. (The terms compare the key with
// constant keys in the unsigned order, and each such comparison is an interval set.)
using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

Intervals normalise(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

std::optional<Intervals> key_intervals(const CnfProgram& program) {
  if (program.outcome != CnfProgram::Outcome::Rows || program.slots.size() != 1) return std::nullopt;
  constexpr uint64_t kMax = UINT32_MAX;
  Intervals result{{0, kMax}}, clause;
  for (const CnfTerm& t : program.terms) {
    if (t.kind != TermKind::Literal || t.lhs != 0) return std::nullopt;
    const uint64_t k = t.key;
    switch (t.op) {
      case CmpOp::Lt:
        if (k > 0) clause.push_back({0, k - 1});
        break;
      case CmpOp::Le: clause.push_back({0, k}); break;
      case CmpOp::Gt:
        if (k < kMax) clause.push_back({k + 1, kMax});
        break;
      case CmpOp::Ge: clause.push_back({k, kMax}); break;
      case CmpOp::Eq: clause.push_back({k, k}); break;
      case CmpOp::Ne:
        if (k > 0) clause.push_back({0, k - 1});
        if (k < kMax) clause.push_back({k + 1, kMax});
        break;
    }
    if (t.clause_end) {
      const Intervals c = normalise(std::move(clause));
      clause.clear();
      Intervals next;
      for (const auto& a : result)
        for (const auto& b : c) {
          const uint64_t lo = std::max(a.first, b.first), hi = std::min(a.second, b.second);
          if (lo <= hi) next.push_back({lo, hi});
        }
      result = normalise(std::move(next));
    }
  }
  return result;
}

// The raw FLOAT bit patterns whose order key (core/order_key.h) lies in [lo, hi]: positive values
// and +0.0 have key bits + 2^31, negative ones ~bits, -0.0 the key of +0.0 and every NaN the key of
// the canonical NaN.
void float_preimage(uint64_t lo, uint64_t hi, Intervals& out) {
  const auto clip = [&](uint64_t a, uint64_t b, uint64_t first, uint64_t last) {
    a = std::max(a, first);
    b = std::min(b, last);
    if (a <= b) out.push_back({a, b});
  };
  constexpr uint64_t kSign = 0x80000000u, kAll = UINT32_MAX;
  if (hi >= kSign) clip(lo > kSign ? lo - kSign : 0, hi - kSign, 1, 0x7f800000u);  // +denormal .. +inf
  clip(kAll - hi, kAll - lo, 0x80000001u, 0xff800000u);                            // -denormal .. -inf
  if (lo <= kSign && kSign <= hi) out.insert(out.end(), {{0, 0}, {kSign, kSign}});
  const uint64_t nan_key = 0xffc00000u;
  if (lo <= nan_key && nan_key <= hi) out.insert(out.end(), {{0x7f800001u, 0x7fffffffu}, {0xff800001u, kAll}});
}

}  // namespace

std::optional<std::vector<std::pair<uint32_t, uint32_t>>> detail::raw_intervals(const CnfProgram& program) {
  const auto keys = key_intervals(program);
  if (!keys || keys->empty()) return std::nullopt;
  Intervals raw;
  for (const auto& [lo, hi] : *keys) {
    if (program.float_slots() & 1)
      float_preimage(lo, hi, raw);
    else
      raw.push_back({lo ^ 0x80000000u, (lo ^ 0x80000000u) + (hi - lo)});  // may pass 2^32: wraps
  }
  // INT intervals that pass 2^32 wrap: split them, merge, then join the ends again across 2^32.
  Intervals split;
  for (const auto& [lo, hi] : raw) {
    if (hi <= UINT32_MAX) {
      split.push_back({lo, hi});
    } else {
      split.push_back({lo, UINT32_MAX});
      split.push_back({0, hi - (uint64_t(1) << 32)});
    }
  }
  Intervals merged = normalise(std::move(split));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [lo, hi] : merged) out.push_back({uint32_t(lo), uint32_t(hi - lo)});
  if (out.size() > 1 && merged.front().first == 0 && merged.back().second == UINT32_MAX) {
    out.back().second += out.front().second + 1;
    out.erase(out.begin());
  }
  if (out.size() > kMaxRawIntervals) return std::nullopt;
  return out;
}

std::optional<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> detail::slot_intervals(
    const CnfProgram& program) {
  if (program.outcome != CnfProgram::Outcome::Rows || program.terms.empty() || program.slots.size() > kMaxCnfSlots)
    return std::nullopt;
  if (program.slots.size() == 1) {
    const auto iv = raw_intervals(program);
    if (!iv) return std::nullopt;
    return std::vector<std::vector<std::pair<uint32_t, uint32_t>>>{*iv};
  }
  // Each slot's clauses as a program of that column alone.
  std::vector<CnfProgram> parts(program.slots.size());
  for (size_t s = 0; s < parts.size(); ++s) {
    parts[s].outcome = CnfProgram::Outcome::Rows;
    parts[s].slots = {program.slots[s]};
  }
  size_t begin = 0;
  for (size_t i = 0; i < program.terms.size(); ++i) {
    const CnfTerm& t = program.terms[i];
    if (t.kind != TermKind::Literal || t.lhs != program.terms[begin].lhs) return std::nullopt;
    if (!t.clause_end) continue;
    CnfProgram& part = parts[t.lhs];
    for (size_t j = begin; j <= i; ++j) {
      CnfTerm u = program.terms[j];
      u.lhs = 0;
      part.terms.push_back(u);
    }
    ++part.clauses;
    begin = i + 1;
  }
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> out(parts.size());
  for (size_t s = 0; s < parts.size(); ++s) {
    if (parts[s].terms.empty()) continue;
    const auto iv = raw_intervals(parts[s]);
    if (!iv || iv->empty()) return std::nullopt;  // (no value passes: the terms say so)
    out[s] = *iv;
  }
  return out;
}

uint32_t detail::interval_word(const CnfProgram& program, uint64_t words_bytes) {
  const auto iv = slot_intervals(program);
  if (!iv) return 0;
  if (iv->size() == 1)
    return words_bytes >= (program.terms.size() + iv->front().size()) * 8 ? uint32_t(iv->front().size()) : 0;
  if (words_bytes < (2 * program.terms.size() + 8 * iv->size()) * 4) return 0;
  uint32_t word = 0;
  for (size_t s = 0; s < iv->size(); ++s) word |= uint32_t((*iv)[s].size()) << (4 * s);
  return word;
}

std::optional<detail::FloatTest> detail::float_test(const CnfProgram& program) {
  if (!(program.float_slots() & 1) || !raw_intervals(program)) return std::nullopt;
  const auto keys = key_intervals(program);
  if (!keys || keys->size() != 1) return std::nullopt;
  // Order keys of FLOAT values (core/order_key.h): -inf .. the negative denormal nearest zero,
  // then +0.0 .. +inf, then the canonical NaN; the keys between are no value's.
  constexpr uint64_t kNegInf = 0x007fffffu, kNegLast = 0x7ffffffeu, kZero = 0x80000000u, kPosInf = 0xff800000u,
                     kNan = 0xffc00000u;
  const auto [klo, khi] = keys->front();
  const bool nan = klo <= kNan && kNan <= khi;
  // The interval's first and last values' keys.
  const uint64_t lo = klo <= kNegInf ? kNegInf : klo <= kNegLast ? klo : klo <= kZero ? kZero : klo;
  const uint64_t hi = khi >= kPosInf ? kPosInf : khi >= kZero ? khi : khi >= kNegLast ? kNegLast : khi;
  if (lo > kPosInf || lo > hi) return std::nullopt;  // NaN alone, or no value
  const auto bits = [](uint64_t key) { return uint32_t(key >= kZero ? key & 0x7fffffffu : ~key); };
  // Normal or infinite: a nonzero exponent field (NaN bits are never a bound here).
  const auto normal = [](uint32_t b) { return (b & 0x7f800000u) != 0; };
  const uint32_t lo_bits = bits(lo), hi_bits = bits(hi);
  if (!normal(lo_bits) || !normal(hi_bits)) return std::nullopt;
  const bool open_lo = lo == kNegInf, open_hi = hi == kPosInf;
  if (nan) return FloatTest{CNF_FLOAT_GE_NAN, lo_bits, 0};  // hi is +inf when NaN is in
  if (open_lo && open_hi) return std::nullopt;              // every value but NaN: no compare needed
  if (open_lo) return FloatTest{CNF_FLOAT_LE, 0, hi_bits};
  if (open_hi) return FloatTest{CNF_FLOAT_GE, lo_bits, 0};
  return FloatTest{CNF_FLOAT_RANGE, lo_bits, hi_bits};
}

namespace {
// Raw-bit intervals cnf_scan / cnf_select test instead of the terms (0: run the terms).
uint32_t interval_count(const CnfInput& input) {
  return detail::interval_word(*input.program, input.words->size());
}

// The float test of the interval kernels (CNF_FLOAT_RAW: the raw bits), when `intervals` are
// tested; its bounds follow the raw intervals in the program buffer.
uint32_t float_test_shape(const CnfInput& input, uint32_t intervals) {
  if (!intervals) return CNF_FLOAT_RAW;
  const auto f = detail::float_test(*input.program);
  return f && input.words->size() >= (input.program->terms.size() + intervals + 1) * 8 ? f->shape : CNF_FLOAT_RAW;
}

// The float test, for the execution report ("" for the raw bits).
std::string float_test_text(uint32_t float_shape) {
  switch (float_shape) {
    case CNF_FLOAT_LE: return "float compare x <= c";
    case CNF_FLOAT_GE: return "float compare x >= c";
    case CNF_FLOAT_RANGE: return "float compares c1 <= x <= c2";
    case CNF_FLOAT_GE_NAN: return "float compare not x < c (NaN passes)";
    default: return "";
  }
}

// The kernel named `name` and its float test (or, for several slots, their interval tests), for the
// execution report.
std::string kernel_label(const std::string& name, uint32_t float_shape, uint32_t slots, uint32_t intervals) {
  if (slots > 1 && intervals != 0) {
    uint32_t tested = 0;
    for (uint32_t s = 0; s < slots; ++s) tested += ((intervals >> (4 * s)) & 15) != 0;
    return name + " (raw-bit intervals on " + std::to_string(tested) + " columns)";
  }
  const std::string test = float_test_text(float_shape);
  return test.empty() ? name : name + " (" + test + ")";
}

// How a one-pass kernel tests the rows, as a note of its pass ("" for the raw bits or the terms).
std::string row_test_note(const CnfInput& input) {
  const uint32_t slots = uint32_t(input.columns.size()), intervals = interval_count(input);
  const std::string label =
      kernel_label("", slots == 1 ? float_test_shape(input, intervals) : CNF_FLOAT_RAW, slots, intervals);
  // kernel_label gives " (test)" after the empty name.
  return label.empty() ? label : "; rows tested by " + label.substr(2, label.size() - 3);
}

// Push constants of cnf_select.comp.
struct SelectPush {
  uint32_t rows, first_row, first_tile, terms, float_slots, slot_count, intervals, limit, lookback_limit, group_offset;
};

// Push constants of cnf_compact.comp.
struct CompactPush {
  uint32_t rows, block_base, first_row, limit, out_base, value_float;
};

// Elements of 4 bytes up to 256 bytes (the largest storage offset alignment).
constexpr uint64_t kAlignElements = 64;

BufferRange column_range(const DeviceColumn& c, const ScanChunk& chunk) {
  return {&c.buffer, chunk.first_row * 4, padded_bytes(chunk.rows)};
}

// The chunk's mask blocks: kCnfBlock / 8 bytes each.
BufferRange mask_range(const Buffer& mask, const ScanChunk& chunk) {
  return {&mask, uint64_t(chunk.first_block) * (kCnfBlock / 8), uint64_t(chunk.blocks) * (kCnfBlock / 8)};
}

}  // namespace

// --- device columns and plans

uint64_t padded_bytes(uint64_t elements) noexcept {
  return std::max<uint64_t>(16, (elements + 3) / 4 * 16);
}

DeviceColumn upload_column(Device& device, const Column& column) {
  const Type t = storage_type(column.type);  // STRING codes and DATE days are int32
  if (t != Type::Int32 && t != Type::Float32)
    throw Error(ErrorCode::Internal, "upload_column: column '" + column.name + "' is not stored as int32 or float32");
  DeviceColumn c;
  c.type = t;
  c.rows = column.size();
  c.buffer = device.create_buffer(padded_bytes(c.rows), MemoryKind::Device);
  const void* data = t == Type::Int32 ? static_cast<const void*>(column.as<int32_t>().data())
                                      : static_cast<const void*>(column.as<float>().data());
  device.upload(c.buffer, data, c.rows * 4);
  return c;
}

uint64_t ScanPlan::blocks() const noexcept {
  return chunks.empty() ? 0 : uint64_t(chunks.back().first_block) + chunks.back().blocks;
}

std::string ScanPlan::summary() const {
  std::string s = chunks.size() > 1 ? std::to_string(chunks.size()) + " chunks, " : std::string();
  s += std::to_string(groups) + (groups == 1 ? " workgroup" : " workgroups");
  if (!chunks.empty()) s += " x " + std::to_string(chunks.front().rows_per_group) + " rows";
  return s;
}

ScanPlan plan_scan(const Device& device, uint64_t rows, const ScanLimits& limits) {
  if (rows > UINT32_MAX)
    throw Error(ErrorCode::Unsupported, "compute backend cannot scan " + std::to_string(rows) +
                                            " rows: its row ids are 32-bit (at most 4294967295 rows)");
  // Leave room for the 256-byte alignment slack of chunked output ranges.
  const uint64_t binding = device.max_binding_elements();
  uint64_t limit = binding > 2 * kChunkAlign ? binding - kChunkAlign : binding;
  if (limits.chunk_rows) limit = std::min(limit, limits.chunk_rows);
  limit = std::max(kChunkAlign, limit / kChunkAlign * kChunkAlign);
  ScanPlan plan;
  plan.rows = rows;
  plan.chunk_rows = limit;
  for (uint64_t first = 0; first < rows; first += limit) {
    ScanChunk c;
    c.first_row = first;
    c.rows = uint32_t(std::min(limit, rows - first));
    const uint64_t rounds = (c.rows + kCnfRound - 1) / kCnfRound;
    const uint64_t max_groups = limits.max_groups ? limits.max_groups : kCnfMaxGroups;
    c.rows_per_group = uint32_t(std::min<uint64_t>((rounds + max_groups - 1) / max_groups * kCnfRound, 1u << 24));
    c.groups = uint32_t((c.rows + c.rows_per_group - 1) / c.rows_per_group);
    c.first_group = plan.groups;
    plan.groups += c.groups;
    c.first_block = uint32_t(first / kCnfBlock);
    c.blocks = uint32_t((c.rows + kCnfBlock - 1) / kCnfBlock);
    plan.chunks.push_back(c);
  }
  return plan;
}

uint64_t cnf_loop_iterations(uint64_t terms, uint64_t rows_per_group) noexcept {
  // Four-row evaluations per invocation: cnf_scan's count and aggregate modes take rows_per_group /
  // 1024 (16 rows per invocation of each 4096-row tile, or 4 of each 1024-row tile with several
  // slots), its flags mode 16 per 16384-row tile, cnf_select one tile of at most 8 vectors.
  const uint64_t evaluations = std::max({uint64_t(8), rows_per_group / 1024, 16 * ((rows_per_group + 16383) / 16384)});
  // Each evaluation: the term loop's iterations and its exit, plus the step loop around it; the
  // kernels' other loops (subgroups, look-back steps, reductions) stay within the constant.
  return evaluations * (terms + 2) + 4096;
}

ScanLimits fit_shader_loop_limit(const Device& device, uint64_t rows, uint64_t terms, ScanLimits limits) {
  const uint64_t limit = device.caps().shader_loop_limit;
  if (limit == 0) return limits;
  const ScanPlan plan = plan_scan(device, rows, limits);
  uint32_t widest = 0;
  for (const ScanChunk& c : plan.chunks) widest = std::max(widest, c.rows_per_group);
  // The top-k path of ORDER BY LIMIT adds a clause of one term to the program.
  if (cnf_loop_iterations(terms + 1, widest) <= limit) return limits;
  if (cnf_loop_iterations(terms + 1, kCnfRound) > limit) {
    uint64_t most = 0;
    while (cnf_loop_iterations(most + 2, kCnfRound) <= limit) ++most;
    throw Error(ErrorCode::Unsupported,
                "compute backend cannot evaluate a condition of " + std::to_string(terms) + " comparisons on " +
                    device.caps().device_name + ": its driver ends a shader's loops after " + std::to_string(limit) +
                    " iterations, which allows at most " + std::to_string(most) + " comparisons");
  }
  limits.max_groups = UINT32_MAX;  // one 4096-row round per workgroup
  return limits;
}

namespace {

// The words of upload_program(): the term table, then the raw-bit intervals and the float test's
// bounds when the program has them.
std::vector<uint32_t> program_words(const CnfProgram& program) {
  std::vector<uint32_t> words = program.words();
  // The raw-bit intervals after the terms (cnf_scan.comp reads them when told to), then the float
  // test's bounds.
  // One slot: its intervals one after another; several: slot s's at 8 s words past the terms.
  const auto iv = detail::slot_intervals(program);
  if (!iv) return words;
  const size_t base = words.size();
  if (iv->size() > 1) words.resize(base + 8 * iv->size(), 0);
  for (size_t s = 0; s < iv->size(); ++s)
    for (size_t k = 0; k < (*iv)[s].size(); ++k) {
      const size_t at = iv->size() > 1 ? base + 8 * s + 2 * k : base + 2 * k;
      if (at + 2 > words.size()) words.resize(at + 2);
      words[at] = (*iv)[s][k].first;
      words[at + 1] = (*iv)[s][k].second;
    }
  if (const auto f = detail::float_test(program)) words.insert(words.end(), {f->lo, f->hi});
  return words;
}

}  // namespace

Buffer upload_program(Device& device, const CnfProgram& program) {
  const std::vector<uint32_t> words = program_words(program);
  Buffer b = device.create_buffer(std::max<uint64_t>(16, words.size() * 4), MemoryKind::Device);
  device.upload(b, words.data(), words.size() * 4);
  return b;
}

// --- the CNF kernels

namespace detail {

std::string record_cnf_scan(Device& device, VkCommandBuffer cmd, const std::string& mode, const CnfInput& input,
                            const ScanPlan& plan, const Buffer& partials, const Buffer* mask, uint32_t value_slot,
                            const std::string& suffix) {
  const CnfProgram& program = *input.program;
  const uint32_t slots = uint32_t(input.columns.size());
  if (slots == 0 || slots > kMaxCnfSlots || program.outcome == CnfProgram::Outcome::None)
    throw Error(ErrorCode::Internal, "record_cnf_scan: a program with 1.." + std::to_string(kMaxCnfSlots) +
                                         " columns that is not constant false is needed");
  const uint32_t variant = slots == 1 ? 1 : slots <= 2 ? 2 : slots <= 4 ? 4 : 8;
  const uint32_t intervals = interval_count(input);
  // One-slot interval programs run the variant without term code (cnf_eval.glsl).
  const std::string name =
      "cnf_" + mode + "_s" + std::to_string(variant) + (intervals && variant == 1 ? "_iv" : "") + suffix;
  const uint32_t shape = slots == 1 ? float_test_shape(input, intervals) : CNF_FLOAT_RAW;
  const Pipeline& p = device.pipeline(name, mask ? 11 : 10, sizeof(ScanPush), false, shape);
  ScanPush push{};
  push.terms = program.outcome == CnfProgram::Outcome::Rows ? uint32_t(program.terms.size()) : 0;
  push.float_slots = program.float_slots();
  push.slot_count = slots;
  push.value_slot = value_slot;
  push.intervals = intervals;
  for (const ScanChunk& chunk : plan.chunks) {
    std::vector<BufferRange> ranges;
    ranges.push_back({input.words, 0, 0});
    for (uint32_t s = 0; s < kMaxCnfSlots; ++s)
      ranges.push_back(column_range(*input.columns[s < slots ? s : 0], chunk));
    ranges.push_back({&partials, 0, 0});
    if (mask) ranges.push_back(mask_range(*mask, chunk));
    push.rows = chunk.rows;
    push.group_base = mask ? chunk.first_block : chunk.first_group;
    device.dispatch_ranges(cmd, p, ranges, &push, chunk.groups);
  }
  return kernel_label(name, shape, slots, intervals);
}

}  // namespace detail

void record_cnf_count(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                      const Buffer& counts) {
  detail::record_cnf_scan(device, cmd, "count", input, plan, counts, nullptr, 0);
}

void record_cnf_flags(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                      const Buffer& counts, const Buffer& mask) {
  detail::record_cnf_scan(device, cmd, "flags", input, plan, counts, &mask, 0);
}

uint64_t block_offsets_scratch_bytes(const Device& device, const ScanPlan& plan) {
  return scan_scratch_bytes(device, plan.blocks());
}

void record_block_offsets(Device& device, VkCommandBuffer cmd, const ScanPlan& plan, const Buffer& counts,
                          const Buffer& offsets, const Buffer& scratch) {
  const BlockOffsets layout{plan.blocks()};
  const uint64_t bytes = std::max<uint64_t>(4, plan.blocks() * 4);
  scan(device, cmd, ScanKind::Exclusive, ScanWidth::U32, {&counts, 0, bytes}, plan.blocks(), {&offsets, 0, bytes},
       {&offsets, layout.total_offset(), 8}, {&scratch, 0, scratch.size()});
}

void record_cnf_compact(Device& device, VkCommandBuffer cmd, const ScanPlan& plan, const Buffer& mask,
                        const Buffer& offsets, const CompactTarget& target) {
  const bool ids = target.ids != nullptr, keys = target.keys != nullptr;
  if ((!ids && !keys) || (keys && !target.values) ||
      (!target.chunk_starts.empty() && target.chunk_starts.size() != plan.chunks.size()))
    throw Error(ErrorCode::Internal,
                "record_cnf_compact: needs ids and/or keys (with their column) and one start "
                "per chunk or none");
  const char* name = ids && keys ? "cnf_compact_pairs" : (ids ? "cnf_compact_ids" : "cnf_compact_keys");
  const Pipeline& p = device.pipeline(name, ids && keys ? 5 : (ids ? 3 : 4), sizeof(CompactPush));
  CompactPush push{};
  push.limit = target.limit;
  push.value_float = keys && target.values->type == Type::Float32 ? 1 : 0;
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    const ScanChunk& chunk = plan.chunks[c];
    // The output window of this chunk: whole buffers, or one binding's worth from an aligned
    // position at or below the chunk's first output (clamped inside the buffer).
    auto window = [&](const Buffer& b) -> BufferRange {
      if (target.chunk_starts.empty()) return {&b, 0, 0};
      const uint64_t start = uint64_t(target.chunk_starts[c]) / kAlignElements * kAlignElements * 4;
      const uint64_t offset = std::min(start, (b.size() - 4) / 256 * 256);
      return {&b, offset, std::min(b.size() - offset, device.max_binding_elements() * 4)};
    };
    std::vector<BufferRange> ranges{mask_range(mask, chunk), {&offsets, 0, 0}};
    if (keys) {
      ranges.push_back(column_range(*target.values, chunk));
      ranges.push_back(window(*target.keys));
    }
    if (ids) ranges.push_back(window(*target.ids));
    push.out_base = uint32_t(ranges.back().offset / 4);
    if (keys && ids && ranges[3].offset != ranges[4].offset)
      throw Error(ErrorCode::Internal, "record_cnf_compact: id and key windows differ");
    push.rows = chunk.rows;
    push.block_base = chunk.first_block;
    push.first_row = uint32_t(chunk.first_row);
    device.dispatch_ranges(cmd, p, ranges, &push, chunk.groups);
  }
}

// --- the one-pass selection

uint64_t SelectLayout::ctrl_words() const noexcept {
  return CNF_SELECT_DESC + all_tiles;
}

std::optional<SelectLayout> plan_select(const CnfInput& input, const ScanPlan& plan, uint64_t limit) {
  SelectLayout l;
  // The tile of the kernel record_cnf_select runs (cnf_select_config.glsl).
  l.tile_rows = input.columns.size() != 1 ? CNF_SELECT_TILE_S8
                : interval_count(input)   ? CNF_SELECT_TILE_S1_IV
                                          : CNF_SELECT_TILE_S1;
  for (const ScanChunk& chunk : plan.chunks) {
    if (chunk.rows > CNF_SELECT_COUNT_MASK) return std::nullopt;
    const uint32_t tiles = (chunk.rows + l.tile_rows - 1) / l.tile_rows;
    l.first_tile.push_back(uint32_t(l.all_tiles));
    l.tiles.push_back(tiles);
    l.all_tiles += tiles;
    const uint32_t out = uint32_t(std::min<uint64_t>(limit, chunk.rows));
    l.out_start.push_back(l.out_elements);
    l.out_rows.push_back(out);
    l.out_elements += (uint64_t(out) + kAlignElements - 1) / kAlignElements * kAlignElements;
  }
  return l;
}

SelectTiles resolve_select_tiles(const Device& device, SelectTiles tiles) noexcept {
  // NVIDIA's GPUs start a grid's workgroups in id order (CUB's single-pass scan relies on it).
  constexpr uint32_t kNvidia = 0x10de;
  if (tiles != SelectTiles::Auto) return tiles;
  return device.caps().vendor_id == kNvidia ? SelectTiles::Launch : SelectTiles::Counter;
}

const char* select_tiles_words(SelectTiles tiles) noexcept {
  return tiles == SelectTiles::Launch ? " in launch order" : " taken from a counter";
}

void record_cnf_select(Device& device, VkCommandBuffer cmd, const CnfInput& input, const ScanPlan& plan,
                       const SelectLayout& layout, const Buffer& ctrl, const Buffer& ids, uint32_t lookback,
                       SelectTiles tiles) {
  const CnfProgram& program = *input.program;
  const uint32_t slots = uint32_t(input.columns.size());
  if (slots == 0 || slots > kMaxCnfSlots || program.outcome != CnfProgram::Outcome::Rows ||
      layout.tiles.size() != plan.chunks.size())
    throw Error(ErrorCode::Internal, "record_cnf_select: a program of rows over 1.." + std::to_string(kMaxCnfSlots) +
                                         " columns and a layout of this plan are needed");
  const uint32_t intervals = interval_count(input);
  // One-slot interval programs run the variant without term code (cnf_eval.glsl); constant 1 says
  // whether the tile is the workgroup id.
  const Pipeline& p =
      device.pipeline(slots == 1 ? (intervals ? "cnf_select_s1_iv" : "cnf_select_s1") : "cnf_select_s8", 11,
                      sizeof(SelectPush), true, slots == 1 ? float_test_shape(input, intervals) : CNF_FLOAT_RAW,
                      resolve_select_tiles(device, tiles) == SelectTiles::Launch ? 1 : 0);
  vkCmdFillBuffer(cmd, ctrl.handle(), 0, layout.ctrl_words() * 4, 0);
  device.barrier(cmd);
  SelectPush push{};
  push.terms = uint32_t(program.terms.size());
  push.float_slots = program.float_slots();
  push.slot_count = slots;
  push.intervals = intervals;
  push.lookback_limit = std::min(lookback, kSelectMaxLookback);
  for (size_t c = 0; c < plan.chunks.size(); ++c) {
    const ScanChunk& chunk = plan.chunks[c];
    // The tile counter (SelectTiles::Counter) runs on over the chunks: the previous chunk's tiles
    // have all been taken.
    if (c > 0) device.barrier(cmd);
    std::vector<BufferRange> ranges;
    ranges.push_back({input.words, 0, 0});
    for (uint32_t s = 0; s < kMaxCnfSlots; ++s)
      ranges.push_back(column_range(*input.columns[s < slots ? s : 0], chunk));
    ranges.push_back({&ctrl, 0, 0});
    ranges.push_back({&ids, layout.out_start[c] * 4, padded_bytes(layout.out_rows[c])});
    push.rows = chunk.rows;
    push.first_row = uint32_t(chunk.first_row);
    push.first_tile = layout.first_tile[c];
    push.limit = layout.out_rows[c];
    device.dispatch_ranges(cmd, p, ranges, &push, layout.tiles[c]);
  }
}

std::optional<std::vector<uint32_t>> select_counts(const SelectLayout& layout, const std::vector<uint32_t>& ctrl) {
  if (ctrl.size() < layout.ctrl_words() || ctrl[CNF_SELECT_STATUS] != 0) return std::nullopt;
  std::vector<uint32_t> counts;
  for (size_t c = 0; c < layout.tiles.size(); ++c) {
    const uint32_t d = ctrl[CNF_SELECT_DESC + layout.first_tile[c] + layout.tiles[c] - 1];
    if (d >> 30 != CNF_SELECT_FLAG_PREFIX) return std::nullopt;
    counts.push_back(d & CNF_SELECT_COUNT_MASK);
  }
  return counts;
}

// --- the query context

QueryContext::QueryContext(Device& device, const BoundQuery& query, const ScanLimits& limits, ResidentTables resident)
    : device_(device),
      query_(query),
      limits_(limits),
      plan_(plan_scan(device, query.left->rows(), limits)),
      resident_(resident) {}

const DeviceColumn& QueryContext::column(const BoundColumn& c) {
  const auto key = std::make_pair(c.side, c.index);
  if (auto it = columns_.find(key); it != columns_.end()) return *it->second;
  const Column& column = query_.column(c);
  if (resident_.cache) {
    const bool left = c.side == Side::Left;
    const ResidentKey rk{left ? query_.left_name : query_.right_name,
                         left ? resident_.left_version : resident_.right_version, c.index};
    return *columns_.emplace(key, &resident_.cache->get(device_, rk, column, passes_)).first->second;
  }
  const auto start = Clock::now();
  DeviceColumn d = upload_column(device_, column);
  add("upload", c.name + " (" + std::to_string(column.size() * 4) + " bytes)", column.size(), std::nullopt, start);
  const DeviceColumn& owned = owned_.emplace(key, std::move(d)).first->second;
  return *columns_.emplace(key, &owned).first->second;
}

CnfInput QueryContext::bind(const CnfProgram& program, Buffer& words) {
  CnfInput input;
  input.program = &program;
  for (const BoundColumn& c : program.slots) input.columns.push_back(&column(c));
  // The words go to a mapped staging buffer now and are copied on the device at the start of the
  // next run(), in its command buffer: no submission of their own.
  const std::vector<uint32_t> w = program_words(program);
  const uint64_t bytes = std::max<uint64_t>(16, w.size() * 4);
  words = device_.create_buffer(bytes, MemoryKind::Device);
  Buffer staging = device_.create_buffer(bytes, MemoryKind::Upload);
  std::memcpy(staging.mapped(), w.data(), w.size() * 4);
  pending_.push_back(PendingCopy{std::move(staging), words.handle(), bytes});
  input.words = &words;
  return input;
}

void QueryContext::record_pending(VkCommandBuffer cmd, std::vector<PendingCopy>& copies) {
  copies = std::move(pending_);
  pending_.clear();
  if (copies.empty()) return;
  for (const PendingCopy& c : copies) {
    const VkBufferCopy region{0, 0, c.bytes};
    vkCmdCopyBuffer(cmd, c.staging.handle(), c.dst, 1, &region);
  }
  device_.barrier(cmd);
}

PassRecord& QueryContext::add(std::string kind, std::string detail, uint64_t items, std::optional<uint64_t> passed,
                              Clock::time_point start) {
  PassRecord p;
  p.kind = std::move(kind);
  p.detail = std::move(detail);
  p.items = items;
  p.passed = passed;
  p.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  passes_.push_back(std::move(p));
  return passes_.back();
}

// --- selection operators

DeviceSelection mark_rows(QueryContext& ctx, const CnfProgram& program) {
  const ScanPlan& plan = ctx.plan();
  DeviceSelection sel;
  if (program.outcome == CnfProgram::Outcome::None || plan.rows == 0) return sel;
  if (program.outcome == CnfProgram::Outcome::All) {
    sel.all = true;
    sel.count = plan.rows;
    return sel;
  }
  Device& device = ctx.device();
  Buffer words;
  const CnfInput input = ctx.bind(program, words);
  const BlockOffsets layout{plan.blocks()};
  Buffer counts = device.create_buffer(std::max<uint64_t>(16, plan.blocks() * 4), MemoryKind::Device);
  sel.mask = device.create_buffer(std::max<uint64_t>(16, plan.mask_words() * 4), MemoryKind::Device);
  sel.offsets = device.create_buffer(layout.bytes(), MemoryKind::Device);
  Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, block_offsets_scratch_bytes(device, plan)), MemoryKind::Device);
  ctx.run("cnf-flags",
          "fused CNF (" + program.summary() + "): 1 bit per row + count per " + std::to_string(kCnfBlock) +
              "-row block; " + plan.summary() + row_test_note(input),
          plan.rows, [&](VkCommandBuffer cmd) { record_cnf_flags(device, cmd, input, plan, counts, sel.mask); });
  const size_t flags_pass = ctx.passes().size() - 1;
  ctx.run("scan", "exclusive scan of " + std::to_string(plan.blocks()) + " block counts", plan.blocks(),
          [&](VkCommandBuffer cmd) { record_block_offsets(device, cmd, plan, counts, sel.offsets, scratch); });
  const std::vector<uint32_t> back = ctx.download<uint32_t>(sel.offsets, layout.bytes() / 4, "offsets");
  sel.count = back[layout.total_offset() / 4] | uint64_t(back[layout.total_offset() / 4 + 1]) << 32;
  ctx.passes()[flags_pass].passed = sel.count;
  for (const ScanChunk& c : plan.chunks) sel.chunk_starts.push_back(back[c.first_block]);
  return sel;
}

std::vector<uint32_t> output_windows(const QueryContext& ctx, const DeviceSelection& selection) {
  return ctx.plan().chunks.size() > 1 ? selection.chunk_starts : std::vector<uint32_t>{};
}

DeviceRowIds selected_row_ids_on_device(QueryContext& ctx, const DeviceSelection& selection, uint64_t limit) {
  DeviceRowIds out;
  out.count = std::min(selection.count, limit);
  if (out.count == 0) return out;
  if (selection.all) {
    out.all = true;
    return out;
  }
  Device& device = ctx.device();
  const ScanPlan& plan = ctx.plan();
  out.ids = device.create_buffer(padded_bytes(out.count), MemoryKind::Device);
  CompactTarget target;
  target.ids = &out.ids;
  target.limit = uint32_t(out.count);
  target.chunk_starts = output_windows(ctx, selection);
  ctx.run(
         "compact",
         "row ids of the selected rows in row order" +
             (out.count < selection.count ? " (the first " + std::to_string(out.count) + ")" : std::string()),
         plan.rows,
         [&](VkCommandBuffer cmd) { record_cnf_compact(device, cmd, plan, selection.mask, selection.offsets, target); })
      .passed = out.count;
  return out;
}

std::vector<uint32_t> download_row_ids(QueryContext& ctx, const DeviceRowIds& ids) {
  if (ids.all) {
    std::vector<uint32_t> rows(ids.count);
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
  }
  if (ids.count == 0) return {};
  return ctx.download<uint32_t>(ids.ids, ids.count, "row ids");
}

std::vector<uint32_t> selected_row_ids(QueryContext& ctx, const DeviceSelection& selection, uint64_t limit) {
  return download_row_ids(ctx, selected_row_ids_on_device(ctx, selection, limit));
}

DeviceRowIds select_row_ids_on_device(QueryContext& ctx, const CnfProgram& program, uint64_t limit, std::string* how) {
  if (limit == 0) return {};
  const ScanPlan& plan = ctx.plan();
  const std::string three_pass =
      "fused CNF selection (" + program.summary() + ") in 1 dispatch + scan of block counts + compaction of row ids";
  auto fallback = [&](const std::string& why) {
    if (how) *how = why + three_pass;
    return selected_row_ids_on_device(ctx, mark_rows(ctx, program), limit);
  };
  if (program.outcome != CnfProgram::Outcome::Rows || plan.rows == 0) return fallback("");
  Device& device = ctx.device();
  Buffer words;
  const CnfInput input = ctx.bind(program, words);
  const std::optional<SelectLayout> layout = plan_select(input, plan, limit);
  if (!layout) return fallback("");
  const uint32_t lookback = std::min(ctx.limits().select_lookback, kSelectMaxLookback);
  const SelectTiles tiles = resolve_select_tiles(device, ctx.limits().select_tiles);
  Buffer ctrl = device.create_buffer(layout->ctrl_words() * 4, MemoryKind::Device);
  DeviceRowIds out;
  out.ids = device.create_buffer(padded_bytes(layout->out_elements), MemoryKind::Device);
  const std::string one_pass = "one-pass CNF selection (" + program.summary() +
                               "): row ids by decoupled look-back over " + std::to_string(layout->tile_rows) +
                               "-row tiles" + select_tiles_words(tiles);
  ctx.run("cnf-select",
          one_pass + " (at most " + std::to_string(lookback) + " steps), " + std::to_string(layout->all_tiles) +
              " tiles" + (plan.chunks.size() > 1 ? " in " + std::to_string(plan.chunks.size()) + " chunks" : "") +
              row_test_note(input),
          plan.rows, [&](VkCommandBuffer cmd) {
            record_cnf_select(device, cmd, input, plan, *layout, ctrl, out.ids, lookback, tiles);
          });
  const size_t pass = ctx.passes().size() - 1;
  const auto counts =
      select_counts(*layout, ctx.download<uint32_t>(ctrl, layout->ctrl_words(), "select control words"));
  if (!counts) {
    ctx.passes()[pass].detail += "; a look-back hit its bound: nothing kept, rerun by the three-kernel path";
    return fallback(one_pass + " hit its look-back bound; fallback: ");
  }
  ctx.passes()[pass].passed = std::accumulate(counts->begin(), counts->end(), uint64_t(0));
  if (how) *how = one_pass;
  // Each chunk's ids are at the start of its region; the first `limit` over all chunks are moved
  // together when they are not already (several chunks).
  std::vector<VkBufferCopy> regions;
  for (size_t c = 0; c < counts->size() && out.count < limit; ++c) {
    const uint64_t take = std::min<uint64_t>((*counts)[c], limit - out.count);
    if (take > 0) regions.push_back(VkBufferCopy{layout->out_start[c] * 4, out.count * 4, take * 4});
    out.count += take;
  }
  const bool in_place = regions.empty() || (regions.size() == 1 && regions[0].srcOffset == 0);
  if (!in_place) {
    Buffer joined = device.create_buffer(padded_bytes(out.count), MemoryKind::Device);
    ctx.run("concat", "row ids of " + std::to_string(regions.size()) + " chunks moved together", out.count,
            [&](VkCommandBuffer cmd) {
              vkCmdCopyBuffer(cmd, out.ids.handle(), joined.handle(), uint32_t(regions.size()), regions.data());
            });
    out.ids = std::move(joined);
  }
  return out;
}

std::vector<uint32_t> select_row_ids(QueryContext& ctx, const CnfProgram& program, uint64_t limit, std::string* how) {
  return download_row_ids(ctx, select_row_ids_on_device(ctx, program, limit, how));
}

uint64_t count_rows(QueryContext& ctx, const CnfProgram& program) {
  const ScanPlan& plan = ctx.plan();
  if (program.outcome == CnfProgram::Outcome::None || plan.rows == 0) return 0;
  if (program.outcome == CnfProgram::Outcome::All) return plan.rows;
  Device& device = ctx.device();
  Buffer words;
  const CnfInput input = ctx.bind(program, words);
  Buffer counts = device.create_buffer(std::max<uint64_t>(16, uint64_t(plan.groups) * 4), MemoryKind::Device);
  ctx.run("cnf-count",
          "fused CNF (" + program.summary() + "): count per workgroup; " + plan.summary() + row_test_note(input),
          plan.rows, [&](VkCommandBuffer cmd) { record_cnf_count(device, cmd, input, plan, counts); });
  const size_t index = ctx.passes().size() - 1;
  const std::vector<uint32_t> partial = ctx.download<uint32_t>(counts, plan.groups, "workgroup counts");
  const uint64_t total = std::accumulate(partial.begin(), partial.end(), uint64_t(0));
  ctx.passes()[index].passed = total;
  return total;
}

Table project_rows(QueryContext& ctx, const std::vector<uint32_t>& rows, std::string& algorithm) {
  const auto start = QueryContext::Clock::now();
  const BoundQuery& query = ctx.query();
  Table out;
  for (const BoundItem& item : query.items) {
    const BoundColumn& c = std::get<BoundColumn>(item);
    const Column& src = query.column(c);
    Column col = Column::make(c.name, c.type);
    if (c.type == Type::Int32) {
      auto& dst = col.as<int32_t>();
      const auto& from = src.as<int32_t>();
      dst.reserve(rows.size());
      for (uint32_t r : rows) dst.push_back(from[r]);
    } else {
      auto& dst = col.as<float>();
      const auto& from = src.as<float>();
      dst.reserve(rows.size());
      for (uint32_t r : rows) dst.push_back(from[r]);
    }
    out.columns.push_back(std::move(col));
  }
  ctx.add("project", std::to_string(out.columns.size()) + " columns gathered on the host", rows.size(), std::nullopt,
          start);
  algorithm += "; projection on the host";
  return out;
}

Table run_selection(QueryContext& ctx, std::string& algorithm) {
  const BoundQuery& q = ctx.query();
  const uint64_t limit = q.limit.value_or(UINT64_MAX);
  const CnfProgram program = compile_cnf(q.where);
  std::vector<uint32_t> rows;
  if (program.outcome == CnfProgram::Outcome::Rows) {
    std::string how;
    rows = select_row_ids(ctx, program, limit, &how);
    algorithm = "compute: " + how;
  } else {
    const auto start = QueryContext::Clock::now();
    rows = select_row_ids(ctx, program, limit);
    ctx.add("select", "WHERE " + program.summary() + ": no GPU work", ctx.plan().rows, rows.size(), start);
    algorithm = q.where.empty() ? "compute: projection without WHERE (no GPU work)"
                                : "compute: WHERE folded to " + program.summary() + " (no GPU work)";
  }
  if (q.limit) algorithm += ", first " + std::to_string(*q.limit) + " rows";
  return project_rows(ctx, rows, algorithm);
}

}  // namespace gfxq::vk
