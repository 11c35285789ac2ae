// libFuzzer target: the SQL parser. Any input must either parse or throw gfxq::Error (never crash,
// hang, overflow the stack, or throw anything else):
// - sql::parse: a parsed query's canonical text (Query::text()) must parse back to the same query;
// - parse_statement: the canonical text of every expression of the tree (Expr::text()) must parse
//   back to the same tree;
// - split_statements never throws, and each statement it finds parses or throws gfxq::Error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gfxq/error.h"
#include "gfxq/sql.h"
#include "sql/parse_statement.h"

namespace {

void check_round_trip(const gfxq::sql::ast::Expr& e) {
  const std::string text = e.text();
  try {
    if (gfxq::sql::ast::same_tree(gfxq::sql::parse_expression(text), e)) return;
    std::fprintf(stderr, "canonical expression text parses to another tree: %s\n", text.c_str());
  } catch (const gfxq::Error& err) {
    std::fprintf(stderr, "canonical expression text does not parse: %s\n  %s\n", text.c_str(), err.what());
  }
  std::abort();
}

void check_query(const gfxq::sql::ast::Query& q) {
  for (const auto& operand : q.operands) check_query(operand);
  for (const auto& item : q.order_by) check_round_trip(item.expr);
  if (!q.select) return;
  for (const auto& item : q.select->items)
    if (!item.star) check_round_trip(item.expr);
  for (const auto& join : q.select->joins)
    if (join.on) check_round_trip(*join.on);
  if (q.select->where) check_round_trip(*q.select->where);
  for (const auto& e : q.select->group_by) check_round_trip(e);
  if (q.select->having) check_round_trip(*q.select->having);
}

void check_statement(std::string_view text) {
  gfxq::sql::ast::Statement statement;
  try {
    statement = gfxq::sql::parse_statement(text);
  } catch (const gfxq::Error&) {
    return;
  }
  check_query(statement.query);
}

void check_query_spec(std::string_view text) {
  gfxq::Query query;
  try {
    query = gfxq::sql::parse(text);
  } catch (const gfxq::Error&) {
    return;  // a typed error is the expected answer to a bad query
  }
  const std::string canonical = query.text();
  try {
    if (gfxq::sql::parse(canonical) == query) return;
    std::fprintf(stderr, "canonical text parses to another query: %s\n", canonical.c_str());
  } catch (const gfxq::Error& e) {
    std::fprintf(stderr, "canonical text does not parse: %s\n  %s\n", canonical.c_str(), e.what());
  }
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_query_spec(text);
  check_statement(text);
  for (const auto& part : gfxq::sql::split_statements(text)) {
    try {
      gfxq::sql::parse_statement(part.text, part.pos);
    } catch (const gfxq::Error&) {
    }
  }
  return 0;
}
