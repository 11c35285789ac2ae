// The GROUP BY driver: checks the input, estimates the group count, lets the optimizer choose,
// runs the chosen variant (hash variants stride by stride into one global table, resized and rerun
// on overflow; the sort variant over the whole input), then decodes the result arrays.

#include "vk/operators/group_by/group_by.h"

#include <algorithm>
#include <bit>

#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/operators/group_by/operator.h"
#include "vk/operators/group_by/shared_table.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk {

namespace gb {

namespace {

std::string slots_text(uint64_t v) {
  if (v && std::has_single_bit(v)) return "2^" + std::to_string(std::countr_zero(v));
  return std::to_string(v);
}

}  // namespace

//! A hash variant over the input's strides: the table (of the final size once run), the kernel
//! launch, and the partitioner of the partitioned variant.
struct GroupByOperator::HashRun {
  Device& device;
  const Layout& layout;
  bool atomic64;
  std::vector<RowSource> strides;
  KernelLaunch launch;
  std::optional<StridePartitioner> partitioner;
  HashTable table;

  HashRun(Device& d, const GroupByInput& input, const Layout& l, const GroupByOptions& options, const Choice& choice)
      : device(d), layout(l), atomic64(use_atomic64(d, options)) {
    strides = make_strides(d, input, l, options.stride_rows);
    if (choice.variant != GroupByVariant::GlobalTable) launch = shared_launch(choice);
    if (choice.variant == GroupByVariant::Partitioned)
      partitioner.emplace(d, input, l, strides[0].count, choice.partition_passes);
  }
  //! Stride s into the table (the first one clears it first).
  void record_stride(VkCommandBuffer cmd, size_t s) {
    if (s == 0) {
      record_clear(device, cmd, table);
      device.barrier(cmd);
    }
    RowSource rows = strides[s];
    if (partitioner) rows = partitioner->record(cmd, strides[s]);
    record_table_kernel(device, cmd, layout, atomic64, table, rows, launch);
  }
  //! What the aggregation does, for the report.
  std::string describe(size_t s) const {
    std::string text = launch.kernel == TableKernel::Global
                           ? "global table of " + slots_text(table.cap) + " slots of " +
                                 std::to_string(layout.slot_words * 4) + " bytes (linear probing, " +
                                 (atomic64 ? "64-bit" : "32-bit") + " atomics)"
                           : describe_shared(layout, launch, strides[s].count, table.cap);
    if (partitioner) text = partitioner->describe() + "; " + text;
    return text;
  }
};

GroupByOperator::GroupByOperator(Device& device, const GroupByInput& input, const GroupByOptions& options)
    : device_(device), input_(input), options_(options), layout_(make_layout(input)) {
  prim::require_features(device, "GROUP BY", true);
  if (!device.caps().subgroup_shuffle)
    throw Error(ErrorCode::Unsupported, "GROUP BY needs subgroup shuffles (" + device.caps().device_name + ")");
}

GroupByOperator::~GroupByOperator() = default;

std::string GroupByOperator::run_sort(StageRunner& runner, GroupByResult& out) {
  sort_ = std::make_unique<SortGroupBy>(device_, input_, layout_, options_);
  sort_->run(runner);
  const ResultLayout& rl = sort_->result_layout();
  decode(input_, layout_, rl, runner.download(sort_->result(), rl.words, "result arrays"), out);
  std::string text = sort_->describe();
  if (options_.stride_rows && options_.stride_rows < input_rows(input_))
    text += " (no strides: the sort takes every row at once)";
  return text;
}

std::optional<std::string> GroupByOperator::run_hash(StageRunner& runner, GroupByResult& out) {
  hash_ = std::make_unique<HashRun>(device_, input_, layout_, options_, choice_);
  HashRun& h = *hash_;
  const uint64_t max_cap = max_table_cap(device_, layout_);
  std::string resizes;
  uint64_t cap = choice_.table_slots;
  for (;;) {
    h.table = make_table(device_, layout_, cap);
    bool overflow = false;
    uint64_t groups = 0;
    for (size_t s = 0; s < h.strides.size() && !overflow; ++s) {
      const RowSource& src = h.strides[s];
      std::string detail = h.describe(s);
      if (h.strides.size() > 1)
        detail += "; stride " + std::to_string(s + 1) + " of " + std::to_string(h.strides.size()) + " (rows " +
                  std::to_string(src.first) + ".." + std::to_string(src.first + src.count - 1) + ")";
      const size_t pass =
          runner.run("group-by-aggregate", detail, src.count, [&](VkCommandBuffer cmd) { h.record_stride(cmd, s); });
      const std::vector<uint32_t> ctrl = runner.download(h.table.ctrl, 2, "table control words");
      overflow = ctrl[GB_CTRL_OVERFLOW] != 0;
      groups = ctrl[GB_CTRL_GROUPS];
      runner.passes()[pass].passed = groups;
      if (!overflow) continue;
      if (cap >= max_cap) {
        if (options_.variant != GroupByVariant::Auto)
          throw Error(ErrorCode::Unsupported, "GROUP BY hash table of " + std::to_string(cap) +
                                                  " slots overflowed and one storage binding holds no more");
        return std::nullopt;
      }
      const uint64_t next = std::min(max_cap, std::max(4 * cap, table_slots_for(2 * groups)));
      const std::string note = "table of " + slots_text(cap) + " slots overflowed in stride " + std::to_string(s + 1) +
                               " (" + std::to_string(groups) + " groups claimed): resized to " + slots_text(next) +
                               " slots and rerun from the first stride";
      runner.add("group-by-resize", note, groups, StageRunner::Clock::now());
      resizes += "; " + note;
      cap = next;
    }
    if (overflow) continue;
    finalizer_ = std::make_unique<TableFinalizer>(device_, layout_, h.table, groups);
    finalizer_->run(runner);
    const ResultLayout& rl = finalizer_->result_layout();
    decode(input_, layout_, rl, runner.download(finalizer_->result(), rl.words, "result arrays"), out);
    std::string text = h.describe(0);
    if (h.strides.size() > 1) text += "; " + std::to_string(h.strides.size()) + " strides into the one table";
    return text + resizes + "; output ordered by " + finalizer_->describe();
  }
}

GroupByResult GroupByOperator::run() {
  GroupByResult out;
  StageRunner runner(device_);
  const uint64_t n = input_rows(input_);
  if (n == 0) {
    decode(input_, layout_, ResultLayout::make(layout_, layout_.keys, 0), {}, out);
    out.variant = variant_ = options_.variant;
    out.algorithm = "compute GROUP BY of no rows: no groups (no GPU work)";
    out.reason = "no rows";
    out.estimate.method = "no rows";
    return out;
  }
  const bool hash = options_.variant != GroupByVariant::Sort;
  estimated_ = options_.full_estimate || options_.variant == GroupByVariant::Auto ||
               (hash && (options_.table_slots == 0 ||
                         (options_.variant == GroupByVariant::Partitioned && options_.rows_per_group == 0)));
  if (estimated_) {
    estimator_ = std::make_unique<Estimator>(device_, input_, layout_, options_);
    out.estimate = estimator_->run(runner);
  } else {
    out.estimate.method = "none (forced sizes)";
  }
  choice_ = choose(device_, input_, layout_, options_, out.estimate.value, top_share(out.estimate));
  out.variant = variant_ = choice_.variant;
  out.reason = choice_.reason;
  std::string text;
  if (variant_ != GroupByVariant::Sort) {
    if (const auto hashed = run_hash(runner, out)) {
      text = *hashed;
    } else {
      hash_.reset();
      out.variant = variant_ = GroupByVariant::Sort;
      out.reason += "; the hash table outgrew one storage binding: switched to the sort-based variant";
      text = run_sort(runner, out);
    }
  } else {
    text = run_sort(runner, out);
  }
  out.algorithm = std::string("compute GROUP BY, ") + to_string(out.variant) + " variant: " + text + "; estimated " +
                  std::to_string(out.estimate.value) + " groups (" + out.estimate.method + "), " +
                  std::to_string(out.groups) + " groups";
  out.passes = std::move(runner.passes());
  return out;
}

void GroupByOperator::record(VkCommandBuffer cmd, bool estimate) {
  if (input_rows(input_) == 0) return;
  if (estimator_ && estimate) {
    estimator_->record_sample(cmd);
    device_.barrier(cmd);
    if (estimator_->used_hll()) {
      estimator_->record_hll(cmd);
      device_.barrier(cmd);
    }
  }
  if (sort_) {
    sort_->record_order(cmd);
    device_.barrier(cmd);
    sort_->record_reduce(cmd);
    return;
  }
  for (size_t s = 0; s < hash_->strides.size(); ++s) {
    if (s) device_.barrier(cmd);
    hash_->record_stride(cmd, s);
  }
  device_.barrier(cmd);
  finalizer_->record(cmd);
}

bool GroupByOperator::completed() {
  if (input_rows(input_) == 0) return true;
  if (sort_) return sort_->sorts_completed();
  uint32_t overflow = 0;
  device_.download(hash_->table.ctrl, &overflow, 4, GB_CTRL_OVERFLOW * 4);
  return overflow == 0 && finalizer_->sorts_completed();
}

GroupByResult GroupByOperator::result() {
  GroupByResult out;
  out.variant = variant_;
  const ResultLayout& rl = sort_ ? sort_->result_layout() : finalizer_->result_layout();
  const Buffer& words = sort_ ? sort_->result() : finalizer_->result();
  std::vector<uint32_t> host(rl.words);
  device_.download(words, host.data(), rl.words * 4);
  decode(input_, layout_, rl, host, out);
  return out;
}

}  // namespace gb

GroupByResult group_by(Device& device, const GroupByInput& input, const GroupByOptions& options) {
  return gb::GroupByOperator(device, input, options).run();
}

}  // namespace gfxq::vk
