#include "vk/operators/group_by/optimizer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "core/hash.h"
#include "gfxq/error.h"
#include "group_by_config.glsl"

namespace gfxq::vk::gb {

namespace {

//! Push constants of group_by_estimate.comp.
struct EstimatePush {
  uint32_t count, samples, cap, rows_per_group, group_offset;
};

//! Rows per workgroup of the HyperLogLog pass.
constexpr uint32_t kHllRows = 64 * GB_STEP;

std::vector<BufferRange> estimate_ranges(const Buffer& table, const Buffer& ctrl, const RowSource& s) {
  const BufferRange key0 = s.keys[0];
  std::vector<BufferRange> r = {{&table, 0, 0}, {&ctrl, 0, 0}, key0, s.keys.size() > 1 ? s.keys[1] : key0};
  for (uint32_t b = 0; b < GB_MAX_VALUE_BINDINGS; ++b) r.push_back(key0);
  r.push_back(s.rows.buffer ? s.rows : key0);
  return r;
}

uint32_t div_up(uint64_t a, uint64_t b) {
  return uint32_t((a + b - 1) / b);
}

std::string power_text(uint64_t v) {
  if (v && std::has_single_bit(v)) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

TableKernel kernel_of_size(uint32_t size) {
  return size == 1 ? TableKernel::SharedS : size == 2 ? TableKernel::SharedM : TableKernel::SharedL;
}

}  // namespace

uint64_t table_slots_for(uint64_t groups) {
  return std::max(kMinTableSlots, (2 * groups + kMinTableSlots - 1) / kMinTableSlots * kMinTableSlots);
}

uint64_t sample_estimate(uint64_t rows, uint64_t sample, uint64_t distinct, uint64_t f1, uint64_t f2) {
  if (sample >= rows) return distinct;
  const double d = double(distinct), a = double(f1), b = double(f2);
  const double chao = b > 0 ? d + a * a / (2 * b) : d + a * (a - 1) / 2;
  return std::clamp<uint64_t>(uint64_t(std::llround(chao)), distinct, rows);
}

uint64_t sample_position(uint64_t i, uint64_t count, uint64_t samples) {
  const uint64_t lo = i * count / samples, hi = (i + 1) * count / samples;
  return lo + hash_fmix32(uint32_t(i) ^ GB_HASH_SEED_HLL) % std::max<uint64_t>(hi - lo, 1);
}

uint64_t hll_estimate(const std::vector<uint32_t>& registers) {
  const double m = double(registers.size());
  double sum = 0;
  uint64_t zeros = 0;
  for (uint32_t r : registers) {
    sum += std::ldexp(1.0, -int(r));
    zeros += r == 0;
  }
  const double alpha = 0.7213 / (1 + 1.079 / m);
  double e = alpha * m * m / sum;
  if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / double(zeros));  // linear counting
  return uint64_t(std::llround(e));
}

Estimator::Estimator(Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options)
    : device_(device),
      full_(options.full_estimate),
      rows_(input_rows(input)),
      config_(layout.spec_config(input.selection != nullptr)) {
  samples_ = std::min<uint64_t>(
      rows_, options.sample_rows ? std::min<uint64_t>(options.sample_rows, GB_SAMPLE_MAX) : GB_SAMPLE_MAX);
  cap_ = 2 * samples_;
  strides_ = make_strides(device, input, layout, 0);
  table_ = device_buffer(device, cap_ * 16);
  ctrl_ = device_buffer(device, 16);
  registers_ = device_buffer(device, GB_HLL_REGISTERS * 4);
}

void Estimator::record_sample(VkCommandBuffer cmd) {
  vkCmdFillBuffer(cmd, table_.handle(), 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(cmd, ctrl_.handle(), 0, VK_WHOLE_SIZE, 0);
  device_.barrier(cmd);
  const Pipeline& insert = device_.pipeline("group_by_sample", 9, sizeof(EstimatePush), true, 0, config_);
  for (const RowSource& s : strides_) {
    const uint64_t from = samples_ * s.first / rows_, to = samples_ * (s.first + s.count) / rows_;
    if (to == from) continue;
    const EstimatePush push{uint32_t(s.count), uint32_t(to - from), uint32_t(cap_), 0, 0};
    device_.dispatch_ranges(cmd, insert, estimate_ranges(table_, ctrl_, s), &push, div_up(to - from, GB_WG));
    device_.barrier(cmd);  // the strides claim slots of the same table, the statistics read them
  }
  const EstimatePush push{0, 0, uint32_t(cap_), 0, 0};
  device_.dispatch_ranges(cmd, device_.pipeline("group_by_sample_stats", 9, sizeof(EstimatePush), true, 0, config_),
                          estimate_ranges(table_, ctrl_, strides_[0]), &push, div_up(cap_, GB_WG));
}

void Estimator::record_hll(VkCommandBuffer cmd) {
  vkCmdFillBuffer(cmd, registers_.handle(), 0, VK_WHOLE_SIZE, 0);
  device_.barrier(cmd);
  const Pipeline& p = device_.pipeline("group_by_hll", 9, sizeof(EstimatePush), true, 0, config_);
  for (const RowSource& s : strides_) {
    const EstimatePush push{uint32_t(s.count), 0, 0, kHllRows, 0};
    device_.dispatch_ranges(cmd, p, estimate_ranges(registers_, registers_, s), &push, div_up(s.count, kHllRows));
  }
}

GroupCountEstimate Estimator::run(StageRunner& runner) {
  GroupCountEstimate e;
  used_hll_ = false;
  if (rows_ == 0) {
    e.method = "no rows";
    return e;
  }
  const size_t sample =
      runner.run("group-by-sample",
                 "keys of " + std::to_string(samples_) + " rows (one per equal stratum) counted in a table of " +
                     std::to_string(cap_) + " slots",
                 samples_, [&](VkCommandBuffer cmd) { record_sample(cmd); });
  const std::vector<uint32_t> stats = runner.download(ctrl_, 4, "sample statistics");
  e.sample = samples_;
  e.distinct = stats[GB_SAMPLE_DISTINCT];
  e.f1 = stats[GB_SAMPLE_F1];
  e.f2 = stats[GB_SAMPLE_F2];
  e.top = stats[GB_SAMPLE_TOP];
  runner.passes()[sample].passed = e.distinct;
  if (samples_ == rows_ && !full_) {
    e.value = e.distinct;
    e.method = "exact count of all " + std::to_string(rows_) + " rows' keys (64-bit fingerprints)";
    return e;
  }
  if (!full_ && (e.f2 >= kMinDoubletons || e.f1 < kMinDoubletons)) {
    e.value = sample_estimate(rows_, samples_, e.distinct, e.f1, e.f2);
    e.method = "Chao1 of a sample of " + std::to_string(samples_) + " rows (" + std::to_string(e.distinct) +
               " distinct, f1 " + std::to_string(e.f1) + ", f2 " + std::to_string(e.f2) + ")";
    return e;
  }
  used_hll_ = true;
  const size_t pass = runner.run(
      "group-by-hll", "HyperLogLog sketch of every row's key (" + std::to_string(GB_HLL_REGISTERS) + " registers)",
      rows_, [&](VkCommandBuffer cmd) { record_hll(cmd); });
  const std::vector<uint32_t> regs = runner.download(registers_, GB_HLL_REGISTERS, "HyperLogLog registers");
  e.value = std::min(hll_estimate(regs), rows_);
  runner.passes()[pass].passed = e.value;
  e.method = "HyperLogLog over all " + power_text(rows_) + " rows (the sample of " + std::to_string(samples_) +
             " had " + std::to_string(e.distinct) + " distinct keys, " + std::to_string(e.f1) + " seen once, " +
             std::to_string(e.f2) + " twice" + (full_ ? "; forced" : "") + ")";
  return e;
}

bool shared_table_workgroups(const VkCapabilities& caps) {
  return caps.max_workgroup_invocations >= GB_SHARED_WG && caps.max_workgroup_size[0] >= GB_SHARED_WG;
}

TableKernel largest_shared_kernel(const Device& device) {
  const uint32_t have = device.caps().max_shared_memory;
  for (TableKernel k : {TableKernel::SharedL, TableKernel::SharedM})
    if (shared_bytes(k) <= have) return k;
  return TableKernel::SharedS;
}

TableKernel few_kernel(const Device& device, const Layout& layout, uint64_t groups, uint32_t shared_size) {
  if (shared_size)
    return shared_size == 1 ? TableKernel::PrivateS : shared_size == 2 ? TableKernel::PrivateM : TableKernel::PrivateL;
  TableKernel best = TableKernel::PrivateS;
  for (TableKernel k : {TableKernel::PrivateS, TableKernel::PrivateM, TableKernel::PrivateL}) {
    if (shared_bytes(k) > device.caps().max_shared_memory) break;
    best = k;
    if (few_shape(k, layout, groups).copies == GB_WG) break;
  }
  return best;
}

Choice choose(const Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options,
              uint64_t estimate, double top_share) {
  Choice c;
  const uint64_t n = input_rows(input);
  const uint64_t groups = std::max<uint64_t>(1, estimate);
  const bool a64 = use_atomic64(device, options);
  if (options.shared_size > 3) throw Error(ErrorCode::InvalidInput, "GROUP BY shared_size must be 0..3");
  const TableKernel largest = largest_shared_kernel(device);
  c.shared = options.shared_size ? kernel_of_size(options.shared_size) : largest;
  if (shared_bytes(c.shared) > device.caps().max_shared_memory)
    throw Error(ErrorCode::Unsupported, "GROUP BY shared table of " + shared_size_text(c.shared) + ": the device has " +
                                            std::to_string(device.caps().max_shared_memory) +
                                            " bytes of shared memory");
  const uint32_t shared_cap = shared_capacity(c.shared, layout);
  const bool wide = shared_table_workgroups(device.caps());
  // Groups for which 2^8 hash partitions fill at most half a shared table each (one digit pass).
  const uint64_t one_pass_groups = uint64_t(shared_cap) / 2 * 256;
  const TableKernel private_kernel = few_kernel(device, layout, groups, options.shared_size);
  const bool private_fits = shared_bytes(private_kernel) <= device.caps().max_shared_memory;
  c.few = few_shape(private_kernel, layout, groups);
  const uint64_t max_cap = max_table_cap(device, layout);
  c.table_slots = options.table_slots ? options.table_slots : std::min(table_slots_for(groups), max_cap);

  // Why a hash variant cannot run this input, or empty.
  std::string hash_blocker;
  if (!layout.quantiles.empty())
    hash_blocker = "MEDIAN, QUANTILE and KTH_LARGEST per group need the sort-based variant";
  else if (layout.keys > 2)
    hash_blocker = "the hash variants take at most two key columns";
  else if (layout.keys == 2 && !a64)
    hash_blocker = "two key columns need 64-bit buffer atomics (an 8-byte key claimed by one compare-and-swap)";

  if (options.variant != GroupByVariant::Auto) {
    c.variant = options.variant;
    c.reason = std::string("forced: ") + to_string(options.variant);
    if (c.variant != GroupByVariant::Sort && !hash_blocker.empty())
      throw Error(ErrorCode::Unsupported,
                  std::string("GROUP BY variant ") + to_string(c.variant) + " cannot run this input: " + hash_blocker);
    const bool shared = c.variant == GroupByVariant::SharedTable || c.variant == GroupByVariant::Partitioned;
    if (shared && !wide)
      throw Error(ErrorCode::Unsupported, std::string("GROUP BY variant ") + to_string(c.variant) +
                                              ": its shared-table kernel runs " + std::to_string(GB_SHARED_WG) +
                                              " invocations per workgroup, the device at most " +
                                              std::to_string(device.caps().max_workgroup_invocations));
    if (shared && shared_cap == 0)
      throw Error(ErrorCode::Unsupported, std::string("GROUP BY variant ") + to_string(c.variant) + ": a slot of " +
                                              std::to_string(layout.shared_words * 4) + " bytes does not fit the " +
                                              shared_size_text(c.shared) + " shared table");
    if (c.variant == GroupByVariant::Private && !private_fits)
      throw Error(ErrorCode::Unsupported, "GROUP BY variant private: its " + shared_size_text(private_kernel) +
                                              " kernel needs more than the device's " +
                                              std::to_string(device.caps().max_shared_memory) +
                                              " bytes of shared memory");
    if (c.variant == GroupByVariant::Private && c.few.ids == 0)
      throw Error(ErrorCode::Unsupported, "GROUP BY variant private: a group's " +
                                              std::to_string(layout.private_words * 4) +
                                              " bytes of accumulators and its FLOAT sums do not fit the " +
                                              shared_size_text(private_kernel) + " kernel");
  } else if (!hash_blocker.empty()) {
    c.variant = GroupByVariant::Sort;
    c.reason = hash_blocker;
  } else if (private_fits && groups <= kFewGroups && c.few.ids >= groups) {
    c.variant = GroupByVariant::Private;
    c.reason = "at most " + std::to_string(kFewGroups) + " groups, within the few-groups kernel's ids (" +
               shared_size_text(private_kernel) + ", " + std::to_string(c.few.ids) + " ids x " +
               std::to_string(c.few.copies) + " copies)";
  } else if (wide && 2 * groups <= shared_cap) {
    c.variant = GroupByVariant::SharedTable;
    c.reason = "the groups fit half of a shared table";
  } else if (wide && kPartitionedFill * groups <= one_pass_groups) {
    c.variant = GroupByVariant::Partitioned;
    c.reason = "2^8 hash partitions of the groups fill at most 1/" + std::to_string(2 * kPartitionedFill) +
               " of a shared table each (" + shared_size_text(c.shared) + ", " + std::to_string(shared_cap) +
               " slots): one digit pass";
  } else if (table_bytes(layout, c.table_slots) <= kCachedTableBytes && top_share >= kSkewedShare) {
    c.variant = GroupByVariant::Sort;
    char text[160];
    std::snprintf(text, sizeof text,
                  "the most frequent key holds %.1f %% of the sample (at least %.0f %%): its rows would contend "
                  "on one slot of a global table; sorted by key",
                  top_share * 100, kSkewedShare * 100);
    c.reason = text;
  } else if (table_bytes(layout, c.table_slots) <= kCachedTableBytes) {
    c.variant = GroupByVariant::GlobalTable;
    c.reason = "a global table of " + power_text(c.table_slots) + " slots stays within " +
               std::to_string(kCachedTableBytes >> 20) + " MiB";
  } else {
    c.variant = GroupByVariant::Sort;
    c.reason = "a global table of " + power_text(c.table_slots) +
               " slots would not stay in cache: sorted by key (on the H200 at 2^24-2^26 groups over 2^28 rows the "
               "sort variant took 12.5-13.0 ms, the partitioned 22.8-41.3 ms)";
  }

  // The shared variant takes the smallest table that the groups fill to at most kSharedFill (a
  // smaller carve-out leaves more of the SM's memory to the L1), the partitioned variant the largest
  // (longer runs of rows per workgroup).
  if (!options.shared_size && c.variant == GroupByVariant::SharedTable) {
    for (TableKernel k : {TableKernel::SharedS, TableKernel::SharedM, TableKernel::SharedL}) {
      if (shared_bytes(k) > shared_bytes(largest)) break;
      if (double(shared_capacity(k, layout)) * kSharedFill >= double(groups)) {
        c.shared = k;
        break;
      }
    }
    if (options.variant == GroupByVariant::Auto)
      c.reason +=
          " (" + shared_size_text(c.shared) + ", " + std::to_string(shared_capacity(c.shared, layout)) + " slots)";
  }

  // Launch shape of the shared-table kernels, per stride (the table kernels run stride by stride).
  const uint64_t binding = device.max_binding_elements() / GB_STEP * GB_STEP;
  const uint64_t stride =
      options.stride_rows ? std::clamp<uint64_t>(options.stride_rows / GB_STEP * GB_STEP, GB_STEP, binding) : binding;
  const uint64_t rows = std::min(n, stride);
  if (c.variant == GroupByVariant::Private) c.shared = private_kernel;
  const uint64_t wave = c.variant != GroupByVariant::Private ? kSharedTableWorkgroups
                        : c.shared == TableKernel::PrivateL  ? kSharedWorkgroupsLarge
                                                             : kSharedWorkgroups;
  const uint64_t spread = (rows + wave - 1) / wave;
  const uint64_t widest = std::max<uint64_t>(GB_STEP, (spread + GB_STEP - 1) / GB_STEP * GB_STEP);
  if (options.partition_passes > 2) throw Error(ErrorCode::InvalidInput, "GROUP BY partition_passes must be 0..2");
  if (c.variant == GroupByVariant::Partitioned)
    c.partition_passes = options.partition_passes                    ? options.partition_passes
                         : std::min(groups, rows) <= one_pass_groups ? 1
                                                                     : 2;
  if (options.rows_per_group) {
    c.rows_per_group = std::max<uint32_t>(GB_STEP, options.rows_per_group / GB_STEP * GB_STEP);
  } else if (c.variant == GroupByVariant::Partitioned) {
    // A workgroup's rows hold about half its table's groups: rows clustered by hash partition put
    // each group's rows together, so a run of R rows of a stride holds about R * g / rows groups,
    // g the groups a stride holds.
    const double stride_groups = double(std::min(groups, rows));
    const double run = std::max(1.0, double(shared_cap) / 2 * double(rows) / stride_groups);
    c.rows_per_group = uint32_t(std::clamp<uint64_t>(uint64_t(run) / GB_STEP * GB_STEP, GB_STEP, widest));
  } else {
    c.rows_per_group = uint32_t(widest);
  }
  return c;
}

}  // namespace gfxq::vk::gb
