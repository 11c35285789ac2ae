// Benchmark cases of GROUP BY on the compute path (issue 21's sweep): n rows of an int32 key and an
// int32 value, SUM(value) GROUP BY key, the keys drawn from 2^k distinct values uniformly or by a
// Zipf-like law of exponent 1 (k = 4, 6, ..., 26: one case each, sweep.group_by_uniform_g<k> and
// sweep.group_by_zipf_g<k>; "sweep." rather than "compute.", so that a run of the compute cases,
// --cases compute, does not take the sweep's minutes with it: --cases group_by selects it). In each case every variant
// is forced (private, shared, global, partitioned, sort) and the optimizer picks one (auto), each run once
// through group_by's own path and checked against a host computation; then all of them are timed in turn with the two
// ceilings of the same run: reading both input columns (read_u32x4_x8 over each) and the radix sort of the n keys. The
// case's time is the optimizer's pick, its estimate passes included (the forced variants are timed without theirs); its
// ratio is to the read ceiling (bytes = 8n, what GROUP BY must read; sweep.group_by_read registers it), and the note
// gives every variant's time and its ratios to the read and to the sort. bench/plot_group_by.py draws the sweep.
//
// Keys: key = int32(fmix32(i)) for the value index i (a bijection, so 2^k distinct keys spread over
// the whole int32 range); uniform i = a random index below 2^k, Zipf i = floor((2^k + 1)^u) - 1
// for u uniform in [0, 1) (P(i) about 1 / ((i + 1) ln 2^k): Zipf with exponent 1). Values: random
// int32. bench/peers.py draws the same laws for the torch / CuPy peers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench.h"
#include "core/hash.h"
#include "gfxq/error.h"
#include "vk/operators/group_by/operator.h"
#include "vk/primitives/radix_sort.h"

namespace gfxq::bench {
namespace {

using vk::Buffer;
using vk::GroupByVariant;
using vk::MemoryKind;

vk::Device& device_of(Env& env) {
  if (!env.vk) throw Error(ErrorCode::Unsupported, "no Vulkan device");
  return *env.vk;
}

// splitmix64.
uint64_t mix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The inverse of hash_fmix32 (each step undone in reverse order).
uint32_t unfmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7ed1b41du;  // 0xc2b2ae35^-1 mod 2^32
  h ^= (h >> 13) ^ (h >> 26);
  h *= 0xa5cb9243u;  // 0x85ebca6b^-1 mod 2^32
  h ^= h >> 16;
  return h;
}
static_assert(0xc2b2ae35u * 0x7ed1b41du == 1u && 0x85ebca6bu * 0xa5cb9243u == 1u);

// The GPU kept busy while timing: the same loop as cases_compute.cpp's best_interleaved (at least
// 1 s of back-to-back untimed runs of every record, then env.repeats timed runs in turn in as few
// command buffers as the timestamp slots allow); best seconds of each record.
std::vector<double> times_in_turn(Env& env, const std::vector<std::function<void(VkCommandBuffer)>>& records) {
  constexpr auto kWarmUp = std::chrono::milliseconds(1000);
  vk::Device& device = device_of(env);
  if (!device.caps().timestamps) throw Error(ErrorCode::Unsupported, "the compute queue has no timestamps");
  const size_t n = records.size();
  auto record_repeat = [&](VkCommandBuffer cmd, std::optional<uint32_t> first_slot) {
    for (size_t i = 0; i < n; ++i) {
      device.barrier(cmd);
      if (first_slot) device.timestamp(cmd, *first_slot + uint32_t(2 * i));
      records[i](cmd);
      if (first_slot) device.timestamp(cmd, *first_slot + uint32_t(2 * i + 1));
    }
  };
  using clock = std::chrono::steady_clock;
  const auto warm_start = clock::now();
  uint64_t batch = 1;
  while (clock::now() - warm_start < kWarmUp) {
    const auto t0 = clock::now();
    device.submit([&](VkCommandBuffer cmd) {
      for (uint64_t r = 0; r < batch; ++r) record_repeat(cmd, std::nullopt);
    });
    const double took = std::chrono::duration<double>(clock::now() - t0).count();
    const double scale = took > 0 ? 0.1 / took : 2.0;
    batch = std::clamp<uint64_t>(uint64_t(double(batch) * std::min(scale, 2.0)), 1, 4096);
  }
  const uint32_t per_buffer = std::max<uint32_t>(1, vk::Device::kTimestampSlots / uint32_t(2 * n));
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  for (int done = 0, total = std::max(1, env.repeats); done < total;) {
    const uint32_t reps = uint32_t(std::min<int>(int(per_buffer), total - done));
    device.submit([&](VkCommandBuffer cmd) {
      for (uint32_t r = 0; r < reps; ++r) record_repeat(cmd, uint32_t(2 * n * r));
    });
    for (uint32_t r = 0; r < reps; ++r)
      for (size_t i = 0; i < n; ++i) {
        const uint32_t slot = uint32_t(2 * (n * r + i));
        best[i] = std::min(best[i], device.elapsed_ms(slot, slot + 1) / 1e3);
      }
    done += int(reps);
  }
  return best;
}

// One input of the sweep on the host, with what SUM GROUP BY must give: per value index its row
// count (which indices occur) and sum.
struct SweepData {
  std::vector<int32_t> keys, values;
  std::vector<uint32_t> counts;
  std::vector<int64_t> sums;
  uint64_t groups = 0;  // indices that occur
};

SweepData make_data(uint64_t rows, int log2_groups, bool zipf, uint64_t seed) {
  const uint64_t domain = uint64_t(1) << log2_groups;
  SweepData d;
  d.keys.resize(rows);
  d.values.resize(rows);
  std::vector<uint32_t> index(rows);
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  const double log_domain = std::log(double(domain) + 1.0);
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      uint64_t s = seed * 0x100000001b3ull + t;
      for (uint64_t r = rows * t / threads; r < rows * (t + 1) / threads; ++r) {
        uint64_t i = mix(s) & (domain - 1);
        if (zipf) {
          const double u = double(mix(s) >> 11) * 0x1p-53;
          i = std::min<uint64_t>(domain - 1, uint64_t(std::exp(u * log_domain)) - 1);
        }
        index[r] = uint32_t(i);
        d.keys[r] = int32_t(hash_fmix32(uint32_t(i)));
        d.values[r] = int32_t(uint32_t(mix(s)));
      }
    });
  for (auto& th : pool) th.join();
  // The expected sums, by the same threads: private arrays for small domains, atomic adds into the
  // shared ones for large domains (where few threads meet on one index).
  d.counts.assign(domain, 0);
  d.sums.assign(domain, 0);
  const bool private_arrays = domain <= (uint64_t(1) << 20);
  std::vector<std::vector<uint32_t>> counts(private_arrays ? threads : 0, std::vector<uint32_t>(domain));
  std::vector<std::vector<int64_t>> sums(private_arrays ? threads : 0, std::vector<int64_t>(domain));
  pool.clear();
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (uint64_t r = rows * t / threads; r < rows * (t + 1) / threads; ++r) {
        if (private_arrays) {
          counts[t][index[r]] += 1;
          sums[t][index[r]] += d.values[r];
        } else {
          std::atomic_ref<uint32_t>(d.counts[index[r]]).fetch_add(1, std::memory_order_relaxed);
          std::atomic_ref<int64_t>(d.sums[index[r]]).fetch_add(d.values[r], std::memory_order_relaxed);
        }
      }
    });
  for (auto& th : pool) th.join();
  for (unsigned t = 0; t < counts.size(); ++t)
    for (uint64_t i = 0; i < domain; ++i) {
      d.counts[i] += counts[t][i];
      d.sums[i] += sums[t][i];
    }
  for (uint32_t c : d.counts) d.groups += c != 0;
  return d;
}

// Whether `r` is SUM(v) GROUP BY k of `d`: every occurring key once, ascending, with its sum.
bool matches(const SweepData& d, const vk::GroupByResult& r) {
  if (r.groups != d.groups || r.keys.size() != 1 || r.aggregates.size() != 1) return false;
  const auto& keys = r.keys[0].as<int32_t>();
  const auto& sums = r.aggregates[0].as<int64_t>();
  for (uint64_t g = 0; g < r.groups; ++g) {
    if (g > 0 && keys[g] <= keys[g - 1]) return false;
    const uint32_t i = unfmix32(uint32_t(keys[g]));
    if (i >= d.counts.size() || d.counts[i] == 0 || d.sums[i] != sums[g]) return false;
  }
  return true;
}

// A device column of `values`.
vk::DeviceColumn upload(vk::Device& device, const std::vector<int32_t>& values) {
  vk::DeviceColumn c;
  c.buffer = device.create_buffer(vk::padded_bytes(values.size()), MemoryKind::Device);
  device.upload(c.buffer, values.data(), values.size() * 4);
  c.type = Type::Int32;
  c.rows = values.size();
  return c;
}

// Reads a column without storing (read_u32x4_x8), the read ceiling's kernel.
void record_read(vk::Device& device, VkCommandBuffer cmd, const Buffer& src, const Buffer& dst) {
  const vk::Pipeline& p = device.pipeline("read_u32x4_x8", 2, 8, true);
  const uint64_t per = device.max_binding_elements() / 64 * 64 * 4;
  for (uint64_t off = 0; off < src.size(); off += per) {
    const uint64_t n = std::min(per, src.size() - off);
    const uint32_t push[2] = {uint32_t(n / 16), 0};
    device.dispatch_ranges(cmd, p, {{&src, off, n}, {&dst, off, n}}, push, uint32_t((n / 16 + 2047) / 2048));
  }
}

constexpr GroupByVariant kForced[] = {GroupByVariant::Private, GroupByVariant::SharedTable, GroupByVariant::GlobalTable,
                                      GroupByVariant::Partitioned, GroupByVariant::Sort};

// The read ceiling of the sweep: reading an int32 key column and an int32 value column of `rows`
// rows (bytes = 8n).
Measurement ceiling_read(Env& env, uint64_t rows) {
  vk::Device& device = device_of(env);
  std::vector<int32_t> host(rows);
  uint64_t s = env.seed;
  for (auto& v : host) v = int32_t(uint32_t(mix(s)));
  const vk::DeviceColumn a = upload(device, host), b = upload(device, host);
  const Buffer sink = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  const double t = times_in_turn(env, {[&](VkCommandBuffer cmd) {
                                   record_read(device, cmd, a.buffer, sink);
                                   record_read(device, cmd, b.buffer, sink);
                                 }})[0];
  return {t, 8 * rows, rows, "read_u32x4_x8 over the key and the value column; bytes = 8n", true};
}

Measurement sweep_case(Env& env, uint64_t rows, bool zipf, int log2_groups) {
  vk::Device& device = device_of(env);
  const SweepData d = make_data(rows, log2_groups, zipf, env.seed);
  const vk::DeviceColumn keys = upload(device, d.keys), values = upload(device, d.values);
  vk::GroupByInput input;
  input.keys = {&keys};
  input.values = {&values};
  input.aggregates = {{AggKind::Sum, 0, 0.5, 1, "SUM(v)"}};
  input.rows = rows;

  // Every variant once through group_by's own path (estimate, choice, overflow check), checked.
  struct Run {
    GroupByVariant forced;
    std::unique_ptr<vk::gb::GroupByOperator> op;
    vk::GroupByResult result;
  };
  std::vector<Run> runs;
  bool ok = true;
  std::string failures;
  std::vector<GroupByVariant> variants = {GroupByVariant::Auto};
  variants.insert(variants.end(), std::begin(kForced), std::end(kForced));
  for (GroupByVariant v : variants) {
    vk::GroupByOptions options;
    options.variant = v;
    Run run{v, std::make_unique<vk::gb::GroupByOperator>(device, input, options), {}};
    run.result = run.op->run();
    if (!matches(d, run.result)) {
      ok = false;
      failures += std::string(" ") + vk::to_string(v);
    }
    runs.push_back(std::move(run));
  }

  // The sort ceiling: the radix sort of the n keys.
  const Buffer sorted = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);
  const Buffer scratch = device.create_buffer(vk::radix_sort_scratch_bytes(device, rows, false), MemoryKind::Device);
  vk::RadixSortArgs sort;
  sort.n = rows;
  sort.key_type = SortKeyType::I32;
  sort.keys_in = {&keys.buffer, 0, rows * 4};
  sort.keys_out = {&sorted, 0, rows * 4};
  sort.scratch = {&scratch, 0, 0};
  const Buffer sink = device.create_buffer(vk::padded_bytes(rows), MemoryKind::Device);

  std::vector<std::function<void(VkCommandBuffer)>> records = {
      [&](VkCommandBuffer cmd) {
        record_read(device, cmd, keys.buffer, sink);
        record_read(device, cmd, values.buffer, sink);
      },
      [&](VkCommandBuffer cmd) { vk::record_radix_sort(device, cmd, sort); }};
  for (Run& r : runs)
    records.push_back([&r](VkCommandBuffer cmd) { r.op->record(cmd, r.forced == GroupByVariant::Auto); });
  const std::vector<double> t = times_in_turn(env, records);
  // The last timed run of each: complete (no overflow, sorts by onesweep) and right.
  for (Run& r : runs) {
    if (!r.op->completed()) {
      ok = false;
      failures += std::string(" ") + vk::to_string(r.forced) +
                  " (its last timed run was incomplete: a sort took its "
                  "fallback, or the table overflowed)";
    } else if (!matches(d, r.op->result())) {
      ok = false;
      failures += std::string(" ") + vk::to_string(r.forced) + " (its last timed run's result is wrong)";
    }
  }
  const bool sort_fell_back = vk::radix_sort_status(device, sort).needs_fallback();

  const vk::GroupByResult& pick = runs[0].result;
  double best = std::numeric_limits<double>::infinity();
  for (size_t i = 1; i < runs.size(); ++i) best = std::min(best, t[2 + i]);
  char head[512];
  std::snprintf(head, sizeof head,
                "SUM(v) GROUP BY k, %s over 2^%d values, %llu groups; auto chose %s (estimate %llu by %s): %.4f ms, "
                "%.3f of the best forced variant's speed; read of both columns %.4f ms, radix sort of the keys %.4f "
                "ms (timed in turn); ",
                zipf ? "Zipf 1.0" : "uniform", log2_groups, static_cast<unsigned long long>(d.groups),
                vk::to_string(pick.variant), static_cast<unsigned long long>(pick.estimate.value),
                pick.estimate.method.c_str(), t[2] * 1e3, best / t[2], t[0] * 1e3, t[1] * 1e3);
  std::string note = head;
  for (size_t i = 0; i < runs.size(); ++i) {
    char part[160];
    std::snprintf(part, sizeof part, "%s %.4f ms (%.2f x read, %.2f x sort)%s", vk::to_string(runs[i].forced),
                  t[2 + i] * 1e3, t[2 + i] / t[0], t[2 + i] / t[1], i + 1 < runs.size() ? "; " : "");
    note += part;
  }
  if (sort_fell_back) note += "; the sort ceiling's last timed run took its fallback (not a whole onesweep sort)";
  note += "; auto: " + pick.algorithm;
  if (!ok) note += "; FAILED:" + failures;
  return {t[2], 8 * rows, rows, note, ok};
}

// The sweep's cases: sweep.group_by_{uniform,zipf}_g{4,6,...,26} and their read ceiling.
struct SweepRegistrar {
  SweepRegistrar() {
    registry().push_back({"sweep.group_by_read", "compute", "", false, ceiling_read});
    for (bool zipf : {false, true})
      for (int lg = 4; lg <= 26; lg += 2)
        registry().push_back({std::string("sweep.group_by_") + (zipf ? "zipf" : "uniform") + "_g" + std::to_string(lg),
                              "compute", "sweep.group_by_read", false,
                              [zipf, lg](Env& e, uint64_t n) { return sweep_case(e, n, zipf, lg); }});
  }
};
const SweepRegistrar sweep_registrar;

}  // namespace
}  // namespace gfxq::bench
