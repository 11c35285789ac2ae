// Red Fox's relational skeletons on the Vulkan compute path (src/vk/operators/skeletons): the
// multi-column row sort, DISTINCT and set operations of whole rows, and the PRODUCT, called directly,
// against the CPU engine's cell keys (cpu::cell_keys, the oracle's order and equality) with logged
// seeds. The SQL-level comparisons with the CPU engine are in test_engine_compute_skeletons.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <random>

#include "cpu/exec/ops.h"
#include "gpu_support.h"
#include "skeleton_config.glsl"
#include "test_support.h"
#include "vk/operators/skeletons/product.h"
#include "vk/operators/skeletons/rows.h"
#include "vk/relational/select.h"

namespace {

using namespace gfxq;
using test::vk_device;

// Host columns of every type the skeletons read, and their device words.
struct Rows {
  std::vector<Column> columns;
  std::vector<vk::Buffer> buffers;  // word0, word1, nulls per column (empty buffers unused)
  std::vector<vk::skel::PlaneSource> sources;
};

vk::Buffer upload_words(const std::vector<uint32_t>& w) {
  vk::Buffer b = vk_device().create_buffer(vk::padded_bytes(w.size()), vk::MemoryKind::Device);
  if (!w.empty()) vk_device().upload(b, w.data(), w.size() * 4);
  return b;
}

Rows device_rows(std::vector<Column> columns);

// `n` rows of INT (few values), FLOAT (with -0.0, NaN payloads, ±inf), BIGINT (extremes), DOUBLE
// (-0.0, NaN) and DATE; NULLs in every 5th row of the last two when `nulls`.
Rows make_rows(std::mt19937_64& rng, size_t n, int range, bool nulls) {
  Rows r;
  std::uniform_int_distribution<int> v(0, range - 1), pick(0, 19);
  std::vector<int32_t> a(n), d(n);
  std::vector<float> f(n);
  std::vector<int64_t> big(n);
  std::vector<double> dbl(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = v(rng) - range / 2;
    d[i] = 9000 + v(rng);
    f[i] = float(v(rng)) / 2;
    big[i] = int64_t(v(rng)) << 33;
    dbl[i] = double(v(rng)) / 4;
    const int p = pick(rng);
    if (p == 0) f[i] = -0.0f, dbl[i] = -0.0;
    if (p == 1) {
      uint32_t nan = 0x7fc00000u | uint32_t(v(rng));
      std::memcpy(&f[i], &nan, 4);
      dbl[i] = -std::numeric_limits<double>::quiet_NaN();
    }
    if (p == 2) f[i] = -std::numeric_limits<float>::infinity(), big[i] = INT64_MIN;
    if (p == 3) big[i] = INT64_MAX;
  }
  Column bc = Column::make("big", Type::Int64), dc = Column::make("dbl", Type::Float64);
  bc.data = std::move(big);
  dc.data = std::move(dbl);
  r.columns = {Column::ints("a", a), Column::floats("f", f), bc, dc, Column::dates("d", d)};
  if (nulls)
    for (size_t c = 3; c < 5; ++c) {
      r.columns[c].nulls.assign(n, 0);
      for (size_t i = 0; i < n; i += 5) r.columns[c].nulls[i] = 1;
    }
  return device_rows(std::move(r.columns));
}

//! The device words of `columns`.
Rows device_rows(std::vector<Column> columns) {
  Rows r;
  r.columns = std::move(columns);
  const size_t n = r.columns.empty() ? 0 : r.columns[0].size();
  r.buffers.reserve(3 * r.columns.size());
  for (const Column& c : r.columns) {
    std::vector<uint32_t> lo(n), hi(n), fl(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      std::visit([&](const auto& x) { std::memcpy(&bits, &x[i], sizeof(x[i])); }, c.data);
      lo[i] = uint32_t(bits);
      hi[i] = uint32_t(bits >> 32);
      fl[i] = c.is_null(i);
    }
    r.buffers.push_back(upload_words(lo));
    r.buffers.push_back(upload_words(hi));
    r.buffers.push_back(upload_words(fl));
    vk::skel::PlaneSource s;
    s.word0 = &r.buffers[r.buffers.size() - 3];
    s.word1 = &r.buffers[r.buffers.size() - 2];
    if (!c.nulls.empty()) s.nulls = &r.buffers.back();
    r.sources.push_back(s);
  }
  return r;
}

std::vector<vk::skel::RowColumn> row_columns(const Rows& l, const Rows* r, const std::vector<size_t>& pick,
                                             const std::vector<bool>& desc) {
  std::vector<vk::skel::RowColumn> out;
  for (size_t i = 0; i < pick.size(); ++i) {
    vk::skel::RowColumn c;
    c.type = l.columns[pick[i]].type;
    c.left = l.sources[pick[i]];
    if (r) c.right = r->sources[pick[i]];
    c.descending = desc[i];
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("vk-skeletons: the row sort equals a stable sort by the CPU engine's cell keys") {
  const std::vector<size_t> sizes{0, 1, 2, 255, 256, 257, 6143, 6144, 6145, 12289, 30000};
  for (size_t s = 0; s < sizes.size(); ++s) {
    const uint64_t seed = 500 + s;
    std::mt19937_64 rng(seed);
    const size_t n = sizes[s];
    const Rows rows = make_rows(rng, n, s % 2 ? 3 : 5000, s % 3 == 0);
    const std::vector<size_t> pick{4, 3, 1, 2, 0};
    const std::vector<bool> desc{bool(s % 2), true, false, bool(s % 3 == 1), false};
    std::vector<cpu::CellKeys> keys;
    for (size_t c : pick) keys.push_back(cpu::cell_keys(rows.columns[c]));
    // Every row, and every third row (a selection).
    for (const bool all : {true, false}) {
      vk::skel::RowsInput in;
      in.columns = row_columns(rows, nullptr, pick, desc);
      in.left_rows = n;
      in.all = all;
      std::vector<uint32_t> want;
      for (uint32_t i = 0; i < n; ++i)
        if (all || i % 3 == 0) want.push_back(i);
      if (!all) in.ids = want;
      std::stable_sort(want.begin(), want.end(), [&](uint32_t x, uint32_t y) {
        for (size_t k = 0; k < keys.size(); ++k)
          if (const int c = keys[k].compare(x, y)) return desc[k] ? c > 0 : c < 0;
        return false;
      });
      for (const uint32_t lookback : {16384u, 0u}) {
        CAPTURE(seed);
        CAPTURE(n);
        CAPTURE(all);
        CAPTURE(lookback);
        std::vector<PassRecord> passes;
        std::string how;
        const auto got = vk::skel::sort_rows(vk_device(), in, UINT64_MAX, passes, how, {lookback});
        CHECK(got == want);
        const auto top = vk::skel::sort_rows(vk_device(), in, 10, passes, how, {lookback});
        CHECK(top == std::vector<uint32_t>(want.begin(), want.begin() + std::min<size_t>(10, want.size())));
        if (n > 1)
          CHECK(how.find(std::to_string(vk::skel::key_planes(in.columns)) + " 32-bit key plane") != std::string::npos);
      }
    }
    GFXQ_CHECK_NO_VK_MESSAGES();
  }
}

TEST_CASE("vk-skeletons: DISTINCT and set operations keep the rows the CPU engine keeps") {
  using vk::skel::SetKind;
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {300, 257}, {6145, 2000}};
  for (size_t s = 0; s < sizes.size(); ++s) {
    const uint64_t seed = 600 + s;
    std::mt19937_64 rng(seed);
    const auto [nl, nr] = sizes[s];
    const int range = s % 2 ? 2 : 6;
    const Rows l = make_rows(rng, nl, range, true), r = make_rows(rng, nr, range, true);
    const std::vector<size_t> pick{0, 1, 2, 3};
    const std::vector<bool> asc(4, false);
    // Whole-row keys of the CPU engine's cells: left rows, then right rows.
    auto row_key = [&](size_t id) {
      const Rows& side = id < nl ? l : r;
      const size_t row = id < nl ? id : id - nl;
      std::vector<uint64_t> k;
      for (size_t c : pick) {
        const cpu::CellKeys ck = cpu::cell_keys(side.columns[c]);
        k.push_back(ck.is_null(row));
        k.push_back(ck.is_null(row) ? 0 : ck.key[row]);
      }
      return k;
    };
    std::vector<std::vector<uint64_t>> keys;
    for (size_t id = 0; id < nl + nr; ++id) keys.push_back(row_key(id));
    for (const SetKind kind : {SetKind::Distinct, SetKind::Union, SetKind::Intersect, SetKind::IntersectAll,
                               SetKind::Except, SetKind::ExceptAll}) {
      CAPTURE(seed);
      const std::string kind_name = vk::skel::to_string(kind);
      CAPTURE(kind_name);
      const bool distinct = kind == SetKind::Distinct;
      vk::skel::RowsInput in;
      in.columns = row_columns(l, distinct ? nullptr : &r, pick, asc);
      in.left_rows = nl;
      in.right_rows = distinct ? 0 : nr;
      // The CPU engine's rule (cpu/exec/set_ops.cpp), on the cell keys.
      std::map<std::vector<uint64_t>, uint64_t> right_count, used;
      if (!distinct)
        for (size_t id = nl; id < nl + nr; ++id) ++right_count[keys[id]];
      std::vector<uint32_t> want;
      for (size_t id = 0; id < nl + (distinct || kind != SetKind::Union ? 0 : nr); ++id) {
        const uint64_t in_right = right_count.count(keys[id]) ? right_count[keys[id]] : 0;
        uint64_t& u = used[keys[id]];
        bool keep = false;
        if (kind == SetKind::Distinct || kind == SetKind::Union) keep = u == 0;
        if (kind == SetKind::Intersect) keep = u == 0 && in_right > 0;
        if (kind == SetKind::Except) keep = u == 0 && in_right == 0;
        if (kind == SetKind::IntersectAll) keep = u < in_right;
        if (kind == SetKind::ExceptAll) keep = u >= in_right;
        ++u;
        if (keep) want.push_back(uint32_t(id));
      }
      std::vector<PassRecord> passes;
      std::string how;
      CHECK(vk::skel::set_rows(vk_device(), in, kind, passes, how) == want);
    }
    GFXQ_CHECK_NO_VK_MESSAGES();
  }
}

TEST_CASE("vk-skeletons: PRODUCT pairs in (left row, right row) order, chunked, through selections") {
  // Right sides around product.comp's vectors (4 positions) and steps (1024 positions), chunks that
  // start inside a left row's run and end inside a vector, and random shapes (logged seed).
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> shapes{
      {0, 5, 0},        {1, 1, 0},       {3, 257, 100},   {257, 3, 256},   {100, 100, 1},
      {1000, 70, 4097}, {4099, 1, 0},    {2050, 2, 0},    {1500, 3, 0},    {9, 1023, 0},
      {9, 1024, 0},     {9, 1025, 0},    {5, 1023, 1027}, {5, 1024, 4095}, {7, 1025, 1024},
      {3, 5000, 4097},  {4100, 1, 1025}, {1, 4099, 4},    {2000, 3, 5}};
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 4; ++i) {
    const uint64_t nl = 1 + rng() % 300, nr = 1 + rng() % 1200;
    shapes.emplace_back(nl, nr, rng() % 2 ? 0 : 1 + rng() % (nl * nr));
  }
  for (const auto& [nl, nr, chunk] : shapes) {
    CAPTURE(nl);
    CAPTURE(nr);
    CAPTURE(chunk);
    std::vector<uint32_t> lsel(nl), rsel(nr);
    for (uint32_t i = 0; i < nl; ++i) lsel[i] = 3 * i + 1;
    for (uint32_t i = 0; i < nr; ++i) rsel[i] = 2 * i;
    const vk::Buffer lb = upload_words(lsel), rb = upload_words(rsel);
    for (const bool selected : {false, true}) {
      vk::skel::ProductInput in{nl, nr, selected ? &lb : nullptr, selected ? &rb : nullptr};
      std::vector<uint32_t> gl, gr;
      uint64_t chunks = 0;
      vk::skel::ProductOptions o;
      o.chunk_pairs = chunk;
      o.consume = [&](const vk::skel::ProductChunk& c) {
        CHECK(c.first == gl.size());
        gl.resize(c.first + c.count);
        gr.resize(c.first + c.count);
        vk_device().download(*c.left, gl.data() + c.first, c.count * 4);
        vk_device().download(*c.right, gr.data() + c.first, c.count * 4);
        ++chunks;
      };
      std::vector<PassRecord> passes;
      CHECK(vk::skel::product(vk_device(), in, o, passes) == nl * nr);
      REQUIRE(gl.size() == nl * nr);
      for (uint64_t p = 0; p < nl * nr; ++p) {
        const uint32_t l = uint32_t(p / nr), r = uint32_t(p % nr);
        if (gl[p] != (selected ? lsel[l] : l) || gr[p] != (selected ? rsel[r] : r)) {
          FAIL("pair " << p << " is (" << gl[p] << ", " << gr[p] << ")");
          break;
        }
      }
      if (chunk != 0 && nl * nr != 0) CHECK(chunks == (nl * nr + chunk - 1) / chunk);
    }
  }
  vk::skel::ProductOptions none;
  std::vector<PassRecord> passes;
  CHECK_THROWS_AS(vk::skel::product(vk_device(), {2, 2, nullptr, nullptr}, none, passes), Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-skeletons: PRODUCT columns written directly (product_gather) from any first position") {
  // One word plane of each side written as the output column over a range [first, first + count)
  // of the pairs, with and without the sides' selections, right sides around the kernel's vectors
  // and steps; the host's pairs are the oracle (logged seed).
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const auto& [nl, nr] : std::vector<std::pair<uint64_t, uint64_t>>{
           {1, 1}, {5, 1}, {7, 2}, {9, 3}, {4, 1023}, {4, 1024}, {4, 1025}, {300, 17}, {2, 4099}}) {
    CAPTURE(nl);
    CAPTURE(nr);
    std::vector<uint32_t> lv(nl), rv(nr), lsel(nl), rsel(nr);
    for (auto& v : lv) v = uint32_t(rng());
    for (auto& v : rv) v = uint32_t(rng());
    // The selections pick rows of planes twice as long.
    std::vector<uint32_t> lplane(2 * nl), rplane(2 * nr);
    for (auto& v : lplane) v = uint32_t(rng());
    for (auto& v : rplane) v = uint32_t(rng());
    for (uint64_t i = 0; i < nl; ++i) lsel[i] = uint32_t(rng() % (2 * nl));
    for (uint64_t i = 0; i < nr; ++i) rsel[i] = uint32_t(rng() % (2 * nr));
    const vk::Buffer lb = upload_words(lv), rb = upload_words(rv), lpb = upload_words(lplane),
                     rpb = upload_words(rplane), lsb = upload_words(lsel), rsb = upload_words(rsel);
    const uint64_t total = nl * nr;
    for (const bool selected : {false, true}) {
      const vk::skel::ProductInput in{nl, nr, selected ? &lsb : nullptr, selected ? &rsb : nullptr};
      const uint64_t first = rng() % total, count = 1 + rng() % (total - first);
      CAPTURE(selected);
      CAPTURE(first);
      CAPTURE(count);
      vk::Buffer lo = vk_device().create_buffer(vk::padded_bytes(count), vk::MemoryKind::Device);
      vk::Buffer ro = vk_device().create_buffer(vk::padded_bytes(count), vk::MemoryKind::Device);
      vk_device().submit([&](VkCommandBuffer cmd) {
        vk::skel::record_product_gather(vk_device(), cmd, in, false, selected ? lpb : lb, first, count, lo);
        vk::skel::record_product_gather(vk_device(), cmd, in, true, selected ? rpb : rb, first, count, ro);
      });
      std::vector<uint32_t> gl(count), gr(count);
      vk_device().download(lo, gl.data(), count * 4);
      vk_device().download(ro, gr.data(), count * 4);
      uint64_t wrong = 0;
      std::string first_wrong;
      for (uint64_t i = 0; i < count; ++i) {
        const uint64_t l = (first + i) / nr, r = (first + i) % nr;
        const uint32_t wl = selected ? lplane[lsel[l]] : lv[l], wr = selected ? rplane[rsel[r]] : rv[r];
        if ((gl[i] != wl || gr[i] != wr) && wrong++ == 0)
          first_wrong = "position " + std::to_string(first + i) + " is (" + std::to_string(gl[i]) + ", " +
                        std::to_string(gr[i]) + "), want (" + std::to_string(wl) + ", " + std::to_string(wr) + ")";
      }
      CHECK_MESSAGE(wrong == 0, first_wrong);
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-skeletons: hash DISTINCT equals the sort-based DISTINCT and the CPU rule; the rule picks it") {
  using vk::skel::DistinctAlgorithm;
  const std::vector<size_t> sizes{0, 1, 2, 255, 257, 5000, 40000};
  for (size_t s = 0; s < sizes.size(); ++s) {
    const uint64_t seed = 700 + s;
    std::mt19937_64 rng(seed);
    const size_t n = sizes[s];
    const Rows rows = make_rows(rng, n, s % 2 ? 3 : 300, true);
    // a, f, d (with NULLs): 4 planes; big: 2 planes; dbl, d (both with NULLs): 6 planes.
    for (const std::vector<size_t>& pick : {std::vector<size_t>{0, 1, 4}, {2}, {3, 4}}) {
      vk::skel::RowsInput in;
      in.columns = row_columns(rows, nullptr, pick, std::vector<bool>(pick.size(), false));
      in.left_rows = n;
      for (const bool all : {true, false}) {
        in.all = all;
        in.ids.clear();
        if (!all)
          for (uint32_t i = 0; i < n; i += 2) in.ids.push_back(i);
        CAPTURE(seed);
        CAPTURE(n);
        CAPTURE(pick.size());
        CAPTURE(all);
        std::vector<PassRecord> passes;
        std::string how;
        vk::skel::SkeletonOptions sort_opt;
        sort_opt.distinct = DistinctAlgorithm::Sort;
        const auto want = vk::skel::set_rows(vk_device(), in, vk::skel::SetKind::Distinct, passes, how, sort_opt);
        CHECK(how.rfind("sort-based", 0) == 0);
        // The CPU rule on the cell keys: first appearances.
        std::map<std::vector<uint64_t>, bool> seen;
        std::vector<uint32_t> cpu;
        std::vector<cpu::CellKeys> keys;
        for (size_t c : pick) keys.push_back(cpu::cell_keys(rows.columns[c]));
        for (uint32_t i = 0; i < n; ++i) {
          if (!all && i % 2) continue;
          std::vector<uint64_t> k;
          for (const auto& ck : keys) k.push_back(ck.is_null(i)), k.push_back(ck.is_null(i) ? 0 : ck.key[i]);
          if (seen.emplace(k, true).second) cpu.push_back(i);
        }
        CHECK(want == cpu);
        const bool hashable = vk::skel::key_planes(in.columns) <= 4;
        vk::skel::SkeletonOptions hash_opt;
        hash_opt.distinct = DistinctAlgorithm::Hash;
        if (hashable) {
          CHECK(vk::skel::set_rows(vk_device(), in, vk::skel::SetKind::Distinct, passes, how, hash_opt) == cpu);
          CHECK(how.rfind("hash DISTINCT (forced)", 0) == 0);
        } else {
          CHECK_THROWS_AS(vk::skel::set_rows(vk_device(), in, vk::skel::SetKind::Distinct, passes, how, hash_opt),
                          Error);
        }
        // The rule: dense when the key ranges allow (dense_set_test below), else hash within its limits.
        CHECK(vk::skel::set_rows(vk_device(), in, vk::skel::SetKind::Distinct, passes, how) == cpu);
        if (how.rfind("dense DISTINCT (rule", 0) != 0) {
          CHECK(how.find("rule: not dense") != std::string::npos);
          CHECK(how.find(hashable ? "hash DISTINCT (rule" : "rule: not hashed") != std::string::npos);
        }
      }
    }
    GFXQ_CHECK_NO_VK_MESSAGES();
  }
}

namespace {

// The CPU engine's rule (cpu/exec/set_ops.cpp) on whole-row keys: `keys` of every row id (left ids
// below nl), `taking` the ascending ids taking part.
std::vector<uint32_t> cpu_set_rule(const std::vector<std::vector<uint64_t>>& keys, size_t nl,
                                   const std::vector<uint32_t>& taking, vk::skel::SetKind kind) {
  using vk::skel::SetKind;
  std::map<std::vector<uint64_t>, uint64_t> right_count, used;
  for (uint32_t id : taking)
    if (id >= nl) ++right_count[keys[id]];
  std::vector<uint32_t> want;
  for (uint32_t id : taking) {
    if (id >= nl && kind != SetKind::Union && kind != SetKind::Distinct) break;
    const uint64_t in_right = right_count.count(keys[id]) ? right_count[keys[id]] : 0;
    uint64_t& u = used[keys[id]];
    bool keep = false;
    if (kind == SetKind::Distinct || kind == SetKind::Union) keep = u == 0;
    if (kind == SetKind::Intersect) keep = u == 0 && in_right > 0;
    if (kind == SetKind::Except) keep = u == 0 && in_right == 0;
    if (kind == SetKind::IntersectAll) keep = u < in_right;
    if (kind == SetKind::ExceptAll) keep = u >= in_right;
    ++u;
    if (keep) want.push_back(id);
  }
  return want;
}

// make_rows' columns and two more INTs: x of extremes (INT32_MIN and INT32_MAX in rows 0 and 1) and
// u of distinct values i - n / 2.
Rows make_wide_rows(std::mt19937_64& rng, size_t n, int range) {
  std::vector<Column> cols = make_rows(rng, n, range, true).columns;
  const int32_t extremes[] = {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX - 1, INT32_MAX};
  std::vector<int32_t> x(n), u(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : extremes[rng() % 7];
    u[i] = int32_t(i) - int32_t(n / 2);
  }
  cols.push_back(Column::ints("x", x));
  cols.push_back(Column::ints("u", u));
  return device_rows(std::move(cols));
}

}  // namespace

TEST_CASE("vk-skeletons: dense and packed DISTINCT and set operations equal the CPU rule, forced and by the rule") {
  using vk::skel::DistinctAlgorithm;
  using vk::skel::SetKind;
  const std::vector<std::pair<size_t, size_t>> sizes{{0, 0},     {1, 0},     {0, 1},       {1, 1},
                                                     {255, 257}, {256, 256}, {4097, 4095}, {20000, 12000}};
  // Columns: 0 a, 1 f (-0.0, NaN), 2 big (extremes), 3 dbl (NULLs), 4 d (NULLs), 5 x (INT32
  // extremes), 6 u (distinct). Dense: {0}, {6}, {4, 0} when narrow; packed, not dense: {5}, {1};
  // not packed (wide keys, one sort per plane): {2, 0}.
  const std::vector<std::vector<size_t>> picks{{0}, {6}, {4, 0}, {5}, {1}, {2, 0}, {0, 1, 4}};
  for (size_t s = 0; s < sizes.size(); ++s) {
    const uint64_t seed = 900 + s;
    std::mt19937_64 rng(seed);
    const auto [nl, nr] = sizes[s];
    const int range = s % 3 == 0 ? 1 : s % 3 == 1 ? 4 : 300;  // 1: all rows equal (but x, u)
    const Rows l = make_wide_rows(rng, nl, range), r = make_wide_rows(rng, nr, range);
    for (const std::vector<size_t>& pick : picks) {
      std::vector<cpu::CellKeys> lkeys, rkeys;
      for (size_t c : pick)
        lkeys.push_back(cpu::cell_keys(l.columns[c])), rkeys.push_back(cpu::cell_keys(r.columns[c]));
      std::vector<std::vector<uint64_t>> keys;
      for (size_t id = 0; id < nl + nr; ++id) {
        const std::vector<cpu::CellKeys>& side = id < nl ? lkeys : rkeys;
        const size_t row = id < nl ? id : id - nl;
        std::vector<uint64_t> k;
        for (const cpu::CellKeys& ck : side) {
          k.push_back(ck.is_null(row));
          k.push_back(ck.is_null(row) ? 0 : ck.key[row]);
        }
        keys.push_back(k);
      }
      for (const SetKind kind : {SetKind::Distinct, SetKind::Union, SetKind::Intersect, SetKind::IntersectAll,
                                 SetKind::Except, SetKind::ExceptAll}) {
        const bool distinct = kind == SetKind::Distinct;
        const bool all_kind = kind == SetKind::IntersectAll || kind == SetKind::ExceptAll;
        for (const bool all : {true, false}) {
          if (!all && s % 2 == 0) continue;  // selections on every other size
          vk::skel::RowsInput in;
          in.columns = row_columns(l, distinct ? nullptr : &r, pick, std::vector<bool>(pick.size(), false));
          in.left_rows = nl;
          in.right_rows = distinct ? 0 : nr;
          in.all = all;
          std::vector<uint32_t> taking;
          for (uint32_t id = 0; id < in.left_rows + in.right_rows; ++id)
            if (all || id % 3 != 1) taking.push_back(id);
          if (!all) in.ids = taking;
          const std::vector<uint32_t> want = cpu_set_rule(keys, nl, taking, kind);
          for (const DistinctAlgorithm algorithm :
               {DistinctAlgorithm::Auto, DistinctAlgorithm::Sort, DistinctAlgorithm::Dense}) {
            for (const bool pack : {true, false}) {
              // One sort per plane (the unpacked path, also tested above) for a narrow and a wide pick.
              if (!pack && (algorithm != DistinctAlgorithm::Sort || (pick.size() == 1 && pick[0] != 0))) continue;
              const std::string kind_name = vk::skel::to_string(kind);
              CAPTURE(seed);
              CAPTURE(kind_name);
              CAPTURE(pick.size());
              CAPTURE(pick[0]);
              CAPTURE(all);
              CAPTURE(int(algorithm));
              CAPTURE(pack);
              vk::skel::SkeletonOptions options;
              (distinct ? options.distinct : options.set) = algorithm;
              options.pack = pack;
              std::vector<PassRecord> passes;
              std::string how;
              CAPTURE(how);
              if (algorithm == DistinctAlgorithm::Dense && all_kind) {
                CHECK_THROWS_AS(vk::skel::set_rows(vk_device(), in, kind, passes, how, options), Error);
                continue;
              }
              std::vector<uint32_t> got;
              try {
                got = vk::skel::set_rows(vk_device(), in, kind, passes, how, options);
              } catch (const Error& e) {
                // Only a forced dense table over key ranges that do not fit may refuse.
                CHECK(algorithm == DistinctAlgorithm::Dense);
                CHECK(e.code() == ErrorCode::Unsupported);
                CHECK(std::string(e.what()).find("exceed") != std::string::npos);
                const bool must_fit = pick == std::vector<size_t>{0} || pick == std::vector<size_t>{6};
                CHECK(!must_fit);
                continue;
              }
              CHECK(got == want);
              if (taking.empty()) continue;
              if (algorithm == DistinctAlgorithm::Sort) {
                CHECK(how.rfind("sort-based", 0) == 0);
                const bool wide = pick == std::vector<size_t>{2, 0} && nl + nr > 1000;
                if (!pack || wide) CHECK(how.find("packed into one 32-bit key") == std::string::npos);
                if (pack && (pick.size() == 1)) CHECK(how.find("packed into one 32-bit key") != std::string::npos);
              }
              // The rule takes the dense table for narrow keys, never for INT32 extremes.
              if (algorithm == DistinctAlgorithm::Auto && !all_kind) {
                if (pick == std::vector<size_t>{0} || pick == std::vector<size_t>{6}) CHECK(how.rfind("dense", 0) == 0);
                if (pick == std::vector<size_t>{5} && taking.size() > 2 && taking[0] == 0 && taking[1] == 1)
                  CHECK(how.find("rule: not dense") != std::string::npos);
              }
            }
          }
        }
      }
    }
    GFXQ_CHECK_NO_VK_MESSAGES();
  }
}

TEST_CASE("vk-skeletons: the dense table's limit, 2^16 slots or twice the rows, decides the rule at its edge") {
  using vk::skel::SetKind;
  const uint64_t seed = 950;
  std::mt19937_64 rng(seed);
  CAPTURE(seed);
  // Keys spanning exactly `span` values (the ends present) over n rows: dense while span <= max(2^16, 2n).
  for (const auto& [n, span] : std::vector<std::pair<size_t, uint32_t>>{
           {1000, 65536}, {1000, 65537}, {40000, 80000}, {40000, 80001}, {256, 1}, {257, 65536}}) {
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = int32_t(rng() % span) - 7;
    v[0] = -7;
    v[n - 1] = int32_t(span - 1) - 7;
    const Rows rows = device_rows({Column::ints("v", v)});
    vk::skel::RowsInput in;
    in.columns = row_columns(rows, nullptr, {0}, {false});
    in.left_rows = n;
    std::vector<std::vector<uint64_t>> keys;
    for (size_t i = 0; i < n; ++i) keys.push_back({uint64_t(v[i]) & 0xffffffffu});
    std::vector<uint32_t> taking(n);
    std::iota(taking.begin(), taking.end(), 0u);
    std::vector<PassRecord> passes;
    std::string how;
    CAPTURE(n);
    CAPTURE(span);
    CHECK(vk::skel::set_rows(vk_device(), in, SetKind::Distinct, passes, how) ==
          cpu_set_rule(keys, n, taking, SetKind::Distinct));
    CAPTURE(how);
    const bool dense = span <= std::max<uint64_t>(65536, 2 * n);
    CHECK((how.rfind("dense DISTINCT (rule", 0) == 0) == dense);
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-skeletons: known value ranges (column statistics) replace the range pass, exact or wider") {
  using vk::skel::SetKind;
  for (const auto& [nl, nr] : std::vector<std::pair<size_t, size_t>>{{1, 0}, {300, 257}, {5000, 7000}}) {
    const uint64_t seed = 960 + nl;
    std::mt19937_64 rng(seed);
    CAPTURE(seed);
    const Rows l = make_wide_rows(rng, nl, 40), r = make_wide_rows(rng, nr, 40);
    // a (narrow), u (distinct), x (INT32 extremes: packs alone, never dense).
    for (const std::vector<size_t>& pick : {std::vector<size_t>{0, 6}, {5}, {6}}) {
      std::vector<std::vector<uint64_t>> keys;
      for (size_t id = 0; id < nl + nr; ++id) {
        std::vector<uint64_t> k;
        for (size_t c : pick) {
          const Column& col = (id < nl ? l : r).columns[c];
          k.push_back(0);
          k.push_back(uint64_t(uint32_t(col.as<int32_t>()[id < nl ? id : id - nl])));
        }
        keys.push_back(k);
      }
      for (const SetKind kind : {SetKind::Distinct, SetKind::Union, SetKind::Intersect, SetKind::IntersectAll,
                                 SetKind::Except, SetKind::ExceptAll}) {
        const bool distinct = kind == SetKind::Distinct;
        for (const int32_t widen : {0, 1000}) {
          vk::skel::RowsInput in;
          in.columns = row_columns(l, distinct ? nullptr : &r, pick, std::vector<bool>(pick.size(), false));
          in.left_rows = nl;
          in.right_rows = distinct ? 0 : nr;
          for (size_t i = 0; i < pick.size(); ++i) {
            int64_t lo = INT32_MAX, hi = INT32_MIN;
            for (const Rows* side : {&l, distinct ? nullptr : &r})
              if (side)
                for (int32_t v : side->columns[pick[i]].as<int32_t>())
                  lo = std::min<int64_t>(lo, v), hi = std::max<int64_t>(hi, v);
            in.columns[i].range = std::pair{int32_t(std::max<int64_t>(INT32_MIN, lo - widen)),
                                            int32_t(std::min<int64_t>(INT32_MAX, hi + widen))};
          }
          std::vector<uint32_t> taking(in.left_rows + in.right_rows);
          std::iota(taking.begin(), taking.end(), 0u);
          std::vector<PassRecord> passes;
          std::string how;
          const std::string kind_name = vk::skel::to_string(kind);
          CAPTURE(kind_name);
          CAPTURE(pick.size());
          CAPTURE(widen);
          CHECK(vk::skel::set_rows(vk_device(), in, kind, passes, how) == cpu_set_rule(keys, nl, taking, kind));
          CAPTURE(how);
          CHECK(std::none_of(passes.begin(), passes.end(), [](const PassRecord& p) { return p.kind == "row-ranges"; }));
        }
      }
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

namespace {

// One INT column over two operands made of runs of equal rows: run v has runs[v].first left rows and
// runs[v].second right rows (DISTINCT: all of them left), its value distinct and in the runs' order
// when `ordered`, else random, the rows of each side shuffled (seeded), so that runs cross
// set_mark.comp's tiles where their lengths say.
struct RunRows {
  Rows left, right;
  std::vector<std::vector<uint64_t>> keys;  // by row id, as cpu_set_rule reads them
  size_t nl = 0, nr = 0;
};

RunRows run_rows(std::mt19937_64& rng, const std::vector<std::pair<uint32_t, uint32_t>>& runs, bool one_side,
                 bool ordered) {
  std::vector<int32_t> values(runs.size());
  for (size_t v = 0; v < runs.size(); ++v) values[v] = int32_t(v) * 3 - 1000;
  if (!ordered) std::shuffle(values.begin(), values.end(), rng);
  std::vector<int32_t> l, r;
  for (size_t v = 0; v < runs.size(); ++v) {
    l.insert(l.end(), runs[v].first + (one_side ? runs[v].second : 0), values[v]);
    if (!one_side) r.insert(r.end(), runs[v].second, values[v]);
  }
  std::shuffle(l.begin(), l.end(), rng);
  std::shuffle(r.begin(), r.end(), rng);
  RunRows out;
  out.nl = l.size();
  out.nr = r.size();
  for (const int32_t v : l) out.keys.push_back({0, uint64_t(uint32_t(v))});
  for (const int32_t v : r) out.keys.push_back({0, uint64_t(uint32_t(v))});
  out.left = device_rows({Column::ints("v", l)});
  out.right = device_rows({Column::ints("v", r)});
  return out;
}

}  // namespace

TEST_CASE("vk-skeletons: the fused set marks resolve runs across tiles, one-sided runs, empty sides, single rows") {
  using vk::skel::DistinctAlgorithm;
  using vk::skel::SetKind;
  const uint32_t tile = SET_TILE;
  const uint64_t seed = 1300;
  std::mt19937_64 rng(seed);
  CAPTURE(seed);
  // Runs as (left rows, right rows).
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>> shapes{
      {"single left row", {{1, 0}}},
      {"single right row", {{0, 1}}},
      {"one row each side", {{1, 1}}},
      {"all equal, left only, several tiles", {{3 * tile + 5, 0}}},
      {"all equal, right only", {{0, tile + 1}}},
      {"all equal, both sides, several tiles", {{2 * tile + 1, tile + 3}}},
      {"all equal, the left side ending at a tile's edge", {{tile, tile - 1}}},
      {"runs around the tile's length",
       {{tile - 1, 0},
        {1, 0},
        {tile, 1},
        {0, tile + 1},
        {tile - 1, tile},
        {2, 2},
        {0, 1},
        {1, tile + 1},
        {tile + 1, 3}}},
      {"empty left side", {{0, 5}, {0, 300}, {0, 1}}},
      {"empty right side", {{7, 0}, {300, 0}, {1, 0}}},
  };
  // Many short runs and some long ones, each side sometimes empty.
  std::vector<std::pair<uint32_t, uint32_t>> mixed;
  for (int v = 0; v < 400; ++v) {
    const uint32_t len = v % 50 == 0 ? tile + uint32_t(rng() % tile) : uint32_t(rng() % 9);
    const uint32_t kind = uint32_t(rng() % 4);  // left only, right only, both, both (split at random)
    const uint32_t l = kind == 0 ? len : kind == 1 ? 0 : uint32_t(rng() % (len + 1));
    if (len) mixed.push_back({l, len - l});
  }
  shapes.emplace_back("mixed runs", mixed);
  // In this order (sorted positions as listed), with tiles edges at multiples of `tile` and halos of
  // SKELETON_WG positions each side: runs crossing an edge that start 100 and 300 before it, whose
  // left rows end 100, 200, 0 and 300 after it and that end 150, 400, 600 and 700 after it, and a
  // right-only run across one.
  const std::vector<std::pair<uint32_t, uint32_t>> edges{{tile - 100, 0}, {200, 50},  {tile - 450, 0}, {500, 200},
                                                         {tile - 500, 0}, {100, 600}, {tile - 900, 0}, {600, 400},
                                                         {500, 0},        {0, 1348},  {300, 0}};
  shapes.emplace_back("edge runs against the halos", edges);
  for (const auto& [name, runs] : shapes) {
    CAPTURE(name);
    const bool ordered = name == "edge runs against the halos";
    for (const SetKind kind : {SetKind::Distinct, SetKind::Union, SetKind::Intersect, SetKind::IntersectAll,
                               SetKind::Except, SetKind::ExceptAll}) {
      const bool distinct = kind == SetKind::Distinct;
      const RunRows rr = run_rows(rng, runs, distinct, ordered);
      for (const bool all : {true, false}) {
        vk::skel::RowsInput in;
        in.columns = row_columns(rr.left, distinct ? nullptr : &rr.right, {0}, {false});
        in.left_rows = rr.nl;
        in.right_rows = rr.nr;
        in.all = all;
        std::vector<uint32_t> taking;
        for (uint32_t id = 0; id < rr.nl + rr.nr; ++id)
          if (all || id % 3 != 1) taking.push_back(id);
        if (!all) in.ids = taking;
        const std::vector<uint32_t> want = cpu_set_rule(rr.keys, rr.nl, taking, kind);
        for (const bool pack : {true, false}) {
          const std::string kind_name = vk::skel::to_string(kind);
          CAPTURE(kind_name);
          CAPTURE(all);
          CAPTURE(pack);
          vk::skel::SkeletonOptions options;
          (distinct ? options.distinct : options.set) = DistinctAlgorithm::Sort;
          options.pack = pack;
          std::vector<PassRecord> passes;
          std::string how;
          CHECK(vk::skel::set_rows(vk_device(), in, kind, passes, how, options) == want);
          CAPTURE(how);
          if (taking.empty()) continue;
          CHECK(how.find("fused marks: one pass over " +
                         std::string(pack ? "the sorted packed keys" : "the run numbers")) != std::string::npos);
        }
      }
    }
  }
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-skeletons: the dense table inserted in forced key slices equals the CPU rule") {
  using vk::skel::DistinctAlgorithm;
  using vk::skel::SetKind;
  // One INT column whose values span `span` (both ends present), either spread over it or clustered at
  // its two ends (so that the middle slices hold no key); or three INT columns of a few values each (3
  // planes: the packed pre-pass of the first before the insert); all rows and a selection.
  struct Case {
    size_t nl, nr;
    uint32_t span;
    bool clustered;
    bool planes3;
  };
  const std::vector<Case> cases{{1, 0, 1, false, false},           {1, 1, 1, false, false},
                                {3000, 2000, 3, false, false},     {5000, 4000, 65536, true, false},
                                {6000, 3000, 20000, false, false}, {4097, 4095, 0, false, true}};
  for (size_t c = 0; c < cases.size(); ++c) {
    const uint64_t seed = 1310 + c;
    std::mt19937_64 rng(seed);
    CAPTURE(seed);
    const Case& k = cases[c];
    std::vector<size_t> pick{0};
    Rows l, r;
    if (k.planes3) {
      auto three = [&](size_t n) {
        std::vector<int32_t> a(n), b(n), d(n);
        for (size_t i = 0; i < n; ++i)
          a[i] = int32_t(rng() % 5), b[i] = int32_t(rng() % 7) - 3, d[i] = int32_t(rng() % 11);
        return device_rows({Column::ints("a", a), Column::ints("b", b), Column::ints("d", d)});
      };
      l = three(k.nl);
      r = three(k.nr);
      pick = {0, 1, 2};
    } else {
      auto values = [&](size_t n) {
        std::vector<int32_t> v(n);
        for (size_t i = 0; i < n; ++i) {
          const uint32_t x = uint32_t(rng() % (k.clustered ? std::min<uint32_t>(k.span, 20) : k.span));
          v[i] = int32_t(k.clustered && rng() % 2 ? k.span - 1 - x : x) - 5;
        }
        return v;
      };
      std::vector<int32_t> lv = values(k.nl), rv = values(k.nr);
      if (k.nl) lv[0] = -5;                                      // the range's low end
      (k.nr ? rv.back() : lv.back()) = int32_t(k.span - 1) - 5;  // and its high end
      l = device_rows({Column::ints("v", lv)});
      r = device_rows({Column::ints("v", rv)});
    }
    std::vector<cpu::CellKeys> lkeys, rkeys;
    for (size_t col : pick)
      lkeys.push_back(cpu::cell_keys(l.columns[col])), rkeys.push_back(cpu::cell_keys(r.columns[col]));
    std::vector<std::vector<uint64_t>> keys;
    for (size_t id = 0; id < k.nl + k.nr; ++id) {
      std::vector<uint64_t> key;
      for (size_t p = 0; p < pick.size(); ++p) {
        const cpu::CellKeys& ck = (id < k.nl ? lkeys : rkeys)[p];
        const size_t row = id < k.nl ? id : id - k.nl;
        key.push_back(ck.is_null(row));
        key.push_back(ck.is_null(row) ? 0 : ck.key[row]);
      }
      keys.push_back(key);
    }
    for (const SetKind kind : {SetKind::Distinct, SetKind::Union, SetKind::Intersect, SetKind::Except}) {
      const bool distinct = kind == SetKind::Distinct;
      for (const bool all : {true, false}) {
        vk::skel::RowsInput in;
        in.columns = row_columns(l, distinct ? nullptr : &r, pick, std::vector<bool>(pick.size(), false));
        in.left_rows = k.nl;
        in.right_rows = distinct ? 0 : k.nr;
        in.all = all;
        std::vector<uint32_t> taking;
        for (uint32_t id = 0; id < in.left_rows + in.right_rows; ++id)
          if (all || id % 4 != 2) taking.push_back(id);
        if (!all) in.ids = taking;
        const std::vector<uint32_t> want = cpu_set_rule(keys, k.nl, taking, kind);
        for (const uint32_t slices : {0u, 1u, 2u, 3u, 7u}) {
          const std::string kind_name = vk::skel::to_string(kind);
          CAPTURE(kind_name);
          CAPTURE(all);
          CAPTURE(slices);
          vk::skel::SkeletonOptions options;
          (distinct ? options.distinct : options.set) = DistinctAlgorithm::Dense;
          options.dense_slices = slices;
          std::vector<PassRecord> passes;
          std::string how;
          CHECK(vk::skel::set_rows(vk_device(), in, kind, passes, how, options) == want);
          CAPTURE(how);
          if (taking.empty()) continue;
          // The rule keeps these small tables in one slice.
          CHECK(how.find("inserted in " + std::to_string(slices ? slices : 1) + " key slice(s) (" +
                         (slices ? "forced" : "rule: ")) != std::string::npos);
        }
      }
    }
  }
  // More slices than one may force.
  const Rows rows = device_rows({Column::ints("v", {1, 2, 2})});
  vk::skel::RowsInput in;
  in.columns = row_columns(rows, nullptr, {0}, {false});
  in.left_rows = 3;
  vk::skel::SkeletonOptions options;
  options.dense_slices = 1025;
  std::vector<PassRecord> passes;
  std::string how;
  CHECK_THROWS_AS(vk::skel::set_rows(vk_device(), in, SetKind::Distinct, passes, how, options), Error);
  GFXQ_CHECK_NO_VK_MESSAGES();
}

TEST_CASE("vk-skeletons: the dense slices' rule takes one slice per cache budget of the table, up to its most") {
  using vk::skel::kDenseMaxSlices;
  using vk::skel::kDenseSliceBytes;
  CHECK(vk::skel::dense_slices_rule(0) == 1);
  for (uint64_t parts = 1; parts <= kDenseMaxSlices + 2; ++parts) {
    CAPTURE(parts);
    const uint32_t want = parts > kDenseMaxSlices ? 1 : uint32_t(parts);
    CHECK(vk::skel::dense_slices_rule(parts * kDenseSliceBytes) == want);
    CHECK(vk::skel::dense_slices_rule((parts - 1) * kDenseSliceBytes + 1) == want);
  }
}
