#pragma once
// CPU references of the data-parallel primitives of src/vk/primitives (map, reduce, scan,
// compact, gather, scatter): plain loops over std::vector, the oracle the GPU tests compare with.
// Comparisons follow gfxq's order: int32 as integers, float32 in the total order of
// core/order_key.h (-0.0 == +0.0, every NaN equal and largest).

#include <cstdint>
#include <optional>
#include <vector>

#include "gfxq/query.h"

namespace gfxq::cpu {

//! 1 where `in[i] op c`, else 0.
//! Example: in = {3, -1, 7, 5}, Lt, 5 -> {1, 1, 0, 0}
std::vector<uint32_t> cpu_map_compare(const std::vector<uint32_t>& in, CmpOp op, uint32_t c);
//! As above for int32.
std::vector<uint32_t> cpu_map_compare(const std::vector<int32_t>& in, CmpOp op, int32_t c);
//! As above for float32 in the total order.
std::vector<uint32_t> cpu_map_compare(const std::vector<float>& in, CmpOp op, float c);

//! int_key of each value. Example: {-1, 0} -> {0x7fffffff, 0x80000000}
std::vector<uint32_t> cpu_map_keys(const std::vector<int32_t>& in);
//! float_key of each value (canonical).
std::vector<uint32_t> cpu_map_keys(const std::vector<float>& in);

//! The elements a filtered reduce takes: `pass` is empty or holds a 0/1 flag per element.
using Selection = std::optional<std::vector<uint32_t>>;

//! Number of selected elements. Example: pass = {1, 0, 1} -> 2
uint64_t cpu_reduce_count(uint64_t n, const Selection& pass);
//! Exact sum of the selected uint32 values. Example: {4, 7, 2}, {1, 0, 1} -> 6
uint64_t cpu_reduce_sum(const std::vector<uint32_t>& in, const Selection& pass = {});
//! Exact sum of the selected int32 values. Example: {4, -7, 2} -> -1
int64_t cpu_reduce_sum(const std::vector<int32_t>& in, const Selection& pass = {});
//! Smallest selected value; empty when none is selected. Example: {4, -7, 2} -> -7
template <class T>
std::optional<T> cpu_reduce_min(const std::vector<T>& in, const Selection& pass = {});
//! Largest selected value; empty when none is selected. Example: {4, -7, 2} -> 4
template <class T>
std::optional<T> cpu_reduce_max(const std::vector<T>& in, const Selection& pass = {});

//! Exclusive prefix sums, exact. Example: {3, 1, 4, 1} -> {0, 3, 4, 8}
std::vector<uint64_t> cpu_scan_exclusive(const std::vector<uint32_t>& in);
//! Inclusive prefix sums, exact. Example: {3, 1, 4, 1} -> {3, 4, 8, 9}
std::vector<uint64_t> cpu_scan_inclusive(const std::vector<uint32_t>& in);

//! id_base + i for each i with pass[i] != 0, ascending. Example: {1, 0, 1}, 10 -> {10, 12}
std::vector<uint32_t> cpu_compact_ids(const std::vector<uint32_t>& pass, uint32_t id_base = 0);
//! values[i] for each i with pass[i] != 0, in order. Example: {5, 6, 7}, {1, 0, 1} -> {5, 7}
std::vector<uint32_t> cpu_compact_values(const std::vector<uint32_t>& values, const std::vector<uint32_t>& pass);

//! out[i] = src[idx[i]] where idx[i] < src.size(); other elements of `out` keep their value.
//! Example: src = {10, 20, 30}, idx = {2, 0, 7}, out = {0, 0, 0} -> {30, 10, 0}
void cpu_gather(const std::vector<uint32_t>& src, const std::vector<uint32_t>& idx, std::vector<uint32_t>& out);
//! out[idx[i]] = in[i] where idx[i] < out.size(), in order (the last of repeated indices wins).
//! Example: in = {10, 20, 30}, idx = {2, 0, 9}, out = {0, 0, 0} -> {20, 0, 10}
void cpu_scatter(const std::vector<uint32_t>& in, const std::vector<uint32_t>& idx, std::vector<uint32_t>& out);

}  // namespace gfxq::cpu
