// The compute path's joins (src/vk/operators/join) against the CPU reference
// (cpu::join_pairs_terms), exactly: every algorithm forced on the same cases (so each gives the same
// pair set), pairs in (left row, right row) order and in the algorithm's own order, COUNT(*) only;
// empty sides, no matches, unique keys, duplicates on both sides, Zipf-skewed keys, one key in 90% of
// the rows, full-range INT32 and FLOAT keys with -0.0, NaNs and infinities, INT against FLOAT, band
// widths 0, 1 and large (exact double arithmetic), <, <=, >, >=, multi-column equi keys, selections,
// sizes around the kernels' tiles, CSS-tree nodes and hash partitions, chunked output. Every random
// case logs its seed. Also the merge-path and CSS-tree primitives, and the chooser's rule.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cpu/internal.h"
#include "gfxq/error.h"
#include "gpu_support.h"
#include "join_config.glsl"
#include "vk/operators/join/chooser.h"
#include "vk/operators/join/join.h"
#include "vk/primitives/css_tree.h"
#include "vk/primitives/merge_path.h"
#include "vk/relational/select.h"

using gfxq::CmpOp;
using gfxq::Column;
using gfxq::Error;
using gfxq::ErrorCode;
using gfxq::Type;
using gfxq::test::vk_device;
using gfxq::vk::Buffer;
using gfxq::vk::JoinAlgorithm;
using gfxq::vk::JoinOp;
using gfxq::vk::JoinOptions;
using gfxq::vk::JoinOutputMode;
using gfxq::vk::JoinTerm;
using gfxq::vk::MemoryKind;

namespace {

constexpr JoinAlgorithm kAll[] = {JoinAlgorithm::NestedLoop, JoinAlgorithm::IndexedLoop, JoinAlgorithm::SortMerge,
                                  JoinAlgorithm::HashPartitioned, JoinAlgorithm::HashGlobal};

using Pairs = std::vector<std::pair<uint64_t, uint64_t>>;

//! One side of a test join on the host.
struct HostSide {
  std::vector<Column> keys;
  std::optional<std::vector<uint64_t>> selection;  //!< ascending rows that take part
  uint64_t rows() const { return keys.empty() ? 0 : keys[0].size(); }
};

//! The side on the device (buffers live as long as it).
struct DeviceSide {
  std::vector<Buffer> buffers;
  Buffer selection;
  gfxq::vk::JoinSide side;
  explicit DeviceSide(const HostSide& h) {
    auto& device = vk_device();
    for (const Column& c : h.keys) {
      Buffer b = device.create_buffer(std::max<uint64_t>(16, c.size() * 4), MemoryKind::Device);
      const void* data = c.type == Type::Int32 ? static_cast<const void*>(c.as<int32_t>().data())
                                               : static_cast<const void*>(c.as<float>().data());
      if (c.size()) device.upload(b, data, c.size() * 4);
      buffers.push_back(std::move(b));
    }
    for (size_t i = 0; i < h.keys.size(); ++i) side.keys.push_back({&buffers[i], h.keys[i].type});
    side.rows = h.rows();
    if (h.selection) {
      std::vector<uint32_t> ids(h.selection->begin(), h.selection->end());
      selection = device.create_buffer(std::max<uint64_t>(16, ids.size() * 4), MemoryKind::Device);
      if (!ids.empty()) device.upload(selection, ids.data(), ids.size() * 4);
      side.selection = &selection;
      side.selected = ids.size();
    }
  }
};

std::vector<gfxq::cpu::JoinTermRef> cpu_terms(const std::vector<JoinTerm>& terms) {
  std::vector<gfxq::cpu::JoinTermRef> out;
  for (const JoinTerm& t : terms) {
    gfxq::cpu::JoinTermRef r;
    r.left = t.left;
    r.right = t.right;
    r.band = t.op == JoinOp::Band;
    r.lo = t.lo;
    r.hi = t.hi;
    switch (t.op) {
      case JoinOp::Lt: r.op = CmpOp::Lt; break;
      case JoinOp::Le: r.op = CmpOp::Le; break;
      case JoinOp::Gt: r.op = CmpOp::Gt; break;
      case JoinOp::Ge: r.op = CmpOp::Ge; break;
      default: r.op = CmpOp::Eq; break;
    }
    out.push_back(r);
  }
  return out;
}

Pairs reference(const HostSide& l, const HostSide& r, const std::vector<JoinTerm>& terms) {
  std::vector<const Column*> lc, rc;
  for (const Column& c : l.keys) lc.push_back(&c);
  for (const Column& c : r.keys) rc.push_back(&c);
  const gfxq::cpu::Pairs p = gfxq::cpu::join_pairs_terms(
      lc, rc, cpu_terms(terms), l.selection ? &*l.selection : nullptr, r.selection ? &*r.selection : nullptr);
  Pairs out;
  for (size_t i = 0; i < p.left.size(); ++i) out.emplace_back(p.left[i], p.right[i]);
  return out;
}

std::vector<uint32_t> download(const Buffer& b, uint64_t n) {
  std::vector<uint32_t> v(n);
  if (n) vk_device().download(b, v.data(), n * 4);
  return v;
}

//! What a GPU join gave: its pairs (chunks concatenated), count, report.
struct GpuJoin {
  Pairs pairs;
  gfxq::vk::JoinResult result;
};

GpuJoin run_gpu(const DeviceSide& l, const DeviceSide& r, const std::vector<JoinTerm>& terms, JoinOptions options) {
  GpuJoin g;
  bool chunked = false;
  if (options.chunk_pairs) {
    chunked = true;
    options.consume = [&](const gfxq::vk::JoinChunk& c) {
      REQUIRE(c.first == g.pairs.size());
      const auto a = download(*c.left, c.count), b = download(*c.right, c.count);
      for (uint64_t i = 0; i < c.count; ++i) g.pairs.emplace_back(a[i], b[i]);
    };
  }
  g.result = gfxq::vk::run_join(vk_device(), l.side, r.side, terms, options);
  if (!chunked && options.output == JoinOutputMode::Pairs && g.result.count) {
    const auto a = download(g.result.left, g.result.count), b = download(g.result.right, g.result.count);
    for (uint64_t i = 0; i < g.result.count; ++i) g.pairs.emplace_back(a[i], b[i]);
  }
  return g;
}

bool needs_equi(JoinAlgorithm a) {
  return a == JoinAlgorithm::SortMerge || a == JoinAlgorithm::HashPartitioned || a == JoinAlgorithm::HashGlobal;
}

bool has_equi(const std::vector<JoinTerm>& terms) {
  return std::any_of(terms.begin(), terms.end(), [](const JoinTerm& t) { return t.op == JoinOp::Eq; });
}

//! Output modes check_join runs: pairs in order, pairs in the algorithm's order, the count.
constexpr int kOrdered = 1, kUnordered = 2, kCount = 4, kAllModes = 7;

//! Runs every applicable algorithm (and Auto) on the case in `modes`, and checks each against the
//! reference. `base` carries test knobs (small blocks, partitions).
void check_join(const std::string& what, const HostSide& l, const HostSide& r, const std::vector<JoinTerm>& terms,
                JoinOptions base = {}, int modes = kAllModes) {
  const Pairs want = reference(l, r, terms);
  Pairs sorted_want = want;  // already (left, right) ordered
  const DeviceSide dl(l), dr(r);
  std::vector<JoinAlgorithm> algorithms(std::begin(kAll), std::end(kAll));
  algorithms.push_back(JoinAlgorithm::Auto);
  std::optional<Pairs> first;
  for (JoinAlgorithm a : algorithms) {
    if (needs_equi(a) && !has_equi(terms)) continue;
    // The global hash join twice: probing the key column by tiles where it can, and with prepared keys.
    for (int variant = 0; variant < (a == JoinAlgorithm::HashGlobal ? 2 : 1); ++variant)
      for (int mode = 0; mode < 3; ++mode) {
        if (!(modes & (1 << mode))) continue;
        JoinOptions o = base;
        o.algorithm = a;
        o.ordered = mode == 0;
        o.output = mode == 2 ? JoinOutputMode::Count : JoinOutputMode::Pairs;
        o.no_tile_probe = variant == 1;
        INFO(what << ": algorithm " << std::string(gfxq::vk::to_string(a)) << (variant ? " (prepared keys)" : "")
                  << (mode == 0   ? ", ordered"
                      : mode == 1 ? ", unordered"
                                  : ", count")
                  << ", " << l.rows() << " x " << r.rows() << " rows, " << want.size() << " pairs expected");
        GpuJoin g = run_gpu(dl, dr, terms, o);
        INFO("ran: " << g.result.algorithm_text << "; reason: " << g.result.reason);
        CHECK(g.result.count == want.size());
        if (mode == 2) continue;
        if (mode == 0) {
          CHECK(g.result.ordered);
        } else {
          std::sort(g.pairs.begin(), g.pairs.end());
        }
        CHECK(g.pairs == sorted_want);
        // The same pair set from every algorithm (also implied by the reference).
        if (!first) first = g.pairs;
        CHECK(g.pairs == *first);
      }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

// --- data

uint32_t fbits(float f) {
  return std::bit_cast<uint32_t>(f);
}

Column ints(std::vector<int32_t> v) {
  return Column::ints("k", std::move(v));
}

Column floats(std::vector<float> v) {
  return Column::floats("k", std::move(v));
}

//! n ints uniform in [lo, hi].
std::vector<int32_t> uniform(uint64_t n, int64_t lo, int64_t hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = int32_t(d(rng));
  return v;
}

//! A permutation of [base, base + n): unique keys.
std::vector<int32_t> unique_keys(uint64_t n, int32_t base, std::mt19937_64& rng) {
  std::vector<int32_t> v(n);
  std::iota(v.begin(), v.end(), base);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

//! n keys Zipf-distributed (exponent z) over ranks 1..k (key = rank * 7).
std::vector<int32_t> zipf(uint64_t n, uint32_t k, double z, std::mt19937_64& rng) {
  std::vector<double> cdf(k);
  double s = 0;
  for (uint32_t i = 0; i < k; ++i) cdf[i] = (s += 1.0 / std::pow(double(i + 1), z));
  std::uniform_real_distribution<double> u(0, s);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = int32_t((std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin() + 1) * 7);
  return v;
}

//! n ints, 90% of them `hot`, the rest uniform in [0, range).
std::vector<int32_t> hot(uint64_t n, int32_t hot_key, int32_t range, std::mt19937_64& rng) {
  std::vector<int32_t> v = uniform(n, 0, range - 1, rng);
  for (auto& x : v)
    if (rng() % 10 != 0) x = hot_key;
  return v;
}

//! n full-range int32 keys, a quarter of them drawn from a small pool (so some match) and the
//! extremes included.
std::vector<int32_t> full_range_ints(uint64_t n, std::mt19937_64& rng) {
  const int32_t pool[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, -1, 1, 16777217, -16777217};
  std::vector<int32_t> v(n);
  for (auto& x : v) x = rng() % 4 == 0 ? pool[rng() % std::size(pool)] : int32_t(uint32_t(rng()));
  return v;
}

//! Float values that stress the total order: both zeros, NaNs of several payloads and signs,
//! infinities, denormals, extremes, integers (some beyond 2^24), fractions.
std::vector<float> special_floats() {
  return {0.0f,
          -0.0f,
          std::bit_cast<float>(0x7fc00000u),
          std::bit_cast<float>(0xffc00001u),
          std::bit_cast<float>(0x7f800001u),
          INFINITY,
          -INFINITY,
          std::bit_cast<float>(0x00000001u),
          std::bit_cast<float>(0x80000001u),
          std::bit_cast<float>(0x007fffffu),
          FLT_MAX,
          -FLT_MAX,
          FLT_MIN,
          1.0f,
          -1.0f,
          0.5f,
          -2.5f,
          3.0f,
          16777216.0f,
          16777218.0f,
          2147483648.0f,
          -2147483648.0f,
          2147483520.0f,
          1e-30f};
}

//! n floats: specials and random bits, some small integers.
std::vector<float> full_range_floats(uint64_t n, std::mt19937_64& rng) {
  const std::vector<float> special = special_floats();
  std::vector<float> v(n);
  for (auto& x : v) {
    const uint64_t r = rng();
    x = r % 3 == 0 ? special[r / 3 % special.size()]
                   : (r % 3 == 1 ? float(int32_t(r >> 40) % 50) : std::bit_cast<float>(uint32_t(r >> 16)));
  }
  return v;
}

//! n ints including the INT values the special floats equal.
std::vector<int32_t> ints_near_floats(uint64_t n, std::mt19937_64& rng) {
  const int32_t pool[] = {0, 1, -1, 3, 16777216, 16777217, 16777218, INT32_MIN, INT32_MAX, 2147483520, 7, -3};
  std::vector<int32_t> v(n);
  for (auto& x : v) x = rng() % 2 ? pool[rng() % std::size(pool)] : int32_t(int64_t(rng() % 100) - 50);
  return v;
}

HostSide side(Column c) {
  HostSide h;
  h.keys.push_back(std::move(c));
  return h;
}

std::vector<JoinTerm> equi() {
  return {JoinTerm{0, 0, JoinOp::Eq, 0, 0}};
}

std::vector<JoinTerm> band(double lo, double hi) {
  return {JoinTerm{0, 0, JoinOp::Band, lo, hi}};
}

uint64_t seed_of(const char* name) {
  uint64_t h = 1469598103934665603ull;
  for (const char* p = name; *p; ++p) h = (h ^ uint8_t(*p)) * 1099511628211ull;
  return h;
}

}  // namespace

TEST_CASE("vk-join: every algorithm on equi-join cases against the CPU reference") {
  const uint64_t seed = seed_of("equi") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  check_join("empty left", side(ints({})), side(ints(uniform(100, 0, 9, rng))), equi());
  check_join("empty right", side(ints(uniform(100, 0, 9, rng))), side(ints({})), equi());
  check_join("no matches", side(ints(uniform(500, 0, 999, rng))), side(ints(uniform(600, 1000, 1999, rng))), equi());
  check_join("unique keys, every probe matches", side(ints(unique_keys(1000, -700, rng))),
             side(ints(unique_keys(1000, -700, rng))), equi());
  check_join("duplicates on both sides", side(ints(uniform(800, 0, 60, rng))), side(ints(uniform(600, 0, 60, rng))),
             equi());
  for (const double z : {0.5, 1.0, 1.5})
    check_join("Zipf z=" + std::to_string(z), side(ints(zipf(1000, 400, z, rng))), side(ints(unique_keys(400, 7, rng))),
               equi());
  check_join("Zipf on both sides", side(ints(zipf(600, 300, 1.0, rng))), side(ints(zipf(500, 300, 1.0, rng))), equi());
  check_join("one key in 90% of the rows (both sides)", side(ints(hot(500, 42, 500, rng))),
             side(ints(hot(400, 42, 500, rng))), equi());
  check_join("full-range INT32", side(ints(full_range_ints(1200, rng))), side(ints(full_range_ints(1000, rng))),
             equi());
  check_join("full-range FLOAT with -0.0, NaN, infinities", side(floats(full_range_floats(1000, rng))),
             side(floats(full_range_floats(900, rng))), equi());
  check_join("INT against FLOAT", side(ints(ints_near_floats(800, rng))), side(floats(full_range_floats(700, rng))),
             equi());
  check_join("FLOAT against INT", side(floats(full_range_floats(700, rng))), side(ints(ints_near_floats(800, rng))),
             equi());
}

TEST_CASE("vk-join: band and non-equi terms (nested loop, indexed loop) against the CPU reference") {
  const uint64_t seed = seed_of("band") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const HostSide l = side(ints(uniform(900, 0, 5000, rng))), r = side(ints(uniform(1100, 0, 5000, rng)));
  check_join("band width 0", l, r, band(0, 0));
  check_join("band width 1", l, r, band(0, 1));
  check_join("band +-8", l, r, band(-8, 8));
  check_join("large band", side(ints(uniform(300, 0, 5000, rng))), side(ints(uniform(400, 0, 5000, rng))),
             band(-1500, 2500));
  check_join("fractional band offsets", l, r, band(-0.5, 2.25));
  check_join("inexact offsets on full-range INT32 (rounded sums)", side(ints(full_range_ints(700, rng))),
             side(ints(full_range_ints(800, rng))), band(-0.1, 0.3));
  check_join("tiny and denormal offsets", side(floats(full_range_floats(600, rng))),
             side(floats(full_range_floats(700, rng))), band(-5e-324, 1e-300));
  check_join("FLOAT band with specials", side(floats(full_range_floats(700, rng))),
             side(floats(full_range_floats(800, rng))), band(-0.75, 1.5));
  check_join("INT probes, FLOAT band", side(ints(ints_near_floats(500, rng))),
             side(floats(full_range_floats(600, rng))), band(-2, 1));
  check_join("FLOAT probes, INT band", side(floats(full_range_floats(500, rng))),
             side(ints(ints_near_floats(600, rng))), band(-1.5, 3.25));
  const HostSide sl = side(ints(uniform(150, 0, 300, rng))), sr = side(ints(uniform(170, 0, 300, rng)));
  for (const JoinOp op : {JoinOp::Lt, JoinOp::Le, JoinOp::Gt, JoinOp::Ge})
    check_join("operator " + std::to_string(int(op)), sl, sr, {JoinTerm{0, 0, op, 0, 0}});
  check_join("< on FLOAT specials", side(floats(full_range_floats(120, rng))),
             side(floats(full_range_floats(130, rng))), {JoinTerm{0, 0, JoinOp::Lt, 0, 0}});
  check_join(">= INT against FLOAT", side(ints(ints_near_floats(110, rng))), side(floats(full_range_floats(140, rng))),
             {JoinTerm{0, 0, JoinOp::Ge, 0, 0}});
}

TEST_CASE("vk-join: multi-column equi keys and mixed conditions") {
  const uint64_t seed = seed_of("multi") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  HostSide l, r;
  l.keys = {ints(uniform(1300, 0, 9, rng)), floats(full_range_floats(1300, rng)), ints(uniform(1300, 0, 3, rng))};
  r.keys = {ints(uniform(1100, 0, 9, rng)), ints(ints_near_floats(1100, rng)), floats(full_range_floats(1100, rng))};
  for (auto& c : l.keys) c.name = "c" + std::to_string(&c - l.keys.data());
  check_join("two equi columns", l, r, {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{2, 0, JoinOp::Eq, 0, 0}});
  check_join("INT = INT and FLOAT = INT", l, r, {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{1, 1, JoinOp::Eq, 0, 0}});
  check_join(
      "equi plus band plus <", l, r,
      {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{2, 1, JoinOp::Band, -2, 40}, JoinTerm{1, 2, JoinOp::Lt, 0, 0}});
  check_join("band and >= (no equi term)", l, r,
             {JoinTerm{0, 0, JoinOp::Band, -1, 1}, JoinTerm{2, 0, JoinOp::Ge, 0, 0}});
}

TEST_CASE("vk-join: sizes around tiles, CSS-tree nodes, blocks and hash partitions") {
  const uint64_t seed = seed_of("sizes") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  JoinOptions knobs;
  knobs.nested_block = 2 * JOIN_WG;  // several build blocks
  knobs.hash_build_rows = 64;        // partitions past the table split into work items
  knobs.hash_partitions = 8;
  for (const uint64_t n : std::initializer_list<uint64_t>{
           1, 2, 15, 16, 17, 255, 256, 257, 511, 513, uint64_t(JOIN_PREPARE_TILE) - 1, uint64_t(JOIN_PREPARE_TILE) + 1,
           uint64_t(JOIN_EXPAND_TILE) + 1, 3 * uint64_t(JOIN_PROBE_TILE) + 5}) {
    check_join("build rows " + std::to_string(n), side(ints(uniform(300, 0, 40, rng))),
               side(ints(uniform(n, 0, 40, rng))), equi(), knobs, kUnordered);
    check_join("probe rows " + std::to_string(n), side(ints(uniform(n, 0, 40, rng))),
               side(ints(uniform(200, 0, 40, rng))), equi(), knobs, kUnordered);
  }
  // Outputs around the expansion tile: n unique probes against n unique builds.
  for (const uint64_t n : {uint64_t(JOIN_EXPAND_TILE) - 1, uint64_t(JOIN_EXPAND_TILE), uint64_t(JOIN_EXPAND_TILE) + 1})
    check_join("pairs " + std::to_string(n), side(ints(unique_keys(n, 0, rng))), side(ints(unique_keys(n, 0, rng))),
               equi(), knobs, kOrdered | kUnordered);
  check_join("band over several blocks", side(ints(uniform(600, 0, 2000, rng))),
             side(ints(uniform(1300, 0, 2000, rng))), band(-3, 3), knobs);
}

TEST_CASE("vk-join: selections on both sides") {
  const uint64_t seed = seed_of("selection") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto select = [&](HostSide h, int keep_percent) {
    std::vector<uint64_t> rows;
    for (uint64_t i = 0; i < h.rows(); ++i)
      if (int(rng() % 100) < keep_percent) rows.push_back(i);
    h.selection = rows;
    return h;
  };
  const HostSide l = side(ints(uniform(1400, 0, 200, rng))), r = side(ints(uniform(1200, 0, 200, rng)));
  check_join("half the rows of each side", select(l, 50), select(r, 50), equi());
  check_join("no selected left row", select(l, 0), r, equi());
  check_join("every row selected", select(l, 100), select(r, 100), equi());
  check_join("selected band", select(l, 30), select(r, 70), band(-2, 5));
  // Unique build keys: the global hash join probes the selected rows' key column by tiles.
  check_join("selected probes of unique keys", select(side(ints(uniform(3 * JOIN_PROBE_TILE + 7, 0, 2500, rng))), 60),
             select(side(ints(unique_keys(2000, 0, rng))), 80), equi());
  check_join("selected INT against FLOAT", select(side(ints(ints_near_floats(900, rng))), 60),
             select(side(floats(full_range_floats(1000, rng))), 40), equi());
}

TEST_CASE("vk-join: chunked output, in order, and ResultTooLarge") {
  const uint64_t seed = seed_of("chunks") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const HostSide l = side(ints(uniform(800, 0, 30, rng))), r = side(ints(uniform(700, 0, 30, rng)));
  const Pairs want = reference(l, r, equi());
  const DeviceSide dl(l), dr(r);
  for (JoinAlgorithm a : kAll) {
    for (const uint64_t chunk : {uint64_t(1000), uint64_t(4097), want.size() - 1}) {
      INFO("algorithm " << std::string(gfxq::vk::to_string(a)) << ", chunks of " << chunk << " pairs, " << want.size()
                        << " pairs");
      JoinOptions o;
      o.algorithm = a;
      o.chunk_pairs = chunk;
      // The partitioned hash join ends chunks between its work items (at most 16 build rows each
      // here, so that every item fits the smallest chunk): possibly more chunks than the fewest.
      const bool hash = a == JoinAlgorithm::HashPartitioned;
      if (hash) o.hash_build_rows = 16;
      GpuJoin g = run_gpu(dl, dr, equi(), o);
      CHECK(g.result.count == want.size());
      if (hash)
        CHECK(g.result.chunks >= (want.size() + chunk - 1) / chunk);
      else
        CHECK(g.result.chunks == (want.size() + chunk - 1) / chunk);
      std::sort(g.pairs.begin(), g.pairs.end());
      CHECK(g.pairs == want);
      // In (left, right) order across chunks where the algorithm writes that order.
      if (a == JoinAlgorithm::NestedLoop || a == JoinAlgorithm::IndexedLoop) {
        o.ordered = true;
        GpuJoin ordered = run_gpu(dl, dr, equi(), o);
        CHECK(ordered.pairs == want);
      } else {
        o.ordered = true;
        o.consume = [](const gfxq::vk::JoinChunk&) {};
        CHECK_THROWS_WITH_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, equi(), o),
                             doctest::Contains("order sort"), Error);
      }
    }
    // Without a consumer: too large for one chunk, naming the size.
    JoinOptions o;
    o.algorithm = a;
    o.chunk_pairs = want.size() - 1;
    try {
      gfxq::vk::run_join(vk_device(), dl.side, dr.side, equi(), o);
      FAIL("no ResultTooLarge");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::ResultTooLarge);
      CHECK(std::string(e.what()).find(std::to_string(want.size()) + " pairs") != std::string::npos);
    }
  }
  // Chunks of candidates that passed residual terms (packed per tile), every algorithm.
  HostSide l2, r2;
  l2.keys = {ints(uniform(700, 0, 20, rng)), ints(uniform(700, 0, 50, rng))};
  r2.keys = {ints(uniform(600, 0, 20, rng)), ints(uniform(600, 0, 50, rng))};
  const std::vector<JoinTerm> residual{JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{1, 1, JoinOp::Lt, 0, 0}};
  const Pairs want2 = reference(l2, r2, residual);
  const DeviceSide dl2(l2), dr2(r2);
  for (JoinAlgorithm a : kAll) {
    INFO("residual terms, algorithm " << std::string(gfxq::vk::to_string(a)) << ", " << want2.size() << " pairs");
    JoinOptions o;
    o.algorithm = a;
    o.chunk_pairs = 777;
    const bool hash = a == JoinAlgorithm::HashPartitioned;
    if (hash) o.hash_build_rows = 16;
    GpuJoin g = run_gpu(dl2, dr2, residual, o);
    if (hash)
      CHECK(g.result.chunks >= (want2.size() + 776) / 777);
    else
      CHECK(g.result.chunks == (want2.size() + 776) / 777);
    std::sort(g.pairs.begin(), g.pairs.end());
    CHECK(g.pairs == want2);
  }
  // A hash work item holds more pairs than one chunk: refused, naming the item and the chunk.
  {
    JoinOptions o;
    o.algorithm = JoinAlgorithm::HashPartitioned;
    o.chunk_pairs = 10;
    o.consume = [](const gfxq::vk::JoinChunk&) {};
    CHECK_THROWS_WITH_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, equi(), o),
                         doctest::Contains("more than one output chunk of 10 pairs"), Error);
  }
  // The device still works after the errors.
  check_join("after ResultTooLarge", l, r, equi());
}

TEST_CASE("vk-join: a skewed key split into several hash work items and residual candidates") {
  const uint64_t seed = seed_of("skew") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  JoinOptions knobs;
  knobs.hash_build_rows = 16;
  knobs.hash_partitions = 2;
  // 90% of 1000 probes and of 200 builds share a key: about 160,000 pairs.
  check_join("product case", side(ints(hot(1000, 5, 100, rng))), side(ints(hot(200, 5, 100, rng))), equi(), knobs);
}

//! The global hash join forced on a case: probing the key column by tiles and prepared keys, the
//! build by 64-bit atomics (where the device has them) and by 32-bit ones, each in order, in its own
//! order and as COUNT(*), against the reference. `duplicates` is whether the build side's keys
//! repeat (the report must name the table layout the build found).
void check_global(const std::string& what, const HostSide& l, const HostSide& r, const std::vector<JoinTerm>& terms,
                  std::optional<bool> duplicates) {
  const Pairs want = reference(l, r, terms);
  const DeviceSide dl(l), dr(r);
  const bool a64 = vk_device().caps().buffer_int64_atomics;
  for (int atomics = 0; atomics < 2; ++atomics)
    for (int variant = 0; variant < 2; ++variant)
      for (int mode = 0; mode < 3; ++mode) {
        JoinOptions o;
        o.algorithm = JoinAlgorithm::HashGlobal;
        o.ordered = mode == 0;
        o.output = mode == 2 ? JoinOutputMode::Count : JoinOutputMode::Pairs;
        o.no_tile_probe = variant == 1;
        o.no_int64_atomics = atomics == 1;
        INFO(what << std::string(atomics ? ", 32-bit atomics" : ", 64-bit atomics where the device has them")
                  << std::string(variant ? ", prepared keys" : ", tile probe")
                  << std::string(mode == 0   ? ", ordered"
                                 : mode == 1 ? ", unordered"
                                             : ", count")
                  << ", " << l.rows() << " x " << r.rows() << " rows, " << want.size() << " pairs expected");
        GpuJoin g = run_gpu(dl, dr, terms, o);
        const std::string& text = g.result.algorithm_text;
        INFO("ran: " << text);
        CHECK(g.result.count == want.size());
        if (l.rows() && r.rows() && (!l.selection || !l.selection->empty()) &&
            (!r.selection || !r.selection->empty())) {
          CHECK(text.find(a64 && !atomics ? "a 64-bit compare-and-swap" : "a 32-bit compare-and-swap") !=
                std::string::npos);
          if (duplicates) CHECK(text.find(*duplicates ? ", duplicate " : ", unique ") != std::string::npos);
          // Unique keys probed by tiles: the host waits once (the total, with the duplicate flag).
          if (duplicates == false && text.find("probed by tiles") != std::string::npos)
            CHECK(std::count_if(g.result.passes.begin(), g.result.passes.end(),
                                [](const gfxq::PassRecord& p) { return p.kind == "download"; }) == 1);
        }
        if (mode == 2) continue;
        if (mode == 0) {
          CHECK(g.result.ordered);
        } else {
          std::sort(g.pairs.begin(), g.pairs.end());
        }
        CHECK(g.pairs == want);
      }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

//! n unique keys: the extremes INT32_MAX (order key 0xFFFFFFFF, the table's empty word), -1 (raw
//! 0xFFFFFFFF), INT32_MIN and 0 among full-range random ones.
std::vector<int32_t> unique_with_extremes(uint64_t n, std::mt19937_64& rng) {
  std::vector<int32_t> v{INT32_MAX, -1, INT32_MIN, 0};
  v.resize(std::min<uint64_t>(n, v.size()));
  std::vector<int32_t> more = full_range_ints(2 * n, rng);
  std::sort(more.begin(), more.end());
  more.erase(std::unique(more.begin(), more.end()), more.end());
  std::shuffle(more.begin(), more.end(), rng);
  for (int32_t x : more)
    if (v.size() < n && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

//! n probe keys drawn from `keys` (three in four) and full-range random ones.
std::vector<int32_t> probes_of(uint64_t n, const std::vector<int32_t>& keys, std::mt19937_64& rng) {
  std::vector<int32_t> v = full_range_ints(n, rng);
  for (auto& x : v)
    if (!keys.empty() && rng() % 4 != 0) x = keys[rng() % keys.size()];
  return v;
}

TEST_CASE("vk-join: the global hash join's table: duplicates, the empty word as a key, dense keys, high load") {
  const uint64_t seed = seed_of("global") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Duplicate build keys: the rows are grouped by slot after the compact build.
  check_global("all build keys equal", side(ints(hot(1500, 5, 40, rng))), side(ints(std::vector<int32_t>(300, 5))),
               equi(), true);
  check_global("Zipf build keys", side(ints(uniform(4000, 1, 1000, rng))), side(ints(zipf(3000, 1000, 1.0, rng))),
               equi(), true);
  check_global("Zipf on both sides", side(ints(zipf(5000, 500, 1.0, rng))), side(ints(zipf(2000, 500, 1.5, rng))),
               equi(), true);
  // The key whose order key is the empty word (INT32_MAX), raw 0xFFFFFFFF (-1), on both sides.
  {
    const std::vector<int32_t> build = unique_with_extremes(3000, rng);
    check_global("extreme keys, unique build keys", side(ints(probes_of(5000, build, rng))), side(ints(build)), equi(),
                 false);
    std::vector<int32_t> twice = build;
    twice.insert(twice.end(), {INT32_MAX, INT32_MAX, -1});
    check_global("extreme keys, repeated build keys", side(ints(probes_of(5000, build, rng))), side(ints(twice)),
                 equi(), true);
  }
  // Dense ranges (direct addressing: slot = key - smallest), ending at INT32_MAX and around the rule's
  // bound (range at most twice the build rows).
  for (const bool repeat : {false, true}) {
    const int32_t top = INT32_MAX;
    std::vector<int32_t> build = unique_keys(2000, top - 1999, rng);
    if (repeat)
      for (int i = 0; i < 300; ++i) build[rng() % build.size()] = top - int32_t(rng() % 50);
    check_global(std::string("dense keys up to INT32_MAX") + (repeat ? " with duplicates" : ""),
                 side(ints(probes_of(3000, build, rng))), side(ints(build)), equi(), repeat);
    std::vector<int32_t> spread(1000);
    for (int32_t i = 0; i < 1000; ++i) spread[i] = -7 + 2 * i;
    spread[999] = -7 + 2000 - 1 + (repeat ? 1 : 0);  // range exactly twice the rows, or one past it
    std::shuffle(spread.begin(), spread.end(), rng);
    check_global(std::string("range ") + (repeat ? "one past" : "exactly") + " twice the build rows",
                 side(ints(uniform(2500, -10, 2000, rng))), side(ints(spread)), equi(), false);
    std::vector<int32_t> dense_dup = uniform(1500, 100, 1599, rng);  // about a third of the keys repeat
    check_global(std::string("dense range with duplicates") + (repeat ? ", probes around it" : ""),
                 side(ints(uniform(2000, repeat ? 50 : 100, repeat ? 1650 : 1599, rng))), side(ints(dense_dup)), equi(),
                 true);
  }
  {
    // Adjacent floats of both signs (+0.0 and denormals): consecutive order keys (direct addressing
    // from the FLOAT range, reduced without flushing denormals).
    std::vector<float> build;
    for (uint32_t i = 0; i < 1000; ++i) {
      build.push_back(std::bit_cast<float>(i));
      build.push_back(std::bit_cast<float>(0x80000001u + i));
    }
    std::shuffle(build.begin(), build.end(), rng);
    std::vector<float> probe(3000);
    for (auto& x : probe)
      x = rng() % 5 ? build[rng() % build.size()] : std::bit_cast<float>(uint32_t(990 + rng() % 20));
    check_global("dense FLOAT order keys", side(floats(probe)), side(floats(build)), equi(), false);
    // The build side with a selection: prepared keys (their range reduced as order keys).
    HostSide sel = side(ints(unique_keys(2000, -1000, rng)));
    std::vector<uint64_t> rows;
    for (uint64_t i = 0; i < 2000; ++i)
      if (rng() % 10) rows.push_back(i);
    sel.selection = rows;
    check_global("dense keys, selected build rows", side(ints(uniform(2500, -1100, 1100, rng))), sel, equi(), false);
  }
  check_global("probe keys absent", side(ints(uniform(3000, 5000, 9000, rng))), side(ints(unique_keys(2000, 0, rng))),
               equi(), false);
  check_global("empty probe side", side(ints({})), side(ints(unique_keys(100, 0, rng))), equi(), std::nullopt);
  check_global("empty build side", side(ints(uniform(100, 0, 10, rng))), side(ints({})), equi(), std::nullopt);
  {
    HostSide none = side(ints(uniform(500, 0, 10, rng)));
    none.selection = std::vector<uint64_t>{};
    check_global("no selected build row", side(ints(uniform(800, 0, 10, rng))), none, equi(), std::nullopt);
  }
  // Probe sides around the tile, unique and repeated build keys.
  for (const uint64_t n : {uint64_t(JOIN_PROBE_TILE) - 1, uint64_t(JOIN_PROBE_TILE), uint64_t(JOIN_PROBE_TILE) + 1,
                           2 * uint64_t(JOIN_PROBE_TILE) + 1}) {
    check_global("probe rows " + std::to_string(n), side(ints(uniform(n, 0, 1200, rng))),
                 side(ints(unique_keys(900, 0, rng))), equi(), false);
    check_global("probe rows " + std::to_string(n) + ", repeated build keys", side(ints(uniform(n, 0, 300, rng))),
                 side(ints(uniform(900, 0, 300, rng))), equi(), true);
  }
  // High load: slots exactly twice the build rows (a power of two), full-range keys (hashing).
  for (const uint64_t n : {uint64_t(32), uint64_t(1) << 15}) {
    const std::vector<int32_t> build = unique_with_extremes(n, rng);
    check_global("table at load 1/2, " + std::to_string(n) + " build rows", side(ints(probes_of(n + 100, build, rng))),
                 side(ints(build)), equi(), false);
  }
  // The prepared probe: residual terms, hashed multi-column keys, INT against FLOAT.
  HostSide l, r;
  l.keys = {ints(uniform(3000, 0, 1999, rng)), ints(uniform(3000, 0, 50, rng))};
  r.keys = {ints(unique_keys(2000, 0, rng)), ints(uniform(2000, 0, 50, rng))};
  check_global("equi plus < (unique build keys)", l, r,
               {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{1, 1, JoinOp::Lt, 0, 0}}, false);
  check_global("two equi columns (hashed, unique)", l, r,
               {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{1, 1, JoinOp::Eq, 0, 0}}, false);
  r.keys[0] = ints(uniform(2000, 0, 400, rng));
  check_global("two equi columns (hashed, repeated)", l, r,
               {JoinTerm{0, 0, JoinOp::Eq, 0, 0}, JoinTerm{1, 1, JoinOp::Eq, 0, 0}}, true);
  check_global("INT against FLOAT (unique)", side(floats(full_range_floats(3000, rng))),
               side(ints(unique_keys(2000, -1000, rng))), equi(), false);
}

TEST_CASE("vk-join: errors name what and why; the next join works") {
  std::mt19937_64 rng(7);
  const HostSide l = side(ints(uniform(100, 0, 9, rng))), r = side(ints(uniform(100, 0, 9, rng)));
  const DeviceSide dl(l), dr(r);
  JoinOptions o;
  o.algorithm = JoinAlgorithm::HashPartitioned;
  CHECK_THROWS_WITH_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, {JoinTerm{0, 0, JoinOp::Lt, 0, 0}}, o),
                       doctest::Contains("needs an equi term"), Error);
  CHECK_THROWS_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, {}, {}), Error);
  CHECK_THROWS_WITH_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, {JoinTerm{3, 0, JoinOp::Eq, 0, 0}}, {}),
                       doctest::Contains("key column 3"), Error);
  o.hash_build_rows = 100;
  CHECK_THROWS_WITH_AS(gfxq::vk::run_join(vk_device(), dl.side, dr.side, equi(), o), doctest::Contains("power of two"),
                       Error);
  check_join("after the errors", l, r, equi());
  // Keys from device columns (vk::upload_column), as the compute backend holds them.
  const gfxq::vk::DeviceColumn cl = gfxq::vk::upload_column(vk_device(), l.keys[0]);
  const gfxq::vk::DeviceColumn cr = gfxq::vk::upload_column(vk_device(), r.keys[0]);
  gfxq::vk::JoinSide sl, sr;
  sl.keys = {gfxq::vk::join_key(cl)};
  sl.rows = cl.rows;
  sr.keys = {gfxq::vk::join_key(cr)};
  sr.rows = cr.rows;
  CHECK(gfxq::vk::run_join(vk_device(), sl, sr, equi(), {}).count == reference(l, r, equi()).size());
  CHECK(gfxq::vk::parse_join_algorithm("sort-merge") == JoinAlgorithm::SortMerge);
  CHECK_THROWS_AS(gfxq::vk::parse_join_algorithm("bogus"), Error);
}

TEST_CASE("vk-join: the chooser's rule") {
  gfxq::vk::JoinShape s;
  s.terms = equi();
  s.hash_build_rows = 1024;
  s.left_rows = 100;
  s.right_rows = 100;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::NestedLoop);
  s.left_rows = uint64_t(1) << 22;
  s.right_rows = uint64_t(1) << 22;
  const auto mid = gfxq::vk::choose_join(s, JoinAlgorithm::Auto);
  CHECK(mid.algorithm == JoinAlgorithm::HashPartitioned);
  CHECK(mid.reason.find("4194304") != std::string::npos);
  s.left_rows = uint64_t(1) << 24;
  s.right_rows = uint64_t(1) << 24;
  const auto big = gfxq::vk::choose_join(s, JoinAlgorithm::Auto);
  CHECK(big.algorithm == JoinAlgorithm::SortMerge);  // build sides of kSortMergeRows and more
  CHECK(big.reason.find("16777216") != std::string::npos);
  s.stats.right_min = 0;
  s.stats.right_max = (int64_t(1) << 24) - 1;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::HashGlobal);
  s.stats = {};
  // Build keys known to be distinct: the global table up to kGlobalUniqueRows; the other side's
  // knowledge does not count.
  s.stats.left_unique = true;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::SortMerge);
  s.stats.right_unique = true;
  const auto distinct = gfxq::vk::choose_join(s, JoinAlgorithm::Auto);
  CHECK(distinct.algorithm == JoinAlgorithm::HashGlobal);
  CHECK(distinct.reason.find("known to be distinct") != std::string::npos);
  s.left_rows = s.right_rows = gfxq::vk::kGlobalUniqueRows * 2;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::SortMerge);
  s.left_rows = s.right_rows = uint64_t(1) << 24;
  s.stats = {};
  s.right_rows = 1000;
  const auto small_build = gfxq::vk::choose_join(s, JoinAlgorithm::Auto);
  CHECK(small_build.algorithm == JoinAlgorithm::HashGlobal);
  CHECK_FALSE(small_build.swap);
  s.left_rows = 1000;
  s.right_rows = uint64_t(1) << 24;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).swap);  // the smaller (left) side is built
  s.ordered = true;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::IndexedLoop);
  s.ordered = false;
  s.terms = band(-8, 8);
  const auto b = gfxq::vk::choose_join(s, JoinAlgorithm::Auto);
  CHECK(b.algorithm == JoinAlgorithm::IndexedLoop);
  CHECK_FALSE(b.swap);  // a band fixes the sides
  s.terms = equi();
  s.hash_build_rows = 0;
  s.left_rows = s.right_rows = uint64_t(1) << 24;
  CHECK(gfxq::vk::choose_join(s, JoinAlgorithm::Auto).algorithm == JoinAlgorithm::SortMerge);
  const auto forced = gfxq::vk::choose_join(s, JoinAlgorithm::NestedLoop);
  CHECK(forced.algorithm == JoinAlgorithm::NestedLoop);
  CHECK(forced.reason.find("forced") != std::string::npos);
}

TEST_CASE("vk-join: merge-path partitions and the CSS-tree against the CPU") {
  const uint64_t seed = seed_of("primitives") ^ std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto& device = vk_device();
  auto upload = [&](const std::vector<uint32_t>& v, uint64_t capacity) {
    Buffer b = device.create_buffer(std::max<uint64_t>(16, capacity * 4), MemoryKind::Device);
    if (!v.empty()) device.upload(b, v.data(), v.size() * 4);
    return b;
  };
  for (const uint64_t n : std::initializer_list<uint64_t>{0, 1, 16, 17, 300, 4097}) {
    for (const uint64_t m : std::initializer_list<uint64_t>{0, 5, 256, 3000}) {
      std::vector<uint32_t> a(n), b(m);
      for (auto& x : a) x = uint32_t(rng() % 50) * 0x05000000u;  // duplicates, and keys near the top
      for (auto& x : b) x = uint32_t(rng() % 50) * 0x05000000u;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      const Buffer da = upload(a, n), db = upload(b, m);
      for (const auto ties : {gfxq::vk::MergeTies::AFirst, gfxq::vk::MergeTies::BFirst}) {
        const uint32_t step = 37;
        const uint64_t parts = gfxq::vk::merge_path_parts(n, m, step);
        const Buffer out = device.create_buffer(parts * 4 + 16, MemoryKind::Device);
        gfxq::vk::MergePathArgs args;
        args.n = n;
        args.m = m;
        args.ties = ties;
        args.step = step;
        args.a = {&da, 0, std::max<uint64_t>(4, n * 4)};
        args.b = {&db, 0, std::max<uint64_t>(4, m * 4)};
        args.out = {&out, 0, parts * 4};
        device.submit([&](VkCommandBuffer cmd) { gfxq::vk::record_merge_path(device, cmd, args); });
        const std::vector<uint32_t> got = download(out, parts);
        // The reference: merge with the tie rule, count a's elements among the first d.
        std::vector<uint32_t> want;
        uint64_t i = 0, j = 0;
        for (uint64_t t = 0; t < parts; ++t) {
          const uint64_t d = std::min<uint64_t>(t * step, n + m);
          while (i + j < d) {
            const bool take_a = j == m || (i < n && (ties == gfxq::vk::MergeTies::AFirst ? a[i] <= b[j] : a[i] < b[j]));
            take_a ? ++i : ++j;
          }
          want.push_back(uint32_t(i));
        }
        INFO("n " << n << ", m " << m << ", ties " << int(ties));
        CHECK(got == want);
      }
    }
  }
  // CSS-tree: every key, its neighbours and the extremes searched through the indexed loop's probe
  // (a probe's count is upper bound - lower bound), at sizes around node and level boundaries,
  // against std::lower_bound / upper_bound on the sorted keys.
  for (const uint64_t n : std::initializer_list<uint64_t>{1, 15, 16, 17, 256, 257, 4096, 4097, 70000}) {
    const auto layout = gfxq::vk::css_tree_layout(n);
    CHECK(layout.len.size() == layout.levels + 1);
    std::vector<int32_t> keys = uniform(n, -1000000, 1000000, rng);
    std::vector<int32_t> probes;
    for (int32_t k : keys) probes.insert(probes.end(), {k, k - 1, k + 1});
    probes.insert(probes.end(), {INT32_MIN, INT32_MAX});
    std::vector<int32_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    INFO("CSS-tree over " << n << " keys: " << layout.describe());
    JoinOptions o;
    o.algorithm = JoinAlgorithm::IndexedLoop;
    o.output = JoinOutputMode::Count;
    const HostSide l = side(ints(probes)), r = side(ints(keys));
    const DeviceSide dl(l), dr(r);
    for (const JoinOp op : {JoinOp::Eq, JoinOp::Lt, JoinOp::Ge}) {
      uint64_t want = 0;
      for (const int32_t p : probes) {
        const uint64_t below = std::lower_bound(sorted.begin(), sorted.end(), p) - sorted.begin();
        const uint64_t upto = std::upper_bound(sorted.begin(), sorted.end(), p) - sorted.begin();
        want += op == JoinOp::Eq ? upto - below : (op == JoinOp::Lt ? n - upto : upto);
      }
      INFO("operator " << int(op));
      CHECK(run_gpu(dl, dr, {JoinTerm{0, 0, op, 0, 0}}, o).result.count == want);
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}
