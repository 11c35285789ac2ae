// Differential batches of the CPU engine against SQLite in the sanitizer build: random tables and
// queries (tests/differential) run through the CPU engine under AddressSanitizer and
// UndefinedBehaviorSanitizer, answers compared exactly with SQLite's. GFXQ_DIFF_SEED replays.
#include <doctest/doctest.h>

#include <cstdlib>
#include <random>

#include "differential/check.h"
#include "differential/generator.h"
#include "differential/runners.h"

namespace {

using namespace gfxq::differential;

void run_cpu_batch(uint64_t cases, GeneratorOptions options) {
  uint64_t seed = std::random_device{}() * 0x100000001ull ^ std::random_device{}();
  if (const char* s = std::getenv("GFXQ_DIFF_SEED"); s && *s) seed = std::strtoull(s, nullptr, 0);
  INFO("differential batch seed " << seed << " (replay: GFXQ_DIFF_SEED=" << seed << ")");
  Generator gen(seed, options);
  CpuRunner runner;
  Checker checker(runner, {.backends = {}, .sqlite = true});
  Tables tables;
  for (uint64_t i = 0; i < cases; ++i) {
    if (i % 10 == 0) tables = gen.tables(gen.next_seed());
    const uint64_t query_seed = gen.next_seed();
    const Case c{tables, gen.query(tables, query_seed), query_seed};
    if (const auto mismatch = checker.check(c)) FAIL(failure_report(checker, c, *mismatch));
  }
  MESSAGE(checker.stats.text());
  CHECK(checker.stats.compared["sqlite"] > cases / 2);
}

}  // namespace

TEST_CASE("sanitize: differential, the CPU engine against SQLite") {
  run_cpu_batch(3500, {});
}

TEST_CASE("sanitize: differential, the CPU engine against SQLite on larger tables") {
  run_cpu_batch(300, {.max_rows = 3000, .large_rows = 20000, .large_share = 0.2});
}
