#include "vk/operators/group_by/sort_based.h"

#include <algorithm>

#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/primitives/gather_scatter.h"

namespace gfxq::vk::gb {

namespace {

//! Push constants of group_by_quantile.comp.
struct QuantilePush {
  uint32_t groups, type, group_offset;
};

SortKeyType sort_type(Type t) {
  return t == Type::Float32 ? SortKeyType::F32 : SortKeyType::I32;
}

BufferRange range_of(const Buffer& b, uint64_t n) {
  return {&b, 0, std::max<uint64_t>(4, n * 4)};
}

}  // namespace

SortGroupBy::SortGroupBy(Device& device, const GroupByInput& input, const Layout& layout, const GroupByOptions& options)
    : device_(device), input_(input), layout_(layout), atomic64_(use_atomic64(device, options)), n_(input_rows(input)) {
  if (n_ > device.max_binding_elements())
    throw Error(ErrorCode::Unsupported, "sort-based GROUP BY of " + std::to_string(n_) +
                                            " rows: the segmented reduction reads the sorted rows from one storage "
                                            "binding of " +
                                            std::to_string(device.max_binding_elements()) + " rows");
  direct_ = layout.keys == 1 && layout.bindings.size() <= 1 && layout.quantiles.empty();
  const uint64_t bytes = std::max<uint64_t>(16, n_ * 4);
  // The dense inputs: the columns themselves, or their selected rows gathered (in the first step).
  std::vector<const DeviceColumn*> columns(input.keys.begin(), input.keys.end());
  for (size_t b : layout.bindings) columns.push_back(input.values[b]);
  for (size_t q : layout.quantiles) columns.push_back(input.values[size_t(input.aggregates[q].value)]);
  std::vector<BufferRange> dense;
  dense_.reserve(columns.size());  // ranges point at its buffers
  for (const DeviceColumn* c : columns) {
    if (input.selection) {
      dense_.push_back(device_buffer(device, bytes));
      dense.push_back(range_of(dense_.back(), n_));
    } else {
      dense.push_back({&c->buffer, 0, std::max<uint64_t>(4, n_ * 4)});
    }
  }
  keys_.assign(dense.begin(), dense.begin() + layout.keys);
  values_.assign(dense.begin() + layout.keys, dense.begin() + layout.keys + layout.bindings.size());
  quantile_values_.assign(dense.begin() + layout.keys + layout.bindings.size(), dense.end());
  sorted_keys_.reserve(layout.keys);
  sorted_values_.reserve(layout.bindings.size());
  for (uint32_t k = 0; k < layout.keys; ++k) sorted_keys_.push_back(device_buffer(device, bytes));
  for (size_t b = 0; b < layout.bindings.size(); ++b) sorted_values_.push_back(device_buffer(device, bytes));
  if (!direct_) {
    perm_ = device_buffer(device, bytes);
    tmp_key_ = device_buffer(device, bytes);
  } else {
    tmp_key_ = device_buffer(device, 16);
  }
  if (!layout.quantiles.empty()) sorted_q_ = device_buffer(device, bytes);
  scratch_ = device_buffer(device, n_ ? radix_sort_scratch_bytes(device, n_, true) : 16);
  seg_scratch_ = device_buffer(device, segmented_reduce_scratch_bytes(device, n_));
  segments_ = device_buffer(device, 16);
  build_order_steps();
}

void SortGroupBy::add_permutation_steps(std::vector<SortStep>& steps, const std::vector<BufferRange>& columns,
                                        const std::vector<SortKeyType>& types, const std::string& what) {
  const BufferRange perm = range_of(perm_, n_), tmp = range_of(tmp_key_, n_);
  for (size_t c = columns.size(); c-- > 0;) {
    RadixSortArgs a;
    a.n = n_;
    a.key_type = types[c];
    a.scratch = {&scratch_, 0, 0};
    a.values_out = perm;
    a.keys_out = tmp;
    if (c + 1 == columns.size()) {
      a.keys_in = columns[c];  // row ids generated
    } else {
      a.keys_in = tmp;  // the column gathered by the permutation so far, sorted in place
      a.values_in = perm;
    }
    const bool gathered = c + 1 != columns.size();
    const BufferRange column = columns[c];
    SortStep step;
    step.kind = "group-by-sort";
    step.detail = what + ": column " + std::to_string(c) + (gathered ? " gathered by the permutation and" : "") +
                  " sorted stably with " + (gathered ? "it" : "row ids");
    step.items = n_;
    step.sort = a;
    step.record = [this, a, gathered, column, perm, tmp](VkCommandBuffer cmd) {
      if (gathered) {
        gather(device_, cmd, column, n_, perm, n_, tmp);
        device_.barrier(cmd);
      }
      record_radix_sort(device_, cmd, a);
    };
    steps.push_back(std::move(step));
  }
}

void SortGroupBy::build_order_steps() {
  if (input_.selection) {
    std::vector<BufferRange> sources;
    for (const DeviceColumn* c : input_.keys) sources.push_back({&c->buffer, 0, 0});
    for (size_t b : layout_.bindings) sources.push_back({&input_.values[b]->buffer, 0, 0});
    for (size_t q : layout_.quantiles)
      sources.push_back({&input_.values[size_t(input_.aggregates[q].value)]->buffer, 0, 0});
    SortStep step;
    step.kind = "group-by-gather";
    step.detail =
        "the " + std::to_string(n_) + " selected rows of " + std::to_string(sources.size()) + " columns gathered";
    step.items = n_;
    step.record = [this, sources](VkCommandBuffer cmd) {
      const BufferRange ids{input_.selection, 0, std::max<uint64_t>(4, n_ * 4)};
      for (size_t c = 0; c < sources.size(); ++c)
        gather(device_, cmd, sources[c], input_.rows, ids, n_, range_of(dense_[c], n_));
    };
    order_steps_.push_back(std::move(step));
  }
  std::vector<SortKeyType> key_types;
  for (Type t : layout_.key_types) key_types.push_back(sort_type(t));
  if (direct_) {
    RadixSortArgs a;
    a.n = n_;
    a.key_type = key_types[0];
    a.keys_in = keys_[0];
    a.keys_out = range_of(sorted_keys_[0], n_);
    if (!values_.empty()) {
      a.values_in = values_[0];
      a.values_out = range_of(sorted_values_[0], n_);
    }
    a.scratch = {&scratch_, 0, 0};
    SortStep step;
    step.kind = "group-by-sort";
    step.detail = values_.empty() ? "keys sorted" : "(key, value) pairs sorted by key";
    step.items = n_;
    step.sort = a;
    step.record = [this, a](VkCommandBuffer cmd) { record_radix_sort(device_, cmd, a); };
    order_steps_.push_back(std::move(step));
  } else {
    add_permutation_steps(order_steps_, keys_, key_types, "rows ordered by the keys");
    SortStep step;
    step.kind = "group-by-gather";
    step.detail = "key and value columns gathered in key order";
    step.items = n_;
    step.record = [this](VkCommandBuffer cmd) {
      const BufferRange perm = range_of(perm_, n_);
      for (size_t k = 0; k < keys_.size(); ++k)
        gather(device_, cmd, keys_[k], n_, perm, n_, range_of(sorted_keys_[k], n_));
      for (size_t b = 0; b < values_.size(); ++b)
        gather(device_, cmd, values_[b], n_, perm, n_, range_of(sorted_values_[b], n_));
    };
    order_steps_.push_back(std::move(step));
  }
  SortStep count;
  count.kind = "group-by-segments";
  count.detail = "segment heads per " + std::to_string(1024) + "-row chunk and their scan: the group count";
  count.items = n_;
  count.record = [this](VkCommandBuffer cmd) { record_segment_count(device_, cmd, reduce_args()); };
  order_steps_.push_back(std::move(count));
}

SegmentedReduceArgs SortGroupBy::reduce_args() const {
  SegmentedReduceArgs a;
  a.n = n_;
  for (uint32_t k = 0; k < layout_.keys; ++k) {
    a.keys.push_back(range_of(sorted_keys_[k], n_));
    a.key_types.push_back(sort_type(layout_.key_types[k]));
  }
  a.segments = {&segments_, 0, 8};
  a.scratch = {&seg_scratch_, 0, 0};
  a.int64_atomics = atomic64_;
  if (!result_.handle()) return a;
  const uint64_t g = out_.groups;
  auto region = [&](uint64_t offset, uint64_t per_group) {
    return BufferRange{&result_, offset * 4, std::max<uint64_t>(4, g * per_group * 4)};
  };
  for (uint32_t k = 0; k < layout_.keys; ++k) a.segment_keys.push_back(region(out_.key[k], 1));
  a.counts = region(out_.count, 1);
  if (!layout_.quantiles.empty()) a.firsts = range_of(firsts_, g);
  for (size_t s = 0; s < layout_.states.size(); ++s) {
    const StateSpec& st = layout_.states[s];
    SegmentReduction r;
    r.type = sort_type(st.type);
    r.values = range_of(sorted_values_[st.binding], n_);
    switch (st.kind) {
      case GB_STATE_SUM_INT:
        r.op = SegmentOp::Sum;
        r.out = region(out_.state[s], 2);
        break;
      case GB_STATE_SUM_FLOAT:
        r.op = SegmentOp::Sum;
        r.out = region(out_.state[s], GB_SUM_FLOAT_WORDS);
        break;
      case GB_STATE_MIN:
        r.op = SegmentOp::Min;
        r.out = region(out_.state[s], 1);
        break;
      default:
        r.op = SegmentOp::Max;
        r.out = region(out_.state[s], 1);
        break;
    }
    a.reductions.push_back(r);
  }
  return a;
}

void SortGroupBy::set_groups(uint64_t groups) {
  out_ = ResultLayout::make(layout_, layout_.keys, groups);
  result_ = device_buffer(device_, out_.words * 4);
  if (!layout_.quantiles.empty()) firsts_ = device_buffer(device_, groups * 4);
  ranks_.clear();
  for (size_t q = 0; q < layout_.quantiles.size(); ++q) ranks_.push_back(device_buffer(device_, groups * 4));
  build_reduce_steps();
}

void SortGroupBy::build_reduce_steps() {
  reduce_steps_.clear();
  const uint64_t g = out_.groups;
  if (g == 0) return;
  SortStep reduce;
  reduce.kind = "group-by-reduce";
  reduce.detail = "segmented reduction of " + std::to_string(layout_.states.size()) + " states into " +
                  std::to_string(g) + " groups";
  reduce.items = n_;
  reduce.record = [this](VkCommandBuffer cmd) { record_segmented_reduce(device_, cmd, reduce_args()); };
  reduce_steps_.push_back(std::move(reduce));
  std::vector<SortKeyType> key_types;
  for (Type t : layout_.key_types) key_types.push_back(sort_type(t));
  for (size_t q = 0; q < layout_.quantiles.size(); ++q) {
    const GroupByAggregate& agg = input_.aggregates[layout_.quantiles[q]];
    const Type type = input_.values[size_t(agg.value)]->type;
    std::vector<BufferRange> columns = keys_;
    columns.push_back(quantile_values_[q]);
    std::vector<SortKeyType> types = key_types;
    types.push_back(sort_type(type));
    add_permutation_steps(reduce_steps_, columns, types, "rows ordered by (keys, value) for " + agg.name);
    const QuantilePush push{uint32_t(g), uint32_t(sort_type(type)), 0};
    const BufferRange column = quantile_values_[q];
    const uint64_t region = out_.quantile[q];
    const Buffer* ranks = &ranks_[q];
    SortStep step;
    step.kind = "group-by-quantile";
    step.detail = agg.name + ": the value of each group's rank";
    step.items = g;
    step.record = [this, push, column, region, g, ranks](VkCommandBuffer cmd) {
      gather(device_, cmd, column, n_, range_of(perm_, n_), n_, range_of(sorted_q_, n_));
      device_.barrier(cmd);
      const Pipeline& p = device_.pipeline("group_by_quantile", 4, sizeof(QuantilePush), true);
      device_.dispatch_ranges(
          cmd, p, {range_of(*ranks, g), range_of(firsts_, g), range_of(sorted_q_, n_), {&result_, region * 4, g * 4}},
          &push, uint32_t((g + GB_WG - 1) / GB_WG));
    };
    reduce_steps_.push_back(std::move(step));
  }
}

namespace {

void record_steps(Device& device, VkCommandBuffer cmd, const std::vector<SortStep>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i) device.barrier(cmd);
    steps[i].record(cmd);
  }
}

}  // namespace

void SortGroupBy::record_order(VkCommandBuffer cmd) {
  record_steps(device_, cmd, order_steps_);
}

void SortGroupBy::record_reduce(VkCommandBuffer cmd) {
  record_steps(device_, cmd, reduce_steps_);
}

bool SortGroupBy::sorts_completed() {
  std::vector<const SortStep*> sorts;
  for (const auto* steps : {&order_steps_, &reduce_steps_})
    for (const SortStep& s : *steps)
      if (s.sort) sorts.push_back(&s);
  if (sorts.size() != 1) return false;
  return !radix_sort_status(device_, *sorts[0]->sort).needs_fallback();
}

void SortGroupBy::run(StageRunner& runner) {
  sort_texts_.clear();
  auto run_steps = [&](const std::vector<std::reference_wrapper<const SortStep>>& steps) {
    for (const SortStep& s : steps) {
      runner.run(s.kind, s.detail, s.items, s.record);
      if (!s.sort) continue;
      const RadixSortStatus status = radix_sort_status(device_, *s.sort);
      sort_texts_.push_back(status.describe());
      if (status.needs_fallback())
        runner.run("radix-sort-fallback", status.describe(), s.items,
                   [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device_, cmd, *s.sort, status); });
    }
  };
  run_steps({order_steps_.begin(), order_steps_.end()});
  const std::vector<uint32_t> words = runner.download(segments_, 2, "group count");
  set_groups(uint64_t(words[0]) | uint64_t(words[1]) << 32);
  if (reduce_steps_.empty()) return;
  run_steps({reduce_steps_.begin(), reduce_steps_.begin() + 1});
  if (!layout_.quantiles.empty()) fill_ranks(runner);
  run_steps({reduce_steps_.begin() + 1, reduce_steps_.end()});
}

void SortGroupBy::fill_ranks(StageRunner& runner) {
  const uint64_t g = out_.groups;
  const std::vector<uint32_t> counts = runner.download(result_, g, "group counts", out_.count * 4);
  const auto start = StageRunner::Clock::now();
  std::vector<uint32_t> ranks(g);
  for (size_t q = 0; q < layout_.quantiles.size(); ++q) {
    const GroupByAggregate& agg = input_.aggregates[layout_.quantiles[q]];
    for (uint64_t i = 0; i < g; ++i) {
      const uint64_t n = counts[i];
      if (agg.kind == AggKind::KthLargest)
        ranks[i] = uint64_t(agg.k) > n ? 0 : uint32_t(n - uint64_t(agg.k) + 1);
      else
        ranks[i] = uint32_t(quantile_rank(agg.kind == AggKind::Median ? 0.5 : agg.q, n));
    }
    device_.upload(ranks_[q], ranks.data(), g * 4);
  }
  runner.add("group-by-ranks",
             "each group's rank of " + std::to_string(layout_.quantiles.size()) +
                 " quantile(s) computed on the host (quantile_rank) and uploaded",
             g, start);
}

std::string SortGroupBy::describe() const {
  std::string sorts;
  if (!sort_texts_.empty()) {
    sorts = sort_texts_.front();
    if (sort_texts_.size() > 1) sorts += " (" + std::to_string(sort_texts_.size()) + " sorts)";
  }
  const std::string what = direct_ ? (values_.empty() ? "keys" : "(key, value) pairs")
                                   : "a permutation by " + std::to_string(layout_.keys) + " key column(s)";
  return "radix sort of " + what + (sorts.empty() ? "" : ": " + sorts) + ", then segmented reduction" +
         (layout_.quantiles.empty() ? "" : "; quantiles from (keys, value) sorts");
}

}  // namespace gfxq::vk::gb
