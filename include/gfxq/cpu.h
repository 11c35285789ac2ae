#pragma once
//! \file cpu.h
//! The CPU reference engine: simple and obviously right; the oracle for every GPU result.

#include <string>
#include <string_view>
#include <vector>

#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"

namespace gfxq::cpu {

//! Answers any query of the SQL subset (selections, aggregates, quantiles, GROUP BY,
//! ORDER BY, LIMIT, equi and band joins). The report names backend cpu.
Result execute(const Query& query, const Catalog& catalog);

//! Row ids (ascending) of the rows of `table` (named `name` for qualified columns) that
//! satisfy `where`.
std::vector<uint64_t> select_rows(const Table& table, std::string_view name, const Cnf& where);

//! PROJECT: the named columns, in the given order, all rows (duplicates kept).
Table project(const Table& table, const std::vector<std::string>& columns);
//! PRODUCT: every pair (a row, b row), a-major; columns named `a_name.col` and `b_name.col`.
Table product(const Table& a, std::string_view a_name, const Table& b, std::string_view b_name);
//! UNION: distinct rows of a then b, first appearance order. Schemas must match (types by
//! position; names from a). Float cells compare in the total order (-0.0 == 0.0, NaN == NaN).
Table set_union(const Table& a, const Table& b);
//! INTERSECT: distinct rows of a that also occur in b, first appearance order.
Table set_intersect(const Table& a, const Table& b);
//! EXCEPT: distinct rows of a that do not occur in b, first appearance order.
Table set_except(const Table& a, const Table& b);

}  // namespace gfxq::cpu
