#include "vk/operators/skeletons/rows.h"

#include <algorithm>
#include <bit>

#include "gfxq/error.h"
#include "skeleton_config.glsl"
#include "vk/operators/join/common.h"
#include "vk/primitives/compact.h"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/scan.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/select.h"

namespace gfxq::vk::skel {

namespace {

//! Push constants of row_key.comp (group_offset last, set by dispatch).
struct KeyPush {
  uint32_t n, left_n, kind, descending, has_nulls, first, group_offset;
};
//! Push constants of set_mark.comp.
struct SetPush {
  uint32_t n, left_n, op, group_offset;
};
//! Push constants of iota_u32.comp.
struct IotaPush {
  uint32_t count, start, group_offset;
};

//! One 32-bit key plane of a column.
struct Plane {
  uint32_t kind = ROW_KEY_I32;
  size_t column = 0;
};

bool wide(Type t) {
  return t == Type::Int64 || t == Type::Float64;
}

bool has_nulls(const RowColumn& c) {
  return c.left.nulls || c.right.nulls;
}

//! The planes of `columns`, most significant first: per column its NULL flags (when it has NULLs),
//! then its high word and low word (64-bit types) or its one word.
std::vector<Plane> planes_of(const std::vector<RowColumn>& columns) {
  std::vector<Plane> out;
  for (size_t c = 0; c < columns.size(); ++c) {
    const Type t = columns[c].type;
    if (has_nulls(columns[c])) out.push_back({ROW_KEY_NULL, c});
    switch (t) {
      case Type::Int32:
      case Type::Date:
      case Type::String: out.push_back({ROW_KEY_I32, c}); break;
      case Type::Float32: out.push_back({ROW_KEY_F32, c}); break;
      case Type::Int64:
        out.push_back({ROW_KEY_I64_HI, c});
        out.push_back({ROW_KEY_I64_LO, c});
        break;
      case Type::Float64:
        out.push_back({ROW_KEY_F64_HI, c});
        out.push_back({ROW_KEY_F64_LO, c});
        break;
    }
  }
  return out;
}

BufferRange whole(const Buffer& b) {
  return {&b, 0, 0};
}

uint32_t groups_of(uint64_t n) {
  return uint32_t(prim::div_up(std::max<uint64_t>(n, 1), SKELETON_WG));
}

//! The device state of one sort of rows: the row ids in order (perm) and the key plane buffer.
class RowSorter {
 public:
  RowSorter(Device& device, const RowsInput& input, std::vector<PassRecord>& passes, const SkeletonOptions& options)
      : device_(device),
        input_(input),
        stages_(device, passes),
        options_(options),
        n_(input.count()),
        planes_(planes_of(input.columns)) {
    if (input.left_rows + input.right_rows >= (uint64_t(1) << 32))
      throw Error(ErrorCode::Unsupported, "rows of " + std::to_string(input.left_rows + input.right_rows) +
                                              " ids: the compute skeletons use 32-bit row ids");
    if (std::max(n_, input.left_rows + input.right_rows) > device.max_binding_elements())
      throw Error(ErrorCode::Unsupported, "sorting " + std::to_string(n_) + " rows on the compute path: at most " +
                                              std::to_string(device.max_binding_elements()) +
                                              " rows (one storage binding)");
    perm_ = device.create_buffer(padded_bytes(n_), MemoryKind::Device);
    keys_ = device.create_buffer(padded_bytes(n_), MemoryKind::Device);
    // Sides without NULL flags of a column that has them on the other side read zeros.
    zeros_ = device.create_buffer(padded_bytes(std::max(input.left_rows, input.right_rows)), MemoryKind::Device);
    device.submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, zeros_.handle(), 0, VK_WHOLE_SIZE, 0); });
    if (input.all || n_ == 0) return;
    device.upload(perm_, input.ids.data(), n_ * 4);
  }

  //! Records perm = 0, 1, ..., n - 1 (every row taking part).
  void record_row_ids(VkCommandBuffer cmd) {
    const IotaPush push{uint32_t(n_), 0, 0};
    device_.dispatch_ranges(cmd, device_.pipeline("iota_u32", 1, sizeof(IotaPush), true), {whole(perm_)}, &push,
                            uint32_t(prim::div_up(std::max<uint64_t>(n_, 1), 256)));
  }

  //! Records out[i] = plane p's key of row perm[i] (ascending).
  void record_plane_keys(VkCommandBuffer cmd, size_t p, const Buffer& out) {
    record_plane(cmd, planes_[p], false, out, false);
  }

  //! Sorts perm by every plane (LSD: least significant first).
  void sort() {
    if (input_.all)
      stages_.run("row-ids", "row ids 0.." + std::to_string(n_) + " generated", n_,
                  [&](VkCommandBuffer cmd) { record_row_ids(cmd); });
    if (n_ < 2) return;
    const Buffer scratch =
        device_.create_buffer(std::max<uint64_t>(16, radix_sort_scratch_bytes(device_, n_, true)), MemoryKind::Device);
    RadixSortArgs args;
    args.n = n_;
    args.key_type = SortKeyType::U32;
    args.keys_in = args.keys_out = {&keys_, 0, n_ * 4};
    args.values_in = args.values_out = {&perm_, 0, n_ * 4};
    args.scratch = {&scratch, 0, scratch.size()};
    args.lookback_limit = options_.lookback_limit;
    for (size_t p = planes_.size(); p-- > 0;) {
      const Plane& plane = planes_[p];
      const RowColumn& col = input_.columns[plane.column];
      PassRecord& pass =
          stages_.run("row-sort",
                      "plane " + std::to_string(p) + " of " + std::to_string(planes_.size()) + " (column " +
                          std::to_string(plane.column) + "): keys gathered by the order so far, (key, row id) sorted",
                      n_, [&](VkCommandBuffer cmd) {
                        record_plane(cmd, plane, col.descending, keys_, false);
                        device_.barrier(cmd);
                        record_radix_sort(device_, cmd, args);
                      });
      const RadixSortStatus status = radix_sort_status(device_, args);
      pass.detail += ": " + status.describe();
      sort_text_ = status.describe();
      if (status.needs_fallback())
        stages_.run("row-sort-fallback", status.describe(), n_,
                    [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device_, cmd, args, status); });
    }
  }

  //! Records heads[i] = 1 where row perm[i] starts a run of rows equal in every plane.
  void record_heads(VkCommandBuffer cmd, const Buffer& heads) {
    for (size_t p = 0; p < planes_.size(); ++p) {
      if (p) device_.barrier(cmd);
      record_plane(cmd, planes_[p], false, heads, true, p == 0);
    }
  }

  const Buffer& perm() const noexcept { return perm_; }
  uint64_t n() const noexcept { return n_; }
  size_t planes() const noexcept { return planes_.size(); }
  join::Stages& stages() noexcept { return stages_; }
  //! The radix sort's path, for the report.
  const std::string& sort_text() const noexcept { return sort_text_; }

 private:
  void record_plane(VkCommandBuffer cmd, const Plane& plane, bool descending, const Buffer& out, bool heads,
                    bool first = false) {
    const RowColumn& col = input_.columns[plane.column];
    const bool nulls = has_nulls(col);
    auto side = [&](const PlaneSource& s, bool present) {
      if (!present) return std::array<BufferRange, 3>{whole(*col.left.word0), whole(*col.left.word0), whole(zeros_)};
      const Buffer& w0 = plane.kind == ROW_KEY_NULL ? (s.nulls ? *s.nulls : zeros_) : *s.word0;
      return std::array<BufferRange, 3>{whole(w0), whole(s.word1 ? *s.word1 : *s.word0),
                                        whole(s.nulls ? *s.nulls : zeros_)};
    };
    const auto l = side(col.left, true), r = side(col.right, input_.right_rows > 0);
    const KeyPush push{uint32_t(n_),
                       uint32_t(input_.left_rows),
                       plane.kind,
                       descending ? 1u : 0u,
                       nulls ? 1u : 0u,
                       first ? 1u : 0u,
                       0};
    device_.dispatch_ranges(cmd, device_.pipeline(heads ? "row_heads" : "row_key", 8, sizeof(KeyPush), true),
                            {whole(perm_), l[0], l[1], l[2], r[0], r[1], r[2], whole(out)}, &push, groups_of(n_));
  }

  Device& device_;
  const RowsInput& input_;
  join::Stages stages_;
  SkeletonOptions options_;
  uint64_t n_;
  std::vector<Plane> planes_;
  Buffer perm_, keys_, zeros_;
  std::string sort_text_;
};

void check_columns(const RowsInput& input) {
  if (input.columns.empty()) throw Error(ErrorCode::InvalidInput, "compute skeletons: rows without columns");
  for (const auto& c : input.columns) {
    if (!c.left.word0 || (wide(c.type) && !c.left.word1))
      throw Error(ErrorCode::Internal, "compute skeletons: a column without its device words");
    if (input.right_rows && (!c.right.word0 || (wide(c.type) && !c.right.word1)))
      throw Error(ErrorCode::Internal, "compute skeletons: a right column without its device words");
  }
}

uint32_t set_op_code(SetKind kind) {
  switch (kind) {
    case SetKind::Intersect: return SET_OP_INTERSECT;
    case SetKind::IntersectAll: return SET_OP_INTERSECT_ALL;
    case SetKind::Except: return SET_OP_EXCEPT;
    case SetKind::ExceptAll: return SET_OP_EXCEPT_ALL;
    default: return SET_OP_DISTINCT;
  }
}

//! Slots of the hash DISTINCT's table for n rows: a power of two of at least 2n (and 256).
uint64_t hash_slots(uint64_t n) {
  return std::bit_ceil(std::max<uint64_t>(256, 2 * n));
}

//! Push constants of distinct_hash.comp.
struct HashPush {
  uint32_t n, planes, mask, has_ids, group_offset;
};

//! The hash DISTINCT of the left rows (the caller checked distinct_fits_hash); empty with
//! `gave_up` set when an insert probed DISTINCT_HASH_MAX_PROBES slots.
std::vector<uint32_t> hash_distinct(Device& device, const RowsInput& input, std::vector<PassRecord>& passes,
                                    const SkeletonOptions& options, bool& gave_up) {
  // The planes of every row by row id: a sorter over all rows whose order stays the identity.
  RowsInput every = input;
  every.all = true;
  every.ids.clear();
  every.right_rows = 0;
  RowSorter rows(device, every, passes, options);
  const uint64_t all_rows = input.left_rows, n = input.count();
  const uint64_t slots = hash_slots(n);
  const uint32_t planes = uint32_t(rows.planes());
  std::vector<Buffer> keys;
  for (uint32_t p = 0; p < planes; ++p)
    keys.push_back(device.create_buffer(padded_bytes(all_rows), MemoryKind::Device));
  Buffer table = device.create_buffer(slots * 4, MemoryKind::Device);
  Buffer flags = device.create_buffer(padded_bytes(all_rows), MemoryKind::Device);
  Buffer status = device.create_buffer(256, MemoryKind::Device);
  Buffer ids = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, compact_scratch_bytes(device, all_rows)), MemoryKind::Device);
  if (!input.all) device.upload(ids, input.ids.data(), n * 4);
  const HashPush insert{uint32_t(n), planes, uint32_t(slots - 1), input.all ? 0u : 1u, 0};
  const HashPush mark{uint32_t(slots), planes, uint32_t(slots - 1), 0, 0};
  auto bindings = [&](const Buffer& out) {
    std::vector<BufferRange> b;
    for (uint32_t p = 0; p < DISTINCT_HASH_PLANES; ++p) b.push_back(whole(keys[p < planes ? p : 0]));
    b.push_back(whole(ids));
    b.push_back(whole(table));
    b.push_back(whole(out));
    return b;
  };
  rows.stages().run("distinct-hash",
                    std::to_string(planes) + " key plane(s) of " + std::to_string(all_rows) + " rows, " +
                        std::to_string(n) + " inserted into " + std::to_string(slots) +
                        " slots, occupied slots marked, marks compacted",
                    n, [&](VkCommandBuffer cmd) {
                      vkCmdFillBuffer(cmd, table.handle(), 0, VK_WHOLE_SIZE, DISTINCT_HASH_EMPTY);
                      vkCmdFillBuffer(cmd, flags.handle(), 0, VK_WHOLE_SIZE, 0);
                      vkCmdFillBuffer(cmd, status.handle(), 0, VK_WHOLE_SIZE, 0);
                      rows.record_row_ids(cmd);
                      device.barrier(cmd);
                      for (uint32_t p = 0; p < planes; ++p) rows.record_plane_keys(cmd, p, keys[p]);
                      device.barrier(cmd);
                      device.dispatch_ranges(cmd, device.pipeline("distinct_hash_insert", 7, sizeof(HashPush), true),
                                             bindings(status), &insert, groups_of(n));
                      device.barrier(cmd);
                      device.dispatch_ranges(cmd, device.pipeline("distinct_hash_mark", 7, sizeof(HashPush), true),
                                             bindings(flags), &mark, groups_of(slots));
                      device.barrier(cmd);
                      CompactOutputs out;
                      out.ids = {&ids, 0, n * 4};
                      out.count = {&status, 16, 8};
                      out.capacity = n;
                      compact(device, cmd, ElemType::U32, {&flags, 0, all_rows * 4}, all_rows, Predicate::nonzero(), {},
                              out, {&scratch, 0, 0});
                    });
  const std::vector<uint32_t> words = rows.stages().download<uint32_t>(status, 6, "status and row count");
  gave_up = words[0] != 0;
  if (gave_up) return {};
  return rows.stages().download<uint32_t>(ids, uint64_t(words[4]) | uint64_t(words[5]) << 32, "kept row ids");
}

}  // namespace

std::string distinct_hash_refusal(const Device& device, const RowsInput& input) {
  const uint32_t planes = key_planes(input.columns);
  if (planes > DISTINCT_HASH_PLANES)
    return std::to_string(planes) + " key planes (the hash table compares at most " +
           std::to_string(DISTINCT_HASH_PLANES) + ")";
  if (hash_slots(input.count()) > device.max_binding_elements())
    return "its table of " + std::to_string(hash_slots(input.count())) + " slots exceeds one binding";
  return {};
}

const char* to_string(SetKind kind) noexcept {
  switch (kind) {
    case SetKind::Distinct: return "DISTINCT";
    case SetKind::Union: return "UNION";
    case SetKind::UnionAll: return "UNION ALL";
    case SetKind::Intersect: return "INTERSECT";
    case SetKind::IntersectAll: return "INTERSECT ALL";
    case SetKind::Except: return "EXCEPT";
    case SetKind::ExceptAll: return "EXCEPT ALL";
  }
  return "?";
}

uint32_t key_planes(const std::vector<RowColumn>& columns) noexcept {
  uint32_t planes = 0;
  for (const auto& c : columns) planes += (wide(c.type) ? 2 : 1) + (has_nulls(c) ? 1 : 0);
  return planes;
}

std::vector<uint32_t> sort_rows(Device& device, const RowsInput& input, uint64_t keep, std::vector<PassRecord>& passes,
                                std::string& how, const SkeletonOptions& options) {
  check_columns(input);
  RowSorter sorter(device, input, passes, options);
  sorter.sort();
  const uint64_t kept = std::min(keep, sorter.n());
  how = "stable LSD sort of " + std::to_string(sorter.n()) + " row ids by " + std::to_string(sorter.planes()) +
        " 32-bit key plane(s) of " + std::to_string(input.columns.size()) + " column(s), one radix sort per plane" +
        (sorter.sort_text().empty() ? "" : " (" + sorter.sort_text() + ")");
  return sorter.stages().download<uint32_t>(sorter.perm(), kept, "sorted row ids");
}

std::vector<uint32_t> set_rows(Device& device, const RowsInput& input, SetKind kind, std::vector<PassRecord>& passes,
                               std::string& how, const SkeletonOptions& options) {
  check_columns(input);
  const uint64_t total_rows = input.left_rows + input.right_rows;
  if (kind == SetKind::UnionAll) {
    how = "UNION ALL: both operands' rows in order (no GPU work)";
    if (!input.all) return input.ids;
    std::vector<uint32_t> ids(total_rows);
    for (uint64_t i = 0; i < total_rows; ++i) ids[i] = uint32_t(i);
    return ids;
  }
  std::string rule;
  if (kind == SetKind::Distinct && options.distinct != DistinctAlgorithm::Sort) {
    const std::string refusal = distinct_hash_refusal(device, input);
    if (options.distinct == DistinctAlgorithm::Hash && !refusal.empty())
      throw Error(ErrorCode::Unsupported, "hash DISTINCT (forced): " + refusal);
    if (refusal.empty()) {
      bool gave_up = false;
      std::vector<uint32_t> ids = hash_distinct(device, input, passes, options, gave_up);
      if (!gave_up) {
        how = "hash DISTINCT (" +
              std::string(options.distinct == DistinctAlgorithm::Hash
                              ? "forced"
                              : "rule: at most " + std::to_string(DISTINCT_HASH_PLANES) +
                                    " key planes and a table within one binding") +
              "): " + std::to_string(key_planes(input.columns)) + " key plane(s), " +
              std::to_string(hash_slots(input.count())) +
              "-slot table of first row ids (compare-and-swap, atomicMin per equal row), occupied slots marked, "
              "marks compacted in row order (" +
              std::to_string(ids.size()) + " distinct rows)";
        return ids;
      }
      rule = " (the hash DISTINCT gave up: an insert probed " + std::to_string(DISTINCT_HASH_MAX_PROBES) + " slots)";
    } else {
      rule = " (rule: not hashed, " + refusal + ")";
    }
  }
  RowSorter sorter(device, input, passes, options);
  sorter.sort();
  const uint64_t n = sorter.n();
  how = std::string("sort-based ") + to_string(kind) + ": stable LSD sort of " + std::to_string(n) + " row ids by " +
        std::to_string(sorter.planes()) + " key plane(s) (" +
        (sorter.sort_text().empty() ? "no sort needed" : sorter.sort_text()) +
        "), run heads by adjacent difference, runs numbered by a scan, rows marked, marks compacted in row order";
  if (n == 0) return {};
  Buffer heads = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  Buffer gid = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  Buffer runs = device.create_buffer(padded_bytes(3 * n), MemoryKind::Device);
  Buffer flags = device.create_buffer(padded_bytes(total_rows), MemoryKind::Device);
  Buffer ids = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  Buffer counts = device.create_buffer(256, MemoryKind::Device);
  Buffer scan_scratch = device.create_buffer(scan_scratch_bytes(device, n), MemoryKind::Device);
  Buffer compact_scratch =
      device.create_buffer(std::max<uint64_t>(16, compact_scratch_bytes(device, total_rows)), MemoryKind::Device);
  const SetPush push{uint32_t(n), uint32_t(input.left_rows), set_op_code(kind), 0};
  sorter.stages().run(
      "set-marks",
      std::string(to_string(kind)) + ": heads of runs over " + std::to_string(sorter.planes()) +
          " plane(s), scan, runs, marks and compaction",
      n, [&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, flags.handle(), 0, VK_WHOLE_SIZE, 0);
        sorter.record_heads(cmd, heads);
        device.barrier(cmd);
        scan(device, cmd, ScanKind::Inclusive, ScanWidth::U32, {&heads, 0, n * 4}, n, {&gid, 0, n * 4}, {&counts, 0, 8},
             {&scan_scratch, 0, 0});
        device.barrier(cmd);
        device.dispatch_ranges(cmd, device.pipeline("set_runs", 4, sizeof(SetPush), true),
                               {whole(sorter.perm()), whole(gid), whole(heads), whole(runs)}, &push, groups_of(n));
        device.barrier(cmd);
        device.dispatch_ranges(cmd, device.pipeline("set_mark", 4, sizeof(SetPush), true),
                               {whole(sorter.perm()), whole(gid), whole(runs), whole(flags)}, &push, groups_of(n));
        device.barrier(cmd);
        CompactOutputs out;
        out.ids = {&ids, 0, n * 4};
        out.count = {&counts, 16, 8};
        out.capacity = n;
        compact(device, cmd, ElemType::U32, {&flags, 0, total_rows * 4}, total_rows, Predicate::nonzero(), {}, out,
                {&compact_scratch, 0, 0});
      });
  // The run count at byte 0 (the scan's total), the kept rows' at byte 16 (the compaction's).
  const std::vector<uint64_t> c = sorter.stages().download<uint64_t>(counts, 3, "run and row counts");
  how += " (" + std::to_string(c[0]) + " distinct rows)" + rule;
  return sorter.stages().download<uint32_t>(ids, c[2], "kept row ids");
}

}  // namespace gfxq::vk::skel
