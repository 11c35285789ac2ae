#include "cpu/primitives.h"

#include <cstddef>
#include <type_traits>

#include "core/order_key.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

namespace {

template <class T>
int three_way(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}
int three_way(float a, float b) {
  return compare_total(a, b);
}

template <class T>
std::vector<uint32_t> map_compare(const std::vector<T>& in, CmpOp op, T c) {
  std::vector<uint32_t> flags(in.size());
  for (size_t i = 0; i < in.size(); ++i) flags[i] = holds(op, three_way(in[i], c)) ? 1 : 0;
  return flags;
}

bool selected(const Selection& pass, size_t i) {
  return !pass || (*pass)[i] != 0;
}

//! The selected value that wins under `better(candidate, best)`, or empty.
template <class T, class Better>
std::optional<T> extreme(const std::vector<T>& in, const Selection& pass, Better better) {
  std::optional<T> best;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!selected(pass, i)) continue;
    T v = in[i];
    if constexpr (std::is_same_v<T, float>) v = canonical_float(v);
    if (!best || better(v, *best)) best = v;
  }
  return best;
}

}  // namespace

std::vector<uint32_t> cpu_map_compare(const std::vector<uint32_t>& in, CmpOp op, uint32_t c) {
  return map_compare(in, op, c);
}
std::vector<uint32_t> cpu_map_compare(const std::vector<int32_t>& in, CmpOp op, int32_t c) {
  return map_compare(in, op, c);
}
std::vector<uint32_t> cpu_map_compare(const std::vector<float>& in, CmpOp op, float c) {
  return map_compare(in, op, c);
}

std::vector<uint32_t> cpu_map_keys(const std::vector<int32_t>& in) {
  std::vector<uint32_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = int_key(in[i]);
  return out;
}
std::vector<uint32_t> cpu_map_keys(const std::vector<float>& in) {
  std::vector<uint32_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = float_key(in[i]);
  return out;
}

uint64_t cpu_reduce_count(uint64_t n, const Selection& pass) {
  uint64_t count = 0;
  for (uint64_t i = 0; i < n; ++i) count += selected(pass, i) ? 1 : 0;
  return count;
}

uint64_t cpu_reduce_sum(const std::vector<uint32_t>& in, const Selection& pass) {
  uint64_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (selected(pass, i)) sum += in[i];
  return sum;
}

int64_t cpu_reduce_sum(const std::vector<int32_t>& in, const Selection& pass) {
  int64_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i)
    if (selected(pass, i)) sum += in[i];
  return sum;
}

template <class T>
std::optional<T> cpu_reduce_min(const std::vector<T>& in, const Selection& pass) {
  return extreme(in, pass, [](T a, T b) { return three_way(a, b) < 0; });
}
template <class T>
std::optional<T> cpu_reduce_max(const std::vector<T>& in, const Selection& pass) {
  return extreme(in, pass, [](T a, T b) { return three_way(a, b) > 0; });
}
template std::optional<uint32_t> cpu_reduce_min(const std::vector<uint32_t>&, const Selection&);
template std::optional<int32_t> cpu_reduce_min(const std::vector<int32_t>&, const Selection&);
template std::optional<float> cpu_reduce_min(const std::vector<float>&, const Selection&);
template std::optional<uint32_t> cpu_reduce_max(const std::vector<uint32_t>&, const Selection&);
template std::optional<int32_t> cpu_reduce_max(const std::vector<int32_t>&, const Selection&);
template std::optional<float> cpu_reduce_max(const std::vector<float>&, const Selection&);

std::vector<uint64_t> cpu_scan_exclusive(const std::vector<uint32_t>& in) {
  std::vector<uint64_t> out(in.size());
  uint64_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = sum;
    sum += in[i];
  }
  return out;
}

std::vector<uint64_t> cpu_scan_inclusive(const std::vector<uint32_t>& in) {
  std::vector<uint64_t> out(in.size());
  uint64_t sum = 0;
  for (size_t i = 0; i < in.size(); ++i) out[i] = sum += in[i];
  return out;
}

std::vector<uint32_t> cpu_compact_ids(const std::vector<uint32_t>& pass, uint32_t id_base) {
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < pass.size(); ++i)
    if (pass[i] != 0) ids.push_back(id_base + static_cast<uint32_t>(i));
  return ids;
}

std::vector<uint32_t> cpu_compact_values(const std::vector<uint32_t>& values, const std::vector<uint32_t>& pass) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < pass.size(); ++i)
    if (pass[i] != 0) out.push_back(values[i]);
  return out;
}

void cpu_gather(const std::vector<uint32_t>& src, const std::vector<uint32_t>& idx, std::vector<uint32_t>& out) {
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < src.size()) out[i] = src[idx[i]];
}

void cpu_scatter(const std::vector<uint32_t>& in, const std::vector<uint32_t>& idx, std::vector<uint32_t>& out) {
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < out.size()) out[idx[i]] = in[i];
}

}  // namespace gfxq::cpu
