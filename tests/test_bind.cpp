// The shared query binder: resolution of every column reference, output names and types,
// and every validation rule with its message.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "core/bind.h"
#include "gfxq/error.h"

using namespace gfxq;

namespace {

ColumnRef col(std::string name) {
  return ColumnRef{"", std::move(name)};
}
ColumnRef col(std::string table, std::string name) {
  return ColumnRef{std::move(table), std::move(name)};
}

Aggregate agg(AggKind kind, std::optional<ColumnRef> c = std::nullopt, double q = 0.5, int64_t k = 1) {
  Aggregate a;
  a.kind = kind;
  a.column = std::move(c);
  a.q = q;
  a.k = k;
  return a;
}

Comparison cmp(ColumnRef lhs, CmpOp op, Operand rhs) {
  return Comparison{std::move(lhs), op, std::move(rhs)};
}

// t(a int, b float); r(a int, b int, x float); s(a int, c float); w(big bigint, n int with a NULL)
Catalog catalog() {
  Catalog c;
  c.add("t", Table{{Column::ints("a", {1, 2}), Column::floats("b", {0.5f, 1.5f})}});
  c.add("r", Table{{Column::ints("a", {1}), Column::ints("b", {2}), Column::floats("x", {3})}});
  c.add("s", Table{{Column::ints("a", {1}), Column::floats("c", {2})}});
  Column big = Column::make("big", Type::Int64);
  big.push(int64_t{1});
  big.push(int64_t{2});
  Column n = Column::make("n", Type::Int32);
  n.push(int32_t{1});
  n.push(std::monostate{});
  c.add("w", Table{{big, n}});
  return c;
}

Query from(std::string table, std::vector<SelectItem> items) {
  Query q;
  q.table = std::move(table);
  q.items = std::move(items);
  return q;
}

Query join_rs(std::vector<SelectItem> items, ColumnRef left = col("r", "a"), ColumnRef right = col("s", "a")) {
  Query q = from("r", std::move(items));
  q.join = JoinSpec{"s", std::move(left), std::move(right), 0, 0};
  return q;
}

// "Code: message" of the Error bind() throws, or "no error".
std::string bind_error(const Query& q) {
  const Catalog c = catalog();
  try {
    bind(q, c);
  } catch (const Error& e) {
    return std::string(to_string(e.code())) + ": " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("bind: resolves columns to side, index and type, named as written") {
  const Catalog c = catalog();
  Query q = from("t", {col("b"), col("t", "a")});
  q.where.clauses.push_back(Clause{{cmp(col("a"), CmpOp::Lt, col("t", "b")), cmp(col("b"), CmpOp::Ge, 2.5)}});
  const BoundQuery bq = bind(q, c);
  CHECK(bq.left == &c.get("t"));
  CHECK(bq.left_name == "t");
  CHECK(bq.right == nullptr);
  CHECK_FALSE(bq.join);
  CHECK_FALSE(bq.aggregate);
  REQUIRE(bq.items.size() == 2);
  CHECK(std::get<BoundColumn>(bq.items[0]) == BoundColumn{Side::Left, 1, Type::Float32, "b"});
  CHECK(std::get<BoundColumn>(bq.items[1]) == BoundColumn{Side::Left, 0, Type::Int32, "t.a"});
  REQUIRE(bq.output.size() == 2);
  CHECK(bq.output[0].name == "b");
  CHECK(bq.output[0].type == Type::Float32);
  CHECK(bq.output[1].name == "t.a");
  CHECK(bq.output[1].type == Type::Int32);
  REQUIRE(bq.where.clauses.size() == 1);
  const auto& terms = bq.where.clauses[0].terms;
  REQUIRE(terms.size() == 2);
  CHECK(terms[0].lhs == BoundColumn{Side::Left, 0, Type::Int32, "a"});
  CHECK(terms[0].op == CmpOp::Lt);
  CHECK(std::get<BoundColumn>(terms[0].rhs) == BoundColumn{Side::Left, 1, Type::Float32, "t.b"});
  CHECK(std::get<double>(terms[1].rhs) == 2.5);
  CHECK(&bq.column(terms[0].lhs) == &c.get("t").columns[0]);
}

TEST_CASE("bind: * expands to the table's columns, qualified in a join") {
  const Catalog c = catalog();
  const BoundQuery one = bind(from("t", {Star{}}), c);
  REQUIRE(one.output.size() == 2);
  CHECK(one.output[0].name == "a");
  CHECK(one.output[1].name == "b");

  const BoundQuery two = bind(join_rs({Star{}, col("c")}), c);
  REQUIRE(two.items.size() == 6);
  const std::vector<std::string> names = {"r.a", "r.b", "r.x", "s.a", "s.c", "c"};
  for (size_t i = 0; i < names.size(); ++i) CHECK(two.output[i].name == names[i]);
  CHECK(std::get<BoundColumn>(two.items[3]) == BoundColumn{Side::Right, 0, Type::Int32, "s.a"});
  CHECK(std::get<BoundColumn>(two.items[5]) == BoundColumn{Side::Right, 1, Type::Float32, "c"});
  CHECK(two.output[2].type == Type::Float32);
}

TEST_CASE("bind: join keys bind to their own side, and an unqualified key is looked up only there") {
  const Catalog c = catalog();
  Query q = join_rs({col("x")}, col("a"), col("a"));  // `a` exists on both sides, but a key's side is known
  q.join->lo = -2;
  q.join->hi = 3;
  const BoundQuery bq = bind(q, c);
  REQUIRE(bq.join);
  CHECK(bq.right == &c.get("s"));
  CHECK(bq.right_name == "s");
  CHECK(bq.join->left_key == BoundColumn{Side::Left, 0, Type::Int32, "a"});
  CHECK(bq.join->right_key == BoundColumn{Side::Right, 0, Type::Int32, "a"});
  CHECK(bq.join->lo == -2);
  CHECK(bq.join->hi == 3);
  CHECK_FALSE(bq.join->equi());
  CHECK(&bq.table(Side::Right) == &c.get("s"));
}

TEST_CASE("bind: aggregates get their output names and types") {
  const Catalog c = catalog();
  const BoundQuery bq =
      bind(from("t", {agg(AggKind::Count), agg(AggKind::Count, col("b")), agg(AggKind::Sum, col("a")),
                      agg(AggKind::Sum, col("b")), agg(AggKind::Avg, col("a")), agg(AggKind::Avg, col("b")),
                      agg(AggKind::Min, col("b")), agg(AggKind::Max, col("a")), agg(AggKind::Median, col("a"), 0.9),
                      agg(AggKind::Quantile, col("b"), 0.25), agg(AggKind::KthLargest, col("a"), 0.5, 2)}),
           c);
  CHECK(bq.aggregate);
  const std::vector<std::pair<std::string, Type>> expected = {
      {"COUNT(*)", Type::Int64},         {"COUNT(b)", Type::Int64},
      {"SUM(a)", Type::Int64},           {"SUM(b)", Type::Float64},
      {"AVG(a)", Type::Float64},         {"AVG(b)", Type::Float64},
      {"MIN(b)", Type::Float32},         {"MAX(a)", Type::Int32},
      {"MEDIAN(a)", Type::Int32},        {"QUANTILE(b, 0.25)", Type::Float32},
      {"KTH_LARGEST(a, 2)", Type::Int32}};
  REQUIRE(bq.output.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(bq.output[i].name == expected[i].first);
    CHECK(bq.output[i].type == expected[i].second);
    CHECK(std::get<BoundAggregate>(bq.items[i]).name == expected[i].first);
    CHECK(std::get<BoundAggregate>(bq.items[i]).type == expected[i].second);
  }
  CHECK_FALSE(std::get<BoundAggregate>(bq.items[0]).column);
  CHECK(std::get<BoundAggregate>(bq.items[8]).q == 0.5);  // MEDIAN is q = 0.5 whatever the spec held
  CHECK(std::get<BoundAggregate>(bq.items[9]).q == 0.25);
  CHECK(std::get<BoundAggregate>(bq.items[10]).k == 2);
  CHECK(*std::get<BoundAggregate>(bq.items[10]).column == BoundColumn{Side::Left, 0, Type::Int32, "a"});
}

TEST_CASE("bind: GROUP BY and ORDER BY, and the group column may be written qualified or not") {
  const Catalog c = catalog();
  Query q = from("t", {col("t", "a"), agg(AggKind::Sum, col("b")), col("a")});
  q.group_by = col("a");
  q.order_by = OrderBy{col("t", "a"), true};
  q.limit = 3;
  const BoundQuery bq = bind(q, c);
  CHECK(bq.aggregate);
  REQUIRE(bq.group_by);
  CHECK(same_column(*bq.group_by, std::get<BoundColumn>(bq.items[0])));
  CHECK(std::get<BoundColumn>(bq.items[0]).name == "t.a");
  REQUIRE(bq.order_by);
  CHECK(bq.order_by->descending);
  CHECK(same_column(bq.order_by->column, *bq.group_by));
  CHECK(bq.limit == 3u);

  // GROUP BY without aggregates is a grouped (distinct) query.
  Query distinct = from("t", {col("b")});
  distinct.group_by = col("b");
  CHECK(bind(distinct, c).aggregate);

  // A plain query may order by a column it does not select.
  Query plain = from("t", {col("a")});
  plain.order_by = OrderBy{col("b"), false};
  const BoundQuery bp = bind(plain, c);
  CHECK(bp.order_by->column == BoundColumn{Side::Left, 1, Type::Float32, "b"});
}

TEST_CASE("bind: unknown tables, columns and qualifiers say what exists") {
  CHECK(bind_error(from("nope", {Star{}})) == "InvalidQuery: unknown table 'nope' in FROM (tables: r, s, t, w)");
  Query j = join_rs({Star{}});
  j.join->right = "zz";
  CHECK(bind_error(j) == "InvalidQuery: unknown table 'zz' in JOIN (tables: r, s, t, w)");

  Query q = from("t", {col("a")});
  q.where.clauses.push_back(Clause{{cmp(col("x"), CmpOp::Lt, 1.0)}});
  CHECK(bind_error(q) == "InvalidQuery: unknown column 'x' in WHERE (table t has: a, b)");
  q.where.clauses[0].terms[0] = cmp(col("a"), CmpOp::Lt, col("y"));
  CHECK(bind_error(q) == "InvalidQuery: unknown column 'y' in WHERE (table t has: a, b)");

  CHECK(bind_error(from("t", {col("t", "zz")})) ==
        "InvalidQuery: unknown column 't.zz' in select list (table t has: a, b)");
  CHECK(bind_error(from("t", {col("z", "a")})) ==
        "InvalidQuery: unknown table qualifier 'z' in select list (the query reads table t)");
  CHECK(bind_error(join_rs({col("z", "a")})) ==
        "InvalidQuery: unknown table qualifier 'z' in select list (the query reads tables r, s)");
  CHECK(bind_error(join_rs({col("q")})) ==
        "InvalidQuery: unknown column 'q' in select list (table r has: a, b, x; table s has: a, c)");
  CHECK(bind_error(from("t", {agg(AggKind::Sum, col("zz"))})) ==
        "InvalidQuery: unknown column 'zz' in SUM(zz) (table t has: a, b)");

  Query g = from("t", {agg(AggKind::Count)});
  g.group_by = col("zz");
  CHECK(bind_error(g) == "InvalidQuery: unknown column 'zz' in GROUP BY (table t has: a, b)");
  Query o = from("t", {col("a")});
  o.order_by = OrderBy{col("zz"), false};
  CHECK(bind_error(o) == "InvalidQuery: unknown column 'zz' in ORDER BY (table t has: a, b)");
}

TEST_CASE("bind: an unqualified column on both sides of a join is ambiguous") {
  Query q = join_rs({col("x")});
  q.where.clauses.push_back(Clause{{cmp(col("a"), CmpOp::Eq, 1.0)}});
  CHECK(bind_error(q) == "InvalidQuery: column 'a' in WHERE is ambiguous in a join: qualify it as r.a or s.a");
  CHECK(bind_error(join_rs({col("a")})) ==
        "InvalidQuery: column 'a' in select list is ambiguous in a join: qualify it as r.a or s.a");
  CHECK(bind_error(join_rs({col("s", "a"), col("r", "a"), col("c"), col("x")})) == "no error");
}

TEST_CASE("bind: join keys must belong to their sides, and no self-join, and offsets are finite") {
  CHECK(bind_error(join_rs({Star{}}, col("s", "c"), col("s", "a"))) ==
        "InvalidQuery: left join key 's.c' must be a column of r (the FROM table)");
  CHECK(bind_error(join_rs({Star{}}, col("r", "a"), col("r", "x"))) ==
        "InvalidQuery: right join key 'r.x' must be a column of s (the JOIN table)");
  CHECK(bind_error(join_rs({Star{}}, col("a"), col("x"))) ==
        "InvalidQuery: unknown column 'x' in JOIN ON (right key) (table s has: a, c)");
  CHECK(bind_error(join_rs({Star{}}, col("c"), col("a"))) ==
        "InvalidQuery: unknown column 'c' in JOIN ON (left key) (table r has: a, b, x)");
  CHECK(bind_error(join_rs({Star{}}, col("q", "a"), col("a"))) ==
        "InvalidQuery: unknown table qualifier 'q' in JOIN ON (left key) (the query reads table r)");

  Query self = from("t", {Star{}});
  self.join = JoinSpec{"t", col("a"), col("a"), 0, 0};
  CHECK(bind_error(self) ==
        "InvalidQuery: table 't' is joined with itself; the SQL subset has no aliases: add the table to the catalog "
        "under a second name");

  Query bad = join_rs({Star{}});
  bad.join->hi = std::nan("");
  CHECK(bind_error(bad) == "InvalidQuery: JOIN ON offsets must be finite, got nan");
  bad.join->hi = 0;
  bad.join->lo = -std::numeric_limits<double>::infinity();
  CHECK(bind_error(bad) == "InvalidQuery: JOIN ON offsets must be finite, got -inf");
}

TEST_CASE("bind: select-list rules for aggregates, GROUP BY and *") {
  CHECK(bind_error(from("t", {})) == "InvalidQuery: the select list is empty");
  CHECK(bind_error(from("t", {col("b"), agg(AggKind::Count)})) ==
        "InvalidQuery: column 'b' must appear in GROUP BY or inside an aggregate");
  Query g = from("t", {col("a"), col("b"), agg(AggKind::Count)});
  g.group_by = col("a");
  CHECK(bind_error(g) == "InvalidQuery: column 'b' must appear in GROUP BY or inside an aggregate");
  CHECK(bind_error(from("t", {Star{}, agg(AggKind::Count)})) == "InvalidQuery: * cannot be mixed with aggregates");
  Query s = from("t", {Star{}});
  s.group_by = col("a");
  CHECK(bind_error(s) == "InvalidQuery: * cannot be used with GROUP BY");
  CHECK(bind_error(from("t", {Star{}, col("a"), Star{}})) == "no error");
}

TEST_CASE("bind: aggregate parameters are checked") {
  for (AggKind kind : {AggKind::Sum, AggKind::Avg, AggKind::Min, AggKind::Max, AggKind::Median, AggKind::Quantile,
                       AggKind::KthLargest}) {
    CAPTURE(to_string(kind));
    CHECK(bind_error(from("t", {agg(kind)})) == "InvalidQuery: " + std::string(to_string(kind)) + " needs a column");
  }
  CHECK(bind_error(from("t", {agg(AggKind::KthLargest, col("a"), 0.5, 0)})) ==
        "InvalidQuery: KTH_LARGEST needs k >= 1, got 0");
  CHECK(bind_error(from("t", {agg(AggKind::KthLargest, col("a"), 0.5, -3)})) ==
        "InvalidQuery: KTH_LARGEST needs k >= 1, got -3");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), 0.0)})) ==
        "InvalidQuery: QUANTILE needs q in (0, 1], got 0");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), 1.5)})) ==
        "InvalidQuery: QUANTILE needs q in (0, 1], got 1.5");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), -0.25)})) ==
        "InvalidQuery: QUANTILE needs q in (0, 1], got -0.25");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), std::nan(""))})) ==
        "InvalidQuery: QUANTILE needs q in (0, 1], got nan");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), 1.0)})) == "no error");
  CHECK(bind_error(from("t", {agg(AggKind::Quantile, col("a"), std::numeric_limits<double>::denorm_min())})) ==
        "no error");
  CHECK(bind_error(from("t", {agg(AggKind::Median, col("a"), 7.0)})) == "no error");  // MEDIAN ignores q
}

TEST_CASE("bind: ORDER BY rules in aggregate queries") {
  Query one_row = from("t", {agg(AggKind::Count)});
  one_row.order_by = OrderBy{col("a"), false};
  CHECK(bind_error(one_row) ==
        "InvalidQuery: ORDER BY cannot be used in an aggregate query without GROUP BY: its result is one row");
  Query grouped = from("t", {col("a"), agg(AggKind::Count)});
  grouped.group_by = col("a");
  grouped.order_by = OrderBy{col("b"), true};
  CHECK(bind_error(grouped) == "InvalidQuery: ORDER BY 'b' must be the GROUP BY column 'a' in a grouped query");
  grouped.order_by = OrderBy{col("t", "a"), true};
  CHECK(bind_error(grouped) == "no error");
}

TEST_CASE("bind: empty OR clauses are rejected") {
  Query q = from("t", {col("a")});
  q.where.clauses.push_back(Clause{{cmp(col("a"), CmpOp::Lt, 1.0)}});
  q.where.clauses.push_back(Clause{});
  CHECK(bind_error(q) == "InvalidQuery: WHERE clause 2 is an empty OR");
}

TEST_CASE("bind: queries read NULL-free int and float columns only") {
  CHECK(bind_error(from("w", {col("big")})) ==
        "InvalidInput: column 'big' of table w is bigint; queries read int and float columns only");
  CHECK(bind_error(from("w", {agg(AggKind::Count, col("n"))})) ==
        "InvalidInput: column 'n' of table w holds NULLs; queries read NULL-free columns only");
  CHECK(bind_error(from("w", {Star{}})) ==
        "InvalidInput: column 'big' of table w is bigint; queries read int and float columns only");
  CHECK(bind_error(from("w", {agg(AggKind::Count)})) == "no error");  // COUNT(*) reads no column
}

TEST_CASE("bind: bind_where resolves against one named table") {
  const Catalog c = catalog();
  Cnf where;
  where.clauses.push_back(Clause{{cmp(col("t", "a"), CmpOp::Ne, col("b"))}});
  const BoundCnf bound = bind_where(where, c.get("t"), "t");
  REQUIRE(bound.clauses.size() == 1);
  CHECK(bound.clauses[0].terms[0].lhs == BoundColumn{Side::Left, 0, Type::Int32, "t.a"});
  CHECK(bound.clauses[0].terms[0].op == CmpOp::Ne);
  CHECK(bind_where(Cnf{}, c.get("t"), "t").empty());
  where.clauses[0].terms[0].lhs = col("u", "a");
  CHECK_THROWS_WITH_AS(bind_where(where, c.get("t"), "t"),
                       "unknown table qualifier 'u' in WHERE (the query reads table t)", Error);
}

TEST_CASE("bind: shared aggregate result conventions") {
  CHECK(aggregate_type(AggKind::Count, Type::Float32) == Type::Int64);
  CHECK(aggregate_type(AggKind::Sum, Type::Int32) == Type::Int64);
  CHECK(aggregate_type(AggKind::Sum, Type::Float32) == Type::Float64);
  CHECK(aggregate_type(AggKind::Avg, Type::Int32) == Type::Float64);
  CHECK(aggregate_type(AggKind::KthLargest, Type::Float32) == Type::Float32);

  CHECK(std::signbit(canonical_double(-0.0)) == false);
  CHECK(std::bit_cast<uint64_t>(canonical_double(-std::nan("1"))) == 0x7ff8000000000000ull);
  CHECK(canonical_double(-2.5) == -2.5);

  const __int128 max = std::numeric_limits<int64_t>::max(), min = std::numeric_limits<int64_t>::min();
  CHECK(int_sum_result(max, "SUM(a)") == std::numeric_limits<int64_t>::max());
  CHECK(int_sum_result(min, "SUM(a)") == std::numeric_limits<int64_t>::min());
  CHECK(int_sum_result(2 * __int128{2147483647}, "SUM(a)") == 4294967294);
  CHECK_THROWS_WITH_AS(int_sum_result(max + 1, "SUM(a)"), "SUM(a) does not fit in a 64-bit integer", Error);
  CHECK_THROWS_WITH_AS(int_sum_result(min - 1, "SUM(r.a)"), "SUM(r.a) does not fit in a 64-bit integer", Error);
  ErrorCode code = ErrorCode::Internal;
  try {
    int_sum_result(max + 1, "SUM(a)");
  } catch (const Error& e) {
    code = e.code();
  }
  CHECK(code == ErrorCode::Overflow);

  CHECK(int_average(-4, 3) == -4.0 / 3.0);
  CHECK(int_average(-1, 2) == -0.5);
  // 2^62 + 1 rounds to 2^62 in double before the division: the documented formula.
  CHECK(int_average((__int128{1} << 62) + 1, 1) == 4611686018427387904.0);
}
