// The CPU join: pairs in (left row, right row) order. Equi-joins probe a hash table of the right
// side's key tuples with each left row in turn; band joins without keys use join_pairs_terms (sorted
// right keys, a binary search per left row); a join with neither pairs every row. The residual
// condition then filters the pairs. NULL keys match nothing (SQL), NaN keys match NaN keys (gfxq's
// total order).

#include <bit>
#include <cmath>
#include <unordered_map>

#include "core/host_memory.h"
#include "cpu/exec/eval.h"
#include "cpu/exec/ops.h"
#include "cpu/internal.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

// A key cell as a number both sides encode alike: integers (INT, BIGINT, DATE, codes) by value;
// a FLOAT or DOUBLE by its double value when it is an integer that an int64 holds, else by its
// canonical double bits with a tag no integer encoding has.
struct KeyCell {
  uint64_t word = 0;
  uint8_t tag = 0;  // 0 integer, 1 non-integer double
  bool operator==(const KeyCell&) const = default;
};

KeyCell key_cell(const Column& c, uint64_t r) {
  double d = 0;
  switch (c.type) {
    case Type::Int32:
    case Type::Date:
    case Type::String: return {std::bit_cast<uint64_t>(int64_t(c.as<int32_t>()[r])), 0};
    case Type::Int64: return {std::bit_cast<uint64_t>(c.as<int64_t>()[r]), 0};
    case Type::Float32: d = c.as<float>()[r]; break;
    case Type::Float64: d = c.as<double>()[r]; break;
  }
  if (std::isnan(d)) return {0x7ff8000000000000ull, 1};
  if (d == std::trunc(d) && d >= -0x1p63 && d < 0x1p63) return {std::bit_cast<uint64_t>(int64_t(d)), 0};
  return {std::bit_cast<uint64_t>(d), 1};
}

struct TupleHash {
  size_t operator()(const std::vector<KeyCell>& k) const noexcept {
    uint64_t h = 1469598103934665603ull;
    for (const auto& c : k) h = (h ^ c.word ^ (uint64_t(c.tag) << 63)) * 1099511628211ull;
    return size_t(h ^ (h >> 29));
  }
};

bool any_null(const std::vector<const Column*>& cols, uint64_t r) {
  for (const Column* c : cols)
    if (c->is_null(r)) return true;
  return false;
}

}  // namespace

HostRelation run_join(const plan::Node& node, const HostRelation& left, const HostRelation& right, std::string& how) {
  std::vector<uint64_t> lrows, rrows;
  if (!node.equi.empty()) {
    std::vector<const Column*> lk, rk;
    for (const auto& [l, r] : node.equi) {
      lk.push_back(&left.column(l));
      rk.push_back(&right.column(r));
    }
    std::unordered_map<std::vector<KeyCell>, std::vector<uint64_t>, TupleHash> table;
    std::vector<KeyCell> key(lk.size());
    for (uint64_t r = 0; r < right.rows(); ++r) {
      if (any_null(rk, r)) continue;
      for (size_t i = 0; i < rk.size(); ++i) key[i] = key_cell(*rk[i], r);
      table[key].push_back(r);
    }
    // Each left row's matches, counted first: a result larger than the host can hold is refused
    // before the pairs are allocated.
    std::vector<const std::vector<uint64_t>*> matches(left.rows(), nullptr);
    uint64_t total = 0;
    for (uint64_t l = 0; l < left.rows(); ++l) {
      if (any_null(lk, l)) continue;
      for (size_t i = 0; i < lk.size(); ++i) key[i] = key_cell(*lk[i], l);
      if (const auto it = table.find(key); it != table.end()) {
        matches[l] = &it->second;
        total += it->second.size();
      }
    }
    check_host_bytes(total, 2 * sizeof(uint64_t), 0, "the join's " + std::to_string(total) + " row pairs");
    lrows.reserve(total);
    rrows.reserve(total);
    for (uint64_t l = 0; l < left.rows(); ++l) {
      if (!matches[l]) continue;
      for (uint64_t r : *matches[l]) {
        lrows.push_back(l);
        rrows.push_back(r);
      }
    }
    how =
        "hash table of the right side's " + std::to_string(node.equi.size()) + "-column keys, probed by each left row";
    if (node.band) {
      // Keys and a band: the band filters the key matches.
      const plan::Band& b = *node.band;
      const JoinTermRef term{0, 0, CmpOp::Eq, true, b.lo, b.hi};
      std::vector<uint64_t> kl, kr;
      const Column& lc = left.column(b.left);
      const Column& rc = right.column(b.right);
      for (size_t i = 0; i < lrows.size(); ++i)
        if (!lc.is_null(lrows[i]) && !rc.is_null(rrows[i]) &&
            join_term_holds(term, cell_double(lc, lrows[i]), cell_double(rc, rrows[i]))) {
          kl.push_back(lrows[i]);
          kr.push_back(rrows[i]);
        }
      lrows = std::move(kl);
      rrows = std::move(kr);
      how += ", then the band";
    }
  } else if (node.band) {
    const plan::Band& b = *node.band;
    const Column& lc = left.column(b.left);
    const Column& rc = right.column(b.right);
    std::vector<uint64_t> lsel, rsel;
    for (uint64_t r = 0; r < left.rows(); ++r)
      if (!lc.is_null(r)) lsel.push_back(r);
    for (uint64_t r = 0; r < right.rows(); ++r)
      if (!rc.is_null(r)) rsel.push_back(r);
    const Pairs p = join_pairs_terms({&lc}, {&rc}, {JoinTermRef{0, 0, CmpOp::Eq, true, b.lo, b.hi}}, &lsel, &rsel);
    lrows = p.left;
    rrows = p.right;
    how = "band: right keys sorted, a binary search per left row";
  } else {
    const unsigned __int128 pairs = static_cast<unsigned __int128>(left.rows()) * right.rows();
    check_host_bytes(pairs >> 64 ? UINT64_MAX : static_cast<uint64_t>(pairs), 2 * sizeof(uint64_t), 0,
                     "PRODUCT of " + std::to_string(left.rows()) + " and " + std::to_string(right.rows()) + " rows");
    for (uint64_t l = 0; l < left.rows(); ++l)
      for (uint64_t r = 0; r < right.rows(); ++r) {
        lrows.push_back(l);
        rrows.push_back(r);
      }
    how = "every pair (product)";
  }
  const size_t lw = left.columns.size();
  Table out;
  for (size_t i = 0; i < lw; ++i) out.columns.push_back(gather_column(left.column(i), lrows, node.schema[i].name));
  for (size_t i = 0; i < right.columns.size(); ++i)
    out.columns.push_back(gather_column(right.column(i), rrows, node.schema[lw + i].name));
  HostRelation joined = HostRelation::of(std::move(out));
  joined.row_count = lrows.size();
  if (!node.residual) return joined;
  const std::vector<uint64_t> keep = true_rows(*node.residual, joined);
  Table filtered;
  for (size_t i = 0; i < node.schema.size(); ++i)
    filtered.columns.push_back(gather_column(joined.column(i), keep, node.schema[i].name));
  how += "; residual " + node.residual->text + " filters the pairs";
  HostRelation r = HostRelation::of(std::move(filtered));
  r.row_count = keep.size();
  return r;
}

}  // namespace gfxq::cpu
