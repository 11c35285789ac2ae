// The CPU sort: a stable sort of row ids by the sort keys' cell keys, most significant first; NULL
// sorts first ascending and last descending (as SQLite).

#include <algorithm>
#include <numeric>

#include "cpu/exec/ops.h"

namespace gfxq::cpu {

HostRelation run_sort(const plan::Node& node, const HostRelation& in, std::string& how) {
  std::vector<CellKeys> keys;
  for (const auto& k : node.sort_keys) keys.push_back(cell_keys(in.column(k.column)));
  std::vector<uint64_t> rows(in.rows());
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](uint64_t a, uint64_t b) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const int c = keys[i].compare(a, b);
      if (c) return node.sort_keys[i].descending ? c > 0 : c < 0;
    }
    return false;
  });
  Table out;
  for (size_t i = 0; i < node.schema.size(); ++i)
    out.columns.push_back(gather_column(in.column(i), rows, node.schema[i].name));
  how = "stable sort of row ids by " + std::to_string(keys.size()) + " key" + (keys.size() > 1 ? "s" : "");
  HostRelation r = HostRelation::of(std::move(out));
  r.row_count = rows.size();
  return r;
}

}  // namespace gfxq::cpu
