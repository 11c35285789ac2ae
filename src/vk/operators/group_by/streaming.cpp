// GROUP BY of host columns streamed through the device in strides (group_by_streamed, group_by.h):
// staging device columns of one stride, refilled from the host for each stride, aggregated into one
// global hash table by the hash variants' kernels.

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>

#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/operators/group_by/common.h"
#include "vk/operators/group_by/global_table.h"
#include "vk/operators/group_by/group_by.h"
#include "vk/operators/group_by/optimizer.h"
#include "vk/operators/group_by/partitioned.h"
#include "vk/operators/group_by/shared_table.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

namespace {

//! Rows per stride when the options give none.
constexpr uint64_t kDefaultStride = uint64_t(1) << 24;

std::string slots_text(uint64_t v) {
  if (v && std::has_single_bit(v)) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

const void* column_data(const Column& c) {
  return c.type == Type::Int32 ? static_cast<const void*>(c.as<int32_t>().data())
                               : static_cast<const void*>(c.as<float>().data());
}

//! The staging columns of one stride and the host copies they are filled from.
class Staging {
 public:
  Staging(Device& device, const GroupByHostInput& input, uint64_t stride) : device_(device), input_(input) {
    auto make = [&](const Column* c) {
      DeviceColumn d;
      d.type = c->type;
      d.rows = stride;
      d.buffer = device.create_buffer(padded_bytes(stride), MemoryKind::Device);
      return d;
    };
    keys_.reserve(input.keys.size());
    values_.reserve(input.values.size());
    for (const Column* c : input.keys) keys_.push_back(make(c));
    for (const Column* c : input.values) values_.push_back(make(c));
  }
  //! A device input over the staging columns holding `rows` rows.
  GroupByInput input(uint64_t rows) const {
    GroupByInput in;
    for (const DeviceColumn& k : keys_) in.keys.push_back(&k);
    for (const DeviceColumn& v : values_) in.values.push_back(&v);
    in.aggregates = input_.aggregates;
    in.rows = rows;
    return in;
  }
  //! Uploads the rows at input positions `positions` (row ids through the selection, if any).
  void fill(const std::vector<uint64_t>& positions) {
    std::vector<uint32_t> words(positions.size());
    auto copy = [&](const Column& c, DeviceColumn& d) {
      const auto* src = static_cast<const uint32_t*>(column_data(c));
      for (size_t i = 0; i < positions.size(); ++i) words[i] = src[positions[i]];
      device_.upload(d.buffer, words.data(), words.size() * 4);
    };
    for (size_t k = 0; k < keys_.size(); ++k) copy(*input_.keys[k], keys_[k]);
    for (size_t v = 0; v < values_.size(); ++v) copy(*input_.values[v], values_[v]);
  }
  //! Uploads input rows [first, first + count) (no selection): straight from the columns.
  void fill_range(uint64_t first, uint64_t count) {
    for (size_t k = 0; k < keys_.size(); ++k)
      device_.upload(keys_[k].buffer, static_cast<const uint32_t*>(column_data(*input_.keys[k])) + first, count * 4);
    for (size_t v = 0; v < values_.size(); ++v)
      device_.upload(values_[v].buffer, static_cast<const uint32_t*>(column_data(*input_.values[v])) + first,
                     count * 4);
  }

 private:
  Device& device_;
  const GroupByHostInput& input_;
  std::vector<DeviceColumn> keys_, values_;
};

void check_host(const GroupByHostInput& input) {
  if (input.keys.empty()) throw Error(ErrorCode::InvalidInput, "streamed GROUP BY needs 1 or 2 key columns, got none");
  const uint64_t rows = input.keys[0]->size();
  auto check = [&](const Column* c, const std::string& what) {
    if (!c) throw Error(ErrorCode::InvalidInput, "streamed GROUP BY: " + what + " is missing");
    if (c->type != Type::Int32 && c->type != Type::Float32)
      throw Error(ErrorCode::InvalidInput, "streamed GROUP BY: " + what + " '" + c->name + "' is not int or float");
    if (c->size() != rows)
      throw Error(ErrorCode::InvalidInput, "streamed GROUP BY: " + what + " '" + c->name + "' holds " +
                                               std::to_string(c->size()) + " rows, not " + std::to_string(rows));
  };
  for (const Column* c : input.keys) check(c, "key column");
  for (const Column* c : input.values) check(c, "value column");
  if (input.selection)
    for (size_t i = 0; i < input.selection->size(); ++i)
      if ((*input.selection)[i] >= rows || (i > 0 && (*input.selection)[i] <= (*input.selection)[i - 1]))
        throw Error(ErrorCode::InvalidInput, "streamed GROUP BY: the selection's row ids must ascend below " +
                                                 std::to_string(rows) + " (entry " + std::to_string(i) + ")");
}

}  // namespace

GroupByResult group_by_streamed(Device& device, const GroupByHostInput& host, const GroupByOptions& options) {
  check_host(host);
  const uint64_t rows = host.keys[0]->size();
  const uint64_t n = host.selection ? host.selection->size() : rows;
  const uint64_t binding = device.max_binding_elements() / GB_STEP * GB_STEP;
  const uint64_t stride =
      std::min(binding, options.stride_rows ? std::max<uint64_t>(GB_STEP, options.stride_rows / GB_STEP * GB_STEP)
                                            : kDefaultStride);
  const uint64_t staged_rows = std::max<uint64_t>(1, std::min(stride, n));
  Staging staging(device, host, staged_rows);
  const GroupByInput staged = staging.input(staged_rows);
  const gb::Layout layout = gb::make_layout(staged);
  prim::require_features(device, "GROUP BY", true);
  GroupByResult out;
  gb::StageRunner runner(device);
  if (n == 0) {
    gb::decode(staged, layout, gb::ResultLayout::make(layout, layout.keys, 0), {}, out);
    out.variant = options.variant;
    out.algorithm = "compute GROUP BY, streamed: no rows (no GPU work)";
    out.reason = "no rows";
    out.estimate.method = "no rows";
    return out;
  }
  auto position = [&](uint64_t i) -> uint64_t { return host.selection ? (*host.selection)[i] : i; };

  // The estimate: Chao1 of up to one stride of rows, one per equal stratum (sample_position),
  // counted on the device.
  GroupByOptions sample_options = options;
  sample_options.full_estimate = false;
  sample_options.sample_rows = 0;
  const uint64_t samples = std::min<uint64_t>({n, staged_rows, GB_SAMPLE_MAX});
  if (options.variant == GroupByVariant::Auto || options.table_slots == 0 ||
      (options.variant == GroupByVariant::Partitioned && options.rows_per_group == 0)) {
    std::vector<uint64_t> at(samples);
    for (uint64_t i = 0; i < samples; ++i) at[i] = position(gb::sample_position(i, n, samples));
    const auto start = gb::StageRunner::Clock::now();
    staging.fill(at);
    runner.add("upload", "a sample of " + std::to_string(samples) + " rows (one per equal stratum)", samples, start);
    const GroupByInput sample_input = staging.input(samples);
    gb::Estimator estimator(device, sample_input, layout, sample_options);
    out.estimate = estimator.run(runner);
    out.estimate.value = gb::sample_estimate(n, samples, out.estimate.distinct, out.estimate.f1, out.estimate.f2);
    out.estimate.method = samples == n
                              ? "exact count of all " + std::to_string(n) + " rows' keys"
                              : "Chao1 of a sample of " + std::to_string(samples) + " rows (" +
                                    std::to_string(out.estimate.distinct) + " distinct, f1 " +
                                    std::to_string(out.estimate.f1) + ", f2 " + std::to_string(out.estimate.f2) + ")";
  } else {
    out.estimate.method = "none (forced sizes)";
  }
  GroupByInput all = staged;
  all.rows = n;
  GroupByOptions strided = options;
  strided.stride_rows = stride;
  const gb::Choice choice = gb::choose(device, all, layout, strided, out.estimate.value, gb::top_share(out.estimate));
  if (choice.variant == GroupByVariant::Sort)
    throw Error(ErrorCode::Unsupported, "streamed GROUP BY runs the hash variants only: " + choice.reason +
                                            ", and the sort-based variant needs every row on the device");
  out.variant = choice.variant;
  out.reason = choice.reason;

  const bool a64 = gb::use_atomic64(device, options);
  const gb::KernelLaunch launch =
      choice.variant == GroupByVariant::GlobalTable ? gb::KernelLaunch{} : gb::shared_launch(choice);
  std::optional<gb::StridePartitioner> partitioner;
  if (choice.variant == GroupByVariant::Partitioned)
    partitioner.emplace(device, staged, layout, staged_rows, choice.partition_passes);
  const uint64_t strides = (n + stride - 1) / stride;
  const uint64_t max_cap = gb::max_table_cap(device, layout);
  std::string resizes;
  uint64_t cap = choice.table_slots;
  for (;;) {
    gb::HashTable table = gb::make_table(device, layout, cap);
    bool overflow = false;
    uint64_t groups = 0;
    for (uint64_t s = 0; s < strides && !overflow; ++s) {
      const uint64_t first = s * stride, count = std::min(stride, n - first);
      const auto start = gb::StageRunner::Clock::now();
      if (host.selection) {
        std::vector<uint64_t> at(count);
        for (uint64_t i = 0; i < count; ++i) at[i] = position(first + i);
        staging.fill(at);
      } else {
        staging.fill_range(first, count);
      }
      runner.add("upload",
                 "stride " + std::to_string(s + 1) + " of " + std::to_string(strides) + " (" + std::to_string(count) +
                     " rows)",
                 count, start);
      const GroupByInput stride_input = staging.input(count);
      const gb::RowSource src = gb::make_strides(device, stride_input, layout, 0).front();
      const std::string detail = launch.kernel == gb::TableKernel::Global
                                     ? "rows into a global table of " + slots_text(cap) + " slots"
                                     : gb::describe_shared(layout, launch, count, cap);
      const size_t pass = runner.run("group-by-aggregate", detail + "; stride " + std::to_string(s + 1), count,
                                     [&](VkCommandBuffer cmd) {
                                       if (s == 0) {
                                         gb::record_clear(device, cmd, table);
                                         device.barrier(cmd);
                                       }
                                       gb::RowSource rows_in = src;
                                       if (partitioner) rows_in = partitioner->record(cmd, src);
                                       gb::record_table_kernel(device, cmd, layout, a64, table, rows_in, launch);
                                     });
      const std::vector<uint32_t> ctrl = runner.download(table.ctrl, 2, "table control words");
      overflow = ctrl[GB_CTRL_OVERFLOW] != 0;
      groups = ctrl[GB_CTRL_GROUPS];
      runner.passes()[pass].passed = groups;
      if (!overflow) continue;
      if (cap >= max_cap)
        throw Error(ErrorCode::Unsupported, "streamed GROUP BY: a hash table of " + std::to_string(cap) +
                                                " slots overflowed and one storage binding holds no more");
      const uint64_t next = std::min(max_cap, std::max(4 * cap, gb::table_slots_for(2 * groups)));
      const std::string note = "table of " + slots_text(cap) + " slots overflowed in stride " + std::to_string(s + 1) +
                               ": resized to " + slots_text(next) + " slots and the input streamed again";
      runner.add("group-by-resize", note, groups, gb::StageRunner::Clock::now());
      resizes += "; " + note;
      cap = next;
    }
    if (overflow) continue;
    gb::TableFinalizer finalizer(device, layout, table, groups);
    finalizer.run(runner);
    const gb::ResultLayout& rl = finalizer.result_layout();
    gb::decode(staged, layout, rl, runner.download(finalizer.result(), rl.words, "result arrays"), out);
    std::string text = launch.kernel == gb::TableKernel::Global ? "global table of " + slots_text(cap) + " slots"
                                                                : gb::describe_shared(layout, launch, staged_rows, cap);
    if (partitioner) text = partitioner->describe() + "; " + text;
    out.algorithm = std::string("compute GROUP BY, ") + to_string(out.variant) +
                    " variant, streamed: " + std::to_string(strides) + " strides of up to " + std::to_string(stride) +
                    " rows uploaded in turn into one table; " + text + resizes + "; output ordered by " +
                    finalizer.describe() + "; estimated " + std::to_string(out.estimate.value) + " groups (" +
                    out.estimate.method + "), " + std::to_string(out.groups) + " groups";
    break;
  }
  out.passes = std::move(runner.passes());
  return out;
}

}  // namespace gfxq::vk
