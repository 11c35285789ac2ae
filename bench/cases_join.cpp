// Benchmark cases of the compute path's joins (src/vk/operators/join), data already on the device:
//   compute.join_unique_<algorithm>: rows x rows, int32 key + int32 payload per side, unique build
//     (right) keys (JoinKeyStats::right_unique tells the chooser, as column facts do in the engine),
//     every probe (left) key one of them (each probe matches once), pairs materialised;
//   compute.join_zipf_<algorithm>: the same with probe keys Zipf-distributed (z = 1.0) over the build
//     keys: the same output size, one build key matched by about 1/ln(n) of the probes;
//   compute.join_band_<algorithm>: outer (left) rows x inner (right) rows / 16, keys uniform in
//     [0, rows), l.k - 8 <= r.k <= l.k + 8 (about 1.06 pairs per probe);
//   compute.join_band_raster_shape: the raster path's raster.join_band case (outer rows, inner
//     rows / 100, keys in [0, 9999], band [-24, 25]), for the ratio to it on the same machine.
// <algorithm> is each forced algorithm and `auto` (the chooser's pick). A join is several
// submissions (it reads back sizes between stages), so its time is the sum of its stages' GPU
// timestamps, best of env.repeats runs after at least 1 s of back-to-back runs; the note gives the
// stages and the wall time. Each case times a uvec4 copy of the input bytes (key + payload of both
// sides) in the same run: Measurement::bytes is twice the input bytes (what that copy moves), so
// the ratio to compute.ceiling_copy is copy time / join time and the note gives join / copy (goal
// <= 5 at 2^27). The pairs are checked on the host (each pair's keys satisfy the condition, and the
// count is the expected one).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench.h"
#include "core/hash.h"
#include "gfxq/error.h"
#include "vk/operators/join/join.h"
#include "vk_timing.h"

namespace gfxq::bench {
namespace {

using vk::JoinAlgorithm;

//! One side of a benchmark join: keys (and the payload that is counted in the bytes) on the device.
struct BenchSide {
  std::vector<int32_t> keys;
  vk::Buffer buffer;
  vk::JoinSide side;
  BenchSide(vk::Device& device, std::vector<int32_t> k) : keys(std::move(k)) {
    buffer = device.create_buffer(std::max<uint64_t>(16, keys.size() * 4), vk::MemoryKind::Device);
    if (!keys.empty()) device.upload(buffer, keys.data(), keys.size() * 4);
    side.keys = {{&buffer, Type::Int32}};
    side.rows = keys.size();
  }
};

//! n distinct int32 keys in random order: murmur3's fmix32 is a bijection of the 32-bit words.
std::vector<int32_t> unique_keys(uint64_t n, uint64_t seed) {
  std::vector<int32_t> v(n);
  const uint32_t salt = uint32_t(seed * 0x9e3779b9u);
  for (uint64_t i = 0; i < n; ++i) v[i] = int32_t(hash_fmix32(uint32_t(i) ^ salt));
  return v;
}

//! n probe keys drawn from `build`: uniformly, or Zipf (z = 1) over the build rows (a continuous
//! inverse of the CDF: rank = floor((m + 1)^u), density ~ 1/rank).
std::vector<int32_t> probe_keys(const std::vector<int32_t>& build, uint64_t n, bool zipf, uint64_t seed) {
  std::vector<int32_t> v(n);
  uint64_t s = seed ^ 0x51ed27;
  const double log_m = std::log(double(build.size()) + 1.0);
  for (auto& k : v) {
    const uint64_t r = mix(s);
    uint64_t i = r % build.size();
    if (zipf) i = std::min<uint64_t>(build.size() - 1, uint64_t(std::exp(double(r >> 11) * 0x1p-53 * log_m)) - 1);
    k = build[i];
  }
  return v;
}

//! n keys uniform in [0, range).
std::vector<int32_t> uniform_keys(uint64_t n, uint64_t range, uint64_t seed) {
  std::vector<int32_t> v(n);
  uint64_t s = seed;
  for (auto& k : v) k = int32_t(mix(s) % range);
  return v;
}

//! The pairs of `r`, downloaded.
std::vector<std::pair<uint32_t, uint32_t>> pairs_of(vk::Device& device, const vk::JoinResult& r) {
  std::vector<uint32_t> a(r.count), b(r.count);
  if (r.count) {
    device.download(r.left, a.data(), r.count * 4);
    device.download(r.right, b.data(), r.count * 4);
  }
  std::vector<std::pair<uint32_t, uint32_t>> p(r.count);
  for (uint64_t i = 0; i < r.count; ++i) p[i] = {a[i], b[i]};
  return p;
}

//! Sum of the stages' GPU times, in ms.
double gpu_ms(const vk::JoinResult& r) {
  double ms = 0;
  for (const PassRecord& p : r.passes) ms += p.gpu_ms.value_or(0);
  return ms;
}

//! Times the join of `left` and `right` (best sum of stage GPU times), times a copy of `input_bytes`
//! in the same run, and checks the last run's pairs with `check` (pair keys, expected count).
Measurement time_join(Env& env, const BenchSide& left, const BenchSide& right, const std::vector<vk::JoinTerm>& terms,
                      JoinAlgorithm algorithm, uint64_t input_bytes, uint64_t want_pairs, const std::string& what,
                      const vk::JoinKeyStats& stats = {}) {
  vk::Device& device = device_of(env);
  vk::JoinOptions options;
  options.algorithm = algorithm;
  options.stats = stats;
  const CopyReference copy(device, input_bytes / 4);
  const double copy_s = best_seconds(env, [&](VkCommandBuffer cmd) { copy.record(device, cmd); });
  // Keep the device busy, then the timed runs back to back.
  using clock = std::chrono::steady_clock;
  const auto warm = clock::now();
  while (clock::now() - warm < std::chrono::seconds(1))
    (void)vk::run_join(device, left.side, right.side, terms, options);
  double best = 1e300, best_wall = 0;
  vk::JoinResult kept;
  for (int r = 0; r < std::max(1, env.repeats); ++r) {
    const auto t0 = clock::now();
    vk::JoinResult got = vk::run_join(device, left.side, right.side, terms, options);
    const double wall = std::chrono::duration<double>(clock::now() - t0).count();
    if (gpu_ms(got) / 1e3 < best) {
      best = gpu_ms(got) / 1e3;
      best_wall = wall;
      kept = std::move(got);
    }
  }
  // Check: the count, and every pair's keys against the condition.
  bool ok = kept.count == want_pairs;
  for (const auto& [l, r] : pairs_of(device, kept)) {
    const double a = left.keys[l], b = right.keys[r];
    for (const vk::JoinTerm& t : terms)
      ok = ok && (t.op == vk::JoinOp::Band ? (a + t.lo <= b && b <= a + t.hi) : a == b);
  }
  // The stages of the best run, by kind.
  std::map<std::string, double> stages;
  for (const PassRecord& p : kept.passes)
    if (p.gpu_ms) stages[p.kind] += *p.gpu_ms;
  std::string note = what + "; " + kept.algorithm_text + " [" + kept.reason + "]; " + std::to_string(kept.count) +
                     " pairs" + (ok ? " (checked)" : " (WRONG)") + "; GPU stages:";
  for (const auto& [kind, ms] : stages) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " %s %.4f ms;", kind.c_str(), ms);
    note += buf;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                " wall %.3f ms; copy of the %llu input bytes timed in the same case %.4f ms: join / copy = %.2f "
                "(goal <= 5 at 2^27)",
                best_wall * 1e3, static_cast<unsigned long long>(input_bytes), copy_s * 1e3, best / copy_s);
  note += buf;
  return {best, 2 * input_bytes, left.keys.size() + right.keys.size(), note, ok};
}

Measurement equi_case(Env& env, uint64_t rows, bool zipf, JoinAlgorithm algorithm) {
  vk::Device& device = device_of(env);
  if (algorithm == JoinAlgorithm::NestedLoop && rows > (uint64_t(1) << 16))
    throw Error(ErrorCode::Unsupported, "the nested loop would test " + std::to_string(rows * rows) + " row pairs");
  const BenchSide right(device, unique_keys(rows, env.seed));
  const BenchSide left(device, probe_keys(right.keys, rows, zipf, env.seed));
  // What a catalog's column facts would tell the engine's join: the build keys are distinct.
  vk::JoinKeyStats stats;
  stats.right_unique = true;
  return time_join(env, left, right, {vk::JoinTerm{0, 0, vk::JoinOp::Eq, 0, 0}}, algorithm, 2 * rows * 8, rows,
                   std::string(zipf ? "Zipf (z = 1) probe keys" : "uniform probe keys") +
                       ", unique build keys (known to the chooser), int32 key + int32 payload per side",
                   stats);
}

//! The expected pairs of a band join (right keys sorted, two binary searches per probe).
uint64_t band_pairs(const std::vector<int32_t>& left, std::vector<int32_t> right, int32_t lo, int32_t hi) {
  std::sort(right.begin(), right.end());
  uint64_t n = 0;
  for (int32_t k : left)
    n += std::upper_bound(right.begin(), right.end(), int64_t(k) + hi) -
         std::lower_bound(right.begin(), right.end(), int64_t(k) + lo);
  return n;
}

Measurement band_case(Env& env, uint64_t rows, JoinAlgorithm algorithm, bool raster_shape) {
  vk::Device& device = device_of(env);
  const uint64_t inner = std::max<uint64_t>(1, raster_shape ? rows / 100 : rows / 16);
  if (algorithm == JoinAlgorithm::NestedLoop && rows * inner > (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, "the nested loop would test " + std::to_string(rows * inner) + " row pairs");
  const uint64_t range = raster_shape ? 10000 : rows;
  const int32_t lo = raster_shape ? -24 : -8, hi = raster_shape ? 25 : 8;
  const BenchSide left(device, uniform_keys(rows, range, env.seed));
  const BenchSide right(device, uniform_keys(inner, range, env.seed + 1));
  const uint64_t want = band_pairs(left.keys, right.keys, lo, hi);
  return time_join(env, left, right, {vk::JoinTerm{0, 0, vk::JoinOp::Band, double(lo), double(hi)}}, algorithm,
                   (rows + inner) * 8, want,
                   "band [" + std::to_string(lo) + ", " + std::to_string(hi) + "], outer " + std::to_string(rows) +
                       " x inner " + std::to_string(inner) + ", keys uniform in [0, " + std::to_string(range) + ")");
}

constexpr JoinAlgorithm kEqui[] = {JoinAlgorithm::Auto,      JoinAlgorithm::HashPartitioned, JoinAlgorithm::HashGlobal,
                                   JoinAlgorithm::SortMerge, JoinAlgorithm::IndexedLoop,     JoinAlgorithm::NestedLoop};
constexpr JoinAlgorithm kBand[] = {JoinAlgorithm::Auto, JoinAlgorithm::IndexedLoop, JoinAlgorithm::NestedLoop};

std::string case_name(const char* family, JoinAlgorithm a) {
  std::string name = std::string("compute.join_") + family + "_" + vk::to_string(a);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

const bool registered = [] {
  for (const JoinAlgorithm a : kEqui) {
    Registrar{{case_name("unique", a), "compute", "compute.ceiling_copy", false,
               [a](Env& e, uint64_t n) { return equi_case(e, n, false, a); }}};
    Registrar{{case_name("zipf", a), "compute", "compute.ceiling_copy", false,
               [a](Env& e, uint64_t n) { return equi_case(e, n, true, a); }}};
  }
  for (const JoinAlgorithm a : kBand)
    Registrar{{case_name("band", a), "compute", "compute.ceiling_copy", false,
               [a](Env& e, uint64_t n) { return band_case(e, n, a, false); }}};
  Registrar{{"compute.join_band_raster_shape", "compute", "compute.ceiling_copy", false,
             [](Env& e, uint64_t n) { return band_case(e, n, JoinAlgorithm::Auto, true); }}};
  return true;
}();

}  // namespace
}  // namespace gfxq::bench
