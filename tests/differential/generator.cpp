#include "differential/generator.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>

namespace gfxq::differential {

namespace {

using Rng = std::mt19937_64;

//! One row of a weighted table of constructs: a name (for messages and docs) and its weight.
template <class T>
struct Weighted {
  const char* name;
  double weight;
  T make;
};

template <class T, size_t N>
const T& pick(const Weighted<T> (&table)[N], Rng& rng) {
  double total = 0;
  for (const auto& row : table) total += row.weight;
  double x = std::uniform_real_distribution<double>(0, total)(rng);
  for (const auto& row : table) {
    if (x < row.weight) return row.make;
    x -= row.weight;
  }
  return table[N - 1].make;
}

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

constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kIntMax = std::numeric_limits<int32_t>::max();

const std::vector<int32_t>& int_extremes() {
  static const std::vector<int32_t> v = {kIntMin, kIntMin + 1, kIntMax,  kIntMax - 1, 0,         -1,
                                         1,       16777215,    16777216, 16777217,    -16777217, 1000000};
  return v;
}

float float_of_bits(uint32_t bits) {
  return std::bit_cast<float>(bits);
}

const std::vector<float>& float_specials() {
  static const std::vector<float> v = {0.0f,
                                       -0.0f,
                                       std::numeric_limits<float>::quiet_NaN(),
                                       float_of_bits(0xffc00000u),  // negative NaN
                                       float_of_bits(0x7f800001u),  // signalling NaN payload
                                       float_of_bits(0xffc00123u),  // negative NaN with a payload
                                       std::numeric_limits<float>::infinity(),
                                       -std::numeric_limits<float>::infinity(),
                                       std::numeric_limits<float>::denorm_min(),
                                       -std::numeric_limits<float>::denorm_min(),
                                       float_of_bits(0x007fffffu),  // largest subnormal
                                       std::numeric_limits<float>::min(),
                                       std::numeric_limits<float>::max(),
                                       -std::numeric_limits<float>::max(),
                                       1e38f,
                                       -3e38f,
                                       16777216.0f,
                                       16777218.0f,
                                       0.1f,
                                       1.0f,
                                       -1.0f,
                                       0.5f};
  return v;
}

// --- column value profiles: how one column's values are drawn

using IntProfile = std::function<std::vector<int32_t>(uint64_t, Rng&)>;
using FloatProfile = std::function<std::vector<float>(uint64_t, Rng&)>;

std::vector<int32_t> ints_in(uint64_t n, Rng& rng, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = static_cast<int32_t>(d(rng));
  return v;
}

//! Zipf-like: value i of `values` with weight 1/(i+1)^2.
template <class T>
std::vector<T> skewed(uint64_t n, Rng& rng, const std::vector<T>& values) {
  std::vector<double> w(values.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = 1.0 / double((i + 1) * (i + 1));
  std::discrete_distribution<size_t> d(w.begin(), w.end());
  std::vector<T> v(n);
  for (auto& x : v) x = values[d(rng)];
  return v;
}

const Weighted<IntProfile> kIntProfiles[] = {
    {"uniform int32", 3, [](uint64_t n, Rng& r) { return ints_in(n, r, kIntMin, kIntMax); }},
    {"few distinct", 3, [](uint64_t n, Rng& r) { return ints_in(n, r, -3, 3); }},
    {"medium range", 2, [](uint64_t n, Rng& r) { return ints_in(n, r, -1000, 1000); }},
    {"skewed", 2,
     [](uint64_t n, Rng& r) {
       std::vector<int32_t> values = {7, kIntMax, 0, -5, kIntMin, 123456789};
       return skewed(n, r, values);
     }},
    {"all equal", 1.5,
     [](uint64_t n, Rng& r) {
       const int32_t x = chance(r, 0.5) ? one_of(int_extremes(), r) : ints_in(1, r, -100, 100)[0];
       return std::vector<int32_t>(n, x);
     }},
    {"int32 extremes", 2,
     [](uint64_t n, Rng& r) {
       std::vector<int32_t> v(n);
       for (auto& x : v) x = one_of(int_extremes(), r);
       return v;
     }},
    {"sorted", 1,
     [](uint64_t n, Rng& r) {
       auto v = ints_in(n, r, -1000000, 1000000);
       std::sort(v.begin(), v.end());
       if (chance(r, 0.5)) std::reverse(v.begin(), v.end());
       return v;
     }},
};

std::vector<float> floats_in(uint64_t n, Rng& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(rng));
  return v;
}

const Weighted<FloatProfile> kFloatProfiles[] = {
    {"uniform", 2, [](uint64_t n, Rng& r) { return floats_in(n, r, -1e6, 1e6); }},
    {"few distinct with -0.0", 2,
     [](uint64_t n, Rng& r) {
       const std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.5f};
       std::vector<float> v(n);
       for (auto& x : v) x = one_of(values, r);
       return v;
     }},
    {"specials", 3,
     [](uint64_t n, Rng& r) {
       auto v = floats_in(n, r, -100, 100);
       for (auto& x : v)
         if (chance(r, 0.5)) x = one_of(float_specials(), r);
       return v;
     }},
    {"all equal", 1.5,
     [](uint64_t n, Rng& r) {
       const float x = chance(r, 0.6) ? one_of(float_specials(), r) : floats_in(1, r, -10, 10)[0];
       return std::vector<float>(n, x);
     }},
    {"integers", 1.5,
     [](uint64_t n, Rng& r) {
       std::vector<float> v(n);
       for (auto& x : v) x = static_cast<float>(ints_in(1, r, -100, 100)[0]);
       return v;
     }},
    {"wide exponents", 2,
     [](uint64_t n, Rng& r) {
       std::vector<float> v(n);
       for (auto& x : v) {
         const int e = static_cast<int>(ints_in(1, r, -149, 127)[0]);
         x = static_cast<float>(std::ldexp(std::uniform_real_distribution<double>(1, 2)(r), e) *
                                (chance(r, 0.5) ? -1 : 1));
       }
       return v;
     }},
    {"skewed", 1,
     [](uint64_t n, Rng& r) {
       const std::vector<float> values = {1.5f,  std::numeric_limits<float>::quiet_NaN(), -0.0f,
                                          3e38f, std::numeric_limits<float>::infinity(),  0.25f};
       return skewed(n, r, values);
     }},
};

uint64_t table_rows(Rng& rng, const GeneratorOptions& o) {
  if (chance(rng, o.large_share)) return o.max_rows + below(rng, o.large_rows - o.max_rows + 1);
  const double x = std::uniform_real_distribution<double>(0, 1)(rng);
  if (x < 0.05) return 0;
  if (x < 0.12) return 1;
  if (x < 0.40) return 2 + below(rng, 9);
  if (x < 0.75) return 11 + below(rng, 90);
  return 101 + below(rng, o.max_rows > 100 ? o.max_rows - 100 : 1);
}

Table random_table(Rng& rng, const std::vector<std::string>& names, uint64_t rows) {
  Table t;
  for (const std::string& name : names) {
    if (chance(rng, 0.5))
      t.columns.push_back(Column::ints(name, pick(kIntProfiles, rng)(rows, rng)));
    else
      t.columns.push_back(Column::floats(name, pick(kFloatProfiles, rng)(rows, rng)));
  }
  return t;
}

// --- queries

//! A column of the query's scope: its reference as the query writes it, and its data.
struct ScopeColumn {
  ColumnRef ref;
  const Column* data;
};

struct Context {
  Rng& rng;
  std::vector<ScopeColumn> columns;

  const ScopeColumn& any_column() { return one_of(columns, rng); }
  uint64_t rows() const { return columns.empty() ? 0 : columns.front().data->size(); }
};

double parse_text(const std::string& text) {
  double v = 0;
  const char* b = text.data();
  const bool plus = !text.empty() && text[0] == '+';
  const auto res = std::from_chars(b + (plus ? 1 : 0), b + text.size(), v);
  if (res.ec == std::errc::result_out_of_range) return std::strtod(text.c_str(), nullptr);
  return v;
}

Literal literal_text(std::string text) {
  return {text, parse_text(text)};
}

//! A literal to compare with column `c`: from the data, a boundary, a neighbour, a random number,
//! or an odd spelling.
Literal random_literal(Context& ctx, const ScopeColumn& c) {
  Rng& rng = ctx.rng;
  const bool is_int = c.data->type == Type::Int32;
  const double x = std::uniform_real_distribution<double>(0, 1)(rng);
  const uint64_t n = c.data->size();
  if (x < 0.4 && n > 0) {
    const uint64_t row = below(rng, n);
    const double v = is_int ? double(c.data->as<int32_t>()[row]) : double(c.data->as<float>()[row]);
    if (std::isfinite(v)) {
      if (chance(rng, 0.7)) return literal_of(v);
      // a neighbour: v +- 0.5, v + 1, or the next float up
      const double neighbours[] = {v + 0.5, v - 0.5, v + 1,
                                   double(std::nextafter(static_cast<float>(v), std::numeric_limits<float>::max()))};
      const double w = neighbours[below(rng, 4)];
      if (std::isfinite(w)) return literal_of(w);
    }
  }
  if (x < 0.7) {
    static const std::vector<double> ints = {-2147483648.0, -2147483647.0, 2147483647.0, 2147483646.0, 0.0,
                                             -1.0,          1.0,           16777216.0,   16777217.0,   0.5,
                                             -0.5,          2.5,           -2147483648.5};
    static const std::vector<double> floats = {0.0,
                                               1.1754943508222875e-38,
                                               1.401298464324817e-45,
                                               3.4028234663852886e38,
                                               -3.4028234663852886e38,
                                               16777216.0,
                                               0.1,
                                               -1.0,
                                               1e30,
                                               -1e-30,
                                               3.4028235677973366e38};
    return literal_of(one_of(is_int ? ints : floats, rng));
  }
  if (x < 0.9) return literal_of(is_int ? double(ints_in(1, rng, -2000, 2000)[0]) : floats_in(1, rng, -200, 200)[0]);
  static const std::vector<std::string> odd = {".5",     "5.",    "1E3",    "+2",  "-0",       "1e-400", "-1e-400",
                                               "2.5e-1", "1e300", "-1e300", "0.1", "4.9e-324", "007"};
  return literal_text(one_of(odd, rng));
}

Condition compare(Context& ctx) {
  Condition c;
  const ScopeColumn& col = ctx.any_column();
  c.column = col.ref;
  c.op = static_cast<CmpOp>(below(ctx.rng, 6));
  c.rhs = random_literal(ctx, col);
  c.literal_first = chance(ctx.rng, 0.2);
  return c;
}

Condition compare_columns(Context& ctx) {
  Condition c;
  c.column = ctx.any_column().ref;
  c.op = static_cast<CmpOp>(below(ctx.rng, 6));
  c.rhs = ctx.any_column().ref;
  return c;
}

Condition between(Context& ctx) {
  Condition c;
  c.kind = Condition::Kind::Between;
  const ScopeColumn& col = ctx.any_column();
  c.column = col.ref;
  c.lo = random_literal(ctx, col);
  c.hi = random_literal(ctx, col);
  if (chance(ctx.rng, 0.7) && c.lo.value > c.hi.value) std::swap(c.lo, c.hi);
  c.negated = chance(ctx.rng, 0.3);
  return c;
}

using ConditionForm = Condition (*)(Context&, int depth, int& leaves);
Condition condition(Context& ctx, int depth, int& leaves);

Condition composite(Context& ctx, Condition::Kind kind, int depth, int& leaves) {
  Condition c;
  c.kind = kind;
  const int n = kind == Condition::Kind::Not ? 1 : 2 + static_cast<int>(below(ctx.rng, 2));
  for (int i = 0; i < n; ++i) c.operands.push_back(condition(ctx, depth + 1, leaves));
  return c;
}

const Weighted<ConditionForm> kConditionForms[] = {
    {"column op literal", 5, [](Context& c, int, int& l) { return ++l, compare(c); }},
    {"column op column", 1.5, [](Context& c, int, int& l) { return ++l, compare_columns(c); }},
    {"[NOT] BETWEEN", 1.2, [](Context& c, int, int& l) { return ++l, between(c); }},
    {"AND", 2, [](Context& c, int d, int& l) { return composite(c, Condition::Kind::And, d, l); }},
    {"OR", 2, [](Context& c, int d, int& l) { return composite(c, Condition::Kind::Or, d, l); }},
    {"NOT", 0.8, [](Context& c, int d, int& l) { return composite(c, Condition::Kind::Not, d, l); }},
};

constexpr int kMaxDepth = 3;
constexpr int kMaxLeaves = 8;  // keeps every CNF far below CnfLimits' 256 comparisons

Condition condition(Context& ctx, int depth, int& leaves) {
  if (depth >= kMaxDepth || leaves >= kMaxLeaves) {
    ++leaves;
    return chance(ctx.rng, 0.8) ? compare(ctx) : between(ctx);
  }
  return pick(kConditionForms, ctx.rng)(ctx, depth, leaves);
}

//! Clause and comparison counts of a condition's CNF before duplicate removal (as the parser
//! counts them; BETWEEN is two comparisons under AND, NOT BETWEEN under OR).
struct CnfSize {
  double clauses, terms;
};

CnfSize cnf_size(const Condition& c, bool negated) {
  using K = Condition::Kind;
  if (c.kind == K::Compare) return {1, 1};
  if (c.kind == K::Between) return (c.negated != negated) ? CnfSize{1, 2} : CnfSize{2, 2};
  if (c.kind == K::Not) return cnf_size(c.operands[0], !negated);
  const bool conjunction = (c.kind == K::And) != negated;
  CnfSize s = cnf_size(c.operands[0], negated);
  for (size_t i = 1; i < c.operands.size(); ++i) {
    const CnfSize t = cnf_size(c.operands[i], negated);
    s = conjunction ? CnfSize{s.clauses + t.clauses, s.terms + t.terms}
                    : CnfSize{s.clauses * t.clauses, s.terms * t.clauses + t.terms * s.clauses};
  }
  return s;
}

//! A condition whose CNF stays within CnfLimits' defaults (a larger one is drawn again).
Condition random_condition(Context& ctx) {
  const CnfLimits limits;
  for (;;) {
    int leaves = 0;
    Condition c = condition(ctx, 0, leaves);
    const CnfSize size = cnf_size(c, false);
    if (size.clauses <= double(limits.max_clauses) && size.terms <= double(limits.max_terms)) return c;
  }
}

// --- aggregates

using AggregateForm = Item (*)(Context&);

Item aggregate_of(AggKind kind, Context& ctx) {
  Item i;
  i.kind = Item::Kind::Aggregate;
  i.agg = kind;
  i.column = ctx.any_column().ref;
  return i;
}

const Weighted<AggregateForm> kAggregates[] = {
    {"COUNT(*)", 1.5,
     [](Context& c) {
       Item i = aggregate_of(AggKind::Count, c);
       i.count_star = true;
       return i;
     }},
    {"COUNT(c)", 0.5, [](Context& c) { return aggregate_of(AggKind::Count, c); }},
    {"SUM", 2, [](Context& c) { return aggregate_of(AggKind::Sum, c); }},
    {"AVG", 1.5, [](Context& c) { return aggregate_of(AggKind::Avg, c); }},
    {"MIN", 1.5, [](Context& c) { return aggregate_of(AggKind::Min, c); }},
    {"MAX", 1.5, [](Context& c) { return aggregate_of(AggKind::Max, c); }},
    {"MEDIAN", 1, [](Context& c) { return aggregate_of(AggKind::Median, c); }},
    {"QUANTILE", 1.5,
     [](Context& c) {
       Item i = aggregate_of(AggKind::Quantile, c);
       static const std::vector<std::string> qs = {"0.1", "0.2", "0.25",  "0.3",   "0.5",  "0.7",  "0.9",   "0.99",
                                                   "1",   "1.0", "0.001", "0.999", "0.05", "1e-1", "0.5e0", "0.125"};
       i.q = chance(c.rng, 0.8) ? one_of(qs, c.rng) : "0." + std::to_string(1 + below(c.rng, 999));
       return i;
     }},
    {"KTH_LARGEST", 1,
     [](Context& c) {
       Item i = aggregate_of(AggKind::KthLargest, c);
       const int64_t rows = static_cast<int64_t>(c.rows());
       const std::vector<int64_t> ks = {1, 2, 3, 5, 10, rows, rows + 1, std::max<int64_t>(1, rows / 2)};
       i.k = std::max<int64_t>(1, one_of(ks, c.rng));
       return i;
     }},
};

Item column_item(const ColumnRef& ref) {
  Item i;
  i.kind = Item::Kind::Column;
  i.column = ref;
  return i;
}

std::optional<uint64_t> random_limit(Context& ctx) {
  const uint64_t n = ctx.rows();
  const std::vector<uint64_t> limits = {0, 1, 2, 3, n / 2, n, n + 1, std::numeric_limits<uint64_t>::max()};
  return one_of(limits, ctx.rng);
}

// --- query forms

using QueryForm = void (*)(Context&, QuerySpec&);

void projection(Context& ctx, QuerySpec& q) {
  if (chance(ctx.rng, 0.3)) {
    Item star;
    star.kind = Item::Kind::Star;
    q.items.push_back(star);
  } else {
    const int n = 1 + static_cast<int>(below(ctx.rng, 3));
    for (int i = 0; i < n; ++i) q.items.push_back(column_item(ctx.any_column().ref));
  }
  if (chance(ctx.rng, 0.8)) q.where = random_condition(ctx);
  if (chance(ctx.rng, 0.45)) q.order_by = Order{ctx.any_column().ref, chance(ctx.rng, 0.5)};
  if (chance(ctx.rng, 0.3)) q.limit = random_limit(ctx);
}

void aggregation(Context& ctx, QuerySpec& q) {
  const int n = 1 + static_cast<int>(below(ctx.rng, 4));
  for (int i = 0; i < n; ++i) q.items.push_back(pick(kAggregates, ctx.rng)(ctx));
  if (chance(ctx.rng, 0.8)) q.where = random_condition(ctx);
  if (chance(ctx.rng, 0.05)) q.limit = chance(ctx.rng, 0.5) ? 0 : 1;
}

void grouped(Context& ctx, QuerySpec& q) {
  const ColumnRef group = ctx.any_column().ref;
  q.group_by = group;
  const int n = 1 + static_cast<int>(below(ctx.rng, 3));
  for (int i = 0; i < n; ++i) q.items.push_back(pick(kAggregates, ctx.rng)(ctx));
  if (chance(ctx.rng, 0.7))
    q.items.insert(q.items.begin() + static_cast<ptrdiff_t>(below(ctx.rng, q.items.size() + 1)), column_item(group));
  if (chance(ctx.rng, 0.7)) q.where = random_condition(ctx);
  if (chance(ctx.rng, 0.4)) q.order_by = Order{group, chance(ctx.rng, 0.5)};
  if (chance(ctx.rng, 0.2)) q.limit = random_limit(ctx);
}

const Weighted<QueryForm> kQueryForms[] = {
    {"projection", 3.5, projection},
    {"aggregate", 4, aggregation},
    {"GROUP BY", 2.5, grouped},
};

Literal join_offset(Rng& rng) {
  static const std::vector<std::string> offsets = {"0", "0.5", "1", "2", "10", "1000", "0.001", "1e9"};
  return literal_text(one_of(offsets, rng));
}

}  // namespace

Generator::Generator(uint64_t seed, GeneratorOptions options) : rng_(seed), options_(options) {}

Tables Generator::tables(uint64_t seed) {
  Rng rng(seed);
  auto out = std::make_shared<std::vector<NamedTable>>();
  if (chance(rng, options_.join_share)) {
    // Join inputs stay small: SQLite joins them by nested loops (the conditions are not indexable).
    out->push_back({"r", random_table(rng, {"a", "b", "c"}, std::min<uint64_t>(table_rows(rng, options_) / 2, 600))});
    out->push_back({"s", random_table(rng, {"b", "d"}, std::min<uint64_t>(table_rows(rng, options_) / 2, 600))});
  } else {
    std::vector<std::string> names = {"a", "b", "c", "d"};
    names.resize(1 + below(rng, 4));
    out->push_back({"t", random_table(rng, names, table_rows(rng, options_))});
  }
  return out;
}

QuerySpec Generator::query(const Tables& tables, uint64_t seed) {
  Rng rng(seed);
  Context ctx{rng, {}};
  QuerySpec q;
  const bool join = tables->size() == 2;
  for (const NamedTable& t : *tables)
    for (const Column& c : t.table.columns) {
      // In a join, a name only one table has may go unqualified.
      const bool unique = std::count_if(tables->begin(), tables->end(),
                                        [&](const NamedTable& u) { return u.table.find(c.name).has_value(); }) == 1;
      const bool qualify = join && !(unique && chance(rng, 0.3));
      ctx.columns.push_back({{qualify ? t.name : "", c.name}, &c});
    }
  q.from = tables->front().name;
  if (join) {
    Join j;
    j.right = (*tables)[1].name;
    // ON names its keys qualified.
    const Table& left = tables->front().table;
    const Table& right = (*tables)[1].table;
    j.left_key = {q.from, left.columns[below(rng, left.columns.size())].name};
    j.right_key = {j.right, right.columns[below(rng, right.columns.size())].name};
    const double form = std::uniform_real_distribution<double>(0, 1)(rng);
    j.form = form < 0.5 ? Join::Form::Equi : (form < 0.75 ? Join::Form::Between : Join::Form::Pair);
    if (j.form != Join::Form::Equi) {
      j.below = join_offset(rng);
      j.above = join_offset(rng);
    }
    q.join = j;
  }
  pick(kQueryForms, rng)(ctx, q);
  // Spelling: most queries in the canonical form, the rest in one of the others.
  if (chance(rng, 0.3)) {
    Style& st = q.style;
    st.lower_keywords = chance(rng, 0.5);
    st.bang_not_equal = chance(rng, 0.5);
    st.inner_join = chance(rng, 0.5);
    st.explicit_asc = chance(rng, 0.5);
    st.semicolon = chance(rng, 0.5);
    st.newlines = chance(rng, 0.3);
  }
  return q;
}

std::pair<int64_t, int64_t> decimal_fraction(const std::string& q_text) {
  int64_t digits = 0, den = 1;
  int exponent = 0;
  size_t i = 0;
  bool fraction = false;
  for (; i < q_text.size(); ++i) {
    const char ch = q_text[i];
    if (ch == '.') {
      fraction = true;
    } else if (ch >= '0' && ch <= '9') {
      digits = digits * 10 + (ch - '0');
      if (fraction) --exponent;
    } else {
      break;
    }
  }
  if (i < q_text.size() && (q_text[i] == 'e' || q_text[i] == 'E')) exponent += std::stoi(q_text.substr(i + 1));
  for (; exponent > 0; --exponent) digits *= 10;
  for (; exponent < 0; ++exponent) den *= 10;
  return {digits, den};
}

uint64_t decimal_rank(const std::string& q_text, uint64_t n) {
  if (n == 0) return 0;
  // rank = ceil(q * n) = ceil(num * n / den), exactly.
  const auto [num, den] = decimal_fraction(q_text);
  const unsigned __int128 p = static_cast<unsigned __int128>(num) * n;
  return static_cast<uint64_t>((p + static_cast<uint64_t>(den) - 1) / static_cast<uint64_t>(den));
}

}  // namespace gfxq::differential
