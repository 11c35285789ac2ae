#include "vk/operators/group_by/global_table.h"

#include <algorithm>
#include <bit>

#include "gfxq/error.h"
#include "group_by_config.glsl"
#include "vk/primitives/gather_scatter.h"

namespace gfxq::vk::gb {

namespace {

//! Push constants of group_by_table.comp.
struct TablePush {
  uint32_t count, cap, probe_limit, rows_per_group, shared_cap, ids, copies, group_offset;
};
//! Push constants of group_by_collect.comp.
struct CollectPush {
  uint32_t slots, group_offset;
};
//! Push constants of group_by_gather.comp.
struct GatherPush {
  uint32_t groups, permuted, key0, key1, count, state[GB_MAX_STATES], group_offset;
};

const char* kernel_name(TableKernel k) {
  switch (k) {
    case TableKernel::Global: return "group_by_global";
    case TableKernel::SharedS: return "group_by_shared_s";
    case TableKernel::SharedM: return "group_by_shared_m";
    case TableKernel::SharedL: return "group_by_shared_l";
    case TableKernel::PrivateS: return "group_by_private_s";
    case TableKernel::PrivateM: return "group_by_private_m";
    case TableKernel::PrivateL: return "group_by_private_l";
  }
  return "?";
}

//! Shared words of a few-groups kernel of `shape`: the key table (key words and a reference per
//! slot), then per id its key words, its accumulators in every copy and its FLOAT sums.
uint64_t few_words(const Layout& layout, const FewShape& shape) {
  uint64_t floats = 0;
  for (const StateSpec& s : layout.states) floats += s.kind == GB_STATE_SUM_FLOAT;
  return uint64_t(shape.slots) * (layout.keys + 1) +
         uint64_t(shape.ids) *
             (layout.keys + uint64_t(layout.private_words) * shape.copies + floats * GB_SUM_FLOAT_WORDS);
}

uint32_t groups_for(uint64_t items, uint64_t per_group) {
  return uint32_t((items + per_group - 1) / per_group);
}

}  // namespace

uint64_t table_bytes(const Layout& layout, uint64_t cap) {
  return (cap + 1) * layout.slot_words * 4;
}

uint64_t max_table_cap(const Device& device, const Layout& layout) {
  const uint64_t bytes = std::min(device.max_binding_elements() * 4, kMaxTableBytes);
  const uint64_t slots = bytes / (uint64_t(layout.slot_words) * 4);
  return std::min<uint64_t>(slots > 1 ? slots - 1 : 0, (uint64_t(1) << 31) - 1);
}

HashTable make_table(Device& device, const Layout& layout, uint64_t cap) {
  if (cap == 0 || cap > max_table_cap(device, layout))
    throw Error(ErrorCode::Unsupported, "GROUP BY hash table of " + std::to_string(cap) + " slots of " +
                                            std::to_string(layout.slot_words * 4) +
                                            " bytes: one storage binding holds " +
                                            std::to_string(max_table_cap(device, layout)) + " slots on this device");
  HashTable t;
  t.cap = cap;
  t.table = device_buffer(device, table_bytes(layout, cap));
  t.ctrl = device_buffer(device, GB_CTRL_WORDS * 4);
  return t;
}

void record_clear(Device& device, VkCommandBuffer cmd, const HashTable& table) {
  (void)device;
  vkCmdFillBuffer(cmd, table.table.handle(), 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(cmd, table.ctrl.handle(), 0, VK_WHOLE_SIZE, 0);
}

uint32_t shared_words(TableKernel kernel) {
  switch (kernel) {
    case TableKernel::Global: return 0;
    case TableKernel::SharedS:
    case TableKernel::PrivateS: return GB_SHARED_WORDS_S;
    case TableKernel::SharedM:
    case TableKernel::PrivateM: return GB_SHARED_WORDS_M;
    case TableKernel::SharedL:
    case TableKernel::PrivateL: return GB_SHARED_WORDS_L;
  }
  return 0;
}

uint32_t shared_bytes(TableKernel kernel) {
  return shared_words(kernel) * 4;
}

FewShape few_shape(TableKernel kernel, const Layout& layout, uint64_t groups) {
  const uint64_t words = shared_words(kernel);
  const uint64_t wanted = std::max<uint64_t>(groups, 1);
  // The most ids with `copies` copies and two key table slots per id.
  auto ids_with = [&](uint32_t copies) { return words / few_words(layout, {2, 1, copies}); };
  uint32_t copies = GB_WG;
  while (copies > 1 && ids_with(copies) < wanted) copies /= 2;
  FewShape f;
  f.copies = copies;
  // Ids for the groups and an eighth more (at least 8 more: an estimate may fall short), the rest
  // of the memory to the key table (fewer probes).
  f.ids = uint32_t(std::min(ids_with(copies), wanted + std::max<uint64_t>(8, wanted / 8)));
  f.slots = uint32_t((words - few_words(layout, {0, f.ids, copies})) / (layout.keys + 1));
  return f;
}

uint32_t shared_capacity(TableKernel kernel, const Layout& layout) {
  if (is_private(kernel)) return few_shape(kernel, layout, uint64_t(1) << 32).ids;
  const uint32_t slots = shared_words(kernel) / layout.shared_words;
  return slots > 1 ? slots - 1 : 0;
}

std::string shared_size_text(TableKernel kernel) {
  return std::to_string(shared_bytes(kernel) / 1024) + " KiB";
}

void record_table_kernel(Device& device, VkCommandBuffer cmd, const Layout& layout, bool atomic64,
                         const HashTable& table, const RowSource& source, const KernelLaunch& launch) {
  if (source.count == 0) return;
  const bool shared = launch.kernel != TableKernel::Global;
  const bool few = is_private(launch.kernel);
  TablePush push{uint32_t(source.count),
                 uint32_t(table.cap),
                 uint32_t(std::min<uint64_t>(table.cap, GB_PROBE_LIMIT)),
                 launch.rows_per_group,
                 few      ? launch.few.slots
                 : shared ? shared_capacity(launch.kernel, layout)
                          : 0u,
                 launch.few.ids,
                 launch.few.copies,
                 0u};
  if (shared && (push.shared_cap == 0 || launch.rows_per_group == 0 || launch.rows_per_group % GB_STEP != 0 ||
                 (few && (launch.few.ids == 0 || launch.few.copies > GB_WG || !std::has_single_bit(launch.few.copies) ||
                          few_words(layout, launch.few) > shared_words(launch.kernel)))))
    throw Error(ErrorCode::Internal, "GROUP BY shared table kernel: no table slots or bad rows per workgroup");
  const std::string name = std::string(kernel_name(launch.kernel)) + (atomic64 ? "_a64" : "");
  const Pipeline& p = device.pipeline(name, 9, sizeof(TablePush), true, layout.spec_states(),
                                      layout.spec_config(source.rows.buffer != nullptr));
  const BufferRange key0 = source.keys[0];
  std::vector<BufferRange> ranges = {
      {&table.table, 0, 0}, {&table.ctrl, 0, 0}, key0, source.keys.size() > 1 ? source.keys[1] : key0};
  for (uint32_t b = 0; b < GB_MAX_VALUE_BINDINGS; ++b)
    ranges.push_back(b < source.values.size() ? source.values[b] : key0);
  ranges.push_back(source.rows.buffer ? source.rows : key0);
  const uint32_t groups = groups_for(source.count, shared ? launch.rows_per_group : GB_GLOBAL_ROWS);
  device.dispatch_ranges(cmd, p, ranges, &push, groups);
}

TableFinalizer::TableFinalizer(Device& device, const Layout& layout, const HashTable& table, uint64_t groups)
    : device_(device), layout_(layout), table_(table), groups_(groups) {
  layout_out_ = ResultLayout::make(layout, layout.keys, groups);
  const uint64_t bytes = groups * 4;
  keys0_ = device_buffer(device, bytes);
  slots_ = device_buffer(device, bytes);
  sorted_keys_ = device_buffer(device, bytes);
  sorted_slots_ = device_buffer(device, bytes);
  result_ = device_buffer(device, layout_out_.words * 4);
  const uint64_t scratch = groups ? radix_sort_scratch_bytes(device, groups, true) : 0;
  scratch0_ = device_buffer(device, scratch);
  if (layout.keys == 2) {
    keys1_ = device_buffer(device, bytes);
    perm_ = device_buffer(device, bytes);
    perm2_ = device_buffer(device, bytes);
    gathered_ = device_buffer(device, bytes);
    scratch1_ = device_buffer(device, scratch);
  }
}

RadixSortArgs TableFinalizer::sort_args(uint32_t which) const {
  RadixSortArgs a;
  a.n = groups_;
  a.key_type = SortKeyType::U32;  // the collected keys are order keys already
  const uint64_t bytes = groups_ * 4;
  a.keys_out = {&sorted_keys_, 0, bytes};
  if (layout_.keys == 1) {
    a.keys_in = {&keys0_, 0, bytes};
    a.values_in = {&slots_, 0, bytes};
    a.values_out = {&sorted_slots_, 0, bytes};
    a.scratch = {&scratch0_, 0, 0};
  } else if (which == 0) {
    a.keys_in = {&keys1_, 0, bytes};  // least significant column first: row ids generated
    a.values_out = {&perm_, 0, bytes};
    a.scratch = {&scratch0_, 0, 0};
  } else {
    a.keys_in = {&gathered_, 0, bytes};
    a.values_in = {&perm_, 0, bytes};
    a.values_out = {&perm2_, 0, bytes};
    a.scratch = {&scratch1_, 0, 0};
  }
  return a;
}

void TableFinalizer::record_collect(VkCommandBuffer cmd) {
  vkCmdFillBuffer(cmd, table_.ctrl.handle(), GB_CTRL_COLLECTED * 4, 4, 0);
  device_.barrier(cmd);
  const CollectPush push{uint32_t(table_.cap + 1), 0};
  const Pipeline& p = device_.pipeline("group_by_collect", 5, sizeof(CollectPush), true, layout_.spec_states(),
                                       layout_.spec_config(false));
  const Buffer& keys1 = layout_.keys == 2 ? keys1_ : keys0_;
  device_.dispatch(cmd, p, {&table_.table, &table_.ctrl, &keys0_, &keys1, &slots_}, &push,
                   groups_for(table_.cap + 1, GB_WG));
}

void TableFinalizer::record_gather(VkCommandBuffer cmd) {
  GatherPush push{};
  push.groups = uint32_t(groups_);
  push.permuted = layout_.keys == 2 ? 1u : 0u;
  push.key0 = uint32_t(layout_out_.key[0]);
  push.key1 = uint32_t(layout_.keys == 2 ? layout_out_.key[1] : 0);
  push.count = uint32_t(layout_out_.count);
  for (size_t i = 0; i < layout_.states.size(); ++i) push.state[i] = uint32_t(layout_out_.state[i]);
  const Pipeline& p = device_.pipeline("group_by_gather", 4, sizeof(GatherPush), true, layout_.spec_states(),
                                       layout_.spec_config(false));
  const Buffer& slots = layout_.keys == 2 ? slots_ : sorted_slots_;
  const Buffer& perm = layout_.keys == 2 ? perm2_ : sorted_slots_;
  device_.dispatch(cmd, p, {&table_.table, &slots, &perm, &result_}, &push, groups_for(groups_, GB_WG));
}

void TableFinalizer::record(VkCommandBuffer cmd) {
  status_.clear();
  if (groups_ == 0) return;
  record_collect(cmd);
  device_.barrier(cmd);
  record_radix_sort(device_, cmd, sort_args(0));
  device_.barrier(cmd);
  if (layout_.keys == 2) {
    gather(device_, cmd, {&keys0_, 0, groups_ * 4}, groups_, {&perm_, 0, groups_ * 4}, groups_,
           {&gathered_, 0, groups_ * 4});
    device_.barrier(cmd);
    record_radix_sort(device_, cmd, sort_args(1));
    device_.barrier(cmd);
  }
  record_gather(cmd);
}

bool TableFinalizer::sorts_completed() {
  if (groups_ == 0) return true;
  for (uint32_t s = 0; s < layout_.keys; ++s)
    if (radix_sort_status(device_, sort_args(s)).needs_fallback()) return false;
  return true;
}

void TableFinalizer::run(StageRunner& runner) {
  status_.clear();
  if (groups_ == 0) return;
  runner.run(
      "group-by-collect",
      "the table's " + std::to_string(groups_) + " groups listed from " + std::to_string(table_.cap + 1) + " slots",
      table_.cap + 1, [&](VkCommandBuffer cmd) { record_collect(cmd); });
  for (uint32_t s = 0; s < layout_.keys; ++s) {
    const RadixSortArgs args = sort_args(s);
    runner.run("group-by-order",
               std::string(layout_.keys == 1 ? "group keys sorted with their slots"
                           : s == 0          ? "key column 1 sorted with positions"
                                             : "key column 0 gathered and sorted stably with positions"),
               groups_, [&](VkCommandBuffer cmd) {
                 if (s == 1) {
                   gather(device_, cmd, {&keys0_, 0, groups_ * 4}, groups_, {&perm_, 0, groups_ * 4}, groups_,
                          {&gathered_, 0, groups_ * 4});
                   device_.barrier(cmd);
                 }
                 record_radix_sort(device_, cmd, args);
               });
    status_.push_back(radix_sort_status(device_, args));
    if (status_.back().needs_fallback())
      runner.run("radix-sort-fallback", status_.back().describe(), groups_,
                 [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device_, cmd, args, status_.back()); });
  }
  runner.run("group-by-gather", "slots in key order copied to the result arrays", groups_,
             [&](VkCommandBuffer cmd) { record_gather(cmd); });
}

std::string TableFinalizer::describe() const {
  if (status_.empty()) return layout_.keys == 1 ? "one radix sort" : "two radix sorts";
  std::string s;
  for (const RadixSortStatus& st : status_) s += (s.empty() ? "" : "; ") + st.describe();
  return s;
}

}  // namespace gfxq::vk::gb
