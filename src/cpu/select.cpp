// Selections: WHERE conditions evaluated row by row, exactly, in the total order.

#include "core/order_key.h"
#include "cpu/internal.h"
#include "gfxq/cpu.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

// int32 and float32 are exact in double, so comparing doubles is comparing the mathematical
// values; compare_total adds the FLOAT rules (-0.0 == 0.0, NaN == NaN, NaN above everything).
bool satisfies(const Input& in, const BoundComparison& cmp, uint64_t row) {
  const double lhs = cell_double(in.column(cmp.lhs), row);
  const auto* col = std::get_if<BoundColumn>(&cmp.rhs);
  const double rhs = col ? cell_double(in.column(*col), row) : std::get<double>(cmp.rhs);
  return holds(cmp.op, compare_total(lhs, rhs));
}

bool satisfies(const Input& in, const BoundClause& clause, uint64_t row) {
  for (const auto& term : clause.terms)
    if (satisfies(in, term, row)) return true;
  return false;
}

bool satisfies(const Input& in, const BoundCnf& cnf, uint64_t row) {
  for (const auto& clause : cnf.clauses)
    if (!satisfies(in, clause, row)) return false;
  return true;
}

}  // namespace

double cell_double(const Column& column, uint64_t row) {
  switch (column.type) {
    case Type::Int32: return column.as<int32_t>()[row];
    case Type::Float32: return column.as<float>()[row];
    default:
      throw Error(ErrorCode::Internal,
                  "column '" + column.name + "' is " + to_string(column.type) + ", not a query input type");
  }
}

std::vector<uint64_t> filter_rows(const Input& in, const BoundCnf& cnf) {
  std::vector<uint64_t> rows;
  for (uint64_t row = 0; row < in.table->rows(); ++row)
    if (satisfies(in, cnf, row)) rows.push_back(row);
  return rows;
}

std::vector<uint64_t> select_rows(const Table& table, std::string_view name, const Cnf& where) {
  const BoundCnf cnf = bind_where(where, table, name);
  return filter_rows(Input{&table, 0}, cnf);
}

}  // namespace gfxq::cpu
