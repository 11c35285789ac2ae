// SQLite as the oracle of the analytic fuzzer (analytic.h). The tables are loaded into an
// in-memory database (FLOAT as REAL, STRING as TEXT, DATE as INTEGER days, NULL as NULL) and each
// query is written in SQLite's SQL with gfxq's semantics where the two differ:
//
// - Integer arithmetic: SQLite turns an int64 overflow of + - * into a REAL and gives NULL for a
//   division by zero; gfxq errors. Registered functions (xadd, xsub, xmul, xdiv, xneg) compute in
//   int64, truncate division toward zero (as both do) and fail on overflow or a zero divisor.
// - FLOAT arithmetic is float32 in gfxq (each operand rounded to float32, then each operation
//   rounded once); SQLite computes in double. f32() rounds to float32: a double operation on two
//   float32 values rounded to float32 equals the float32 operation (53 >= 2 * 24 + 2 bits).
// - SUM and AVG of FLOAT and DOUBLE are exact sums rounded once (xsumd, xavgd, Shewchuk's partials
//   from test_support.h); AVG of integers is the exact quotient rounded once (xavgi).
// - EXTRACT uses SQLite's own calendar (strftime over the Julian day), independent of gfxq's.
// - INTERSECT ALL and EXCEPT ALL (SQLite has neither) pair the k-th copy of a row on each side
//   by numbering copies with ROW_NUMBER() and applying INTERSECT / EXCEPT to (row, number).
// - Set operations: SQLite gives INTERSECT no precedence over UNION and EXCEPT, so every operand of
//   a set operator is a subquery, nested as gfxq's precedence groups them.

#include <sqlite3.h>

#include <bit>
#include <cmath>
#include <limits>
#include <variant>

#include "differential/analytic.h"
#include "differential/sqlite_oracle.h"
#include "test_support.h"

namespace gfxq::differential {

struct AnalyticSqlite::Db {
  sqlite3* db = nullptr;
  std::string last_sql;  // the last query, for reports
};

namespace {

using Param = std::variant<std::monostate, int64_t, double, std::string>;

// --- registered functions

bool any_null(int argc, sqlite3_value** argv) {
  for (int i = 0; i < argc; ++i)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return true;
  return false;
}

void int_arith(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (any_null(argc, argv)) return sqlite3_result_null(ctx);
  // SQLite's constant propagation may put the literal of `k IN (0.001)` in place of k: such a row
  // fails that condition anyway, so a value that is no integer gives NULL.
  int64_t v[2] = {0, 0};
  for (int i = 0; i < argc; ++i) {
    v[i] = sqlite3_value_int64(argv[i]);
    if (sqlite3_value_type(argv[i]) != SQLITE_INTEGER && double(v[i]) != sqlite3_value_double(argv[i]))
      return sqlite3_result_null(ctx);
  }
  const char op = *static_cast<const char*>(sqlite3_user_data(ctx));
  const int64_t x = v[0], y = v[1];
  int64_t z = 0;
  bool bad = false;
  switch (op) {
    case '+': bad = __builtin_add_overflow(x, y, &z); break;
    case '-': bad = __builtin_sub_overflow(x, y, &z); break;
    case '*': bad = __builtin_mul_overflow(x, y, &z); break;
    case 'n': bad = __builtin_sub_overflow(int64_t{0}, x, &z); break;
    default:
      if (y == 0) return sqlite3_result_error(ctx, "oracle: division by zero", -1);
      bad = x == std::numeric_limits<int64_t>::min() && y == -1;
      if (!bad) z = x / y;
  }
  if (bad) return sqlite3_result_error(ctx, "oracle: integer overflow", -1);
  sqlite3_result_int64(ctx, z);
}

void to_f32(sqlite3_context* ctx, int, sqlite3_value** argv) {
  switch (sqlite3_value_type(argv[0])) {
    case SQLITE_NULL: return sqlite3_result_null(ctx);
    case SQLITE_INTEGER: return sqlite3_result_double(ctx, double(static_cast<float>(sqlite3_value_int64(argv[0]))));
    default: return sqlite3_result_double(ctx, double(static_cast<float>(sqlite3_value_double(argv[0]))));
  }
}

struct SumState {
  std::vector<double>* values;
};

void sum_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* s = static_cast<SumState*>(sqlite3_aggregate_context(ctx, sizeof(SumState)));
  if (!s) return sqlite3_result_error_nomem(ctx);
  if (!s->values) s->values = new std::vector<double>();
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL) s->values->push_back(sqlite3_value_double(argv[0]));
}

//! The exact sum of the non-NULL values rounded once and their count (0: no value).
std::pair<double, uint64_t> sum_final(sqlite3_context* ctx) {
  auto* s = static_cast<SumState*>(sqlite3_aggregate_context(ctx, 0));
  if (!s || !s->values) return {0, 0};
  const std::pair<double, uint64_t> out = {test::fsum(*s->values), s->values->size()};
  delete s->values;
  s->values = nullptr;
  return out;
}

void xsumd_final(sqlite3_context* ctx) {
  const auto [sum, n] = sum_final(ctx);
  if (n == 0) return sqlite3_result_null(ctx);
  sqlite3_result_double(ctx, sum);
}

void xavgd_final(sqlite3_context* ctx) {
  const auto [sum, n] = sum_final(ctx);
  if (n == 0) return sqlite3_result_null(ctx);
  sqlite3_result_double(ctx, sum / double(n));
}

struct IntAvgState {
  uint64_t low, high, n;  // a 128-bit sum in halves (the context is 8-byte aligned)
};

void avgi_step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* s = static_cast<IntAvgState*>(sqlite3_aggregate_context(ctx, sizeof(IntAvgState)));
  if (!s) return sqlite3_result_error_nomem(ctx);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  __int128 sum = static_cast<__int128>((static_cast<unsigned __int128>(s->high) << 64) | s->low);
  sum += sqlite3_value_int64(argv[0]);
  s->low = static_cast<uint64_t>(sum);
  s->high = static_cast<uint64_t>(static_cast<unsigned __int128>(sum) >> 64);
  ++s->n;
}

void avgi_final(sqlite3_context* ctx) {
  auto* s = static_cast<IntAvgState*>(sqlite3_aggregate_context(ctx, 0));
  if (!s || s->n == 0) return sqlite3_result_null(ctx);
  const __int128 sum = static_cast<__int128>((static_cast<unsigned __int128>(s->high) << 64) | s->low);
  sqlite3_result_double(ctx, exact_quotient(sum, s->n));
}

// --- statements

[[noreturn]] void fail(sqlite3* db, const std::string& sql) {
  const std::string message = sqlite3_errmsg(db);
  if (message.find("overflow") != std::string::npos) throw Error(ErrorCode::Overflow, "sqlite: " + message);
  if (message.find("division by zero") != std::string::npos) throw Error(ErrorCode::InvalidInput, "sqlite: " + message);
  throw Error(ErrorCode::Internal, "sqlite: " + message + " in: " + sql);
}

//! A prepared statement with its parameters bound; finalised on destruction.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const std::vector<Param>& params) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail(db, sql);
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      if (const auto* v = std::get_if<int64_t>(&params[i]))
        sqlite3_bind_int64(stmt_, at, *v);
      else if (const auto* d = std::get_if<double>(&params[i]))
        sqlite3_bind_double(stmt_, at, *d);
      else if (const auto* s = std::get_if<std::string>(&params[i]))
        sqlite3_bind_text(stmt_, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      else
        sqlite3_bind_null(stmt_, at);
    }
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool next() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, sql_);
  }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3* db_;
  std::string sql_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& sql) {
  Stmt st(db, sql, {});
  while (st.next()) {
  }
}

std::string quote(const std::string& name) {
  return "\"" + name + "\"";
}

// --- translation

class Translator {
 public:
  std::vector<Param> params;

  std::string param(Param p) {
    params.push_back(std::move(p));
    return "?" + std::to_string(params.size());
  }

  std::string expr(const AExpr& e, const ASelect& s) {
    static const char* parts[] = {"%Y", "%m", "%d"};
    switch (e.op) {
      case AExpr::Op::Column: return quote(e.table.empty() ? s.tables[0] : e.table) + "." + quote(e.name);
      case AExpr::Op::IntLit:
      case AExpr::Op::DateLit: return param(e.int_value);
      case AExpr::Op::RealLit: return param(e.real_value);
      case AExpr::Op::StrLit: return param(e.text);
      case AExpr::Op::Null: return "NULL";
      case AExpr::Op::Neg:
        return e.kind == Kind::Int ? "xneg(" + expr(e.args[0], s) + ")" : "(-(" + expr(e.args[0], s) + "))";
      case AExpr::Op::Extract:
        return std::string("CAST(strftime('") + parts[e.part] + "', 2440587.5 + " + expr(e.args[0], s) +
               ") AS INTEGER)";
      case AExpr::Op::Agg: return aggregate(e, s);
      case AExpr::Op::Case: {
        std::string out = "(CASE";
        for (size_t i = 0; i < e.when.size(); ++i) out += " WHEN " + cond(e.when[i], s) + " THEN " + expr(e.args[i], s);
        if (e.args.size() > e.when.size()) out += " ELSE " + expr(e.args.back(), s);
        return out + " END)";
      }
      case AExpr::Op::Add:
      case AExpr::Op::Sub:
      case AExpr::Op::Mul:
      case AExpr::Op::Div: break;
    }
    const std::string a = expr(e.args[0], s), b = expr(e.args[1], s);
    const int op = int(e.op) - int(AExpr::Op::Add);
    if (e.kind == Kind::Int || e.kind == Kind::Date)
      return std::string(op == 0 ? "xadd(" : op == 1 ? "xsub(" : op == 2 ? "xmul(" : "xdiv(") + a + ", " + b + ")";
    static const char* ops[] = {" + ", " - ", " * ", " / "};
    if (e.kind == Kind::Float) return "f32(f32(" + a + ")" + ops[op] + "f32(" + b + "))";
    return "(" + a + ops[op] + b + ")";
  }

  std::string aggregate(const AExpr& e, const ASelect& s) {
    if (e.fn == AggFn::CountStar) return "COUNT(*)";
    const std::string a = expr(e.args[0], s);
    const bool integer = e.args[0].kind == Kind::Int;
    switch (e.fn) {
      case AggFn::Count: return "COUNT(" + a + ")";
      case AggFn::CountDistinct: return "COUNT(DISTINCT " + a + ")";
      case AggFn::Sum: return (integer ? "SUM(" : "xsumd(") + a + ")";
      case AggFn::Avg: return (integer ? "xavgi(" : "xavgd(") + a + ")";
      case AggFn::Min: return "MIN(" + a + ")";
      case AggFn::Max: return "MAX(" + a + ")";
      case AggFn::CountStar: break;
    }
    return "";
  }

  std::string cond(const ACond& c, const ASelect& s) {
    switch (c.op) {
      case ACond::Op::Compare:
        return "(" + expr(c.exprs[0], s) + " " + to_string(c.cmp) + " " + expr(c.exprs[1], s) + ")";
      case ACond::Op::Between:
        return "(" + expr(c.exprs[0], s) + (c.negated ? " NOT BETWEEN " : " BETWEEN ") + expr(c.exprs[1], s) + " AND " +
               expr(c.exprs[2], s) + ")";
      case ACond::Op::In: {
        std::string out = "(" + expr(c.exprs[0], s) + (c.negated ? " NOT IN (" : " IN (");
        for (size_t i = 1; i < c.exprs.size(); ++i) out += (i > 1 ? ", " : "") + expr(c.exprs[i], s);
        return out + "))";
      }
      case ACond::Op::Not: return "(NOT " + cond(c.sub[0], s) + ")";
      case ACond::Op::And:
      case ACond::Op::Or: {
        std::string out;
        for (const ACond& x : c.sub)
          out += (out.empty() ? "(" : (c.op == ACond::Op::And ? " AND " : " OR ")) + cond(x, s);
        return out + ")";
      }
    }
    return "";
  }

  //! A SELECT whose items are named c1, c2, ...
  std::string select(const ASelect& s) {
    std::string out = s.distinct ? "SELECT DISTINCT " : "SELECT ";
    for (size_t i = 0; i < s.items.size(); ++i)
      out += (i ? ", " : "") + expr(s.items[i].expr, s) + " AS c" + std::to_string(i + 1);
    out += " FROM " + quote(s.tables[0]);
    for (size_t i = 1; i < s.tables.size(); ++i)
      out += s.join_on ? " JOIN " + quote(s.tables[i]) + " ON " + cond(s.on[i - 1], s) : ", " + quote(s.tables[i]);
    if (s.where) out += " WHERE " + cond(*s.where, s);
    for (size_t i = 0; i < s.group_by.size(); ++i) out += (i ? ", " : " GROUP BY ") + expr(s.group_by[i], s);
    if (s.having) out += " HAVING " + cond(*s.having, s);
    return out;
  }

  //! `left op right` over subqueries; INTERSECT ALL and EXCEPT ALL through numbered copies.
  std::string set_op(const std::string& left, const std::string& right, ASetOp op, size_t columns) {
    static const char* names[] = {"UNION", "INTERSECT", "EXCEPT"};
    if (!op.all || op.op == ASetOp::Op::Union)
      return "SELECT * FROM (" + left + ") " + names[int(op.op)] + (op.all ? " ALL " : " ") + "SELECT * FROM (" +
             right + ")";
    std::string cols;
    for (size_t i = 1; i <= columns; ++i) cols += (i > 1 ? ", " : "") + std::string("c") + std::to_string(i);
    const auto numbered = [&](const std::string& q) {
      return "SELECT " + cols + ", ROW_NUMBER() OVER (PARTITION BY " + cols + ") AS copy_ FROM (" + q + ")";
    };
    return "SELECT " + cols + " FROM (" + numbered(left) + " " + names[int(op.op)] + " " + numbered(right) + ")";
  }

  std::string query(const AQuery& q) {
    const size_t columns = q.operands[0].items.size();
    std::string body;
    if (q.ops.empty()) {
      body = select(q.operands[0]);
    } else {
      // gfxq's precedence: runs joined by INTERSECT first, then UNION and EXCEPT left to right.
      std::string result, run = select(q.operands[0]);
      std::optional<ASetOp> pending;
      for (size_t i = 0; i < q.ops.size(); ++i) {
        const std::string next = select(q.operands[i + 1]);
        if (q.ops[i].op == ASetOp::Op::Intersect) {
          run = set_op(run, next, q.ops[i], columns);
          continue;
        }
        result = pending ? set_op(result, run, *pending, columns) : run;
        pending = q.ops[i];
        run = next;
      }
      body = "SELECT * FROM (" + (pending ? set_op(result, run, *pending, columns) : run) + ")";
    }
    for (size_t i = 0; i < q.order_by.size(); ++i) {
      const AOrder& o = q.order_by[i];
      body += i ? ", " : " ORDER BY ";
      body += o.form == AOrder::Form::Expr ? expr(o.expr, q.operands[0]) : std::to_string(o.ordinal);
      if (o.descending) body += " DESC";
    }
    if (q.limit || q.offset) {
      const uint64_t limit = q.limit.value_or(std::numeric_limits<uint64_t>::max());
      body += " LIMIT " + param(limit > uint64_t(std::numeric_limits<int64_t>::max()) ? int64_t{-1} : int64_t(limit));
      body += " OFFSET " + param(int64_t(q.offset.value_or(0)));
    }
    return body;
  }
};

std::string params_text(const std::vector<Param>& params) {
  std::string s;
  for (size_t i = 0; i < params.size(); ++i) {
    s += (i ? ", " : "") + std::string("?") + std::to_string(i + 1) + " = ";
    if (const auto* v = std::get_if<int64_t>(&params[i]))
      s += std::to_string(*v);
    else if (const auto* d = std::get_if<double>(&params[i]))
      s += format_value(*d);
    else if (const auto* t = std::get_if<std::string>(&params[i]))
      s += "'" + *t + "'";
    else
      s += "NULL";
  }
  return s;
}

Value cell(sqlite3_stmt* st, int col, Type type) {
  const int kind = sqlite3_column_type(st, col);
  if (kind == SQLITE_NULL) return std::monostate{};
  const bool text = kind == SQLITE_TEXT || kind == SQLITE_BLOB;
  if (text != (type == Type::String))
    throw Error(ErrorCode::Internal,
                std::string("sqlite gave a ") + (text ? "text" : "number") + " for a " + to_string(type) + " column");
  switch (type) {
    case Type::Int32: return static_cast<int32_t>(sqlite3_column_int64(st, col));
    case Type::Int64: return static_cast<int64_t>(sqlite3_column_int64(st, col));
    case Type::Float32: return static_cast<float>(sqlite3_column_double(st, col));
    case Type::Float64: return sqlite3_column_double(st, col);
    case Type::Date: return Date{static_cast<int32_t>(sqlite3_column_int64(st, col))};
    case Type::String: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
      return std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, col)));
    }
  }
  return std::monostate{};
}

}  // namespace

AnalyticSqlite::AnalyticSqlite() : db_(new Db) {
  if (sqlite3_open(":memory:", &db_->db) != SQLITE_OK) {
    delete db_;
    throw Error(ErrorCode::Internal, "sqlite: cannot open a database");
  }
  static const char ops[] = "+-*/n";
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  sqlite3* db = db_->db;
  sqlite3_create_function_v2(db, "xadd", 2, flags, (void*)&ops[0], int_arith, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "xsub", 2, flags, (void*)&ops[1], int_arith, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "xmul", 2, flags, (void*)&ops[2], int_arith, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "xdiv", 2, flags, (void*)&ops[3], int_arith, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "xneg", 1, flags, (void*)&ops[4], int_arith, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "f32", 1, flags, nullptr, to_f32, nullptr, nullptr, nullptr);
  sqlite3_create_function_v2(db, "xsumd", 1, flags, nullptr, nullptr, sum_step, xsumd_final, nullptr);
  sqlite3_create_function_v2(db, "xavgd", 1, flags, nullptr, nullptr, sum_step, xavgd_final, nullptr);
  sqlite3_create_function_v2(db, "xavgi", 1, flags, nullptr, nullptr, avgi_step, avgi_final, nullptr);
}

AnalyticSqlite::~AnalyticSqlite() {
  sqlite3_close(db_->db);
  delete db_;
}

void AnalyticSqlite::load(const Tables& tables) {
  if (loaded_ == tables.get()) return;
  sqlite3* db = db_->db;
  exec(db, "BEGIN");
  for (const NamedTable& t : *tables) {
    exec(db, "DROP TABLE IF EXISTS " + quote(t.name));
    std::string create = "CREATE TABLE " + quote(t.name) + " (rid INTEGER";
    std::string insert = "INSERT INTO " + quote(t.name) + " VALUES (?";
    for (const Column& c : t.table.columns) {
      const char* type = c.type == Type::Float32 ? " REAL" : c.type == Type::String ? " TEXT" : " INTEGER";
      create += ", " + quote(c.name) + type;
      insert += ", ?";
    }
    exec(db, create + ")");
    for (uint64_t row = 0; row < t.table.rows(); ++row) {
      std::vector<Param> params = {static_cast<int64_t>(row)};
      for (const Column& c : t.table.columns) {
        if (c.is_null(row))
          params.emplace_back();
        else if (c.type == Type::Float32)
          params.emplace_back(double(c.as<float>()[row]));
        else if (c.type == Type::String)
          params.emplace_back(std::string(c.string_at(row)));
        else
          params.emplace_back(int64_t{c.as<int32_t>()[row]});
      }
      Stmt st(db, insert + ")", params);
      st.next();
    }
  }
  exec(db, "COMMIT");
  loaded_ = tables.get();
  keep_ = tables;
}

std::string AnalyticSqlite::sql(const ACase& c) {
  Translator tr;
  const std::string text = tr.query(c.query);
  return text + (tr.params.empty() ? "" : "\n-- with " + params_text(tr.params));
}

Table AnalyticSqlite::run(const ACase& c, const std::vector<Type>& types) {
  load(c.tables);
  Translator tr;
  const std::string text = tr.query(c.query);
  Stmt st(db_->db, text, tr.params);
  if (sqlite3_column_count(st.get()) != static_cast<int>(types.size()))
    throw Error(ErrorCode::Internal, "sqlite gave " + std::to_string(sqlite3_column_count(st.get())) + " columns");
  Table out;
  for (size_t i = 0; i < types.size(); ++i) out.columns.push_back(Column::make("c" + std::to_string(i + 1), types[i]));
  while (st.next())
    for (size_t i = 0; i < types.size(); ++i) out.columns[i].push(cell(st.get(), static_cast<int>(i), types[i]));
  return out;
}

}  // namespace gfxq::differential
