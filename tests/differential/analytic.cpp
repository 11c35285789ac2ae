// The analytic query tree as gfxq SQL, and its random generator (analytic.h).

#include <algorithm>
#include <limits>
#include <sstream>

#include "differential/analytic.h"

namespace gfxq::differential {

namespace {

using Rng = std::mt19937_64;

bool chance(Rng& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

uint64_t below(Rng& rng, uint64_t n) {
  return n == 0 ? 0 : rng() % n;
}

template <class T>
const T& one_of(const std::vector<T>& v, Rng& rng) {
  return v[below(rng, v.size())];
}

std::string quote_string(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

const char* arith_sql(AExpr::Op op) {
  switch (op) {
    case AExpr::Op::Add: return " + ";
    case AExpr::Op::Sub: return " - ";
    case AExpr::Op::Mul: return " * ";
    default: return " / ";
  }
}

}  // namespace

// --- SQL text

std::string AExpr::sql() const {
  static const char* parts[] = {"YEAR", "MONTH", "DAY"};
  switch (op) {
    case Op::Column: return table.empty() ? name : table + "." + name;
    case Op::IntLit:
    case Op::RealLit: return text;
    case Op::StrLit: return quote_string(text);
    case Op::DateLit: return "DATE '" + format_date(Date{int32_t(int_value)}) + "'";
    case Op::Null: return "NULL";
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: return "(" + args[0].sql() + arith_sql(op) + args[1].sql() + ")";
    case Op::Neg: return "-(" + args[0].sql() + ")";
    case Op::Extract: return "EXTRACT(" + std::string(parts[part]) + " FROM " + args[0].sql() + ")";
    case Op::Case: {
      std::string s = "CASE";
      for (size_t i = 0; i < when.size(); ++i) s += " WHEN " + when[i].sql() + " THEN " + args[i].sql();
      if (args.size() > when.size()) s += " ELSE " + args.back().sql();
      return s + " END";
    }
    case Op::Agg: break;
  }
  static const char* names[] = {"COUNT", "COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX"};
  if (fn == AggFn::CountStar) return "COUNT(*)";
  return std::string(names[int(fn)]) + "(" + (fn == AggFn::CountDistinct ? "DISTINCT " : "") + args[0].sql() + ")";
}

bool AExpr::has_aggregate() const {
  if (op == Op::Agg) return true;
  return std::any_of(args.begin(), args.end(), [](const AExpr& a) { return a.has_aggregate(); });
}

std::string ACond::sql() const {
  switch (op) {
    case Op::Compare: return "(" + exprs[0].sql() + " " + to_string(cmp) + " " + exprs[1].sql() + ")";
    case Op::Between:
      return "(" + exprs[0].sql() + (negated ? " NOT BETWEEN " : " BETWEEN ") + exprs[1].sql() + " AND " +
             exprs[2].sql() + ")";
    case Op::In: {
      std::string s = "(" + exprs[0].sql() + (negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < exprs.size(); ++i) s += (i > 1 ? ", " : "") + exprs[i].sql();
      return s + "))";
    }
    case Op::Not: return "(NOT " + sub[0].sql() + ")";
    case Op::And:
    case Op::Or: {
      std::string s;
      for (const ACond& c : sub) s += (s.empty() ? "(" : (op == Op::And ? " AND " : " OR ")) + c.sql();
      return s + ")";
    }
  }
  return "";
}

bool ASelect::aggregate() const {
  if (!group_by.empty() || having) return true;
  return std::any_of(items.begin(), items.end(), [](const AItem& i) { return i.expr.has_aggregate(); });
}

std::string ASelect::sql() const {
  std::string s = distinct ? "SELECT DISTINCT " : "SELECT ";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i].expr.sql() + (items[i].alias.empty() ? "" : " AS " + items[i].alias);
  s += " FROM " + tables[0];
  for (size_t i = 1; i < tables.size(); ++i)
    s += join_on ? " JOIN " + tables[i] + " ON " + on[i - 1].sql() : ", " + tables[i];
  if (where) s += " WHERE " + where->sql();
  for (size_t i = 0; i < group_by.size(); ++i) s += (i ? ", " : " GROUP BY ") + group_by[i].sql();
  if (having) s += " HAVING " + having->sql();
  return s;
}

std::string AQuery::sql() const {
  static const char* names[] = {"UNION", "INTERSECT", "EXCEPT"};
  std::string s = operands[0].sql();
  for (size_t i = 0; i < ops.size(); ++i)
    s += std::string(" ") + names[int(ops[i].op)] + (ops[i].all ? " ALL " : " ") + operands[i + 1].sql();
  for (size_t i = 0; i < order_by.size(); ++i) {
    const AOrder& o = order_by[i];
    s += i ? ", " : " ORDER BY ";
    if (o.form == AOrder::Form::Expr)
      s += o.expr.sql();
    else if (o.form == AOrder::Form::Alias)
      s += operands[0].items[o.ordinal - 1].alias;
    else
      s += std::to_string(o.ordinal);
    if (o.descending) s += " DESC";
  }
  if (limit) s += " LIMIT " + std::to_string(*limit);
  if (offset) s += " OFFSET " + std::to_string(*offset);
  return s;
}

Catalog ACase::catalog() const {
  Catalog c;
  for (const NamedTable& t : *tables) c.add(t.name, t.table);
  return c;
}

std::string ACase::text() const {
  std::ostringstream out;
  for (const NamedTable& t : *tables) {
    const bool used = std::any_of(query.operands.begin(), query.operands.end(), [&](const ASelect& s) {
      return std::find(s.tables.begin(), s.tables.end(), t.name) != s.tables.end();
    });
    if (!used) continue;
    out << "-- table " << t.name << " (" << t.table.rows() << " rows)\n";
    write_csv(out, t.table, true);
  }
  out << "-- query" << (seed ? " (generator seed " + std::to_string(seed) + ")" : std::string()) << "\n"
      << query.sql() << "\n";
  return out.str();
}

// --- tables

namespace {

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

const std::vector<std::string>& string_pool() {
  static const std::vector<std::string> v = {"",           "a",    "A",    "b",    "ab",    "a,b",
                                             "say \"hi\"", "it's", "ü",    "日本", " lead", "trail ",
                                             "z",          "zz",   "x\ny", "NULL", "a b c", "1992-01-01"};
  return v;
}

int32_t days_of(int y, int m, int d) {
  return date_from_civil(y, m, d).days;
}

std::vector<uint8_t> random_nulls(Rng& rng, uint64_t n) {
  if (chance(rng, 0.5)) return {};
  const double share = chance(rng, 0.2) ? 0.9 : 0.2;
  std::vector<uint8_t> nulls(n);
  for (auto& x : nulls) x = chance(rng, share);
  return nulls;
}

Column int_column(Rng& rng, const std::string& name, uint64_t n, bool key) {
  std::vector<int32_t> v(n);
  static const std::vector<int32_t> extremes = {kIntMin, kIntMin + 1, kIntMax, kIntMax - 1, 0,     1,
                                                -1,      46341,       -46341,  16777217,    65536, 3};
  const int profile = key ? 0 : static_cast<int>(below(rng, 3));
  for (auto& x : v) {
    if (profile == 0)
      x = static_cast<int32_t>(below(rng, 7)) - 2;
    else if (profile == 1)
      x = one_of(extremes, rng);
    else
      x = static_cast<int32_t>(below(rng, 2001)) - 1000;
  }
  return Column::ints(name, std::move(v));
}

Column float_column(Rng& rng, const std::string& name, uint64_t n) {
  static const std::vector<float> specials = {0.0f, -0.0f, 0.5f, 0.1f, -2.5f, 1e6f, 16777216.0f, 16777218.0f, 3.0f};
  std::vector<float> v(n);
  const int profile = static_cast<int>(below(rng, 3));
  for (auto& x : v) {
    if (profile == 0)
      x = static_cast<float>(static_cast<int>(below(rng, 21)) - 10) / (chance(rng, 0.5) ? 1.0f : 2.0f);
    else if (profile == 1)
      x = one_of(specials, rng);
    else
      x = static_cast<float>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
  }
  return Column::floats(name, std::move(v));
}

Column string_column(Rng& rng, const std::string& name, uint64_t n) {
  std::vector<std::string> v(n);
  const uint64_t pool = chance(rng, 0.5) ? 4 : string_pool().size();
  for (auto& x : v) x = string_pool()[below(rng, pool)];
  return Column::strings(name, v);
}

Column date_column(Rng& rng, const std::string& name, uint64_t n) {
  static const std::vector<int32_t> specials = {days_of(1, 1, 1),
                                                days_of(9999, 12, 31),
                                                0,
                                                -1,
                                                days_of(2000, 2, 29),
                                                days_of(1900, 3, 1),
                                                days_of(1992, 1, 1),
                                                days_of(1998, 12, 31),
                                                days_of(1996, 2, 29)};
  std::vector<int32_t> v(n);
  const int32_t lo = days_of(1992, 1, 1), hi = days_of(1998, 12, 31);
  const bool few = chance(rng, 0.4);
  for (auto& x : v)
    x = chance(rng, 0.3) ? one_of(specials, rng)
                         : lo + static_cast<int32_t>(below(rng, few ? 3 : uint64_t(hi - lo + 1)));
  return Column::dates(name, std::move(v));
}

}  // namespace

AnalyticGenerator::AnalyticGenerator(uint64_t seed, AnalyticOptions options) : rng_(seed), options_(options) {}

Tables AnalyticGenerator::tables(uint64_t seed) {
  Rng rng(seed);
  auto out = std::make_shared<std::vector<NamedTable>>();
  for (const char* name : {"t", "u", "v"}) {
    const double x = std::uniform_real_distribution<double>(0, 1)(rng);
    const uint64_t rows = x < 0.05 ? 0 : x < 0.12 ? 1 : 2 + below(rng, options_.max_rows - 1);
    Table t;
    t.columns.push_back(int_column(rng, "k", rows, true));
    t.columns.push_back(int_column(rng, "i", rows, false));
    t.columns.push_back(float_column(rng, "f", rows));
    t.columns.push_back(string_column(rng, "s", rows));
    t.columns.push_back(date_column(rng, "d", rows));
    const bool nulls = chance(rng, options_.null_share);
    for (Column& c : t.columns)
      if (nulls) c.nulls = random_nulls(rng, rows);
    out->push_back({name, std::move(t)});
  }
  return out;
}

// --- queries

namespace {

//! What a query may refer to: the tables of its FROM, qualified or not.
struct Scope {
  Rng& rng;
  const Tables& data;
  std::vector<std::string> tables;
  bool qualify = true;
  bool plain = false;  //!< bare columns only (no arithmetic, no literal items): the GPU paths' shapes

  AExpr column(const std::string& name, Kind kind) {
    AExpr e;
    e.op = AExpr::Op::Column;
    e.kind = kind;
    e.table = qualify ? one_of(tables, rng) : "";
    e.name = name;
    return e;
  }
};

AExpr int_literal(Rng& rng) {
  static const std::vector<int64_t> values = {0,
                                              1,
                                              -1,
                                              2,
                                              3,
                                              -3,
                                              7,
                                              100,
                                              2147483647,
                                              -2147483648,
                                              3037000500,
                                              4294967296,
                                              std::numeric_limits<int64_t>::max(),
                                              std::numeric_limits<int64_t>::min()};
  AExpr e;
  e.op = AExpr::Op::IntLit;
  e.int_value = chance(rng, 0.6) ? static_cast<int64_t>(below(rng, 9)) - 4 : one_of(values, rng);
  e.text = std::to_string(e.int_value);
  return e;
}

AExpr real_literal(Rng& rng, bool nonzero) {
  static const std::vector<std::string> texts = {"0.5", "2.5", "-1.5", "0.1", "1e3", "3.0", ".25", "0.0", "1e-3"};
  AExpr e;
  e.op = AExpr::Op::RealLit;
  e.kind = Kind::Double;
  do {
    e.text = one_of(texts, rng);
    e.real_value = std::strtod(e.text.c_str(), nullptr);
  } while (nonzero && e.real_value == 0);
  return e;
}

AExpr string_literal(Rng& rng) {
  static const std::vector<std::string> extra = {"aa", "b0", "zzz", "B", "a,", "日"};
  AExpr e;
  e.op = AExpr::Op::StrLit;
  e.kind = Kind::String;
  e.text = chance(rng, 0.7) ? one_of(string_pool(), rng) : one_of(extra, rng);
  return e;
}

AExpr date_literal(Rng& rng) {
  static const std::vector<int32_t> specials = {days_of(1, 1, 1),    days_of(9999, 12, 31), 0,
                                                days_of(1992, 1, 2), days_of(1995, 6, 15),  days_of(1998, 12, 31),
                                                days_of(2000, 2, 29)};
  AExpr e;
  e.op = AExpr::Op::DateLit;
  e.kind = Kind::Date;
  e.int_value =
      chance(rng, 0.5) ? one_of(specials, rng) : days_of(1992, 1, 1) + static_cast<int32_t>(below(rng, 7 * 365));
  return e;
}

AExpr binary(AExpr::Op op, Kind kind, AExpr a, AExpr b) {
  AExpr e;
  e.op = op;
  e.kind = kind;
  e.args = {std::move(a), std::move(b)};
  return e;
}

AExpr expr(Scope& sc, Kind kind, int depth);
ACond condition(Scope& sc, int depth);
std::optional<AExpr> data_literal(Scope& sc, const AExpr& c);

AExpr leaf(Scope& sc, Kind kind) {
  Rng& rng = sc.rng;
  switch (kind) {
    case Kind::Int: {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      if (x < 0.6) return sc.column(chance(rng, 0.5) ? "k" : "i", Kind::Int);
      if (x < 0.85) return int_literal(rng);
      if (x < 0.97) {
        AExpr e;
        e.op = AExpr::Op::Extract;
        e.part = static_cast<int>(below(rng, 3));
        e.args = {sc.column("d", Kind::Date)};
        return e;
      }
      AExpr e;
      e.op = AExpr::Op::Null;
      return e;
    }
    case Kind::Float: return sc.column("f", Kind::Float);
    case Kind::Double: return real_literal(rng, false);
    case Kind::String: return chance(rng, 0.8) ? sc.column("s", Kind::String) : string_literal(rng);
    case Kind::Date: return chance(rng, 0.85) ? sc.column("d", Kind::Date) : date_literal(rng);
  }
  return {};
}

//! The bare column of a kind (Double: the FLOAT column).
AExpr plain_column(Scope& sc, Kind kind) {
  switch (kind) {
    case Kind::Int: return sc.column(chance(sc.rng, 0.5) ? "k" : "i", Kind::Int);
    case Kind::Float:
    case Kind::Double: return sc.column("f", Kind::Float);
    case Kind::String: return sc.column("s", Kind::String);
    case Kind::Date: return sc.column("d", Kind::Date);
  }
  return {};
}

AExpr expr(Scope& sc, Kind kind, int depth) {
  Rng& rng = sc.rng;
  if (sc.plain) return plain_column(sc, kind);
  if (depth >= 2 || chance(rng, 0.55)) {
    // A Double leaf is a literal: make it a Double expression over a column most of the time.
    if (kind != Kind::Double || depth >= 2) return leaf(sc, kind);
  }
  if (chance(rng, 0.12)) {
    // CASE WHEN c THEN x [WHEN c THEN y] [ELSE z] END, every branch of the kind.
    AExpr e;
    e.op = AExpr::Op::Case;
    e.kind = kind;
    // String branches: one column and strings it holds (two dictionaries are refused as "not
    // supported yet").
    const AExpr strings = sc.column("s", Kind::String);
    const auto branch = [&] {
      if (kind != Kind::String) return expr(sc, kind, depth + 1);
      if (chance(rng, 0.5))
        if (auto l = data_literal(sc, strings)) return *l;
      return strings;
    };
    const int n = 1 + static_cast<int>(below(rng, 2));
    for (int i = 0; i < n; ++i) {
      e.when.push_back(condition(sc, 2));
      e.args.push_back(branch());
    }
    if (chance(rng, 0.6)) e.args.push_back(branch());
    return e;
  }
  static const std::vector<AExpr::Op> ops = {AExpr::Op::Add, AExpr::Op::Sub, AExpr::Op::Mul};
  switch (kind) {
    case Kind::Int: {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      if (x < 0.1) {
        AExpr e;
        e.op = AExpr::Op::Neg;
        e.args = {expr(sc, Kind::Int, depth + 1)};
        return e;
      }
      if (x < 0.2) return binary(AExpr::Op::Sub, Kind::Int, expr(sc, Kind::Date, depth + 1), leaf(sc, Kind::Date));
      const AExpr::Op op = x < 0.35 ? AExpr::Op::Div : one_of(ops, rng);
      return binary(op, Kind::Int, expr(sc, Kind::Int, depth + 1), expr(sc, Kind::Int, depth + 1));
    }
    case Kind::Float: {
      if (chance(rng, 0.1)) {
        AExpr e;
        e.op = AExpr::Op::Neg;
        e.kind = Kind::Float;
        e.args = {expr(sc, Kind::Float, depth + 1)};
        return e;
      }
      AExpr a = expr(sc, Kind::Float, depth + 1);
      AExpr b = chance(rng, 0.6) ? expr(sc, Kind::Float, depth + 1) : leaf(sc, Kind::Int);
      if (chance(rng, 0.5)) std::swap(a, b);
      return binary(one_of(ops, rng), Kind::Float, std::move(a), std::move(b));
    }
    case Kind::Double: {
      // A decimal literal with a column expression; division only by a literal that is not 0.
      AExpr a = expr(sc, chance(rng, 0.5) ? Kind::Float : Kind::Int, depth + 1);
      if (chance(rng, 0.25)) return binary(AExpr::Op::Div, Kind::Double, std::move(a), real_literal(rng, true));
      AExpr b = real_literal(rng, false);
      if (chance(rng, 0.5)) std::swap(a, b);
      return binary(one_of(ops, rng), Kind::Double, std::move(a), std::move(b));
    }
    case Kind::Date: {
      AExpr days = chance(rng, 0.7) ? int_literal(rng) : sc.column("k", Kind::Int);
      if (days.op == AExpr::Op::IntLit && (days.int_value > 1000 || days.int_value < -1000)) {
        days.int_value %= 1000;
        days.text = std::to_string(days.int_value);
      }
      return binary(chance(rng, 0.5) ? AExpr::Op::Add : AExpr::Op::Sub, Kind::Date, leaf(sc, Kind::Date),
                    std::move(days));
    }
    case Kind::String: break;
  }
  return leaf(sc, kind);
}

Kind any_kind(Rng& rng) {
  static const std::vector<Kind> kinds = {Kind::Int,    Kind::Int,    Kind::Int,    Kind::Float,
                                          Kind::Double, Kind::String, Kind::String, Kind::Date};
  return one_of(kinds, rng);
}

//! A kind for the scope: in plain queries INT or FLOAT with probability `numeric` (the GPU paths'
//! fused operators read those), else any.
Kind kind_of(Scope& sc, double numeric) {
  if (sc.plain && chance(sc.rng, numeric)) return chance(sc.rng, 0.6) ? Kind::Int : Kind::Float;
  return any_kind(sc.rng);
}

Kind comparable(Rng& rng, Kind k) {
  if (k == Kind::String || k == Kind::Date) return k;
  static const std::vector<Kind> numeric = {Kind::Int, Kind::Int, Kind::Float, Kind::Double};
  return one_of(numeric, rng);
}

//! A literal (or, for Int, now and then NULL) of the kind.
AExpr literal(Scope& sc, Kind kind) {
  switch (kind) {
    case Kind::Int: {
      AExpr null;
      null.op = AExpr::Op::Null;
      return chance(sc.rng, 0.08) ? null : int_literal(sc.rng);
    }
    case Kind::Float:
    case Kind::Double: return chance(sc.rng, 0.5) ? int_literal(sc.rng) : real_literal(sc.rng, false);
    case Kind::String: return string_literal(sc.rng);
    case Kind::Date: return date_literal(sc.rng);
  }
  return {};
}

//! A literal holding a value of column `c` (a random non-NULL row), or nullopt.
std::optional<AExpr> data_literal(Scope& sc, const AExpr& c) {
  if (c.op != AExpr::Op::Column) return std::nullopt;
  const std::string& table = c.table.empty() ? sc.tables[0] : c.table;
  for (const NamedTable& t : *sc.data) {
    if (t.name != table) continue;
    const Column& col = t.table.column(c.name);
    if (col.size() == 0) return std::nullopt;
    const uint64_t row = below(sc.rng, col.size());
    if (col.is_null(row)) return std::nullopt;
    AExpr e;
    switch (col.type) {
      case Type::Int32:
        e.op = AExpr::Op::IntLit;
        e.int_value = col.as<int32_t>()[row];
        e.text = std::to_string(e.int_value);
        return e;
      case Type::Float32: {
        const Literal l = literal_of(double(col.as<float>()[row]));
        e.op = AExpr::Op::RealLit;
        e.kind = Kind::Double;
        e.text = l.text.find_first_of(".e") == std::string::npos ? l.text + ".0" : l.text;
        e.real_value = l.value;
        return e;
      }
      case Type::String:
        e.op = AExpr::Op::StrLit;
        e.kind = Kind::String;
        e.text = col.string_at(row);
        return e;
      case Type::Date:
        e.op = AExpr::Op::DateLit;
        e.kind = Kind::Date;
        e.int_value = col.as<int32_t>()[row];
        return e;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

//! A literal to compare with `x`: from x's column half the time, else any of a comparable kind.
AExpr literal_for(Scope& sc, const AExpr& x) {
  if (chance(sc.rng, 0.5))
    if (auto l = data_literal(sc, x)) return *l;
  return literal(sc, comparable(sc.rng, x.kind));
}

ACond condition(Scope& sc, int depth) {
  Rng& rng = sc.rng;
  const double x = std::uniform_real_distribution<double>(0, 1)(rng);
  ACond c;
  if (depth < 2 && x < 0.3) {
    c.op = x < 0.12 ? ACond::Op::And : x < 0.24 ? ACond::Op::Or : ACond::Op::Not;
    const int n = c.op == ACond::Op::Not ? 1 : 2;
    for (int i = 0; i < n; ++i) c.sub.push_back(condition(sc, depth + 1));
    return c;
  }
  const Kind k = kind_of(sc, 0.7);
  if (x < 0.7) {
    c.op = ACond::Op::Compare;
    c.cmp = static_cast<CmpOp>(below(rng, 6));
    c.exprs.push_back(expr(sc, k, 1));
    c.exprs.push_back(chance(rng, 0.7) ? literal_for(sc, c.exprs[0]) : expr(sc, comparable(rng, k), 1));
  } else if (x < 0.85) {
    c.op = ACond::Op::Between;
    c.negated = chance(rng, 0.3);
    c.exprs.push_back(expr(sc, k, 1));
    c.exprs.push_back(literal_for(sc, c.exprs[0]));
    c.exprs.push_back(literal_for(sc, c.exprs[0]));
  } else {
    c.op = ACond::Op::In;
    c.negated = chance(rng, 0.3);
    c.exprs.push_back(expr(sc, k, 1));
    const int n = 1 + static_cast<int>(below(rng, 4));
    for (int i = 0; i < n; ++i) c.exprs.push_back(literal_for(sc, c.exprs[0]));
  }
  return c;
}

ACond conjunction(std::vector<ACond> parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  ACond c;
  c.op = ACond::Op::And;
  c.sub = std::move(parts);
  return c;
}

AExpr aggregate(Scope& sc) {
  Rng& rng = sc.rng;
  AExpr e;
  e.op = AExpr::Op::Agg;
  const double x = std::uniform_real_distribution<double>(0, 1)(rng);
  if (x < 0.15) {
    e.fn = AggFn::CountStar;
    return e;
  }
  e.fn = x < 0.25 || (x < 0.35 && sc.plain) ? AggFn::Count
         : x < 0.35                         ? AggFn::CountDistinct
         : x < 0.55                         ? AggFn::Sum
         : x < 0.7                          ? AggFn::Avg
         : x < 0.85                         ? AggFn::Min
                                            : AggFn::Max;
  Kind arg = kind_of(sc, 0.9);
  if ((e.fn == AggFn::Sum || e.fn == AggFn::Avg) && (arg == Kind::String || arg == Kind::Date))
    arg = chance(rng, 0.6) ? Kind::Int : Kind::Float;
  e.args = {expr(sc, arg, 1)};
  if (e.fn == AggFn::Count || e.fn == AggFn::CountDistinct || e.fn == AggFn::CountStar)
    e.kind = Kind::Int;
  else if (e.fn == AggFn::Avg || (e.fn == AggFn::Sum && arg != Kind::Int))
    e.kind = Kind::Double;
  else
    e.kind = arg;
  return e;
}

//! FROM of 1 to 3 tables, joined by keys (k, s, d or i = k) in ON or WHERE; WHERE's key
//! conditions go to `keys`.
void from(Scope& sc, ASelect& s, std::vector<ACond>& keys, const Tables& tables) {
  Rng& rng = sc.rng;
  std::vector<std::string> names;
  for (const NamedTable& t : *tables) names.push_back(t.name);
  std::shuffle(names.begin(), names.end(), rng);
  const double x = std::uniform_real_distribution<double>(0, 1)(rng);
  names.resize(x < 0.45 ? 1 : x < 0.8 ? 2 : 3);
  s.tables = names;
  s.join_on = chance(rng, 0.5);
  sc.tables = names;
  sc.qualify = names.size() > 1 || chance(rng, 0.5);
  for (size_t i = 1; i < names.size(); ++i) {
    // ON names only the tables joined so far.
    sc.tables.assign(names.begin(), names.begin() + static_cast<ptrdiff_t>(i + 1));
    const std::string& left = names[below(rng, i)];
    static const std::vector<std::pair<const char*, const char*>> pairs = {{"k", "k"}, {"k", "k"}, {"k", "k"},
                                                                           {"s", "s"}, {"d", "d"}, {"i", "k"}};
    const auto [lc, rc] = one_of(pairs, rng);
    ACond key;
    key.op = ACond::Op::Compare;
    AExpr l, r;
    l.table = left;
    l.name = lc;
    r.table = names[i];
    r.name = rc;
    key.exprs = {l, r};
    // A join without keys now and then (a product) when only two small tables take part.
    const bool product = names.size() == 2 && chance(rng, 0.05);
    if (s.join_on) {
      ACond on = key;
      if (chance(rng, 0.2)) on = conjunction({key, condition(sc, 1)});
      if (product) on = condition(sc, 1);
      s.on.push_back(on);
    } else if (!product) {
      keys.push_back(key);
    }
  }
  sc.tables = names;
}

std::optional<ACond> where(Scope& sc, std::vector<ACond> keys, double p) {
  if (chance(sc.rng, p)) keys.push_back(condition(sc, 0));
  if (keys.empty()) return std::nullopt;
  return conjunction(std::move(keys));
}

void name_items(Rng& rng, std::vector<AItem>& items) {
  for (size_t i = 0; i < items.size(); ++i)
    if (chance(rng, 0.2)) items[i].alias = "x" + std::to_string(i + 1);
}

ASelect projection(Scope& sc, const Tables& tables, const std::vector<Kind>& kinds) {
  ASelect s;
  std::vector<ACond> keys;
  from(sc, s, keys, tables);
  for (Kind k : kinds) s.items.push_back({expr(sc, k, 0), ""});
  s.distinct = !sc.plain && chance(sc.rng, 0.25);
  s.where = where(sc, keys, 0.7);
  return s;
}

ASelect grouped(Scope& sc, const Tables& tables, bool group) {
  Rng& rng = sc.rng;
  ASelect s;
  std::vector<ACond> keys;
  from(sc, s, keys, tables);
  if (group) {
    const int n = 1 + static_cast<int>(below(rng, 3));
    for (int i = 0; i < n; ++i) {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      AExpr key = x < 0.75 || sc.plain
                      ? sc.column(one_of(std::vector<std::string>{"k", "s", "d", "f", "i"}, rng), Kind::Int)
                      : expr(sc, x < 0.9 ? Kind::Int : Kind::Date, 1);
      if (key.op == AExpr::Op::Column)
        key.kind = key.name == "s"   ? Kind::String
                   : key.name == "d" ? Kind::Date
                   : key.name == "f" ? Kind::Float
                                     : Kind::Int;
      if (key.op == AExpr::Op::IntLit || key.op == AExpr::Op::Null) continue;  // GROUP BY 3 is an ordinal
      s.group_by.push_back(key);
    }
    for (const AExpr& key : s.group_by)
      if (chance(rng, 0.7)) s.items.push_back({key, ""});
  }
  const int aggs = 1 + static_cast<int>(below(rng, 3));
  for (int i = 0; i < aggs; ++i) {
    AExpr a = aggregate(sc);
    if (a.kind == Kind::Int && !sc.plain && chance(rng, 0.15))
      a = binary(AExpr::Op::Add, Kind::Int, a, int_literal(rng));
    s.items.insert(s.items.begin() + static_cast<ptrdiff_t>(below(rng, s.items.size() + 1)), {a, ""});
  }
  s.where = where(sc, keys, 0.6);
  if (group && chance(rng, 0.4)) {
    ACond h;
    h.op = ACond::Op::Compare;
    h.cmp = static_cast<CmpOp>(below(rng, 6));
    const AExpr a = aggregate(sc);
    h.exprs = {a, literal(sc, comparable(rng, a.kind))};
    if (chance(rng, 0.3) && !s.group_by.empty()) {
      // A condition on a group key.
      const AExpr& key = one_of(s.group_by, rng);
      ACond k;
      k.op = ACond::Op::Compare;
      k.cmp = static_cast<CmpOp>(below(rng, 6));
      k.exprs = {key, literal(sc, comparable(rng, key.kind))};
      h = conjunction({h, k});
    }
    s.having = h;
  }
  return s;
}

std::vector<Kind> item_kinds(Scope& sc) {
  std::vector<Kind> kinds(1 + below(sc.rng, 4));
  for (Kind& k : kinds) k = kind_of(sc, 0.9);
  return kinds;
}

//! ORDER BY keys: positions, aliases and (outside set operations and DISTINCT) expressions, with
//! every position added at the end when the order must be total (LIMIT, OFFSET).
void order_by(Scope& sc, AQuery& q, bool expressions) {
  Rng& rng = sc.rng;
  const ASelect& first = q.operands[0];
  const size_t items = first.items.size();
  const int n = static_cast<int>(below(rng, sc.plain ? 2 : 4));
  for (int i = 0; i < n; ++i) {
    AOrder o;
    o.descending = chance(rng, 0.4);
    o.ordinal = 1 + below(rng, items);
    const double x = std::uniform_real_distribution<double>(0, 1)(rng);
    if (expressions && x < 0.5) {
      o.form = AOrder::Form::Expr;
      if (first.aggregate())
        o.expr = first.group_by.empty() || chance(rng, 0.5) ? aggregate(sc) : one_of(first.group_by, rng);
      else
        o.expr = expr(sc, any_kind(rng), 1);
      if (!o.expr.has_aggregate() && o.expr.op != AExpr::Op::Column && o.expr.args.empty()) continue;  // a constant
    } else if (x < 0.7 && !first.items[o.ordinal - 1].alias.empty()) {
      o.form = AOrder::Form::Alias;
    }
    q.order_by.push_back(o);
  }
  if (sc.plain) return;  // one key and no LIMIT: plans the GPU paths run whole
  if (chance(rng, 0.35)) {
    static const std::vector<uint64_t> limits = {0, 1, 2, 3, 5, 10, std::numeric_limits<uint64_t>::max()};
    q.limit = one_of(limits, rng);
  }
  if (chance(rng, 0.15)) q.offset = below(rng, 4);
  if (q.limit || q.offset || chance(rng, 0.3)) {
    q.total_order = true;
    for (size_t i = 1; i <= items; ++i) q.order_by.push_back({AOrder::Form::Ordinal, {}, i, chance(rng, 0.3)});
  }
}

}  // namespace

AQuery AnalyticGenerator::query(const Tables& tables, uint64_t seed) {
  Rng rng(seed);
  Scope sc{rng, tables, {}, true, false};
  AQuery q;
  sc.plain = chance(rng, options_.plain_share);
  const double x = std::uniform_real_distribution<double>(0, sc.plain ? 0.75 : 1)(rng);
  if (x < 0.3) {
    q.operands.push_back(projection(sc, tables, item_kinds(sc)));
    name_items(rng, q.operands[0].items);
    order_by(sc, q, !q.operands[0].distinct);
  } else if (x < 0.75) {
    q.operands.push_back(grouped(sc, tables, x >= 0.4));
    name_items(rng, q.operands[0].items);
    q.operands[0].distinct = !sc.plain && chance(rng, 0.1);
    order_by(sc, q, !q.operands[0].distinct);
  } else {
    // Set operations over projections with the same kinds, position by position.
    const std::vector<Kind> kinds = item_kinds(sc);
    const int n = 2 + static_cast<int>(chance(rng, 0.3));
    for (int i = 0; i < n; ++i) {
      q.operands.push_back(projection(sc, tables, kinds));
      if (i > 0) q.ops.push_back({static_cast<ASetOp::Op>(below(rng, 3)), chance(rng, 0.5)});
    }
    name_items(rng, q.operands[0].items);
    order_by(sc, q, false);
  }
  return q;
}

}  // namespace gfxq::differential
