// Expression evaluation of the CPU engine: each node computes a whole vector from its operands'
// vectors. Integers (INT, BIGINT, DATE days, STRING codes) are held as int64, FLOAT as float, DOUBLE
// as double; NULLs in a flag vector.

#include "cpu/exec/eval.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/order_key.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

using plan::ArithOp;
using plan::Expr;
using plan::ExprKind;

HostRelation HostRelation::of(Table t) {
  HostRelation r;
  r.row_count = t.rows();
  auto owned = std::make_shared<const Table>(std::move(t));
  r.table = owned.get();
  r.columns.resize(owned->columns.size());
  for (size_t i = 0; i < r.columns.size(); ++i) r.columns[i] = i;
  r.owned = std::move(owned);
  return r;
}

HostRelation HostRelation::view(const Table& t, std::vector<size_t> columns) {
  HostRelation r;
  r.table = &t;
  r.columns = std::move(columns);
  r.row_count = t.rows();
  return r;
}

Table HostRelation::to_table() const {
  Table t;
  for (size_t i = 0; i < columns.size(); ++i) t.columns.push_back(column(i));
  return t;
}

namespace {

bool integer_storage(Type t) {
  return t == Type::Int32 || t == Type::Int64 || t == Type::Date || t == Type::String;
}

// One evaluated vector.
struct Vec {
  Type type = Type::Int64;
  std::vector<int64_t> i;     // integer storage
  std::vector<float> f;       // FLOAT
  std::vector<double> d;      // DOUBLE
  std::vector<uint8_t> null;  // empty when no row is NULL
  std::shared_ptr<const Dictionary> dict;

  bool is_null(size_t r) const { return !null.empty() && null[r]; }
  void set_null(size_t r, size_t n) {
    if (null.empty()) null.assign(n, 0);
    null[r] = 1;
  }
};

Vec from_column(const Column& c, uint64_t n) {
  Vec v;
  v.type = c.type;
  v.dict = c.dictionary;
  if (!c.nulls.empty()) v.null = c.nulls;
  switch (c.type) {
    case Type::Int32:
    case Type::Date:
    case Type::String: {
      const auto& src = c.as<int32_t>();
      v.i.assign(src.begin(), src.end());
      break;
    }
    case Type::Int64: v.i = c.as<int64_t>(); break;
    case Type::Float32: v.f = c.as<float>(); break;
    case Type::Float64: v.d = c.as<double>(); break;
  }
  (void)n;
  return v;
}

Vec broadcast(const Expr& e, uint64_t n) {
  Vec v;
  v.type = e.type;
  v.dict = e.dictionary;
  if (std::holds_alternative<std::monostate>(e.literal)) {
    v.null.assign(n, 1);
    if (integer_storage(e.type)) v.i.assign(n, 0);
    if (e.type == Type::Float32) v.f.assign(n, 0);
    if (e.type == Type::Float64) v.d.assign(n, 0);
    return v;
  }
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
          if (e.type == Type::Float32)
            v.f.assign(n, float(x));
          else if (e.type == Type::Float64)
            v.d.assign(n, double(x));
          else
            v.i.assign(n, int64_t(x));
        } else if constexpr (std::is_same_v<T, float>) {
          v.f.assign(n, x);
        } else if constexpr (std::is_same_v<T, double>) {
          if (e.type == Type::Float32)
            v.f.assign(n, float(x));
          else
            v.d.assign(n, x);
        } else if constexpr (std::is_same_v<T, Date>) {
          v.i.assign(n, x.days);
        } else if constexpr (std::is_same_v<T, std::string>) {
          throw Error(ErrorCode::Internal, "string literal '" + x + "' evaluated without a dictionary");
        }
      },
      e.literal);
  return v;
}

// Conversions of a vector's values to another number type.
std::vector<double> as_doubles(const Vec& v) {
  if (v.type == Type::Float64) return v.d;
  if (v.type == Type::Float32) return std::vector<double>(v.f.begin(), v.f.end());
  return std::vector<double>(v.i.begin(), v.i.end());
}

std::vector<float> as_floats(const Vec& v) {
  if (v.type == Type::Float32) return v.f;
  if (v.type == Type::Float64) {
    std::vector<float> out(v.d.size());
    for (size_t r = 0; r < out.size(); ++r) out[r] = float(v.d[r]);
    return out;
  }
  std::vector<float> out(v.i.size());
  for (size_t r = 0; r < out.size(); ++r) out[r] = float(v.i[r]);
  return out;
}

void merge_nulls(Vec& out, const Vec& a, const Vec& b, size_t n) {
  if (a.null.empty() && b.null.empty()) return;
  out.null.assign(n, 0);
  for (size_t r = 0; r < n; ++r) out.null[r] = uint8_t(a.is_null(r) || b.is_null(r));
}

[[noreturn]] void overflow(const Expr& e, size_t row, const char* what) {
  throw Error(ErrorCode::Overflow, std::string(what) + " in " + e.text + " at row " + std::to_string(row));
}

Vec eval(const Expr& e, const HostRelation& in);
Truth truth(const Expr& e, const HostRelation& in);

Vec arith(const Expr& e, const HostRelation& in) {
  const size_t n = in.rows();
  const Vec a = eval(e.args[0], in), b = eval(e.args[1], in);
  Vec out;
  out.type = e.type;
  merge_nulls(out, a, b, n);
  const ArithOp op = e.arith;
  if (e.type == Type::Float64 || e.type == Type::Float32) {
    auto apply = [&](auto x, auto y) {
      using T = decltype(x);
      switch (op) {
        case ArithOp::Add: return T(x + y);
        case ArithOp::Sub: return T(x - y);
        case ArithOp::Mul: return T(x * y);
        case ArithOp::Div: return T(x / y);
      }
      return T(0);
    };
    if (e.type == Type::Float64) {
      const auto x = as_doubles(a), y = as_doubles(b);
      out.d.resize(n);
      for (size_t r = 0; r < n; ++r) out.d[r] = apply(x[r], y[r]);
    } else {
      const auto x = as_floats(a), y = as_floats(b);
      out.f.resize(n);
      for (size_t r = 0; r < n; ++r) out.f[r] = apply(x[r], y[r]);
    }
    return out;
  }
  // BIGINT and DATE: exact int64 arithmetic; results past the type are errors, never wraps.
  out.i.resize(n);
  const bool date = e.type == Type::Date;
  for (size_t r = 0; r < n; ++r) {
    if (out.is_null(r)) continue;
    const int64_t x = a.i[r], y = b.i[r];
    int64_t z = 0;
    bool bad = false;
    switch (op) {
      case ArithOp::Add: bad = __builtin_add_overflow(x, y, &z); break;
      case ArithOp::Sub: bad = __builtin_sub_overflow(x, y, &z); break;
      case ArithOp::Mul: bad = __builtin_mul_overflow(x, y, &z); break;
      case ArithOp::Div:
        if (y == 0)
          throw Error(ErrorCode::InvalidInput, "division by zero in " + e.text + " at row " + std::to_string(r));
        if (x == std::numeric_limits<int64_t>::min() && y == -1)
          bad = true;
        else
          z = x / y;
        break;
    }
    if (bad) overflow(e, r, "integer overflow (the result is outside BIGINT)");
    if (date && (z < std::numeric_limits<int32_t>::min() || z > std::numeric_limits<int32_t>::max()))
      overflow(e, r, "date out of range");
    out.i[r] = z;
  }
  return out;
}

// Exact three-way comparison of an int64 with a double in the total order (NaN above all).
int compare_int_double(int64_t i, double d) {
  if (std::isnan(d)) return -1;
  if (d >= 0x1p63) return -1;
  if (d < -0x1p63) return 1;
  const double t = std::trunc(d);
  const auto ti = static_cast<int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  if (d == t) return 0;
  return d > t ? -1 : 1;  // i == trunc(d): d's fraction decides
}

int three_way(int64_t x, int64_t y) {
  return x < y ? -1 : (x > y ? 1 : 0);
}

Truth compare(const Expr& e, const HostRelation& in) {
  const size_t n = in.rows();
  const Vec a = eval(e.args[0], in), b = eval(e.args[1], in);
  Truth t(n);
  std::vector<int> c(n);
  const bool ints = integer_storage(a.type) && integer_storage(b.type);
  if (a.type == Type::String && b.type == Type::String && a.dict != b.dict) {
    for (size_t r = 0; r < n; ++r) {
      if (a.is_null(r) || b.is_null(r)) continue;
      const std::string_view x = a.dict->value(size_t(a.i[r]));
      const std::string_view y = b.dict->value(size_t(b.i[r]));
      c[r] = x < y ? -1 : (x == y ? 0 : 1);
    }
  } else if (ints) {
    for (size_t r = 0; r < n; ++r) c[r] = three_way(a.i[r], b.i[r]);
  } else if (a.type == Type::Int64 || b.type == Type::Int64) {
    const bool a_int = a.type == Type::Int64;
    const Vec& iv = a_int ? a : b;
    const auto dv = as_doubles(a_int ? b : a);
    for (size_t r = 0; r < n; ++r) {
      const int k = compare_int_double(iv.i[r], dv[r]);
      c[r] = a_int ? k : -k;
    }
  } else {
    const auto x = as_doubles(a), y = as_doubles(b);
    for (size_t r = 0; r < n; ++r) c[r] = compare_total(x[r], y[r]);
  }
  for (size_t r = 0; r < n; ++r) t[r] = (a.is_null(r) || b.is_null(r)) ? int8_t(-1) : int8_t(holds(e.cmp, c[r]));
  return t;
}

Vec cast(const Expr& e, const HostRelation& in) {
  const Vec a = eval(e.args[0], in);
  Vec out;
  out.type = e.type;
  out.null = a.null;
  out.dict = a.dict;
  if (e.type == Type::Float64)
    out.d = as_doubles(a);
  else if (e.type == Type::Float32)
    out.f = as_floats(a);
  else
    out.i = a.i;
  return out;
}

Vec extract(const Expr& e, const HostRelation& in) {
  const Vec a = eval(e.args[0], in);
  Vec out;
  out.type = Type::Int32;
  out.null = a.null;
  out.i.resize(a.i.size());
  for (size_t r = 0; r < a.i.size(); ++r) {
    int32_t y = 0, m = 0, d = 0;
    civil_from_date(Date{int32_t(a.i[r])}, y, m, d);
    out.i[r] = e.part == plan::DatePart::Year ? y : e.part == plan::DatePart::Month ? m : d;
  }
  return out;
}

Vec case_of(const Expr& e, const HostRelation& in) {
  const size_t n = in.rows();
  Vec out;
  out.type = e.type;
  out.dict = e.dictionary;
  std::vector<uint8_t> decided(n, 0);
  out.null.assign(n, 1);  // no branch and no ELSE: NULL
  if (integer_storage(e.type)) out.i.assign(n, 0);
  if (e.type == Type::Float32) out.f.assign(n, 0);
  if (e.type == Type::Float64) out.d.assign(n, 0);
  auto take = [&](const Vec& v, size_t r) {
    decided[r] = 1;
    out.null[r] = v.is_null(r);
    if (integer_storage(e.type)) out.i[r] = v.i[r];
    if (e.type == Type::Float32) out.f[r] = v.f[r];
    if (e.type == Type::Float64) out.d[r] = v.d[r];
  };
  const size_t pairs = e.args.size() / 2;
  for (size_t p = 0; p < pairs; ++p) {
    const Truth w = truth(e.args[2 * p], in);
    const Vec v = eval(e.args[2 * p + 1], in);
    for (size_t r = 0; r < n; ++r)
      if (!decided[r] && w[r] == 1) take(v, r);
  }
  if (e.has_else) {
    const Vec v = eval(e.args.back(), in);
    for (size_t r = 0; r < n; ++r)
      if (!decided[r]) take(v, r);
  }
  return out;
}

Vec eval(const Expr& e, const HostRelation& in) {
  const size_t n = in.rows();
  switch (e.kind) {
    case ExprKind::Column: return from_column(in.column(e.column), n);
    case ExprKind::Literal: return broadcast(e, n);
    case ExprKind::Arith: return arith(e, in);
    case ExprKind::Neg: {
      Vec a = eval(e.args[0], in);
      Vec out;
      out.type = e.type;
      out.null = a.null;
      if (e.type == Type::Float32) {
        out.f = a.f;
        for (auto& x : out.f) x = -x;
      } else if (e.type == Type::Float64) {
        out.d = a.d;
        for (auto& x : out.d) x = -x;
      } else {
        out.i = a.i;
        for (size_t r = 0; r < n; ++r) {
          if (out.is_null(r)) continue;
          if (out.i[r] == std::numeric_limits<int64_t>::min()) overflow(e, r, "integer overflow");
          out.i[r] = -out.i[r];
        }
      }
      return out;
    }
    case ExprKind::Cast: return cast(e, in);
    case ExprKind::Extract: return extract(e, in);
    case ExprKind::Case: return case_of(e, in);
    case ExprKind::ToBool: {
      const Truth t = truth(e.args[0], in);
      Vec out;
      out.type = Type::Int32;
      out.i.resize(n);
      for (size_t r = 0; r < n; ++r) {
        if (t[r] < 0)
          out.set_null(r, n);
        else
          out.i[r] = t[r];
      }
      return out;
    }
    default: break;
  }
  throw Error(ErrorCode::Internal, "a condition evaluated as a value: " + e.text);
}

Truth truth(const Expr& e, const HostRelation& in) {
  const size_t n = in.rows();
  switch (e.kind) {
    case ExprKind::Compare: return compare(e, in);
    case ExprKind::And:
    case ExprKind::Or: {
      const bool is_and = e.kind == ExprKind::And;
      Truth t(n, is_and ? 1 : 0);
      for (const Expr& a : e.args) {
        const Truth u = truth(a, in);
        for (size_t r = 0; r < n; ++r) {
          // AND: false wins, then unknown; OR: true wins, then unknown.
          const int8_t win = is_and ? 0 : 1;
          if (t[r] == win || u[r] == win)
            t[r] = win;
          else if (t[r] == -1 || u[r] == -1)
            t[r] = -1;
          else
            t[r] = int8_t(1 - win);
        }
      }
      return t;
    }
    case ExprKind::Not: {
      Truth t = truth(e.args[0], in);
      for (auto& x : t) x = x < 0 ? x : int8_t(1 - x);
      return t;
    }
    case ExprKind::Literal: {
      // TRUE / FALSE constants, or NULL.
      if (std::holds_alternative<std::monostate>(e.literal)) return Truth(n, -1);
      return Truth(n, std::get<int32_t>(e.literal) != 0 ? int8_t(1) : int8_t(0));
    }
    default: break;
  }
  throw Error(ErrorCode::Internal, "a value evaluated as a condition: " + e.text);
}

}  // namespace

Column evaluate(const Expr& e, const HostRelation& in, const std::string& name) {
  Vec v = eval(e, in);
  Column c = Column::make(name.empty() ? e.text : name, e.type);
  const size_t n = in.rows();
  switch (e.type) {
    case Type::Int32:
    case Type::Date:
    case Type::String: {
      auto& dst = std::get<std::vector<int32_t>>(c.data);
      dst.resize(n);
      for (size_t r = 0; r < n; ++r) dst[r] = int32_t(v.i[r]);
      break;
    }
    case Type::Int64: c.data = std::move(v.i); break;
    case Type::Float32: c.data = std::move(v.f); break;
    case Type::Float64: c.data = std::move(v.d); break;
  }
  if (e.type == Type::String) c.dictionary = v.dict ? v.dict : std::make_shared<const Dictionary>();
  if (!v.null.empty() && std::find(v.null.begin(), v.null.end(), 1) != v.null.end()) c.nulls = std::move(v.null);
  return c;
}

Truth evaluate_condition(const Expr& e, const HostRelation& in) {
  return truth(e, in);
}

std::vector<uint64_t> true_rows(const Expr& e, const HostRelation& in) {
  const Truth t = truth(e, in);
  std::vector<uint64_t> rows;
  for (size_t r = 0; r < t.size(); ++r)
    if (t[r] == 1) rows.push_back(r);
  return rows;
}

int compare_values(const Value& a, const Value& b) {
  auto num = [](const Value& v, double& d, int64_t& i) {
    if (const auto* x = std::get_if<int32_t>(&v)) return i = *x, 1;
    if (const auto* x = std::get_if<int64_t>(&v)) return i = *x, 1;
    if (const auto* x = std::get_if<float>(&v)) return d = *x, 2;
    if (const auto* x = std::get_if<double>(&v)) return d = *x, 2;
    return 0;
  };
  double da = 0, db = 0;
  int64_t ia = 0, ib = 0;
  const int ka = num(a, da, ia), kb = num(b, db, ib);
  if (ka && kb) {
    if (ka == 1 && kb == 1) return three_way(ia, ib);
    if (ka == 2 && kb == 2) return compare_total(da, db);
    return ka == 1 ? compare_int_double(ia, db) : -compare_int_double(ib, da);
  }
  if (const auto* x = std::get_if<std::string>(&a)) {
    const auto& y = std::get<std::string>(b);
    return *x < y ? -1 : (*x == y ? 0 : 1);
  }
  if (const auto* x = std::get_if<Date>(&a)) return three_way(x->days, std::get<Date>(b).days);
  throw Error(ErrorCode::Internal, "compare_values: cells of different kinds");
}

}  // namespace gfxq::cpu
