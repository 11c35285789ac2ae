// DISTINCT and the set operations of the CPU engine, by whole-row keys (each cell's order key and
// NULL flag; equal values have equal keys, so −0.0 = 0.0 and NaN = NaN). Strings are first moved to
// the output's dictionary so both operands' codes mean the same strings.

#include <map>
#include <unordered_map>

#include "cpu/exec/ops.h"

namespace gfxq::cpu {

namespace {

using RowKey = std::vector<uint64_t>;

struct RowHash {
  size_t operator()(const RowKey& k) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w : k) h = (h ^ w) * 0xbf58476d1ce4e5b9ull, h ^= h >> 31;
    return size_t(h);
  }
};

// The relation's columns, strings re-coded to the node's dictionaries.
std::vector<Column> columns_of(const plan::Node& node, const HostRelation& in) {
  std::vector<Column> cols;
  for (size_t i = 0; i < node.schema.size(); ++i) {
    Column c = recode(in.column(i), node.schema[i].dictionary);
    c.name = node.schema[i].name;
    cols.push_back(std::move(c));
  }
  return cols;
}

std::vector<RowKey> row_keys(const std::vector<Column>& cols, uint64_t rows) {
  std::vector<CellKeys> keys;
  for (const auto& c : cols) keys.push_back(cell_keys(c));
  std::vector<RowKey> out(rows, RowKey(2 * cols.size()));
  for (uint64_t r = 0; r < rows; ++r)
    for (size_t i = 0; i < keys.size(); ++i) {
      out[r][2 * i] = keys[i].is_null(r);
      out[r][2 * i + 1] = keys[i].key[r];
    }
  return out;
}

// The rows `pick` of `cols` (first) and `more` of `cols2` after them.
HostRelation rows_of(const std::vector<Column>& cols, const std::vector<uint64_t>& pick,
                     const std::vector<Column>* cols2 = nullptr, const std::vector<uint64_t>* more = nullptr) {
  Table out;
  for (size_t i = 0; i < cols.size(); ++i) {
    Column c = gather_column(cols[i], pick, cols[i].name);
    if (cols2) {
      const Column d = gather_column((*cols2)[i], *more, cols[i].name);
      std::visit(
          [&](auto& dst) {
            dst.insert(dst.end(), std::get<std::decay_t<decltype(dst)>>(d.data).begin(),
                       std::get<std::decay_t<decltype(dst)>>(d.data).end());
          },
          c.data);
      if (!c.nulls.empty() || !d.nulls.empty()) {
        c.nulls.resize(pick.size(), 0);
        if (d.nulls.empty())
          c.nulls.resize(pick.size() + more->size(), 0);
        else
          c.nulls.insert(c.nulls.end(), d.nulls.begin(), d.nulls.end());
      }
    }
    out.columns.push_back(std::move(c));
  }
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = pick.size() + (more ? more->size() : 0);
  return r;
}

}  // namespace

HostRelation run_distinct(const plan::Node& node, const HostRelation& in, std::string& how) {
  const auto cols = columns_of(node, in);
  const auto keys = row_keys(cols, in.rows());
  std::unordered_map<RowKey, bool, RowHash> seen;
  std::vector<uint64_t> keep;
  for (uint64_t r = 0; r < in.rows(); ++r)
    if (seen.emplace(keys[r], true).second) keep.push_back(r);
  how = "hash set of whole rows, first appearances kept";
  return rows_of(cols, keep);
}

HostRelation run_set_op(const plan::Node& node, const HostRelation& left, const HostRelation& right, std::string& how) {
  const auto lc = columns_of(node, left), rc = columns_of(node, right);
  const auto lk = row_keys(lc, left.rows()), rk = row_keys(rc, right.rows());
  std::vector<uint64_t> lkeep, rkeep;
  std::unordered_map<RowKey, uint64_t, RowHash> count;  // rows of the right side per key (or seen marks)
  switch (node.set_op) {
    case plan::SetOpKind::Union:
      if (node.all) {
        for (uint64_t r = 0; r < left.rows(); ++r) lkeep.push_back(r);
        for (uint64_t r = 0; r < right.rows(); ++r) rkeep.push_back(r);
      } else {
        for (uint64_t r = 0; r < left.rows(); ++r)
          if (count.emplace(lk[r], 1).second) lkeep.push_back(r);
        for (uint64_t r = 0; r < right.rows(); ++r)
          if (count.emplace(rk[r], 1).second) rkeep.push_back(r);
      }
      break;
    case plan::SetOpKind::Intersect:
    case plan::SetOpKind::Except: {
      const bool intersect = node.set_op == plan::SetOpKind::Intersect;
      for (uint64_t r = 0; r < right.rows(); ++r) ++count[rk[r]];
      std::unordered_map<RowKey, uint64_t, RowHash> used;
      for (uint64_t r = 0; r < left.rows(); ++r) {
        const auto it = count.find(lk[r]);
        const uint64_t in_right = it == count.end() ? 0 : it->second;
        uint64_t& u = used[lk[r]];
        if (node.all) {
          // Bag semantics: INTERSECT ALL keeps min(l, r) copies (the first ones); EXCEPT ALL drops the
          // first r copies of each row and keeps the rest.
          if (intersect ? u < in_right : u >= in_right) lkeep.push_back(r);
          ++u;
        } else if (u++ == 0 && (intersect ? in_right > 0 : in_right == 0)) {
          lkeep.push_back(r);
        }
      }
      break;
    }
  }
  const char* name = node.set_op == plan::SetOpKind::Union       ? "UNION"
                     : node.set_op == plan::SetOpKind::Intersect ? "INTERSECT"
                                                                 : "EXCEPT";
  how = std::string(name) + (node.all ? " ALL" : "") + " by hash tables of whole rows";
  return rows_of(lc, lkeep, &rc, &rkeep);
}

}  // namespace gfxq::cpu
