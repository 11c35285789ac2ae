#pragma once
// Helpers of the compute-backend plan tests (test_engine_compute_*.cpp): SQL run on the compute
// backend and on the CPU engine, compared exactly, and the report's passes and nodes looked up.

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gfxq/gfxq.h"
#include "gpu_support.h"
#include "random_queries.h"

namespace gfxq::test {

//! The compute result of `sql` equals the CPU engine's exactly; no validation message. Returns the
//! compute result (an empty one after a failure, which is reported).
inline Result check_sql(Engine& engine, const std::string& sql, const Catalog& catalog, const std::string& what) {
  INFO(what << "\nsql: " << sql);
  const Result want = engine.execute_sql(sql, catalog, Backend::Cpu);
  Result got;
  try {
    got = engine.execute_sql(sql, catalog, Backend::Compute);
  } catch (const Error& e) {
    FAIL("compute backend threw " << std::string(to_string(e.code())) << ": " << std::string(e.what()));
    return got;
  }
  CHECK(got.report.backend == Backend::Compute);
  const auto messages = engine.take_debug_messages();
  CHECK_MESSAGE(messages.empty(), joined(messages));
  const std::string diff = table_difference(want.table, got.table);
  CHECK_MESSAGE(diff.empty(), diff << "\nreport:\n" << got.report.text());
  return got;
}

//! A process-wide engine (debug output and Vulkan validation as debug_engine()) with the compute
//! knobs `compute`, one per distinct setting (debug_engine() itself for the defaults): tests that
//! force the knobs share engines, as device creation is slow on lavapipe.
inline Engine& engine_with(const ComputeOptions& compute) {
  if (compute == ComputeOptions{}) return debug_engine();
  static std::vector<std::pair<ComputeOptions, std::unique_ptr<Engine>>> engines;
  for (auto& [options, engine] : engines)
    if (options == compute) return *engine;
  if (engines.empty()) gpu_teardown().push_back([] { engines.clear(); });
  EngineOptions options;
  options.debug = vk_validation_wanted();
  options.compute = compute;
  engines.emplace_back(compute, std::make_unique<Engine>(options));
  return *engines.back().second;
}

//! Sets an environment variable for one scope (the tests of the knobs' environment overrides, which
//! an Engine reads when it is made), then restores what it was.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

//! Passes of `r` of kind `kind`.
inline size_t passes_of(const Result& r, const std::string& kind) {
  size_t n = 0;
  for (const auto& p : r.report.passes) n += p.kind == kind;
  return n;
}

//! The report line of the first plan node whose label starts with `prefix`, or null.
inline const PlanNodeReport* plan_node(const Result& r, const std::string& prefix) {
  for (const auto& n : r.report.plan)
    if (n.node.rfind(prefix, 0) == 0) return &n;
  return nullptr;
}

//! `n` random ints in [lo, hi].
inline std::vector<int32_t> random_ints(std::mt19937_64& rng, size_t n, int32_t lo, int32_t hi) {
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

//! `n` random floats: small integers and halves, with -0.0, NaN and infinities now and then.
inline std::vector<float> random_floats(std::mt19937_64& rng, size_t n, int range, bool specials) {
  std::uniform_int_distribution<int> d(-2 * range, 2 * range), pick(0, 49);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = float(d(rng)) / 2;
    if (!specials) continue;
    const int p = pick(rng);
    if (p == 0) x = -0.0f;
    if (p == 1) x = std::numeric_limits<float>::quiet_NaN();
    if (p == 2) x = std::numeric_limits<float>::infinity();
  }
  return v;
}

}  // namespace gfxq::test
