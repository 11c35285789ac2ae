#include "differential/sqlite_oracle.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <variant>

#include "differential/generator.h"
#include "test_support.h"

namespace gfxq::differential {

namespace {

// --- exact aggregates registered in SQLite (independent of gfxq's exact-sum code)

//! The canonical member of a double's class, as gfxq reports aggregates: +0.0, the quiet NaN.
double canonical(double v) {
  if (std::isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  return v == 0.0 ? 0.0 : v;
}

//! State of xsum / xavg_float: finite summands and the specials seen.
struct FloatSumState {
  std::vector<double>* values;
  uint64_t n;
  bool nan, positive_inf, negative_inf;
};

void float_sum_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* s = static_cast<FloatSumState*>(sqlite3_aggregate_context(ctx, sizeof(FloatSumState)));
  if (!s) return sqlite3_result_error_nomem(ctx);
  if (!s->values) s->values = new std::vector<double>();
  const float f = std::bit_cast<float>(static_cast<uint32_t>(sqlite3_value_int64(argv[0])));
  ++s->n;
  if (std::isnan(f))
    s->nan = true;
  else if (std::isinf(f))
    (f > 0 ? s->positive_inf : s->negative_inf) = true;
  else
    s->values->push_back(double(f));
}

//! The exact sum rounded once, with IEEE's rules for NaN and infinities; nullopt over no rows.
std::optional<double> float_sum_final(sqlite3_context* ctx) {
  auto* s = static_cast<FloatSumState*>(sqlite3_aggregate_context(ctx, 0));
  if (!s || s->n == 0) return std::nullopt;
  double sum;
  if (s->nan || (s->positive_inf && s->negative_inf))
    sum = std::numeric_limits<double>::quiet_NaN();
  else if (s->positive_inf || s->negative_inf)
    sum = s->positive_inf ? INFINITY : -INFINITY;
  else
    sum = test::fsum(*s->values);
  delete s->values;
  s->values = nullptr;
  return canonical(sum);
}

//! Doubles travel through SQLite as their bits (SQLite turns a NaN result into NULL).
void result_double(sqlite3_context* ctx, std::optional<double> v) {
  if (!v) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, std::bit_cast<int64_t>(*v));
}

void xsum_final(sqlite3_context* ctx) {
  result_double(ctx, float_sum_final(ctx));
}

void xavg_float_final(sqlite3_context* ctx) {
  auto* s = static_cast<FloatSumState*>(sqlite3_aggregate_context(ctx, 0));
  const uint64_t n = s ? s->n : 0;
  const auto sum = float_sum_final(ctx);
  result_double(ctx, sum ? std::optional<double>(canonical(*sum / double(n))) : std::nullopt);
}

//! State of xavg_int. SQLite's aggregate context is only 8-byte aligned, so the 128-bit sum is
//! kept as two 64-bit halves.
struct IntSumState {
  uint64_t low, high;
  uint64_t n;
  __int128 sum() const { return static_cast<__int128>((static_cast<unsigned __int128>(high) << 64) | low); }
  void set(__int128 v) {
    low = static_cast<uint64_t>(v);
    high = static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64);
  }
};

void int_avg_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* s = static_cast<IntSumState*>(sqlite3_aggregate_context(ctx, sizeof(IntSumState)));
  if (!s) return sqlite3_result_error_nomem(ctx);
  s->set(s->sum() + sqlite3_value_int64(argv[0]));
  ++s->n;
}

int bit_length(unsigned __int128 x) {
  int n = 0;
  for (; x; x >>= 1) ++n;
  return n;
}

}  // namespace

double exact_quotient(__int128 sum, uint64_t n) {
  if (sum == 0) return 0.0;
  const bool negative = sum < 0;
  const unsigned __int128 a = negative ? static_cast<unsigned __int128>(-sum) : static_cast<unsigned __int128>(sum);
  // Scale so that the integer quotient has at least 55 bits, then round its top 53 with the rest
  // (and the remainder) as guard and sticky bits.
  const int shift = std::max(0, 56 + bit_length(n) - bit_length(a));
  const unsigned __int128 scaled = a << shift;
  unsigned __int128 q = scaled / n;
  bool sticky = scaled % n != 0;
  int exponent = -shift;
  const int extra = bit_length(q) - 53;
  if (extra > 0) {
    const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << extra) - 1;
    const unsigned __int128 rest = q & mask, half = static_cast<unsigned __int128>(1) << (extra - 1);
    q >>= extra;
    exponent += extra;
    if (rest > half || (rest == half && (sticky || (q & 1)))) ++q;
    sticky = false;
  }
  const double v = std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), exponent);
  return negative ? -v : v;
}

namespace {

void xavg_int_final(sqlite3_context* ctx) {
  auto* s = static_cast<IntSumState*>(sqlite3_aggregate_context(ctx, 0));
  if (!s || s->n == 0) return sqlite3_result_null(ctx);
  result_double(ctx, canonical(exact_quotient(s->sum(), s->n)));
}

// --- statements

[[noreturn]] void sqlite_error(sqlite3* db, const std::string& sql) {
  const std::string message = sqlite3_errmsg(db);
  if (message.find("integer overflow") != std::string::npos)
    throw Error(ErrorCode::Overflow, "sqlite: integer overflow");
  throw Error(ErrorCode::Internal, "sqlite: " + message + " in: " + sql);
}

//! A parameter: a double, an integer or NULL.
using Param = std::variant<std::monostate, double, int64_t>;

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::vector<Param>& params) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) sqlite_error(db, sql);
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      if (const auto* d = std::get_if<double>(&params[i]))
        sqlite3_bind_double(stmt_, at, *d);
      else if (const auto* v = std::get_if<int64_t>(&params[i]))
        sqlite3_bind_int64(stmt_, at, *v);
      else
        sqlite3_bind_null(stmt_, at);
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  //! Steps to the next row; false at the end.
  bool next() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite_error(db_, sql_);
  }
  bool null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3* db_;
  std::string sql_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "?";
    sqlite3_free(error);
    throw Error(ErrorCode::Internal, "sqlite: " + message + " in: " + sql);
  }
}

std::string quote(const std::string& name) {
  return "\"" + name + "\"";
}

float canonical_float(float f) {
  if (std::isnan(f)) return std::numeric_limits<float>::quiet_NaN();
  return f == 0.0f ? 0.0f : f;
}

// --- translation of one query

//! A column of the query's scope as SQLite names it.
struct Col {
  std::string table, name;
  Type type;
  std::string value() const { return quote(table) + "." + quote(name); }            // REAL/INTEGER, NULL = NaN
  std::string bits() const { return quote(table) + "." + quote(name + "__bits"); }  // FLOAT bits
  std::string out() const { return type == Type::Float32 ? bits() : value(); }      // what a projection reads
  bool nan_able() const { return type == Type::Float32; }
};

//! A value expression in a comparison: its SQL and whether it may be NULL (NaN).
struct Expr {
  std::string sql;
  bool nan_able;
};

class Translator {
 public:
  explicit Translator(const Case& c) : c_(c) {}

  Col resolve(const ColumnRef& ref) const {
    for (const NamedTable& t : *c_.tables) {
      if (!ref.table.empty() && ref.table != t.name) continue;
      if (const auto i = t.table.find(ref.name)) return {t.name, ref.name, t.table.columns[*i].type};
    }
    throw Error(ErrorCode::Internal, "sqlite oracle: no column " + ref.text());
  }

  std::string param(Param p) {
    params.push_back(p);
    return "?" + std::to_string(params.size());
  }

  //! `a op b` in gfxq's total order (NULL = NaN: equal to itself, above everything).
  std::string compare(const Expr& a, CmpOp op, const Expr& b) {
    std::string three_way;
    if (!a.nan_able && !b.nan_able) return "(" + a.sql + " " + to_string(op) + " " + b.sql + ")";
    three_way = "(CASE WHEN " + a.sql + " IS NULL THEN (CASE WHEN " + b.sql + " IS NULL THEN 0 ELSE 1 END) WHEN " +
                b.sql + " IS NULL THEN -1 WHEN " + a.sql + " < " + b.sql + " THEN -1 WHEN " + a.sql + " > " + b.sql +
                " THEN 1 ELSE 0 END)";
    return "(" + three_way + " " + to_string(op) + " 0)";
  }

  Expr column(const ColumnRef& ref) const {
    const Col c = resolve(ref);
    return {c.value(), c.nan_able()};
  }

  Expr literal(const Literal& l) { return {param(l.value), false}; }

  std::string condition(const Condition& cond) {
    switch (cond.kind) {
      case Condition::Kind::Compare: {
        const Expr lhs = column(cond.column);
        const Expr rhs = std::holds_alternative<ColumnRef>(cond.rhs) ? column(std::get<ColumnRef>(cond.rhs))
                                                                     : literal(std::get<Literal>(cond.rhs));
        return compare(lhs, cond.op, rhs);
      }
      case Condition::Kind::Between: {
        const Expr x = column(cond.column);
        const std::string in =
            "(" + compare(literal(cond.lo), CmpOp::Le, x) + " AND " + compare(x, CmpOp::Le, literal(cond.hi)) + ")";
        return cond.negated ? "(NOT " + in + ")" : in;
      }
      case Condition::Kind::Not: return "(NOT " + condition(cond.operands.at(0)) + ")";
      case Condition::Kind::And:
      case Condition::Kind::Or: {
        std::string s;
        for (const Condition& o : cond.operands)
          s += (s.empty() ? "(" : (cond.kind == Condition::Kind::And ? " AND " : " OR ")) + condition(o);
        return s + ")";
      }
    }
    return "1";
  }

  //! FROM ... [JOIN ... ON ...] WHERE ... [AND extra].
  std::string from_where(const std::string& extra = "") {
    const QuerySpec& q = c_.query;
    std::string s = " FROM " + quote(q.from);
    if (q.join) {
      const Join& j = *q.join;
      const Expr l = column(j.left_key), r = column(j.right_key);
      s += " JOIN " + quote(j.right) + " ON ";
      if (j.form == Join::Form::Equi) {
        s += compare(l, CmpOp::Eq, r);
      } else {
        // r + lo <= s <= r + hi, in double: lo = -below, hi = above (NULL + x is NULL: NaN).
        const Expr lo{"(" + l.sql + " + " + param(-j.below.value) + ")", true};
        const Expr hi{"(" + l.sql + " + " + param(j.above.value) + ")", true};
        s += compare(lo, CmpOp::Le, r) + " AND " + compare(r, CmpOp::Le, hi);
      }
    }
    std::string where = q.where ? condition(*q.where) : "";
    if (!extra.empty()) where += (where.empty() ? "" : " AND ") + extra;
    if (!where.empty()) s += " WHERE " + where;
    return s;
  }

  //! The input order gfxq keeps: row ids of the FROM table, then of the joined one.
  std::string row_order() const {
    std::string s = quote(c_.query.from) + ".rid";
    if (c_.query.join) s += ", " + quote(c_.query.join->right) + ".rid";
    return s;
  }

  //! ORDER BY terms of `ref` in the total order (NaN last ascending, first descending).
  std::string key_order(const ColumnRef& ref, bool descending) const {
    const Col c = resolve(ref);
    const std::string dir = descending ? " DESC" : " ASC";
    if (!c.nan_able()) return c.value() + dir;
    return "(" + c.value() + " IS NULL)" + dir + ", " + c.value() + dir;
  }

  std::vector<Param> params;

 private:
  const Case& c_;
};

Type item_type(const Translator& tr, const Item& item) {
  if (item.kind == Item::Kind::Column) return tr.resolve(item.column).type;
  switch (item.agg) {
    case AggKind::Count: return Type::Int64;
    case AggKind::Sum: return tr.resolve(item.column).type == Type::Int32 ? Type::Int64 : Type::Float64;
    case AggKind::Avg: return Type::Float64;
    default: return tr.resolve(item.column).type;
  }
}

//! A cell of column `col` of the statement's row, read as `type` (FLOAT: from its bits).
Value cell(const Statement& st, int col, Type type, bool canonical_value) {
  if (st.null(col)) return std::monostate{};
  switch (type) {
    case Type::Int32: return static_cast<int32_t>(st.integer(col));
    case Type::Int64: return st.integer(col);
    case Type::Float64: return std::bit_cast<double>(st.integer(col));
    case Type::Float32: {
      const float f = std::bit_cast<float>(static_cast<uint32_t>(st.integer(col)));
      return canonical_value ? canonical_float(f) : f;
    }
    case Type::String:
    case Type::Date: throw Error(ErrorCode::Internal, "the SQLite oracle reads no STRING or DATE column");
  }
  return std::monostate{};
}

}  // namespace

SqliteOracle::SqliteOracle() {
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw Error(ErrorCode::Internal, "sqlite: cannot open a database");
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  sqlite3_create_function_v2(db_, "xsum", 1, flags, nullptr, nullptr, float_sum_step, xsum_final, nullptr);
  sqlite3_create_function_v2(db_, "xavg_float", 1, flags, nullptr, nullptr, float_sum_step, xavg_float_final, nullptr);
  sqlite3_create_function_v2(db_, "xavg_int", 1, flags, nullptr, nullptr, int_avg_step, xavg_int_final, nullptr);
}

SqliteOracle::~SqliteOracle() {
  sqlite3_close(db_);
}

void SqliteOracle::load(const Tables& tables) {
  if (loaded_ == tables.get()) return;
  for (const std::string name : {"t", "r", "s"}) exec(db_, "DROP TABLE IF EXISTS " + quote(name));
  exec(db_, "BEGIN");
  for (const NamedTable& t : *tables) {
    std::string create = "CREATE TABLE " + quote(t.name) + " (rid INTEGER";
    std::string insert = "INSERT INTO " + quote(t.name) + " VALUES (?";
    for (const Column& c : t.table.columns) {
      if (c.type == Type::Int32) {
        create += ", " + quote(c.name) + " INTEGER";
        insert += ", ?";
      } else {
        create += ", " + quote(c.name) + " REAL, " + quote(c.name + "__bits") + " INTEGER";
        insert += ", ?, ?";
      }
    }
    exec(db_, create + ")");
    for (uint64_t row = 0; row < t.table.rows(); ++row) {
      std::vector<Param> params = {static_cast<int64_t>(row)};
      for (const Column& c : t.table.columns) {
        if (c.type == Type::Int32) {
          params.push_back(int64_t{c.as<int32_t>()[row]});
        } else {
          const float f = c.as<float>()[row];
          params.push_back(std::isnan(f) ? Param{} : Param{double(f)});
          params.push_back(int64_t{std::bit_cast<uint32_t>(f)});
        }
      }
      Statement st(db_, insert + ")", params);
      st.next();
    }
  }
  exec(db_, "COMMIT");
  loaded_ = tables.get();
  keep_ = tables;
}

Table SqliteOracle::run(const Case& c) {
  load(c.tables);
  const QuerySpec& q = c.query;
  Translator names(c);
  Table out;
  for (size_t i = 0; i < q.items.size(); ++i) {
    if (q.items[i].kind == Item::Kind::Star) {
      for (const NamedTable& t : *c.tables) {
        if (t.name != q.from && !(q.join && t.name == q.join->right)) continue;
        for (const Column& col : t.table.columns) out.columns.push_back(Column::make(col.name, col.type));
      }
    } else {
      out.columns.push_back(Column::make("item" + std::to_string(i), item_type(names, q.items[i])));
    }
  }

  const uint64_t limit = q.limit.value_or(std::numeric_limits<uint64_t>::max());
  const Param sql_limit = limit > uint64_t(std::numeric_limits<int64_t>::max()) ? int64_t{-1} : int64_t(limit);

  if (!q.aggregate()) {
    // A selection: the rows, in SQLite's order under gfxq's order rules.
    Translator tr(c);
    std::string select;
    std::vector<Type> types;
    for (const Item& item : q.items) {
      if (item.kind == Item::Kind::Star) {
        for (const NamedTable& t : *c.tables) {
          if (t.name != q.from && !(q.join && t.name == q.join->right)) continue;
          for (const Column& col : t.table.columns) {
            const Col sc{t.name, col.name, col.type};
            select += (select.empty() ? "" : ", ") + sc.out();
            types.push_back(col.type);
          }
        }
      } else {
        const Col sc = tr.resolve(item.column);
        select += (select.empty() ? "" : ", ") + sc.out();
        types.push_back(sc.type);
      }
    }
    std::string sql = "SELECT " + select + tr.from_where() + " ORDER BY ";
    if (q.order_by) sql += tr.key_order(q.order_by->column, q.order_by->descending) + ", ";
    sql += tr.row_order() + " LIMIT " + tr.param(sql_limit);
    Statement st(db_, sql, tr.params);
    while (st.next())
      for (size_t i = 0; i < types.size(); ++i) out.columns[i].push(cell(st, int(i), types[i], false));
    return out;
  }

  // One aggregate over the rows that `extra` (a group filter, with its parameters) selects.
  const auto aggregate = [&](const Item& item, const std::string& extra, const std::vector<Param>& extra_params) {
    Translator tr(c);
    tr.params = extra_params;  // the filter's parameters come first (?1..)
    const std::string rows = tr.from_where(extra);
    const auto scalar = [&](const std::string& select, Type type, const std::string& tail = "") -> Value {
      Statement st(db_, "SELECT " + select + rows + tail, tr.params);
      if (!st.next()) return std::monostate{};
      return cell(st, 0, type, true);
    };
    const auto count = [&]() -> uint64_t { return uint64_t(std::get<int64_t>(scalar("COUNT(*)", Type::Int64))); };
    if (item.agg == AggKind::Count) return scalar("COUNT(*)", Type::Int64);
    const Col col = tr.resolve(item.column);
    const bool is_float = col.type == Type::Float32;
    // The value of 1-based ascending rank `rank` in the total order.
    const auto ranked = [&](uint64_t rank, bool descending) -> Value {
      if (rank == 0) return std::monostate{};
      const std::string tail = " ORDER BY " + tr.key_order(item.column, descending) + " LIMIT 1 OFFSET " +
                               tr.param(static_cast<int64_t>(rank - 1));
      return scalar(col.out(), col.type, tail);
    };
    switch (item.agg) {
      case AggKind::Sum:
        return is_float ? scalar("xsum(" + col.bits() + ")", Type::Float64)
                        : scalar("SUM(" + col.value() + ")", Type::Int64);
      case AggKind::Avg:
        return is_float ? scalar("xavg_float(" + col.bits() + ")", Type::Float64)
                        : scalar("xavg_int(" + col.value() + ")", Type::Float64);
      case AggKind::Min: return is_float ? ranked(1, false) : scalar("MIN(" + col.value() + ")", Type::Int32);
      case AggKind::Max: return is_float ? ranked(1, true) : scalar("MAX(" + col.value() + ")", Type::Int32);
      case AggKind::Median: return ranked(decimal_rank("0.5", count()), false);
      case AggKind::Quantile: return ranked(decimal_rank(item.q, count()), false);
      case AggKind::KthLargest: {
        const uint64_t n = count();
        if (static_cast<uint64_t>(item.k) > n) return Value{};
        return ranked(static_cast<uint64_t>(item.k), true);
      }
      case AggKind::Count: break;
    }
    return Value{};
  };

  if (!q.group_by) {
    if (limit == 0) return out;
    for (size_t i = 0; i < q.items.size(); ++i) out.columns[i].push(aggregate(q.items[i], "", {}));
    return out;
  }

  // GROUP BY: the groups in the total order (SQLite groups -0.0 with 0.0 and NULLs together). Each
  // aggregate is computed for every group by one statement: GROUP BY for counts, sums and INT
  // MIN/MAX; a row number within the group (a window function) for the order-based ones.
  Translator tr(c);
  const Col g = tr.resolve(*q.group_by);
  const std::string dir = q.order_by && q.order_by->descending ? " DESC" : " ASC";
  // A group's identity: the INT value, the canonical float bits, or NaN.
  using GroupId = std::pair<bool, int64_t>;
  const auto group_of = [&](const Statement& st, int nan_col, int value_col) -> std::pair<GroupId, Value> {
    if (g.type == Type::Int32) return {{false, st.integer(value_col)}, static_cast<int32_t>(st.integer(value_col))};
    if (st.integer(nan_col) != 0) return {{true, 0}, std::numeric_limits<float>::quiet_NaN()};
    const float f = canonical_float(static_cast<float>(st.real(value_col)));
    return {{false, int64_t{std::bit_cast<uint32_t>(f)}}, f};
  };
  std::vector<std::pair<GroupId, Value>> groups;
  {
    const std::string sql = "SELECT DISTINCT (" + g.value() + " IS NULL), " + g.value() + tr.from_where() +
                            " ORDER BY 1" + dir + ", 2" + dir + " LIMIT " + tr.param(sql_limit);
    Statement st(db_, sql, tr.params);
    while (st.next()) groups.push_back(group_of(st, 0, 1));
  }
  std::vector<std::map<GroupId, Value>> values(q.items.size());
  for (size_t i = 0; i < q.items.size(); ++i) {
    const Item& item = q.items[i];
    if (item.kind != Item::Kind::Aggregate) continue;
    Translator at(c);
    const std::string rows = at.from_where();
    const Type type = item_type(at, item);
    const std::string head = "SELECT (" + g.value() + " IS NULL), " + g.value() + ", ";
    std::string sql;
    const Col col = item.count_star ? g : at.resolve(item.column);
    const bool is_float = col.type == Type::Float32;
    // Order-based aggregates: the value at row number `rank` of the group in `order`.
    const auto ranked = [&](const std::string& rank, bool descending) {
      return "SELECT n, gv, v FROM (SELECT (" + g.value() + " IS NULL) AS n, " + g.value() + " AS gv, " + col.out() +
             " AS v, ROW_NUMBER() OVER (PARTITION BY " + g.value() + " ORDER BY " +
             at.key_order(item.column, descending) + ") AS rn, COUNT(*) OVER (PARTITION BY " + g.value() + ") AS cnt" +
             rows + ") WHERE rn = " + rank;
    };
    const auto quantile = [&](const std::string& q_text) {
      const auto [num, den] = decimal_fraction(q_text);
      return ranked("(" + at.param(num) + " * cnt + " + at.param(den - 1) + ") / " + at.param(den), false);
    };
    switch (item.agg) {
      case AggKind::Count: sql = head + "COUNT(*)" + rows; break;
      case AggKind::Sum:
        sql = head + (is_float ? "xsum(" + col.bits() + ")" : "SUM(" + col.value() + ")") + rows;
        break;
      case AggKind::Avg:
        sql = head + (is_float ? "xavg_float(" + col.bits() + ")" : "xavg_int(" + col.value() + ")") + rows;
        break;
      case AggKind::Min: sql = is_float ? ranked("1", false) : head + "MIN(" + col.value() + ")" + rows; break;
      case AggKind::Max: sql = is_float ? ranked("1", true) : head + "MAX(" + col.value() + ")" + rows; break;
      case AggKind::Median: sql = quantile("0.5"); break;
      case AggKind::Quantile: sql = quantile(item.q); break;
      case AggKind::KthLargest: sql = ranked(at.param(item.k), true); break;
    }
    if (sql.rfind(head, 0) == 0) sql += " GROUP BY " + g.value();  // not a ranked one
    Statement st(db_, sql, at.params);
    while (st.next()) {
      const auto [id, key] = group_of(st, 0, 1);
      values[i][id] = cell(st, 2, type, true);
    }
  }
  for (const auto& [id, key] : groups)
    for (size_t i = 0; i < q.items.size(); ++i) {
      if (q.items[i].kind == Item::Kind::Column) {
        out.columns[i].push(key);
      } else {
        const auto it = values[i].find(id);
        out.columns[i].push(it == values[i].end() ? Value{} : it->second);
      }
    }
  return out;
}

}  // namespace gfxq::differential
