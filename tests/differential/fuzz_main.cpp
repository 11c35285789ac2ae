// gfxq_fuzz: the differential fuzzer of tests/test_differential.cpp as a program, for long runs
// (bench/fuzz.sh). Prints the seed, progress, every failure minimised, and counts at the end.
//
//   gfxq_fuzz [--seed S] [--cases N] [--minutes M] [--backends raster,compute] [--no-sqlite]
//             [--max-rows N] [--large-rows N] [--analytic] [--analytic-rows N] [--plain-share P] [--print] [--debug]
//             [--stop]
//
// --analytic: the analytic generator (analytic.h: STRING, DATE, NULLs, expressions, joins of three
// tables, GROUP BY several keys, set operations) instead of the one-table subset; its backends are
// those of --backends plus auto; --plain-share P draws that share of its queries over bare
// columns (the shapes the GPU backends run whole, default 0.35); --print writes each analytic query before it is
// checked.
//
// Exit status: 0 when every answer agreed, 1 when some differed, 2 for bad arguments.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "differential/analytic.h"
#include "differential/check.h"
#include "differential/generator.h"
#include "differential/runners.h"

using namespace gfxq;
using namespace gfxq::differential;

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "gfxq_fuzz: " << why
            << "\nusage: gfxq_fuzz [--seed S] [--cases N] [--minutes M] [--backends raster,compute] [--no-sqlite]"
               " [--max-rows N] [--large-rows N] [--analytic] [--analytic-rows N] [--plain-share P] [--print] "
               "[--debug] [--stop]\n";
  std::exit(2);
}

//! The analytic generator's loop: a new table set every 10 queries, each failure minimised.
int run_analytic(Runner& runner, const CheckOptions& check, uint64_t seed, uint64_t cases, double minutes, bool stop,
                 bool print, AnalyticOptions options) {
  AnalyticCheckOptions analytic_check{check.backends, check.sqlite};
  analytic_check.backends.push_back(Backend::Auto);
  AnalyticChecker checker(runner, analytic_check);
  AnalyticGenerator gen(seed, options);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_minutes = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
  };
  uint64_t failures = 0, tables_seed = 0;
  Tables tables;
  for (uint64_t i = 0; (cases == 0 || i < cases) && (minutes == 0 || elapsed_minutes() < minutes); ++i) {
    if (i % 10 == 0) tables = gen.tables(tables_seed = gen.next_seed());
    const uint64_t query_seed = gen.next_seed();
    const ACase c{tables, gen.query(tables, query_seed), query_seed};
    if (print) std::cout << c.query.sql() << "\n";
    if (const auto m = checker.check(c)) {
      ++failures;
      std::cout << "FAILURE " << failures << " at case " << i << " (tables seed " << tables_seed << ", query seed "
                << query_seed << ")\n"
                << checker.failure_report(c, *m) << std::endl;
      if (stop) break;
    }
    if ((i + 1) % 1000 == 0)
      std::cout << "progress: " << (i + 1) << " cases, " << checker.stats.total_compared() << " answers compared, "
                << failures << " failures, " << elapsed_minutes() << " min" << std::endl;
  }
  std::cout << checker.stats.text() << "failures: " << failures << "\n";
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = std::random_device{}() * 0x100000001ull ^ std::random_device{}();
  uint64_t cases = 0;
  double minutes = 0;
  bool debug = false, stop = false, analytic = false, print = false;
  AnalyticOptions analytic_options;
  CheckOptions check;
  GeneratorOptions gen_options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seed")
      seed = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--cases")
      cases = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--minutes")
      minutes = std::strtod(value().c_str(), nullptr);
    else if (a == "--max-rows")
      gen_options.max_rows = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--large-rows")
      gen_options.large_rows = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--analytic")
      analytic = true;
    else if (a == "--print")
      print = true;
    else if (a == "--plain-share")
      analytic_options.plain_share = std::strtod(value().c_str(), nullptr);
    else if (a == "--analytic-rows")
      analytic_options.max_rows = std::max<uint64_t>(2, std::strtoull(value().c_str(), nullptr, 0));
    else if (a == "--no-sqlite")
      check.sqlite = false;
    else if (a == "--debug")
      debug = true;
    else if (a == "--stop")
      stop = true;
    else if (a == "--backends") {
      check.backends.clear();
      std::string list = value();
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        if (!name.empty()) check.backends.push_back(parse_backend(name));
        start = comma + 1;
      }
    } else
      usage("unknown argument " + a);
  }
  if (gen_options.large_rows <= gen_options.max_rows) gen_options.large_rows = gen_options.max_rows + 1;
  if (cases == 0 && minutes == 0) cases = 1000;
  std::cout << "gfxq_fuzz seed " << seed << " (replay: --seed " << seed << ")" << std::endl;

  Engine engine({.debug = debug});
  EngineRunner runner(engine);
  if (analytic) return run_analytic(runner, check, seed, cases, minutes, stop, print, analytic_options);
  Checker checker(runner, check);
  Generator gen(seed, gen_options);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_minutes = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60;
  };
  uint64_t failures = 0;
  Tables tables;
  uint64_t tables_seed = 0;
  for (uint64_t i = 0; (cases == 0 || i < cases) && (minutes == 0 || elapsed_minutes() < minutes); ++i) {
    if (i % 10 == 0) tables = gen.tables(tables_seed = gen.next_seed());
    const uint64_t query_seed = gen.next_seed();
    const Case c{tables, gen.query(tables, query_seed), query_seed};
    if (const auto m = checker.check(c)) {
      ++failures;
      std::cout << "FAILURE " << failures << " at case " << i << " (tables seed " << tables_seed << ", query seed "
                << query_seed << ")\n"
                << failure_report(checker, c, *m) << std::endl;
      if (stop) break;
    }
    if ((i + 1) % 1000 == 0)
      std::cout << "progress: " << (i + 1) << " cases, " << checker.stats.total_compared() << " answers compared, "
                << failures << " failures, " << elapsed_minutes() << " min" << std::endl;
  }
  std::cout << checker.stats.text() << "failures: " << failures << "\n";
  return failures ? 1 : 0;
}
