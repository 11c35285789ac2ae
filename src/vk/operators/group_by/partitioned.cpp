#include "vk/operators/group_by/partitioned.h"

#include <algorithm>

#include "gfxq/error.h"
#include "sort_config.glsl"
#include "vk/primitives/gather_scatter.h"
#include "vk/primitives/radix_sort.h"

namespace gfxq::vk::gb {

namespace {

//! Partitions per 8-bit digit pass.
constexpr uint32_t kDigitFanout = 256;

SortKeyType sort_type(Type t) {
  return t == Type::Float32 ? SortKeyType::F32 : SortKeyType::I32;
}

}  // namespace

StridePartitioner::StridePartitioner(Device& device, const GroupByInput& input, const Layout& layout,
                                     uint64_t stride_rows, uint32_t passes)
    : device_(device), input_(input), layout_(layout), capacity_(std::max<uint64_t>(1, stride_rows)), passes_(passes) {
  if (passes != 1 && passes != 2)
    throw Error(ErrorCode::Internal, "GROUP BY partitioning by " + std::to_string(passes) + " digit passes");
  const uint64_t bytes = capacity_ * 4;
  key0_ = device_buffer(device, bytes);
  tmp_key_ = device_buffer(device, bytes);
  const size_t payloads = (layout.keys == 2 ? 1 : 0) + layout.bindings.size();
  if (payloads > 1 + SORT_MORE_VALUES)
    throw Error(ErrorCode::Internal, "GROUP BY partitioning of " + std::to_string(payloads) + " payload columns");
  for (size_t p = 0; p < payloads; ++p) {
    tmp_values_.push_back(device_buffer(device, bytes));
    payloads_.push_back(device_buffer(device, bytes));
  }
  hist_ = device_buffer(device, detail::pass_hist_bytes(capacity_));
  totals_ = device_buffer(device, 256 * 4);
  if (input.selection)
    for (size_t c = 0; c < 1 + payloads; ++c) dense_.push_back(device_buffer(device, bytes));
}

RowSource StridePartitioner::record(VkCommandBuffer cmd, const RowSource& source) {
  const uint64_t n = source.count;
  const uint64_t bytes = n * 4;
  // The stride's columns: key 0, then the payloads (key 1, value bindings).
  std::vector<BufferRange> columns = {source.keys[0]};
  if (layout_.keys == 2) columns.push_back(source.keys[1]);
  columns.insert(columns.end(), source.values.begin(), source.values.end());
  if (source.rows.buffer) {
    for (size_t c = 0; c < columns.size(); ++c) {
      gather(device_, cmd, columns[c], input_.rows, source.rows, n, {&dense_[c], 0, bytes});
      columns[c] = {&dense_[c], 0, bytes};
    }
    device_.barrier(cmd);
  }
  detail::DigitPass pass;
  pass.n = n;
  pass.key_type = sort_type(layout_.key_types[0]);
  pass.hash = true;
  pass.mask = 255;
  pass.fanout = passes_ == 1 ? kDigitFanout : kDigitFanout * kDigitFanout;
  pass.block_hist = {&hist_, 0, 0};
  pass.totals = {&totals_, 0, 0};
  // Key 0 and every payload (key 1, value bindings) move together through both stable passes.
  const size_t payloads = columns.size() - 1;
  const auto passes = [&](const std::vector<BufferRange>& in, const std::vector<BufferRange>& out) {
    pass.values_in = payloads ? in[0] : BufferRange{};
    pass.values_out = payloads ? out[0] : BufferRange{};
    pass.more_values.clear();
    for (size_t p = 1; p < payloads; ++p) pass.more_values.emplace_back(in[p], out[p]);
    detail::record_digit_pass(device_, cmd, pass);
    device_.barrier(cmd);
  };
  std::vector<BufferRange> tmp, clustered;
  for (size_t p = 0; p < payloads; ++p) {
    tmp.push_back({&tmp_values_[p], 0, bytes});
    clustered.push_back({&payloads_[p], 0, bytes});
  }
  const std::vector<BufferRange> inputs(columns.begin() + 1, columns.end());
  pass.shift = 0;
  pass.keys_in = columns[0];
  if (passes_ == 1) {
    pass.keys_out = {&key0_, 0, bytes};
    passes(inputs, clustered);
  } else {
    pass.keys_out = {&tmp_key_, 0, bytes};
    passes(inputs, tmp);
    pass.shift = 8;
    pass.keys_in = {&tmp_key_, 0, bytes};
    pass.keys_out = {&key0_, 0, bytes};
    passes(tmp, clustered);
  }
  RowSource out;
  out.count = n;
  out.first = source.first;
  out.keys.push_back({&key0_, 0, bytes});
  size_t p = 0;
  if (layout_.keys == 2) out.keys.push_back({&payloads_[p++], 0, bytes});
  for (size_t b = 0; b < layout_.bindings.size(); ++b) out.values.push_back({&payloads_[p++], 0, bytes});
  return out;
}

std::string StridePartitioner::describe() const {
  const std::string with =
      payloads_.empty() ? "" : " with " + std::to_string(payloads_.size()) + " payload column(s) in the same passes";
  const uint32_t fanout = passes_ == 1 ? kDigitFanout : kDigitFanout * kDigitFanout;
  return std::to_string(passes_) + " stable 8-bit digit pass" + (passes_ == 1 ? "" : "es") + " of the key" + with +
         " into " + std::to_string(fanout) + " partitions by the key's hash" +
         (input_.selection ? " (selected rows gathered first)" : "");
}

}  // namespace gfxq::vk::gb
