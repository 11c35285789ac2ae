#include "vk/operators/join/common.h"

#include <algorithm>
#include <bit>
#include <cfloat>

#include "gfxq/error.h"
#include "join_config.glsl"
#include "vk/primitives/radix_sort.h"
#include "vk/primitives/reduce.h"
#include "vk/primitives/scan.h"
#include "vk/primitives/scratch.h"

namespace gfxq::vk::join {

namespace {

//! Push constants of join_prepare.comp (group_offset last, set by dispatch).
struct PreparePush {
  uint32_t n, has_selection, mode, columns, norms, write_key, group_offset;
};

JoinOp flipped(JoinOp op) {
  switch (op) {
    case JoinOp::Lt: return JoinOp::Gt;
    case JoinOp::Le: return JoinOp::Ge;
    case JoinOp::Gt: return JoinOp::Lt;
    case JoinOp::Ge: return JoinOp::Le;
    default: return op;
  }
}

}  // namespace

uint32_t op_code(JoinOp op) {
  switch (op) {
    case JoinOp::Eq: return JOIN_OP_EQ;
    case JoinOp::Lt: return JOIN_OP_LT;
    case JoinOp::Le: return JOIN_OP_LE;
    case JoinOp::Gt: return JOIN_OP_GT;
    case JoinOp::Ge: return JOIN_OP_GE;
    case JoinOp::Band: return JOIN_OP_BAND;
  }
  return JOIN_OP_EQ;
}

uint64_t offset_bits(double d) {
  if (d != 0 && std::fabs(d) < DBL_MIN) d = std::copysign(DBL_MIN, d);
  return std::bit_cast<uint64_t>(d);
}

PassRecord& Stages::add(std::string kind, std::string detail, uint64_t items, Clock::time_point start) {
  PassRecord p;
  p.kind = std::move(kind);
  p.detail = std::move(detail);
  p.items = items;
  p.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  passes_.push_back(std::move(p));
  return passes_.back();
}

Oriented orient(const JoinSide& left, const JoinSide& right, const std::vector<JoinTerm>& terms, bool swap) {
  Oriented o;
  o.a = swap ? &right : &left;
  o.b = swap ? &left : &right;
  o.swapped = swap;
  for (JoinTerm t : terms) {
    if (swap) {
      if (t.op == JoinOp::Band) throw Error(ErrorCode::Internal, "join: a band term cannot swap its sides");
      std::swap(t.left, t.right);
      t.op = flipped(t.op);
    }
    o.terms.push_back(t);
  }
  return o;
}

uint32_t type_code(const JoinKey& key) {
  return key.type == Type::Float32 ? JOIN_TYPE_FLOAT : JOIN_TYPE_INT;
}

bool has_band(const std::vector<JoinTerm>& terms) {
  return std::any_of(terms.begin(), terms.end(), [](const JoinTerm& t) { return t.op == JoinOp::Band; });
}

Buffer upload_terms(Device& device, const Oriented& o, const std::vector<JoinTerm>& terms) {
  std::vector<uint32_t> w(std::max<size_t>(1, terms.size() * JOIN_TERM_WORDS), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const JoinTerm& t = terms[i];
    uint32_t* e = &w[i * JOIN_TERM_WORDS];
    const uint64_t lo = offset_bits(t.lo), hi = offset_bits(t.hi);
    e[0] = t.left;
    e[1] = t.right;
    e[2] = op_code(t.op);
    e[3] = type_code(o.a->keys[t.left]) | type_code(o.b->keys[t.right]) << 8;
    e[4] = uint32_t(lo);
    e[5] = uint32_t(lo >> 32);
    e[6] = uint32_t(hi);
    e[7] = uint32_t(hi >> 32);
  }
  Buffer b = words(device, w.size());
  device.upload(b, w.data(), w.size() * 4);
  return b;
}

std::vector<BufferRange> column_ranges(const JoinSide& side) {
  std::vector<BufferRange> r;
  for (uint32_t c = 0; c < JOIN_MAX_COLUMNS; ++c) {
    const JoinKey& k = side.keys[std::min<size_t>(c, side.keys.size() - 1)];
    r.push_back({k.buffer, 0, std::max<uint64_t>(4, side.rows * 4)});
  }
  return r;
}

Buffer words(Device& device, uint64_t elements) {
  return device.create_buffer(std::max<uint64_t>(16, prim::align_up(elements * 4, 16)), MemoryKind::Device);
}

Buffer dwords(Device& device, uint64_t elements) {
  return device.create_buffer(std::max<uint64_t>(16, prim::align_up(elements * 8, 16)), MemoryKind::Device);
}

BufferRange range32(const Buffer& b, uint64_t count) {
  return {&b, 0, std::max<uint64_t>(4, count * 4)};
}

BufferRange range64(const Buffer& b, uint64_t count) {
  return {&b, 0, std::max<uint64_t>(8, count * 8)};
}

CountScan::CountScan(Device& device, uint64_t n)
    : n(n),
      offsets(dwords(device, n)),
      total_buffer(dwords(device, 33)),
      scratch(device.create_buffer(scan_scratch_bytes(device, n), MemoryKind::Device)) {}

void CountScan::record(Device& device, VkCommandBuffer cmd, const Buffer& counts) {
  scan(device, cmd, ScanKind::Exclusive, ScanWidth::U64, range32(counts, n), n, range64(offsets, n),
       range64(total_buffer, 1), {&scratch, 0, scratch.size()});
}

uint64_t CountScan::total(Stages& stages, const std::string& what) {
  return stages.download<uint64_t>(total_buffer, 1, what)[0];
}

void CountScan::record_longest(Device& device, VkCommandBuffer cmd, const Buffer& counts) {
  record(device, cmd, counts);
  if (!reduce_scratch_) reduce_scratch_ = device.create_buffer(reduce_scratch_bytes(device, n), MemoryKind::Device);
  // The ReduceResult (value, count) at byte 256: a binding offset every device allows.
  reduce(device, cmd, ReduceOp::Max, ElemType::U32, range32(counts, n), n, {&total_buffer, 256, 16},
         {&*reduce_scratch_, 0, reduce_scratch_->size()});
}

std::pair<uint64_t, uint64_t> CountScan::total_and_longest(Stages& stages, const std::string& what) {
  const std::vector<uint64_t> w = stages.download<uint64_t>(total_buffer, 33, what);
  return {w[0], w[32]};
}

bool KeySpec::filters() const noexcept {
  return std::any_of(columns.begin(), columns.end(), [](const auto& c) { return c.second == JOIN_NORM_INT_OF_FLOAT; });
}

void check_side(const Device& device, const JoinSide& side, const char* name) {
  if (side.keys.empty() || side.keys.size() > JOIN_MAX_COLUMNS)
    throw Error(ErrorCode::InvalidQuery, std::string("join: the ") + name + " side has " +
                                             std::to_string(side.keys.size()) + " key columns (1 to " +
                                             std::to_string(JOIN_MAX_COLUMNS) + ")");
  for (const JoinKey& k : side.keys) {
    if (!k.buffer) throw Error(ErrorCode::InvalidQuery, std::string("join: a ") + name + " key column has no buffer");
    if (k.type != Type::Int32 && k.type != Type::Float32)
      throw Error(ErrorCode::Unsupported, std::string("join: a ") + name + " key column is " + to_string(k.type) +
                                              " (the compute join takes INT and FLOAT keys)");
    if (k.buffer->size() < side.rows * 4)
      throw Error(ErrorCode::InvalidQuery, std::string("join: a ") + name + " key buffer of " +
                                               std::to_string(k.buffer->size()) + " bytes holds fewer than " +
                                               std::to_string(side.rows) + " rows");
  }
  if (side.rows >= (uint64_t(1) << 32))
    throw Error(ErrorCode::Unsupported, std::string("join: the ") + name + " side has " + std::to_string(side.rows) +
                                            " rows (row ids are 32-bit: at most 2^32 - 1)");
  if (side.rows > device.max_binding_elements())
    throw Error(ErrorCode::Unsupported, std::string("join: the ") + name + " side's " + std::to_string(side.rows) +
                                            " rows exceed one storage binding (" +
                                            std::to_string(device.max_binding_elements()) +
                                            " 4-byte elements on this device)");
  if (side.selection && (side.selected > side.rows || side.selection->size() < side.selected * 4))
    throw Error(ErrorCode::InvalidQuery, std::string("join: the ") + name + " selection of " +
                                             std::to_string(side.selected) + " row ids does not fit its " +
                                             std::to_string(side.rows) + " rows or its buffer");
}

Prepared prepare(Stages& stages, const JoinSide& side, const KeySpec& spec, const std::string& name) {
  Device& device = stages.device();
  const uint64_t n = side.count();
  const bool keys = !spec.columns.empty();
  Prepared p;
  uint32_t norms = 0;
  for (size_t c = 0; c < spec.columns.size(); ++c) norms |= spec.columns[c].second << (8 * c);
  // Key columns in the order of the spec (bindings 1..4).
  std::vector<BufferRange> cols;
  for (uint32_t c = 0; c < JOIN_MAX_COLUMNS; ++c) {
    const uint32_t col = spec.columns.empty() ? 0 : spec.columns[std::min<size_t>(c, spec.columns.size() - 1)].first;
    cols.push_back({side.keys[col].buffer, 0, std::max<uint64_t>(4, side.rows * 4)});
  }
  const Buffer dummy = words(device, 4);
  const BufferRange sel =
      side.selection ? BufferRange{side.selection, 0, std::max<uint64_t>(4, n * 4)} : BufferRange{&dummy, 0, 16};
  const uint64_t tiles = prim::div_up(n, JOIN_PREPARE_TILE);
  const Pipeline& pipe = device.pipeline("join_prepare", 9, sizeof(PreparePush), true);
  PreparePush push{uint32_t(n),
                   side.selection ? 1u : 0u,
                   JOIN_PREPARE_WRITE,
                   uint32_t(spec.columns.size()),
                   norms,
                   keys ? 1u : 0u,
                   0};
  const BufferRange none{&dummy, 0, 16};
  auto bindings = [&](const BufferRange& rid, const BufferRange& key, const BufferRange& counts,
                      const BufferRange& offsets) {
    return std::vector<BufferRange>{sel, cols[0], cols[1], cols[2], cols[3], rid, key, counts, offsets};
  };
  const std::string what = name + " side: " + (spec.columns.empty() ? "row ids" : "row ids and keys") +
                           (side.selection ? " of the selected rows" : "");
  if (n == 0) return p;
  if (!spec.filters()) {
    p.count = n;
    p.rid = words(device, n);
    p.key = words(device, keys ? n : 1);
    stages.run("join-prepare", what, n, [&](VkCommandBuffer cmd) {
      device.dispatch_ranges(cmd, pipe, bindings(range32(p.rid, n), keys ? range32(p.key, n) : none, none, none), &push,
                             uint32_t(tiles));
    });
    return p;
  }
  // Rows some key column drops: count per tile, scan, pack.
  Buffer counts = words(device, tiles);
  CountScan scan(device, tiles);
  push.mode = JOIN_PREPARE_COUNT;
  stages.run("join-prepare", what + ": count the rows whose keys can match", n, [&](VkCommandBuffer cmd) {
    device.dispatch_ranges(cmd, pipe, bindings(none, none, range32(counts, tiles), none), &push, uint32_t(tiles));
    device.barrier(cmd);
    scan.record(device, cmd, counts);
  });
  p.count = scan.total(stages, name + " side: rows kept");
  if (p.count == 0) return p;
  p.rid = words(device, p.count);
  p.key = words(device, p.count);
  push.mode = JOIN_PREPARE_PACK;
  PassRecord& pass =
      stages.run("join-prepare", what + ": pack the rows whose keys can match", n, [&](VkCommandBuffer cmd) {
        device.dispatch_ranges(cmd, pipe,
                               bindings(range32(p.rid, p.count), keys ? range32(p.key, p.count) : none,
                                        range32(counts, tiles), range64(scan.offsets, tiles)),
                               &push, uint32_t(tiles));
      });
  pass.passed = p.count;
  return p;
}

Sorted sort_by_key(Stages& stages, const Prepared& side, uint64_t capacity, const std::string& what) {
  Device& device = stages.device();
  const uint64_t n = side.count;
  Sorted out{words(device, std::max(capacity, n)), words(device, n)};
  if (n == 0) return out;
  const Buffer scratch =
      device.create_buffer(std::max<uint64_t>(16, radix_sort_scratch_bytes(device, n, true)), MemoryKind::Device);
  RadixSortArgs args;
  args.n = n;
  args.keys_in = range32(side.key, n);
  args.values_in = range32(side.rid, n);
  args.keys_out = range32(out.key, n);
  args.values_out = range32(out.rid, n);
  args.scratch = {&scratch, 0, scratch.size()};
  PassRecord& pass =
      stages.run("join-sort", what, n, [&](VkCommandBuffer cmd) { record_radix_sort(device, cmd, args); });
  const RadixSortStatus status = radix_sort_status(device, args);
  pass.detail += ": " + status.describe();
  if (status.needs_fallback())
    stages.run("join-sort-fallback",
               what + ": passes from " + std::to_string(status.failed_pass) +
                   " rerun by reduce-then-scan (a look-back hit its bound)",
               n, [&](VkCommandBuffer cmd) { record_radix_sort_fallback(device, cmd, args, status); });
  return out;
}

std::pair<KeySpec, KeySpec> equi_keys(const Oriented& o, bool& hashed) {
  KeySpec a, b;
  for (const JoinTerm& t : o.terms) {
    if (t.op != JoinOp::Eq) continue;
    const uint32_t ta = type_code(o.a->keys[t.left]), tb = type_code(o.b->keys[t.right]);
    if (ta == tb) {
      const uint32_t norm = ta == JOIN_TYPE_FLOAT ? JOIN_NORM_ORDER_FLOAT : JOIN_NORM_ORDER_INT;
      a.columns.push_back({t.left, norm});
      b.columns.push_back({t.right, norm});
    } else {
      a.columns.push_back({t.left, ta == JOIN_TYPE_FLOAT ? JOIN_NORM_INT_OF_FLOAT : JOIN_NORM_ORDER_INT});
      b.columns.push_back({t.right, tb == JOIN_TYPE_FLOAT ? JOIN_NORM_INT_OF_FLOAT : JOIN_NORM_ORDER_INT});
    }
  }
  hashed = a.columns.size() > 1;
  return {a, b};
}

std::vector<JoinTerm> residual_terms(const Oriented& o, bool hashed) {
  std::vector<JoinTerm> r;
  for (const JoinTerm& t : o.terms)
    if (hashed || t.op != JoinOp::Eq) r.push_back(t);
  return r;
}

}  // namespace gfxq::vk::join
