// Checks analytic cases (analytic.h) on every backend against the CPU engine and SQLite, and
// shrinks a failing one greedily to a small table set and query.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include "differential/analytic.h"
#include "random_queries.h"

namespace gfxq::differential {

namespace {

template <class F>
Answer answer_of(F&& run) {
  Answer a;
  try {
    a.table = run();
  } catch (const Error& e) {
    a.code = e.code();
    a.message = e.what();
  }
  return a;
}

//! Errors a generated query may rightly end in: an int64 overflow, a division by zero.
bool expected_error(ErrorCode code) {
  return code == ErrorCode::Overflow || code == ErrorCode::InvalidInput;
}

std::optional<Backend> backend_named(const std::string& side) {
  for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute, Backend::Auto})
    if (side == to_string(b)) return b;
  return std::nullopt;
}

//! The gist of a refusal: its first five words ("raster backend cannot run Sort").
std::string gist(const std::string& message) {
  size_t end = 0;
  for (int words = 0; words < 5 && end != std::string::npos; ++words) end = message.find(' ', end + 1);
  return message.substr(0, std::min(end, message.find(':')));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

//! Values equal as SQLite can tell: numbers by value (-0.0 = 0.0), the rest exactly.
bool same_value(const Value& a, const Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* f = std::get_if<float>(&a))
    return *f == std::get<float>(b) || (std::isnan(*f) && std::isnan(std::get<float>(b)));
  if (const auto* d = std::get_if<double>(&a))
    return *d == std::get<double>(b) || (std::isnan(*d) && std::isnan(std::get<double>(b)));
  return a == b;
}

//! A strict weak order consistent with same_value (NULL first, numbers by value, NaN last).
bool value_less(const Value& a, const Value& b) {
  if (a.index() != b.index()) return a.index() < b.index();
  const auto number = [](const Value& v) -> std::optional<double> {
    if (const auto* f = std::get_if<float>(&v)) return double(*f);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return std::nullopt;
  };
  if (const auto x = number(a)) {
    const double y = *number(b);
    if (std::isnan(*x) || std::isnan(y)) return !std::isnan(*x) && std::isnan(y);
    return *x < y;
  }
  return a < b;
}

using Row = std::vector<Value>;

std::vector<Row> rows_of(const Table& t) {
  std::vector<Row> rows(t.rows());
  for (uint64_t r = 0; r < t.rows(); ++r)
    for (const Column& c : t.columns) rows[r].push_back(c.value(r));
  return rows;
}

std::string row_text(const Row& row) {
  std::string s = "(";
  for (size_t i = 0; i < row.size(); ++i) s += (i ? ", " : "") + format_value(row[i]);
  return s + ")";
}

//! Empty when SQLite's rows equal the CPU engine's: in order when the query fixes it, else as
//! multisets.
std::string sqlite_difference(const Table& want, const Table& got, bool ordered) {
  std::vector<Row> w = rows_of(want), g = rows_of(got);
  if (w.size() != g.size()) return std::to_string(g.size()) + " rows != " + std::to_string(w.size());
  if (!ordered) {
    const auto less = [](const Row& a, const Row& b) {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), value_less);
    };
    std::sort(w.begin(), w.end(), less);
    std::sort(g.begin(), g.end(), less);
  }
  for (size_t r = 0; r < w.size(); ++r)
    for (size_t c = 0; c < w[r].size(); ++c)
      if (!same_value(w[r][c], g[r][c]))
        return std::string(ordered ? "row " : "sorted row ") + std::to_string(r) + ": " + row_text(g[r]) +
               " != " + row_text(w[r]);
  return {};
}

}  // namespace

AnalyticChecker::AnalyticChecker(Runner& runner, AnalyticCheckOptions options)
    : runner_(runner), options_(std::move(options)) {}

std::optional<Mismatch> AnalyticChecker::check(const ACase& c) {
  ++stats.cases;
  const Catalog catalog = c.catalog();
  const auto start = std::chrono::steady_clock::now();
  const Answer want = answer_of([&] { return runner_.run(c.query.sql(), catalog, Backend::Cpu); });
  stats.seconds["cpu"] += seconds_since(start);
  ++stats.cpu_errors[!want.ok() ? to_string(want.code) : want.table->rows() ? "a table" : "an empty table"];
  if (!want.ok() && !expected_error(want.code))
    return Mismatch{"cpu", "the CPU engine refused a generated query: " + want.text()};
  for (Backend b : options_.backends)
    if (auto m = compare(c, catalog, want, to_string(b), true)) return m;
  if (options_.sqlite)
    if (auto m = compare(c, catalog, want, "sqlite", true)) return m;
  return std::nullopt;
}

std::optional<Mismatch> AnalyticChecker::check_side(const ACase& c, const std::string& side) {
  const Catalog catalog = c.catalog();
  const Answer want = answer_of([&] { return runner_.run(c.query.sql(), catalog, Backend::Cpu); });
  if (!want.ok() && !expected_error(want.code))
    return side == "cpu" ? std::optional(Mismatch{"cpu", "the CPU engine refused: " + want.text()}) : std::nullopt;
  if (side == "cpu") return std::nullopt;
  return compare(c, catalog, want, side, false);
}

std::optional<Mismatch> AnalyticChecker::compare(const ACase& c, const Catalog& catalog, const Answer& want,
                                                 const std::string& side, bool count) {
  const auto start = std::chrono::steady_clock::now();
  if (side == "sqlite") {
    if (!want.ok()) {
      // SQLite may meet the error on other rows or not at all (it evaluates less eagerly).
      if (count) ++stats.reasons["sqlite: not compared, the CPU engine's " + std::string(to_string(want.code))];
      return std::nullopt;
    }
    std::vector<Type> types;
    for (const Column& col : want.table->columns) types.push_back(col.type);
    const Answer got = answer_of([&] { return sqlite_.run(c, types); });
    if (count) {
      stats.seconds["sqlite"] += seconds_since(start);
      ++stats.compared["sqlite"];
    }
    if (!got.ok() && expected_error(got.code)) {
      // SQLite evaluates a constant once and some conditions on rows gfxq never reaches (join
      // residuals on pairs whose keys differ): its error need not be gfxq's.
      if (count) ++stats.reasons["sqlite: not compared, its own " + std::string(to_string(got.code))];
      return std::nullopt;
    }
    if (!got.ok())
      return Mismatch{"sqlite", "cpu gave a table, sqlite " + got.text() + "\nsqlite ran: " + sqlite_.sql(c)};
    const std::string diff = sqlite_difference(*want.table, *got.table, c.query.total_order);
    if (!diff.empty()) return Mismatch{"sqlite", diff + "\nsqlite ran: " + sqlite_.sql(c)};
    return std::nullopt;
  }
  const Backend b = *backend_named(side);
  const Answer got = answer_of([&] { return runner_.run(c.query.sql(), catalog, b); });
  const auto messages = runner_.take_debug_messages();
  if (!messages.empty()) {
    std::string all;
    for (const std::string& m : messages) all += m + "\n";
    return Mismatch{"validation", side + " recorded debug messages:\n" + all};
  }
  if (count) stats.seconds[side] += seconds_since(start);
  if (!got.ok() && got.code == ErrorCode::Unsupported) {
    if (count) {
      ++stats.unsupported[side];
      ++stats.reasons[side + ": " + gist(got.message)];
    }
    return std::nullopt;
  }
  if (!got.ok() && got.code == ErrorCode::Timeout && want.ok()) {
    // A GPU wait past EngineOptions::gpu_timeout_ms: a loaded machine (long runs at nice 19 on
    // llvmpipe/lavapipe), not an answer; counted, and a real hang shows as a count that grows.
    if (count) ++stats.reasons[side + ": timed out, not compared"];
    return std::nullopt;
  }
  if (count) ++stats.compared[side];
  if (want.ok() != got.ok() || (!want.ok() && want.code != got.code))
    return Mismatch{side, "cpu gave " + want.text() + "\n" + side + " gave " + got.text()};
  if (!want.ok()) return std::nullopt;
  const std::string diff = test::table_difference(*want.table, *got.table);
  if (!diff.empty()) return Mismatch{side, diff};
  return std::nullopt;
}

std::string AnalyticChecker::failure_report(const ACase& original, const Mismatch& mismatch) {
  std::string s = "analytic differential mismatch on " + mismatch.side + ": " + mismatch.detail + "\n";
  s += "original query: " + original.query.sql() + "\n";
  const ACase small = minimise(*this, original, mismatch.side);
  s += "minimised case:\n" + small.text();
  if (const auto m = check_side(small, mismatch.side)) s += "which gives: " + m->detail + "\n";
  return s;
}

// --- the minimiser

namespace {

using Variant = std::function<std::optional<ACase>()>;

ACase with_tables(const ACase& c, std::vector<NamedTable> tables) {
  ACase out = c;
  out.tables = std::make_shared<const std::vector<NamedTable>>(std::move(tables));
  return out;
}

Table drop_rows(const Table& t, uint64_t from, uint64_t count) {
  Table out;
  for (const Column& c : t.columns) {
    Column k = Column::make(c.name, c.type);
    for (uint64_t r = 0; r < c.size(); ++r)
      if (r < from || r >= from + count) k.push(c.value(r));
    out.columns.push_back(std::move(k));
  }
  return out;
}

//! Conditions one step smaller: an operand of AND/OR/NOT, or a subtree made smaller.
void smaller_conditions(const ACond& c, std::vector<ACond>& out) {
  for (size_t i = 0; i < c.sub.size(); ++i) {
    out.push_back(c.sub[i]);
    std::vector<ACond> inner;
    smaller_conditions(c.sub[i], inner);
    for (ACond& x : inner) {
      ACond replaced = c;
      replaced.sub[i] = std::move(x);
      out.push_back(std::move(replaced));
    }
  }
  if (c.op == ACond::Op::In && c.exprs.size() > 2)
    for (size_t i = 1; i < c.exprs.size(); ++i) {
      ACond fewer = c;
      fewer.exprs.erase(fewer.exprs.begin() + static_cast<ptrdiff_t>(i));
      out.push_back(std::move(fewer));
    }
}

//! Expressions one step smaller: an operand of the same kind in place of the node.
void smaller_exprs(const AExpr& e, std::vector<AExpr>& out) {
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.args[i].kind == e.kind && e.op != AExpr::Op::Agg) out.push_back(e.args[i]);
    std::vector<AExpr> inner;
    smaller_exprs(e.args[i], inner);
    for (AExpr& x : inner) {
      AExpr replaced = e;
      replaced.args[i] = std::move(x);
      out.push_back(std::move(replaced));
    }
  }
}

//! `q` without select item `item` (in every operand), ORDER BY positions renumbered.
std::optional<AQuery> without_item(const AQuery& q, size_t item) {
  if (q.operands[0].items.size() < 2) return std::nullopt;
  AQuery s = q;
  for (ASelect& o : s.operands) o.items.erase(o.items.begin() + static_cast<ptrdiff_t>(item));
  std::vector<AOrder> keys;
  for (AOrder o : s.order_by) {
    if (o.form != AOrder::Form::Expr) {
      if (o.ordinal == item + 1) continue;
      if (o.ordinal > item + 1) --o.ordinal;
    }
    keys.push_back(o);
  }
  s.order_by = keys;
  return s;
}

std::vector<AQuery> smaller_queries(const AQuery& q) {
  std::vector<AQuery> out;
  // Set operations: one operand alone, or one operand fewer.
  if (q.operands.size() > 1)
    for (size_t i = 0; i < q.operands.size(); ++i) {
      AQuery alone = q;
      alone.operands = {q.operands[i]};
      // ORDER BY may name the first operand's aliases.
      for (size_t k = 0; k < alone.operands[0].items.size(); ++k)
        alone.operands[0].items[k].alias = q.operands[0].items[k].alias;
      alone.ops.clear();
      out.push_back(alone);
      AQuery fewer = q;
      fewer.operands.erase(fewer.operands.begin() + static_cast<ptrdiff_t>(i));
      fewer.ops.erase(fewer.ops.begin() + static_cast<ptrdiff_t>(i == 0 ? 0 : i - 1));
      if (i == 0)
        for (size_t k = 0; k < fewer.operands[0].items.size(); ++k)
          fewer.operands[0].items[k].alias = q.operands[0].items[k].alias;
      out.push_back(fewer);
    }
  for (size_t i = 0; i < q.operands[0].items.size(); ++i)
    if (auto s = without_item(q, i)) out.push_back(*s);
  if (!q.order_by.empty()) {
    AQuery s = q;
    s.order_by.clear();
    s.total_order = false;
    s.limit.reset();
    s.offset.reset();
    out.push_back(s);
    for (size_t i = 0; i < q.order_by.size(); ++i) {
      AQuery t = q;
      t.order_by.erase(t.order_by.begin() + static_cast<ptrdiff_t>(i));
      // Dropping one of the closing positions would leave the order partial under a LIMIT.
      if (!t.total_order || i + q.operands[0].items.size() < q.order_by.size()) out.push_back(t);
    }
  }
  if (q.limit) {
    AQuery s = q;
    s.limit.reset();
    out.push_back(s);
  }
  if (q.offset) {
    AQuery s = q;
    s.offset.reset();
    out.push_back(s);
  }
  for (size_t o = 0; o < q.operands.size(); ++o) {
    const ASelect& sel = q.operands[o];
    const auto push = [&](const std::function<void(ASelect&)>& change) {
      AQuery s = q;
      change(s.operands[o]);
      out.push_back(std::move(s));
    };
    if (sel.distinct) push([](ASelect& s) { s.distinct = false; });
    if (sel.where) {
      push([](ASelect& s) { s.where.reset(); });
      std::vector<ACond> smaller;
      smaller_conditions(*sel.where, smaller);
      for (const ACond& c : smaller) push([&](ASelect& s) { s.where = c; });
    }
    if (sel.having) {
      push([](ASelect& s) { s.having.reset(); });
      std::vector<ACond> smaller;
      smaller_conditions(*sel.having, smaller);
      for (const ACond& c : smaller) push([&](ASelect& s) { s.having = c; });
    }
    for (size_t i = 0; i < sel.on.size(); ++i) {
      std::vector<ACond> smaller;
      smaller_conditions(sel.on[i], smaller);
      for (const ACond& c : smaller) push([&](ASelect& s) { s.on[i] = c; });
    }
    // A table fewer (a query still naming it is refused by the CPU engine and not kept).
    for (size_t i = 1; i < sel.tables.size(); ++i)
      push([&](ASelect& s) {
        s.tables.erase(s.tables.begin() + static_cast<ptrdiff_t>(i));
        if (s.join_on) s.on.erase(s.on.begin() + static_cast<ptrdiff_t>(i - 1));
      });
    for (size_t i = 0; i < sel.group_by.size(); ++i)
      push([&](ASelect& s) { s.group_by.erase(s.group_by.begin() + static_cast<ptrdiff_t>(i)); });
    for (size_t i = 0; i < sel.items.size(); ++i) {
      std::vector<AExpr> smaller;
      smaller_exprs(sel.items[i].expr, smaller);
      for (const AExpr& e : smaller) push([&](ASelect& s) { s.items[i].expr = e; });
    }
  }
  return out;
}

std::vector<Variant> variants(const ACase& c) {
  std::vector<Variant> out;
  const auto& tables = *c.tables;
  for (size_t t = 0; t < tables.size(); ++t) {
    const uint64_t n = tables[t].table.rows();
    for (uint64_t chunk = n / 2 ? n / 2 : 1; chunk >= 1 && n > 0; chunk /= 2) {
      for (uint64_t from = 0; from < n; from += chunk)
        out.push_back([&c, t, from, chunk]() -> std::optional<ACase> {
          std::vector<NamedTable> copy = *c.tables;
          copy[t].table = drop_rows(copy[t].table, from, chunk);
          return with_tables(c, std::move(copy));
        });
      if (chunk == 1) break;
    }
  }
  for (AQuery& q : smaller_queries(c.query))
    out.push_back([&c, q]() -> std::optional<ACase> {
      ACase s = c;
      s.query = q;
      return s;
    });
  // Cells: NULL in place of a value, in small tables.
  for (size_t t = 0; t < tables.size(); ++t) {
    const Table& table = tables[t].table;
    if (table.rows() > 32) continue;
    for (size_t col = 0; col < table.columns.size(); ++col)
      for (uint64_t r = 0; r < table.rows(); ++r) {
        if (table.columns[col].is_null(r)) continue;
        out.push_back([&c, t, col, r]() -> std::optional<ACase> {
          std::vector<NamedTable> copy = *c.tables;
          Column& k = copy[t].table.columns[col];
          if (k.nulls.empty()) k.nulls.assign(k.size(), 0);
          k.nulls[r] = 1;
          return with_tables(c, std::move(copy));
        });
      }
  }
  return out;
}

}  // namespace

namespace {

//! What a refusal says past its position ("at 1:8: "), 40 bytes: a smaller case must fail alike.
std::string refusal_gist(const Mismatch& m) {
  if (m.side != "cpu") return {};
  size_t at = m.detail.find(": at ");
  at = at == std::string::npos ? 0 : m.detail.find(": ", at + 5);
  return m.detail.substr(at == std::string::npos ? 0 : at, 40);
}

}  // namespace

ACase minimise(AnalyticChecker& checker, const ACase& failing, const std::string& side, int max_checks) {
  ACase best = failing;
  const auto first = checker.check_side(failing, side);
  const std::string gist = first ? refusal_gist(*first) : std::string();
  int checks = 0;
  for (bool progress = true; progress && checks < max_checks;) {
    progress = false;
    for (const Variant& make : variants(best)) {
      if (++checks > max_checks) break;
      std::optional<ACase> candidate = make();
      if (!candidate) continue;
      if (const auto m = checker.check_side(*candidate, side); m && m->side == side && refusal_gist(*m) == gist) {
        best = std::move(*candidate);
        progress = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace gfxq::differential
