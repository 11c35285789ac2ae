#include "vk/operators/group_by/common.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <variant>

#include "core/bind.h"
#include "core/exact_sum.h"
#include "core/order_key.h"
#include "gfxq/error.h"
#include "group_by_config.glsl"

namespace gfxq::vk {

const char* to_string(GroupByVariant v) noexcept {
  switch (v) {
    case GroupByVariant::Auto: return "auto";
    case GroupByVariant::Private: return "private";
    case GroupByVariant::SharedTable: return "shared";
    case GroupByVariant::GlobalTable: return "global";
    case GroupByVariant::Partitioned: return "partitioned";
    case GroupByVariant::Sort: return "sort";
  }
  return "?";
}

namespace gb {

namespace {

uint32_t kind_words(uint32_t kind) {
  return kind == GB_STATE_SUM_INT ? 2 : (kind == GB_STATE_SUM_FLOAT ? GB_SUM_FLOAT_WORDS : 1);
}

void check_column(const DeviceColumn* c, uint64_t rows, const std::string& what) {
  if (!c) throw Error(ErrorCode::InvalidInput, "GROUP BY: " + what + " is missing");
  if (c->type != Type::Int32 && c->type != Type::Float32)
    throw Error(ErrorCode::InvalidInput, "GROUP BY: " + what + " is " + to_string(c->type) + ", not int or float");
  if (c->rows < rows || c->buffer.size() < rows * 4)
    throw Error(ErrorCode::InvalidInput, "GROUP BY: " + what + " holds " + std::to_string(c->rows) +
                                             " rows, fewer than the input's " + std::to_string(rows));
}

Value value_of_key(Type type, uint32_t key) {
  if (type == Type::Int32) return int_from_key(key);
  return float_from_key(key);
}

// The exact FLOAT sum of a GB_STATE_SUM_FLOAT state: NaN / +-inf from the flags as IEEE addition
// gives them, else the 320-bit fixed point (units of 2^-149) rounded once to the nearest double.
double float_sum(const uint32_t* w) {
  const uint32_t flags = w[GB_F320_WORDS];
  if (const auto s = special_sum(flags & GB_FLAG_NAN, flags & GB_FLAG_POS_INF, flags & GB_FLAG_NEG_INF)) return *s;
  std::array<ExactTerm, GB_F320_WORDS> terms;
  for (uint32_t i = 0; i + 1 < GB_F320_WORDS; ++i) terms[i] = {__int128(w[i]), int(32 * i)};
  terms[GB_F320_WORDS - 1] = {__int128(int32_t(w[GB_F320_WORDS - 1])), int(32 * (GB_F320_WORDS - 1))};
  return exact_sum(terms);
}

}  // namespace

uint32_t Layout::spec_states() const {
  uint32_t s = 0;
  for (size_t i = 0; i < states.size(); ++i) s |= states[i].kind << (3 * i);
  return s;
}

uint32_t Layout::spec_config(bool selection) const {
  uint32_t c = 0;
  for (size_t i = 0; i < states.size(); ++i) c |= states[i].binding << (2 * i);
  for (const StateSpec& s : states)
    if (s.type == Type::Float32) c |= 1u << (GB_CFG_VALUE_FLOAT_SHIFT + s.binding);
  if (keys == 2) c |= GB_CFG_TWO_KEYS;
  if (key_types[0] == Type::Float32) c |= GB_CFG_KEY0_FLOAT;
  if (keys > 1 && key_types[1] == Type::Float32) c |= GB_CFG_KEY1_FLOAT;
  if (selection) c |= GB_CFG_SELECTION;
  if (counts) c |= GB_CFG_COUNT;
  return c;
}

int Layout::state_of(uint32_t kind, size_t value) const {
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].kind == kind && states[i].value == value) return int(i);
  return -1;
}

Layout make_layout(const GroupByInput& input) {
  if (input.keys.empty() || input.keys.size() > 4)
    throw Error(ErrorCode::InvalidInput, "GROUP BY needs 1 to 4 key columns, got " + std::to_string(input.keys.size()));
  if (input.rows >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, "GROUP BY of " + std::to_string(input.rows) +
                                            " rows: row ids and counts are 32-bit (at most 4294967295 rows)");
  if (input.selection && (input.selected > input.rows || input.selection->size() < input.selected * 4))
    throw Error(ErrorCode::InvalidInput, "GROUP BY: the selection lists " + std::to_string(input.selected) +
                                             " row ids, more than its buffer or the " + std::to_string(input.rows) +
                                             " rows hold");
  Layout layout;
  layout.keys = uint32_t(input.keys.size());
  for (size_t c = 0; c < input.keys.size(); ++c) {
    check_column(input.keys[c], input.rows, "key column " + std::to_string(c));
    layout.key_types.push_back(input.keys[c]->type);
  }
  for (size_t c = 0; c < input.values.size(); ++c)
    check_column(input.values[c], input.rows, "value column " + std::to_string(c));

  std::vector<StateSpec> wanted;
  auto want = [&](uint32_t kind, size_t value) {
    for (const StateSpec& s : wanted)
      if (s.kind == kind && s.value == value) return;
    wanted.push_back({kind, 0, value, input.values[value]->type, 0});
  };
  for (size_t a = 0; a < input.aggregates.size(); ++a) {
    const GroupByAggregate& agg = input.aggregates[a];
    const bool has_value = agg.value >= 0 && size_t(agg.value) < input.values.size();
    if (agg.value >= 0 && !has_value)
      throw Error(ErrorCode::InvalidInput, "GROUP BY: aggregate " + agg.name + " reads value column " +
                                               std::to_string(agg.value) + " of " +
                                               std::to_string(input.values.size()));
    if (agg.kind == AggKind::Count || agg.kind == AggKind::Avg) layout.counts = true;
    if (agg.kind == AggKind::Count) continue;
    if (!has_value) throw Error(ErrorCode::InvalidInput, "GROUP BY: aggregate " + agg.name + " has no value column");
    const Type type = input.values[size_t(agg.value)]->type;
    switch (agg.kind) {
      case AggKind::Sum:
      case AggKind::Avg: want(type == Type::Int32 ? GB_STATE_SUM_INT : GB_STATE_SUM_FLOAT, size_t(agg.value)); break;
      case AggKind::Min: want(GB_STATE_MIN, size_t(agg.value)); break;
      case AggKind::Max: want(GB_STATE_MAX, size_t(agg.value)); break;
      case AggKind::Quantile:
        if (!(agg.q > 0.0 && agg.q <= 1.0))
          throw Error(ErrorCode::InvalidInput, "GROUP BY: " + agg.name + ": q must be in (0, 1]");
        layout.quantiles.push_back(a);
        break;
      case AggKind::KthLargest:
        if (agg.k < 1) throw Error(ErrorCode::InvalidInput, "GROUP BY: " + agg.name + ": k must be at least 1");
        layout.quantiles.push_back(a);
        break;
      case AggKind::Median: layout.quantiles.push_back(a); break;
      case AggKind::Count: break;
    }
  }
  // SUM_INT first (8-byte aligned after the even header), then the rest.
  std::stable_partition(wanted.begin(), wanted.end(), [](const StateSpec& s) { return s.kind == GB_STATE_SUM_INT; });
  if (wanted.size() > GB_MAX_STATES)
    throw Error(ErrorCode::Unsupported, "GROUP BY keeps at most " + std::to_string(GB_MAX_STATES) +
                                            " aggregate states (distinct SUM/AVG, MIN, MAX per column) per group; "
                                            "this one needs " +
                                            std::to_string(wanted.size()));
  const uint32_t header = layout.keys == 2 ? 4 : 2;  // key word(s), count (and padding)
  uint32_t offset = header;
  for (StateSpec s : wanted) {
    auto b = std::find(layout.bindings.begin(), layout.bindings.end(), s.value);
    if (b == layout.bindings.end()) {
      if (layout.bindings.size() == GB_MAX_VALUE_BINDINGS)
        throw Error(ErrorCode::Unsupported, "GROUP BY reads at most " + std::to_string(GB_MAX_VALUE_BINDINGS) +
                                                " value columns for SUM/AVG/MIN/MAX");
      layout.bindings.push_back(s.value);
      b = layout.bindings.end() - 1;
    }
    s.binding = uint32_t(b - layout.bindings.begin());
    s.offset = offset;
    offset += kind_words(s.kind);
    layout.states.push_back(s);
  }
  layout.slot_words = (offset + 1) / 2 * 2;
  layout.shared_words = layout.keys + (layout.counts ? 1 : 0) + offset - header;
  layout.private_words = layout.counts ? 1 : 0;
  for (const StateSpec& s : layout.states)
    layout.private_words += s.kind == GB_STATE_SUM_INT ? 2 : (s.kind == GB_STATE_SUM_FLOAT ? 0 : 1);
  return layout;
}

ResultLayout ResultLayout::make(const Layout& layout, uint32_t key_columns, uint64_t groups) {
  ResultLayout r;
  r.groups = groups;
  uint64_t at = 0;
  auto region = [&](uint64_t per_group) {
    const uint64_t start = at;
    at += (groups * per_group + 63) / 64 * 64;
    return start;
  };
  for (uint32_t c = 0; c < key_columns; ++c) r.key.push_back(region(1));
  r.count = region(1);
  for (const StateSpec& s : layout.states) r.state.push_back(region(kind_words(s.kind)));
  for (size_t q = 0; q < layout.quantiles.size(); ++q) r.quantile.push_back(region(1));
  r.words = std::max<uint64_t>(at, 64);
  return r;
}

void decode(const GroupByInput& input, const Layout& layout, const ResultLayout& result,
            const std::vector<uint32_t>& words, GroupByResult& out) {
  const uint64_t g = result.groups;
  out.groups = g;
  out.keys.clear();
  out.aggregates.clear();
  // Each column's values written in place (a million groups pushed one Value at a time took tens of
  // milliseconds on the H200's host).
  const auto fill = [g](Column& col, auto&& value_at) {
    std::visit(
        [&](auto& values) {
          using T = typename std::decay_t<decltype(values)>::value_type;
          if constexpr (std::is_same_v<T, decltype(value_at(uint64_t{0}))>) {
            values.resize(g);
            for (uint64_t i = 0; i < g; ++i) values[i] = value_at(i);
          } else {
            throw Error(ErrorCode::Internal, "GROUP BY result column '" + col.name + "' of an unexpected type");
          }
        },
        col.data);
  };
  // A key or MIN/MAX word as its column's type.
  const auto fill_words = [&](Column& col, Type type, uint64_t at) {
    if (type == Type::Int32)
      fill(col, [&](uint64_t i) { return int_from_key(words[at + i]); });
    else
      fill(col, [&](uint64_t i) { return float_from_key(words[at + i]); });
  };
  for (size_t c = 0; c < result.key.size(); ++c) {
    Column col = Column::make("key" + std::to_string(c), layout.key_types[c]);
    fill_words(col, layout.key_types[c], result.key[c]);
    out.keys.push_back(std::move(col));
  }
  auto count_of = [&](uint64_t i) { return uint64_t(words[result.count + i]); };
  auto int_sum = [&](int state, uint64_t i) {
    const uint64_t at = result.state[size_t(state)] + 2 * i;
    return __int128(int64_t(uint64_t(words[at]) | uint64_t(words[at + 1]) << 32));
  };
  auto f32_sum = [&](int state, uint64_t i) {
    return float_sum(&words[result.state[size_t(state)] + GB_SUM_FLOAT_WORDS * i]);
  };
  for (size_t a = 0; a < input.aggregates.size(); ++a) {
    const GroupByAggregate& agg = input.aggregates[a];
    const Type in_type = agg.value >= 0 ? input.values[size_t(agg.value)]->type : Type::Int32;
    Column col = Column::make(agg.name, aggregate_type(agg.kind, in_type));
    const size_t v = size_t(std::max(agg.value, 0));
    switch (agg.kind) {
      case AggKind::Count: fill(col, [&](uint64_t i) { return int64_t(count_of(i)); }); break;
      case AggKind::Sum:
      case AggKind::Avg: {
        const bool is_int = in_type == Type::Int32;
        const int s = layout.state_of(is_int ? GB_STATE_SUM_INT : GB_STATE_SUM_FLOAT, v);
        if (is_int && agg.kind == AggKind::Sum)
          fill(col, [&](uint64_t i) { return int_sum_result(int_sum(s, i), agg.name); });
        else if (is_int)
          fill(col, [&](uint64_t i) { return int_average(int_sum(s, i), count_of(i)); });
        else if (agg.kind == AggKind::Sum)
          fill(col, [&](uint64_t i) { return canonical_double(f32_sum(s, i)); });
        else
          fill(col, [&](uint64_t i) { return canonical_double(f32_sum(s, i) / double(count_of(i))); });
        break;
      }
      case AggKind::Min:
      case AggKind::Max: {
        const int s = layout.state_of(agg.kind == AggKind::Min ? GB_STATE_MIN : GB_STATE_MAX, v);
        fill_words(col, in_type, result.state[size_t(s)]);
        break;
      }
      case AggKind::Median:
      case AggKind::Quantile:
      case AggKind::KthLargest: {
        const size_t q =
            size_t(std::find(layout.quantiles.begin(), layout.quantiles.end(), a) - layout.quantiles.begin());
        for (uint64_t i = 0; i < g; ++i) {
          if (agg.kind == AggKind::KthLargest && uint64_t(agg.k) > count_of(i))
            col.push(std::monostate{});
          else
            col.push(value_of_key(in_type, words[result.quantile[q] + i]));
        }
        break;
      }
    }
    out.aggregates.push_back(std::move(col));
  }
}

std::vector<RowSource> make_strides(const Device& device, const GroupByInput& input, const Layout& layout,
                                    uint64_t stride_rows) {
  const uint64_t n = input_rows(input);
  const uint64_t binding = device.max_binding_elements() / GB_STEP * GB_STEP;
  uint64_t stride = stride_rows ? std::max<uint64_t>(GB_STEP, stride_rows / GB_STEP * GB_STEP) : binding;
  stride = std::min(stride, binding);
  std::vector<RowSource> out;
  if (input.selection) {
    for (const DeviceColumn* c : input.keys)
      if (c->buffer.size() > device.caps().max_storage_buffer_range)
        throw Error(ErrorCode::Unsupported, "GROUP BY through a selection binds whole columns; a column of " +
                                                std::to_string(c->rows) + " rows exceeds one storage binding");
  }
  for (uint64_t first = 0; first < n; first += stride) {
    RowSource s;
    s.first = first;
    s.count = std::min(stride, n - first);
    auto window = [&](const Buffer& b) -> BufferRange {
      if (input.selection) return {&b, 0, 0};
      return {&b, first * 4, s.count * 4};
    };
    for (const DeviceColumn* c : input.keys) s.keys.push_back(window(c->buffer));
    for (size_t v : layout.bindings) s.values.push_back(window(input.values[v]->buffer));
    if (input.selection) s.rows = {input.selection, first * 4, s.count * 4};
    out.push_back(std::move(s));
  }
  return out;
}

size_t StageRunner::run(std::string kind, std::string detail, uint64_t items,
                        const std::function<void(VkCommandBuffer)>& record) {
  const auto start = Clock::now();
  const std::optional<double> gpu = device_.run_pass(record);
  const size_t p = add(std::move(kind), std::move(detail), items, start);
  passes_[p].gpu_ms = gpu;
  return p;
}

std::vector<uint32_t> StageRunner::download(const Buffer& buffer, uint64_t count, const std::string& what,
                                            uint64_t offset) {
  const auto start = Clock::now();
  std::vector<uint32_t> out(count);
  if (count) device_.download(buffer, out.data(), count * 4, offset);
  add("download", what + " (" + std::to_string(count * 4) + " bytes)", count, start);
  return out;
}

size_t StageRunner::add(std::string kind, std::string detail, uint64_t items, Clock::time_point start) {
  PassRecord p;
  p.kind = std::move(kind);
  p.detail = std::move(detail);
  p.items = items;
  p.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  passes_.push_back(std::move(p));
  return passes_.size() - 1;
}

bool use_atomic64(const Device& device, const GroupByOptions& options) {
  return device.caps().buffer_int64_atomics && !options.no_int64_atomics;
}

Buffer device_buffer(Device& device, uint64_t bytes) {
  return device.create_buffer(std::max<uint64_t>(16, bytes), MemoryKind::Device);
}

}  // namespace gb
}  // namespace gfxq::vk
