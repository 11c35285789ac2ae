#pragma once
// The sweep of the fault tests (test_faults.cpp for compute, test_raster_faults.cpp for raster): a
// fault injected at the k-th event of a query for k = 1, 2, ... until the query gets through.

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"
#include "test_support.h"

namespace gfxq::test {

//! What every failure of a fault sweep must look like, and how the engine is made.
struct FaultExpectation {
  ErrorCode code = ErrorCode::Internal;  //!< the error of each failure
  const char* words = "";                //!< words its message holds
  bool after_loss = false;               //!< the backend stays lost: the next query says so, a new engine answers
  std::optional<ErrorCode> also;         //!< a second code a failure may have
  bool debug = false;                    //!< EngineOptions::debug (driver messages checked empty)
  RasterOptions raster;                  //!< EngineOptions::raster of the engines made
};

//! Runs `sql` on `backend` over `catalog` with `inject(options.faults, k)` for k = 1, 2, ... until
//! the query gets through; each failure must be as `expect` says, leave the catalog alone and be
//! followed by a right answer on the same engine (after a loss: DeviceLost there, a right answer on
//! a new one). There must be at least one failure.
template <class Inject>
void fault_sweep(const std::string& sql, const Catalog& catalog, Backend backend, Inject inject,
                 const FaultExpectation& expect) {
  const auto before = snapshot(catalog);
  const Table want = Engine().execute_sql(sql, catalog, Backend::Cpu).table;
  int failures = 0;
  for (uint64_t k = 1; k < 500; ++k) {
    CAPTURE(sql);
    CAPTURE(k);
    EngineOptions options;
    options.debug = expect.debug;
    options.raster = expect.raster;
    inject(options.faults, k);
    Engine engine(options);
    try {
      const Result r = engine.execute_sql(sql, catalog, backend);
      CHECK(r.report.backend == backend);
      CHECK(table_difference(want, r.table) == "");
      MESSAGE(sql << " on " << std::string(to_string(backend)) << ": " << failures
                  << " injected faults, each reported");
      const auto messages = engine.take_debug_messages();
      CHECK_MESSAGE(messages.empty(), joined(messages));
      CHECK(failures > 0);
      return;  // k passed every event the query has
    } catch (const Error& e) {
      ++failures;
      INFO("message: " << std::string(e.what()));
      CHECK((e.code() == expect.code || e.code() == expect.also));
      CHECK(std::string(e.what()).find(expect.words) != std::string::npos);
    }
    CHECK(snapshot(catalog) == before);
    if (expect.after_loss) {
      CHECK_ERROR(engine.execute_sql(sql, catalog, backend), ErrorCode::DeviceLost, "lost");
      CHECK(table_difference(want, engine.execute_sql(sql, catalog, Backend::Cpu).table) == "");
      Engine fresh({.debug = expect.debug, .raster = expect.raster});
      CHECK(table_difference(want, fresh.execute_sql(sql, catalog, backend).table) == "");
    } else {
      CHECK(table_difference(want, engine.execute_sql(sql, catalog, backend).table) == "");
    }
    const auto messages = engine.take_debug_messages();
    CHECK_MESSAGE(messages.empty(), joined(messages));
  }
  FAIL("more than 500 faults for one query");
}

}  // namespace gfxq::test
