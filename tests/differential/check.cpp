#include "differential/check.h"

#include <bit>
#include <chrono>
#include <sstream>

#include "random_queries.h"

namespace gfxq::differential {

namespace {

template <class F>
Answer answer_of(F&& run);

Answer cpu_answer(Runner& runner, const Case& c, const Catalog& catalog) {
  return answer_of([&] { return runner.run(c.query.sql(), catalog, Backend::Cpu); });
}

//! The gist of an Unsupported message: up to its first ':' after the backend name, at most 70 bytes.
std::string gist(const std::string& message) {
  std::string s = message.substr(0, 70);
  const size_t colon = s.find(':', s.find(':') + 1);
  return colon == std::string::npos ? s : s.substr(0, colon);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

std::optional<Backend> backend_named(const std::string& side) {
  for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute})
    if (side == to_string(b)) return b;
  return std::nullopt;
}

bool same_bits(const Value& a, const Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* f = std::get_if<float>(&a))
    return std::bit_cast<uint32_t>(*f) == std::bit_cast<uint32_t>(std::get<float>(b));
  if (const auto* d = std::get_if<double>(&a))
    return std::bit_cast<uint64_t>(*d) == std::bit_cast<uint64_t>(std::get<double>(b));
  return a == b;
}

//! Empty when `got` has `want`'s types and values (bit for bit; names are not compared).
std::string value_difference(const Table& want, const Table& got) {
  if (want.columns.size() != got.columns.size())
    return "column count " + std::to_string(got.columns.size()) + " != " + std::to_string(want.columns.size());
  for (size_t c = 0; c < want.columns.size(); ++c) {
    const Column& w = want.columns[c];
    const Column& g = got.columns[c];
    if (w.type != g.type)
      return "column " + std::to_string(c) + " (" + w.name + "): type " + to_string(g.type) +
             " != " + to_string(w.type);
    if (w.size() != g.size())
      return "column " + std::to_string(c) + " (" + w.name + "): " + std::to_string(g.size()) +
             " rows != " + std::to_string(w.size());
    for (uint64_t r = 0; r < w.size(); ++r)
      if (!same_bits(w.value(r), g.value(r)))
        return "column " + std::to_string(c) + " (" + w.name + ") row " + std::to_string(r) + ": " +
               format_value(g.value(r)) + " != " + format_value(w.value(r));
  }
  return {};
}

}  // namespace

bool Answer::ok() const {
  return table.has_value();
}

std::string Answer::text() const {
  if (!table) return std::string(to_string(code)) + ": " + message;
  std::ostringstream out;
  write_csv(out, *table, true);
  std::string s = out.str();
  return s.size() > 2000 ? s.substr(0, 2000) + "...\n" : s;
}

uint64_t CheckStats::total_compared() const {
  uint64_t n = 0;
  for (const auto& [side, count] : compared) n += count;
  return n;
}

std::string CheckStats::text() const {
  std::string s = "cases " + std::to_string(cases) + ", answers compared with the CPU engine's " +
                  std::to_string(total_compared()) + "\n";
  for (const auto& [side, n] : compared) s += "  compared " + side + ": " + std::to_string(n) + "\n";
  for (const auto& [side, n] : unsupported) s += "  unsupported on " + side + ": " + std::to_string(n) + "\n";
  for (const auto& [code, n] : cpu_errors) s += "  cpu answered " + code + ": " + std::to_string(n) + "\n";
  for (const auto& [side, t] : seconds) s += "  time on " + side + ": " + std::to_string(t) + " s\n";
  for (const auto& [why, n] : reasons) s += "  declined, " + why + ": " + std::to_string(n) + "\n";
  return s;
}

Checker::Checker(Runner& runner, CheckOptions options) : runner_(runner), options_(std::move(options)) {}

std::optional<Mismatch> Checker::check(const Case& c) {
  ++stats.cases;
  const Catalog catalog = c.catalog();
  const auto start = std::chrono::steady_clock::now();
  const Answer want = cpu_answer(runner_, c, catalog);
  stats.seconds["cpu"] += seconds_since(start);
  ++stats.cpu_errors[want.ok() ? "a table" : to_string(want.code)];
  // Generated queries are valid: the CPU engine answers them, or reports an exact integer overflow.
  if (!want.ok() && want.code != ErrorCode::Overflow)
    return Mismatch{"cpu", "the CPU engine refused a generated query: " + want.text()};
  for (Backend b : options_.backends)
    if (auto m = compare(c, catalog, want, to_string(b), true)) return m;
  if (options_.sqlite)
    if (auto m = compare(c, catalog, want, "sqlite", true)) return m;
  return std::nullopt;
}

std::optional<Mismatch> Checker::check_side(const Case& c, const std::string& side) {
  const Catalog catalog = c.catalog();
  const Answer want = cpu_answer(runner_, c, catalog);
  if (!want.ok() && want.code != ErrorCode::Overflow)
    return side == "cpu" ? std::optional(Mismatch{"cpu", "the CPU engine refused: " + want.text()}) : std::nullopt;
  if (side == "cpu") return std::nullopt;
  return compare(c, catalog, want, side, false);
}

std::optional<Mismatch> Checker::compare(const Case& c, const Catalog& catalog, const Answer& want,
                                         const std::string& side, bool count) {
  const std::string sql = c.query.sql();
  const auto start = std::chrono::steady_clock::now();
  Answer got;
  if (side == "sqlite") {
    got = answer_of([&] { return sqlite_.run(c); });
    if (!got.ok() && got.code == ErrorCode::Internal)
      return Mismatch{"sqlite", "the SQLite oracle failed: " + got.message};
  } else {
    const Backend b = *backend_named(side);
    got = answer_of([&] { return runner_.run(sql, catalog, b); });
    const auto messages = runner_.take_debug_messages();
    if (!messages.empty()) {
      std::string all;
      for (const std::string& m : messages) all += m + "\n";
      return Mismatch{"validation", side + " recorded debug messages:\n" + all};
    }
    if (!got.ok() && got.code == ErrorCode::Unsupported) {
      if (count) {
        ++stats.unsupported[side];
        ++stats.reasons[side + ": " + gist(got.message)];
        stats.seconds[side] += seconds_since(start);
      }
      return std::nullopt;
    }
  }
  if (count) stats.seconds[side] += seconds_since(start);
  if (count) ++stats.compared[side];
  if (want.ok() != got.ok() || (!want.ok() && want.code != got.code))
    return Mismatch{side, "cpu gave " + want.text() + "\n" + side + " gave " + got.text()};
  if (!want.ok()) return std::nullopt;
  const std::string diff =
      side == "sqlite" ? value_difference(*want.table, *got.table) : test::table_difference(*want.table, *got.table);
  if (!diff.empty()) return Mismatch{side, diff};
  return std::nullopt;
}

std::string failure_report(Checker& checker, const Case& original, const Mismatch& mismatch) {
  std::string s = "differential mismatch on " + mismatch.side + ": " + mismatch.detail + "\n";
  s +=
      "original case (" + std::to_string((*original.tables)[0].table.rows()) + " rows): " + original.query.sql() + "\n";
  const Case small = minimise(checker, original, mismatch.side);
  s += "minimised case:\n" + small.text();
  if (const auto m = checker.check_side(small, mismatch.side)) s += "which gives: " + m->detail + "\n";
  return s;
}

}  // namespace gfxq::differential
