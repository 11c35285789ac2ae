#include "vk/operators/skeletons/rows.h"

#include <algorithm>
#include <bit>
#include <optional>

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
  uint32_t n, left_n, kind, descending, has_nulls, first, identity, lo, stride, op, two, kind2, has_nulls2, lo2,
      stride2, key_io, slice_lo, slice_hi, group_offset;
};
//! Push constants of set_dense.comp.
struct DensePush {
  uint32_t slots, op, group_offset;
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

//! What row_key.comp computes.
enum class KeyMode { Keys, Heads, Range, Pack, Insert };

//! A plane's digit in the packed keys: the low end of its range and the digit's weight.
struct Digit {
  uint32_t lo = 0, stride = 1;
};

//! The packing of planes with key ranges [lo, hi] into mixed-radix keys (most significant plane
//! first) and the number of distinct packed keys (saturated at 2^63 when past it).
struct Packing {
  std::vector<Digit> digits;
  uint64_t slots = 1;
};

Packing packing_of(const std::vector<std::pair<uint32_t, uint32_t>>& ranges) {
  Packing out;
  out.digits.resize(ranges.size());
  constexpr uint64_t kCap = uint64_t(1) << 63;
  for (size_t p = ranges.size(); p-- > 0;) {
    const uint64_t width = uint64_t(ranges[p].second) - ranges[p].first + 1;
    // A weight past 32 bits belongs to keys that do not pack (or to a plane of width 1, whose
    // digit is 0): it is never used.
    out.digits[p] = {ranges[p].first, uint32_t(out.slots <= UINT32_MAX ? out.slots : 0)};
    out.slots = out.slots > kCap / width ? kCap : out.slots * width;
  }
  return out;
}

//! The planes' key ranges from the columns' known value ranges, when every column has one (no NULLs:
//! one plane of `v ^ 2^31` each), else nullopt.
std::optional<std::vector<std::pair<uint32_t, uint32_t>>> known_ranges(const std::vector<RowColumn>& columns) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const RowColumn& c : columns) {
    if (!c.range || has_nulls(c) || (c.type != Type::Int32 && c.type != Type::Date && c.type != Type::String))
      return std::nullopt;
    out.emplace_back(uint32_t(c.range->first) ^ 0x80000000u, uint32_t(c.range->second) ^ 0x80000000u);
  }
  return out;
}

//! Whether packed keys of `packing` fit 32 bits.
bool packs(const Packing& packing) {
  return packing.slots <= (uint64_t(1) << 32);
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
    // Sides without NULL flags of a column that has them on the other side read zeros (only made when
    // a column has NULLs; else the NULL bindings are never read and bind perm).
    if (std::any_of(input.columns.begin(), input.columns.end(), has_nulls)) {
      zeros_ = device.create_buffer(padded_bytes(std::max(input.left_rows, input.right_rows)), MemoryKind::Device);
      device.submit([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, zeros_.handle(), 0, VK_WHOLE_SIZE, 0); });
    }
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
    record_plane(cmd, planes_[p], KeyMode::Keys, false, out);
  }

  //! The range [lo, hi] of each plane's keys over the rows taking part (before sort(); one stage
  //! and one download of 8 bytes per plane).
  std::vector<std::pair<uint32_t, uint32_t>> ranges() {
    Buffer words = device_.create_buffer(std::max<uint64_t>(256, 8 * planes_.size()), MemoryKind::Device);
    std::vector<uint32_t> init(2 * planes_.size());
    for (size_t p = 0; p < planes_.size(); ++p) init[2 * p] = UINT32_MAX, init[2 * p + 1] = 0;
    device_.upload(words, init.data(), init.size() * 4);
    stages_.run("row-ranges",
                "the key range of each of " + std::to_string(planes_.size()) + " plane(s) over " + std::to_string(n_) +
                    " rows (subgroup min/max, atomics)",
                n_, [&](VkCommandBuffer cmd) {
                  for (size_t p = 0; p < planes_.size(); ++p)
                    record_plane(cmd, planes_[p], KeyMode::Range, false, words, uint32_t(p));
                });
    const std::vector<uint32_t> w = stages_.download<uint32_t>(words, 2 * planes_.size(), "key ranges");
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (size_t p = 0; p < planes_.size(); ++p) out.emplace_back(w[2 * p], w[2 * p + 1]);
    return out;
  }

  //! Records out[i] = the packed key of row perm[i] (before sort(): perm holds the ids taking part).
  void record_packed_keys(VkCommandBuffer cmd, const Packing& packing, const Buffer& out) {
    for (size_t p = 0; p < planes_.size(); ++p) {
      if (p) device_.barrier(cmd);
      record_plane(cmd, planes_[p], KeyMode::Pack, false, out, p == 0, packing.digits[p]);
    }
  }

  //! Records the dense insert of the rows' packed keys (row_key.comp's ROW_INSERT) into `first` and
  //! `seen` (op: SET_OP_*): the terms of the planes before the last two packed into `keys`, then the
  //! last two planes' terms and the insert in one pass per key slice: `slices` (at least 1) equal
  //! parts of the packed keys' range (some empty when there are more slices than keys), each pass
  //! inserting only the rows whose keys fall in its slice; with several, the first pass stores the
  //! whole packed keys in `keys` and the later ones read them there.
  void record_dense_insert(VkCommandBuffer cmd, const Packing& packing, const Buffer& keys, const Buffer& first,
                           const Buffer& seen, uint32_t op, uint32_t slices) {
    const size_t planes = planes_.size(), a = planes >= 2 ? planes - 2 : 0;
    for (size_t p = 0; p < a; ++p) {
      record_plane(cmd, planes_[p], KeyMode::Pack, false, keys, p == 0, packing.digits[p]);
      device_.barrier(cmd);
    }
    for (uint32_t k = 0; k < slices; ++k) {
      // Each slice after the last one's atomics, so that only one slice's words are touched at a time.
      if (k) device_.barrier(cmd);
      const Insert insert{&first,
                          &seen,
                          op,
                          planes >= 2 ? &planes_[planes - 1] : nullptr,
                          packing.digits[planes - 1],
                          k            ? ROW_INSERT_KEYS_READ
                          : slices > 1 ? ROW_INSERT_KEYS_STORE
                                       : ROW_INSERT_KEYS_COMPUTE,
                          uint32_t(packing.slots * k / slices),
                          uint32_t(packing.slots * (k + 1) / slices)};
      record_plane(cmd, planes_[a], KeyMode::Insert, false, keys, a == 0, packing.digits[a], &insert);
    }
  }

  //! Sorts perm by the packed keys (one radix sort of (packed key, row id) pairs); keys() then holds
  //! the sorted packed keys.
  void sort_packed(const Packing& packing) {
    const bool generate = input_.all;
    PassRecord& pass = stages_.run("row-sort",
                                   "packed keys of " + std::to_string(planes_.size()) + " plane(s) (" +
                                       std::to_string(packing.slots) + " possible), (packed key, row id) sorted once",
                                   n_, [&](VkCommandBuffer cmd) {
                                     record_packed_keys(cmd, packing, keys_);
                                     if (n_ < 2) {
                                       if (!generate) return;
                                       device_.barrier(cmd);  // the packing bound perm
                                       record_row_ids(cmd);
                                       return;
                                     }
                                     device_.barrier(cmd);
                                     record_radix_sort(device_, cmd, packed_args(generate));
                                   });
    if (n_ < 2) return;
    const RadixSortArgs args = packed_args(generate);
    const RadixSortStatus status = radix_sort_status(device_, args);
    pass.detail += ": " + status.describe();
    sort_text_ = status.describe();
    if (status.needs_fallback())
      stages_.run("row-sort-fallback", status.describe(), n_,
                  [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device_, cmd, args, status); });
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
                        record_plane(cmd, plane, KeyMode::Keys, col.descending, keys_);
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
      record_plane(cmd, planes_[p], KeyMode::Heads, false, heads, p == 0);
    }
  }

  const Buffer& perm() const noexcept { return perm_; }
  const RowsInput& input() const noexcept { return input_; }
  //! The key buffer (after sort_packed: the sorted packed keys).
  const Buffer& keys() const noexcept { return keys_; }
  uint64_t n() const noexcept { return n_; }
  size_t planes() const noexcept { return planes_.size(); }
  join::Stages& stages() noexcept { return stages_; }
  //! The radix sort's path, for the report.
  const std::string& sort_text() const noexcept { return sort_text_; }

 private:
  RadixSortArgs packed_args(bool generate) {
    if (!scratch_.handle())
      scratch_ = device_.create_buffer(std::max<uint64_t>(16, radix_sort_scratch_bytes(device_, n_, true)),
                                       MemoryKind::Device);
    RadixSortArgs args;
    args.n = n_;
    args.key_type = SortKeyType::U32;
    args.keys_in = args.keys_out = {&keys_, 0, n_ * 4};
    if (!generate) args.values_in = {&perm_, 0, n_ * 4};
    args.values_out = {&perm_, 0, n_ * 4};
    args.scratch = {&scratch_, 0, scratch_.size()};
    args.lookback_limit = options_.lookback_limit;
    return args;
  }

  //! ROW_INSERT's tables, operation, second plane (none: one plane), where its keys come from
  //! (ROW_INSERT_KEYS_*) and key slice [slice_lo, slice_hi).
  struct Insert {
    const Buffer* first = nullptr;
    const Buffer* seen = nullptr;
    uint32_t op = 0;
    const Plane* second = nullptr;
    Digit digit;
    uint32_t key_io = ROW_INSERT_KEYS_COMPUTE;
    uint32_t slice_lo = 0, slice_hi = 0;
  };

  //! The bindings of a plane's column words: left word 0, word 1, NULL flags, then the right ones.
  std::vector<BufferRange> column_ranges(const Plane& plane) const {
    const RowColumn& col = input_.columns[plane.column];
    const Buffer& zeros = zeros_.handle() ? zeros_ : perm_;
    auto side = [&](const PlaneSource& s, bool present, std::vector<BufferRange>& out) {
      if (!present) {
        out.insert(out.end(), {whole(*col.left.word0), whole(*col.left.word0), whole(zeros)});
        return;
      }
      const Buffer& w0 = plane.kind == ROW_KEY_NULL ? (s.nulls ? *s.nulls : zeros) : *s.word0;
      out.insert(out.end(), {whole(w0), whole(s.word1 ? *s.word1 : *s.word0), whole(s.nulls ? *s.nulls : zeros)});
    };
    std::vector<BufferRange> out;
    side(col.left, true, out);
    side(col.right, input_.right_rows > 0, out);
    return out;
  }

  //! Records one row_key.comp dispatch of `mode` for `plane` over the n rows (`first`: ROW_HEADS and
  //! ROW_PACK's first plane, ROW_RANGE's plane index; `digit`: ROW_PACK's and ROW_INSERT's; `insert`:
  //! ROW_INSERT's tables).
  void record_plane(VkCommandBuffer cmd, const Plane& plane, KeyMode mode, bool descending, const Buffer& out,
                    uint32_t first = 0, Digit digit = {}, const Insert* insert = nullptr) {
    const bool nulls = has_nulls(input_.columns[plane.column]);
    const Insert none;
    const Insert& ins = insert ? *insert : none;
    const bool nulls2 = ins.second && has_nulls(input_.columns[ins.second->column]);
    // Before any sort of every row, the order is the identity (perm is not read).
    const bool identity = input_.all && mode != KeyMode::Keys && mode != KeyMode::Heads;
    const KeyPush push{uint32_t(n_),
                       uint32_t(input_.left_rows),
                       plane.kind,
                       descending ? 1u : 0u,
                       nulls ? 1u : 0u,
                       first,
                       identity ? 1u : 0u,
                       digit.lo,
                       digit.stride,
                       ins.op,
                       ins.second ? 1u : 0u,
                       ins.second ? ins.second->kind : 0u,
                       nulls2 ? 1u : 0u,
                       ins.digit.lo,
                       ins.digit.stride,
                       ins.key_io,
                       ins.slice_lo,
                       ins.slice_hi,
                       0};
    static constexpr const char* kNames[] = {"row_key", "row_heads", "row_range", "row_pack", "row_insert"};
    std::vector<BufferRange> ranges{whole(perm_)};
    for (const BufferRange& r : column_ranges(plane)) ranges.push_back(r);
    ranges.push_back(whole(out));
    if (mode == KeyMode::Insert) {
      ranges.insert(ranges.end(), {whole(*ins.first), whole(*ins.seen)});
      for (const BufferRange& r : column_ranges(ins.second ? *ins.second : plane)) ranges.push_back(r);
    }
    const uint32_t groups = mode == KeyMode::Range
                                ? uint32_t(prim::div_up(std::max<uint64_t>(n_, 1), SKELETON_WG * ROW_RANGE_ROWS))
                                : groups_of(n_);
    device_.dispatch_ranges(cmd, device_.pipeline(kNames[int(mode)], uint32_t(ranges.size()), sizeof(KeyPush), true),
                            ranges, &push, groups);
  }

  Device& device_;
  const RowsInput& input_;
  join::Stages stages_;
  SkeletonOptions options_;
  uint64_t n_;
  std::vector<Plane> planes_;
  Buffer perm_, keys_, zeros_, scratch_;
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

//! What set_mark.comp does for `kind` over sorted keys (`packed`: the packed keys; else the runs'
//! numbers), for the report.
std::string marks_text(SetKind kind, bool packed) {
  const std::string keys = packed ? "the sorted packed keys" : "the run numbers";
  if (set_op_code(kind) == SET_OP_DISTINCT)
    return "fused marks: one pass over " + keys + " marks each run's head (key unlike its neighbour's) in a bitmap";
  return "fused marks: one pass over " + keys +
         " and row ids resolves each run's start, end and first right row in tiles of " + std::to_string(SET_TILE) +
         " positions (a workgroup scan in shared memory; a run crossing a tile's edge from halos of " +
         std::to_string(SKELETON_WG) +
         " positions, searched in the sorted arrays past them) and marks the kept rows "
         "in a bitmap";
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
                      const CompactOutputs out{.ids = {&ids, 0, n * 4}, .count = {&status, 16, 8}, .capacity = n};
                      compact(device, cmd, ElemType::U32, {&flags, 0, all_rows * 4}, all_rows, Predicate::nonzero(), {},
                              out, {&scratch, 0, 0});
                    });
  const std::vector<uint32_t> words = rows.stages().download<uint32_t>(status, 6, "status and row count");
  gave_up = words[0] != 0;
  if (gave_up) return {};
  return rows.stages().download<uint32_t>(ids, uint64_t(words[4]) | uint64_t(words[5]) << 32, "kept row ids");
}

//! The most slots of a dense table for n rows taking part: 2n (at least 2^16), within one binding.
uint64_t dense_slots_limit(const Device& device, uint64_t n) {
  return std::min<uint64_t>(std::max<uint64_t>(uint64_t(1) << 16, 2 * n), device.max_binding_elements());
}

//! The most slices SkeletonOptions::dense_slices may force.
constexpr uint32_t kDenseForcedSlicesMax = 1024;

//! The dense table's key slices: forced (SkeletonOptions::dense_slices) or dense_slices_rule(); `why`
//! says which and why.
uint32_t dense_slices(uint64_t table_bytes, uint32_t forced, std::string& why) {
  if (forced) {
    why = "forced";
    return forced;
  }
  const uint32_t slices = dense_slices_rule(table_bytes);
  const uint64_t parts = prim::div_up(table_bytes, kDenseSliceBytes);
  const std::string budget = " the " + std::to_string(kDenseSliceBytes >> 20) + " MiB cache budget";
  why = "rule: a table of " + std::to_string(table_bytes) + " bytes, ";
  if (parts <= 1)
    why += "within" + budget;
  else if (slices > 1)
    why += "over" + budget;
  else
    why += std::to_string(parts) + " times" + budget + ", past the " + std::to_string(kDenseMaxSlices) +
           " slices worth their rereads of the keys";
  return slices;
}

//! DISTINCT, UNION, INTERSECT or EXCEPT of the sorter's rows (not sorted) by a dense table of
//! packing.slots words indexed by the packed key (set_dense.comp), in one stage; `detail` says what ran.
std::vector<uint32_t> dense_set(Device& device, RowSorter& rows, SetKind kind, const Packing& packing,
                                uint32_t forced_slices, std::string& detail) {
  const RowsInput& input = rows.input();
  const uint64_t n = rows.n(), total_rows = input.left_rows + input.right_rows, slots = packing.slots;
  const bool two_sided = kind == SetKind::Intersect || kind == SetKind::Except;
  std::string slices_why;
  const uint32_t slices = dense_slices(slots * (two_sided ? 8 : 4), forced_slices, slices_why);
  const uint32_t op = kind == SetKind::Intersect ? SET_OP_INTERSECT
                      : kind == SetKind::Except  ? SET_OP_EXCEPT
                                                 : SET_OP_DISTINCT;
  const uint64_t capacity = std::min(n, slots);
  // The packed keys of all but the last plane (the last one's term is added in the insert) go to the
  // sorter's key buffer.
  const Buffer& keys = rows.keys();
  Buffer first = device.create_buffer(padded_bytes(slots), MemoryKind::Device);
  Buffer seen = device.create_buffer(two_sided ? padded_bytes(slots) : 16, MemoryKind::Device);
  Buffer bits = device.create_buffer(std::max<uint64_t>(16, compact_bitmap_words(total_rows) * 4), MemoryKind::Device);
  Buffer ids = device.create_buffer(padded_bytes(capacity), MemoryKind::Device);
  Buffer counts = device.create_buffer(256, MemoryKind::Device);
  Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, compact_scratch_bytes(device, total_rows)), MemoryKind::Device);
  const DensePush mark{uint32_t(slots), op, 0};
  detail = std::to_string(rows.planes()) + " key plane(s) packed by their ranges into keys below " +
           std::to_string(slots) + ", the first row of each key by atomicMin into a table of one word per key" +
           (two_sided ? " (right rows set a seen word)" : "") + ", inserted in " + std::to_string(slices) +
           " key slice(s) (" + slices_why +
           (slices > 1 ? ": the first pass stores the packed keys, the later ones read them" : "") +
           "), the kept first rows marked in a bitmap, the bitmap compacted in row order";
  rows.stages().run(
      "set-dense",
      std::string(to_string(kind)) + ": " + std::to_string(n) + " rows, " + std::to_string(slots) + " slots in " +
          std::to_string(slices) + " key slice(s): packed keys and insert (fused for the last plane), mark, compaction",
      n, [&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, first.handle(), 0, VK_WHOLE_SIZE, DISTINCT_HASH_EMPTY);
        if (two_sided) vkCmdFillBuffer(cmd, seen.handle(), 0, VK_WHOLE_SIZE, 0);
        vkCmdFillBuffer(cmd, bits.handle(), 0, VK_WHOLE_SIZE, 0);
        device.barrier(cmd);  // the fills before the atomics
        rows.record_dense_insert(cmd, packing, keys, first, two_sided ? seen : first, op, slices);
        device.barrier(cmd);
        device.dispatch_ranges(cmd, device.pipeline("set_dense_mark", 3, sizeof(DensePush), true),
                               {whole(first), whole(two_sided ? seen : first), whole(bits)}, &mark, groups_of(slots));
        device.barrier(cmd);
        const CompactOutputs out{.ids = {&ids, 0, capacity * 4}, .count = {&counts, 0, 8}, .capacity = capacity};
        compact_bits(device, cmd, {&bits, 0, 0}, total_rows, out, {&scratch, 0, 0});
      });
  const std::vector<uint64_t> count = rows.stages().download<uint64_t>(counts, 1, "kept row count");
  return rows.stages().download<uint32_t>(ids, count[0], "kept row ids");
}
}  // namespace

uint32_t dense_slices_rule(uint64_t table_bytes) noexcept {
  const uint64_t parts = std::max<uint64_t>(1, prim::div_up(table_bytes, kDenseSliceBytes));
  return parts > kDenseMaxSlices ? 1 : uint32_t(parts);
}

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
  if (options.dense_slices > kDenseForcedSlicesMax)
    throw Error(ErrorCode::InvalidInput, "dense_slices " + std::to_string(options.dense_slices) + ": at most " +
                                             std::to_string(kDenseForcedSlicesMax) + " (0: the rule)");
  const uint64_t total_rows = input.left_rows + input.right_rows;
  if (kind == SetKind::UnionAll) {
    how = "UNION ALL: both operands' rows in order (no GPU work)";
    if (!input.all) return input.ids;
    std::vector<uint32_t> ids(total_rows);
    for (uint64_t i = 0; i < total_rows; ++i) ids[i] = uint32_t(i);
    return ids;
  }
  const bool distinct = kind == SetKind::Distinct;
  const DistinctAlgorithm forced = distinct ? options.distinct : options.set;
  if (!distinct && forced == DistinctAlgorithm::Hash)
    throw Error(ErrorCode::InvalidInput, std::string(to_string(kind)) + ": no hash variant (Auto, Sort or Dense)");
  const bool dense_kind =
      kind == SetKind::Distinct || kind == SetKind::Union || kind == SetKind::Intersect || kind == SetKind::Except;
  if (forced == DistinctAlgorithm::Dense && !dense_kind)
    throw Error(ErrorCode::Unsupported,
                std::string(to_string(kind)) + " (dense, forced): the dense table keeps no multiplicities");
  std::string rule;
  if (input.count() == 0) {
    if (distinct && forced == DistinctAlgorithm::Hash) {
      const std::string refusal = distinct_hash_refusal(device, input);
      if (!refusal.empty()) throw Error(ErrorCode::Unsupported, "hash DISTINCT (forced): " + refusal);
      how = "hash DISTINCT (forced): no rows (no GPU work)";
    } else {
      how = std::string(forced == DistinctAlgorithm::Sort || !dense_kind ? "sort-based " : "dense ") + to_string(kind) +
            (forced == DistinctAlgorithm::Auto ? " (rule: no rows)" : " (forced)") + ": no rows (no GPU work)";
    }
    return {};
  }
  RowSorter sorter(device, input, passes, options);
  // The planes' key ranges decide the dense table and the packed sort (not needed for a forced hash
  // DISTINCT or an unpacked forced sort).
  std::optional<Packing> packing;
  if (forced == DistinctAlgorithm::Dense || forced == DistinctAlgorithm::Auto ||
      (forced == DistinctAlgorithm::Sort && options.pack)) {
    const auto known = known_ranges(input.columns);
    packing = packing_of(known ? *known : sorter.ranges());
  }
  const uint64_t dense_limit = dense_slots_limit(device, input.count());
  if (forced == DistinctAlgorithm::Dense || (forced == DistinctAlgorithm::Auto && dense_kind)) {
    const bool fits = packs(*packing) && packing->slots <= dense_limit;
    if (fits) {
      std::string detail;
      std::vector<uint32_t> ids = dense_set(device, sorter, kind, *packing, options.dense_slices, detail);
      how = std::string("dense ") + to_string(kind) + " (" +
            (forced == DistinctAlgorithm::Dense ? std::string("forced")
                                                : "rule: " + std::to_string(packing->slots) + " possible rows within " +
                                                      std::to_string(dense_limit) + " slots") +
            "): " + detail + " (" + std::to_string(ids.size()) + " kept rows)";
      return ids;
    }
    const std::string refusal =
        std::to_string(packing->slots) + " possible rows (key ranges) exceed " + std::to_string(dense_limit) + " slots";
    if (forced == DistinctAlgorithm::Dense)
      throw Error(ErrorCode::Unsupported, std::string(to_string(kind)) + " (dense, forced): " + refusal);
    rule = " (rule: not dense, " + refusal + ")";
  }
  if (distinct && forced != DistinctAlgorithm::Sort) {
    const std::string refusal = distinct_hash_refusal(device, input);
    if (forced == DistinctAlgorithm::Hash && !refusal.empty())
      throw Error(ErrorCode::Unsupported, "hash DISTINCT (forced): " + refusal);
    if (refusal.empty()) {
      bool gave_up = false;
      std::vector<uint32_t> ids = hash_distinct(device, input, passes, options, gave_up);
      if (!gave_up) {
        how = "hash DISTINCT (" +
              std::string(forced == DistinctAlgorithm::Hash ? "forced"
                                                            : "rule: at most " + std::to_string(DISTINCT_HASH_PLANES) +
                                                                  " key planes and a table within one binding") +
              "): " + std::to_string(key_planes(input.columns)) + " key plane(s), " +
              std::to_string(hash_slots(input.count())) +
              "-slot table of first row ids (compare-and-swap, atomicMin per equal row), occupied slots marked, "
              "marks compacted in row order (" +
              std::to_string(ids.size()) + " distinct rows)" + rule;
        return ids;
      }
      rule += " (the hash DISTINCT gave up: an insert probed " + std::to_string(DISTINCT_HASH_MAX_PROBES) + " slots)";
    } else {
      rule += " (rule: not hashed, " + refusal + ")";
    }
  }
  const bool packed = packing && options.pack && packs(*packing);
  if (packed)
    sorter.sort_packed(*packing);
  else
    sorter.sort();
  const uint64_t n = sorter.n();
  how = std::string("sort-based ") + to_string(kind) + ": " +
        (packed ? "stable sort of " + std::to_string(n) + " (packed key, row id) pairs, the " +
                      std::to_string(sorter.planes()) + " key plane(s) packed into one 32-bit key by their ranges"
                : "stable LSD sort of " + std::to_string(n) + " row ids by " + std::to_string(sorter.planes()) +
                      " key plane(s)" + (packing ? " (their ranges do not pack into 32 bits)" : "")) +
        " (" + (sorter.sort_text().empty() ? "no sort needed" : sorter.sort_text()) + "), " +
        (packed ? std::string() : "run heads by adjacent difference numbered by a scan, ") + marks_text(kind, packed) +
        ", the bitmap compacted in row order";
  // Unpacked: the runs' numbers (an inclusive scan of the heads) stand for the keys.
  Buffer heads = device.create_buffer(packed ? 16 : padded_bytes(n), MemoryKind::Device);
  Buffer gid = device.create_buffer(packed ? 16 : padded_bytes(n), MemoryKind::Device);
  Buffer bits = device.create_buffer(std::max<uint64_t>(16, compact_bitmap_words(total_rows) * 4), MemoryKind::Device);
  Buffer ids = device.create_buffer(padded_bytes(n), MemoryKind::Device);
  Buffer counts = device.create_buffer(256, MemoryKind::Device);
  Buffer scan_scratch = device.create_buffer(packed ? 16 : scan_scratch_bytes(device, n), MemoryKind::Device);
  Buffer compact_scratch =
      device.create_buffer(std::max<uint64_t>(16, compact_scratch_bytes(device, total_rows)), MemoryKind::Device);
  const uint32_t op = set_op_code(kind);
  const SetPush push{uint32_t(n), uint32_t(input.left_rows), op, 0};
  const bool by_heads = op == SET_OP_DISTINCT;
  sorter.stages().run(
      "set-marks",
      std::string(to_string(kind)) + ": " +
          (packed ? std::string() : "heads of runs over " + std::to_string(sorter.planes()) + " plane(s), scan, ") +
          "fused marks (" + (by_heads ? "run heads" : "runs resolved in tiles") + ") and compaction",
      n, [&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, bits.handle(), 0, VK_WHOLE_SIZE, 0);
        if (!packed) {
          sorter.record_heads(cmd, heads);
          device.barrier(cmd);
          scan(device, cmd, ScanKind::Inclusive, ScanWidth::U32, {&heads, 0, n * 4}, n, {&gid, 0, n * 4},
               {&counts, 0, 8}, {&scan_scratch, 0, 0});
        }
        device.barrier(cmd);
        device.dispatch_ranges(cmd,
                               device.pipeline(by_heads ? "set_mark_heads" : "set_mark_runs", 3, sizeof(SetPush), true),
                               {whole(packed ? sorter.keys() : gid), whole(sorter.perm()), whole(bits)}, &push,
                               uint32_t(prim::div_up(n, SET_TILE)));
        device.barrier(cmd);
        const CompactOutputs out{.ids = {&ids, 0, n * 4}, .count = {&counts, 16, 8}, .capacity = n};
        compact_bits(device, cmd, {&bits, 0, 0}, total_rows, out, {&compact_scratch, 0, 0});
      });
  // The kept rows' count at byte 16 (the compaction's).
  const std::vector<uint64_t> c = sorter.stages().download<uint64_t>(counts, 3, "kept row count");
  how += " (" + std::to_string(c[2]) + " kept rows)" + rule;
  return sorter.stages().download<uint32_t>(ids, c[2], "kept row ids");
}

}  // namespace gfxq::vk::skel
