#include "vk/operators/star/star.h"

#include <algorithm>

#include "gfxq/error.h"
#include "vk/operators/join/common.h"
#include "vk/primitives/scratch.h"
#include "vk/relational/select.h"

namespace gfxq::vk::star {

namespace {

struct FillPush {
  uint32_t count, selected;
  int32_t kmin;
  uint32_t columns;
  int32_t mins[4];
  uint32_t strides[4];
  uint32_t terms, float_slots, slot_count, intervals, dim, bits;
};

struct ProbePush {
  uint32_t rows, selected, dims, aggs, stride, domain;
  uint32_t kmin[4], code[4];
  int32_t literal[4];
  uint32_t terms, float_slots, slot_count, intervals;
  uint32_t drows[4];
  uint32_t values;
  uint32_t bits[4];
  uint32_t copies;
};

struct FoldPush {
  uint32_t words, copies;
};

struct CollectPush {
  uint32_t domain, stride;
};

// The kernel variant of a condition's slot count: _s2, _s4 or _s8 (star.shaders.cmake).
std::string slots_suffix(const StarCnf& cnf) {
  return cnf.slots.size() <= 2 ? "_s2" : cnf.slots.size() <= 4 ? "_s4" : "_s8";
}

// Dimensions whose table spans more slots get a bitmap of their filled slots (1/32 of the table's
// bytes), which the probe tests first where the dimension keeps few of its rows: a table of 2^16
// 32-bit slots fills an SM's L1 cache.
constexpr uint32_t kBitmapSlots = uint32_t(1) << 16;

// Workgroups of a grid-stride kernel over `n` items.
uint32_t grid(uint64_t n) {
  return uint32_t(std::clamp<uint64_t>(prim::div_up(n, STAR_WG), 1, 2048));
}

void check(const Device& device, const StarInput& in) {
  auto bad = [](const std::string& what) { throw Error(ErrorCode::InvalidInput, "star aggregate: " + what); };
  if (in.dims.empty() || in.dims.size() > STAR_MAX_DIMS) bad("it takes 1 to 4 dimensions");
  if (in.aggs.size() > STAR_MAX_AGGS || in.values.size() > STAR_MAX_VALUES) bad("it takes at most 4 aggregates");
  if (in.fact_rows >= (uint64_t(1) << 31)) bad("it takes fewer than 2^31 fact rows");
  if (in.domain == 0 || in.domain > kMaxDomain) bad("the groups must number 1 to 2^22");
  if (in.cnf.words && (in.fact_selection || in.cnf.slots.empty() || in.cnf.slots.size() > 8))
    bad("a fact condition takes 1 to 8 slot columns and no selection");
  for (const StarDim& d : in.dims) {
    if (d.cnf.words && (d.selection || d.cnf.slots.empty() || d.cnf.slots.size() > 8))
      bad("a dimension condition takes 1 to 8 slot columns and no selection");
    if (d.group_columns.size() > STAR_MAX_DIM_KEYS || d.group_mins.size() != d.group_columns.size() ||
        d.group_strides.size() != d.group_columns.size())
      bad("a dimension takes at most 4 group columns, each with its smallest value and stride");
    if (d.key_range == 0 || uint64_t(d.key_range) > device.max_binding_elements())
      bad("a key range is empty or too large");
  }
  for (const StarAgg& a : in.aggs)
    for (uint32_t o : {a.x, a.y})
      if (o != STAR_OPERAND_LITERAL && o >= in.values.size()) bad("an aggregate reads a value column it was not given");
  if (!device.caps().buffer_int64_atomics)
    throw Error(ErrorCode::Unsupported,
                "star aggregate: " + device.caps().device_name + " lacks 64-bit buffer atomics");
}

}  // namespace

StarResult star_aggregate(Device& device, const StarInput& in, std::vector<PassRecord>& passes) {
  check(device, in);
  const uint32_t stride = 1 + 2 * uint32_t(in.aggs.size());
  const uint64_t words = uint64_t(in.domain) * stride;
  const uint32_t copies = in.domain > 1 && in.domain <= kCopiesDomain ? STAR_ACC_COPIES : 1;
  join::Stages stages(device, passes);

  std::vector<Buffer> tables;
  for (const StarDim& d : in.dims)
    tables.push_back(device.create_buffer(padded_bytes(d.key_range), MemoryKind::Device));
  // Each large dimension's bitmap: its first word in `bits` (STAR_EMPTY: none).
  std::vector<uint32_t> bit_words;
  uint64_t bits_size = 0;
  for (const StarDim& d : in.dims) {
    bit_words.push_back(d.key_range > kBitmapSlots ? uint32_t(bits_size) : STAR_EMPTY);
    if (d.key_range > kBitmapSlots) bits_size += prim::div_up(d.key_range, 32);
  }
  Buffer bits = device.create_buffer(padded_bytes(std::max<uint64_t>(bits_size, 1)), MemoryKind::Device);
  Buffer acc = device.create_buffer(copies * words * sizeof(uint64_t), MemoryKind::Device);
  // Per dimension: selected rows, then the smallest and the largest slot filled (star.comp).
  Buffer counts = device.create_buffer(48, MemoryKind::Device);
  uint64_t dim_rows = 0;
  for (const StarDim& d : in.dims) dim_rows += d.rows;
  const size_t bitmaps =
      size_t(std::count_if(bit_words.begin(), bit_words.end(), [](uint32_t w) { return w != STAR_EMPTY; }));
  stages.run("star-fill",
             std::to_string(in.dims.size()) + " dimension tables (direct addressing by key) of group codes" +
                 (bitmaps ? ", " + std::to_string(bitmaps) + " with a bitmap of their filled keys" : ""),
             dim_rows, [&](VkCommandBuffer cmd) {
               for (const Buffer& t : tables) vkCmdFillBuffer(cmd, t.handle(), 0, VK_WHOLE_SIZE, STAR_EMPTY);
               vkCmdFillBuffer(cmd, acc.handle(), 0, VK_WHOLE_SIZE, 0);
               vkCmdFillBuffer(cmd, bits.handle(), 0, VK_WHOLE_SIZE, 0);
               vkCmdFillBuffer(cmd, counts.handle(), 0, 16, 0);
               vkCmdFillBuffer(cmd, counts.handle(), 16, 16, STAR_EMPTY);
               vkCmdFillBuffer(cmd, counts.handle(), 32, 16, 0);
               device.barrier(cmd);
               for (size_t i = 0; i < in.dims.size(); ++i) {
                 const StarDim& d = in.dims[i];
                 if (d.rows == 0) continue;
                 const StarCnf& cnf = d.cnf;
                 FillPush push{uint32_t(d.rows),
                               d.selection ? 1u : 0u,
                               d.key_min,
                               uint32_t(d.group_columns.size()),
                               {},
                               {},
                               cnf.terms,
                               cnf.float_slots,
                               uint32_t(cnf.slots.size()),
                               cnf.intervals,
                               uint32_t(i),
                               bit_words[i]};
                 std::vector<const Buffer*> b{d.selection ? d.selection : d.key, d.key, &tables[i]};
                 for (size_t c = 0; c < 4; ++c) {
                   b.push_back(c < d.group_columns.size() ? d.group_columns[c] : d.key);
                   if (c < d.group_columns.size()) push.mins[c] = d.group_mins[c], push.strides[c] = d.group_strides[c];
                 }
                 b.push_back(&counts);
                 if (cnf.words) {
                   b.push_back(cnf.words);
                   for (size_t c = 0; c < 8; ++c) b.push_back(c < cnf.slots.size() ? cnf.slots[c] : cnf.slots[0]);
                   b.push_back(&bits);
                   device.dispatch(cmd, device.pipeline("star_fill_cnf" + slots_suffix(cnf), 18, sizeof(FillPush)), b,
                                   &push, grid(prim::div_up(d.rows, 4)));
                 } else {
                   b.push_back(&bits);
                   device.dispatch(cmd, device.pipeline("star_fill", 9, sizeof(FillPush)), b, &push, grid(d.rows));
                 }
               }
             });

  ProbePush push{uint32_t(in.fact_rows),
                 in.fact_selection ? 1u : 0u,
                 uint32_t(in.dims.size()),
                 uint32_t(in.aggs.size()),
                 stride,
                 in.domain,
                 {},
                 {},
                 {},
                 in.cnf.terms,
                 in.cnf.float_slots,
                 uint32_t(in.cnf.slots.size()),
                 in.cnf.intervals,
                 {},
                 0,
                 {},
                 copies};
  std::vector<const Buffer*> b{in.fact_selection ? in.fact_selection : &acc};
  for (size_t d = 0; d < 4; ++d) b.push_back(d < in.dims.size() ? in.dims[d].fact_key : in.dims[0].fact_key);
  for (size_t d = 0; d < 4; ++d) b.push_back(d < in.dims.size() ? &tables[d] : &tables[0]);
  for (size_t v = 0; v < 4; ++v) b.push_back(v < in.values.size() ? in.values[v] : in.dims[0].fact_key);
  b.push_back(&acc);
  b.push_back(&counts);
  if (in.cnf.words) {
    b.push_back(in.cnf.words);
    for (size_t c = 0; c < 8; ++c) b.push_back(c < in.cnf.slots.size() ? in.cnf.slots[c] : in.cnf.slots[0]);
    for (size_t d = 0; d < 4; ++d) b.push_back(b[1 + d]);  // the key columns as uvec4 words
    for (size_t v = 0; v < 4; ++v) b.push_back(b[9 + v]);  // the value columns as ivec4 words
  } else {
    b.push_back(&bits);
    for (size_t d = 0; d < 4; ++d) b.push_back(b[1 + d]);  // the key columns as uvec4 words
    for (size_t v = 0; v < 4; ++v) b.push_back(b[9 + v]);  // the value columns as ivec4 words
  }
  push.values = uint32_t(in.values.size());
  for (size_t d = 0; d < in.dims.size(); ++d) {
    push.kmin[d] = uint32_t(in.dims[d].key_min);
    push.drows[d] = uint32_t(std::max<uint64_t>(1, in.dims[d].table_rows));
    push.bits[d] = bit_words[d];
  }
  for (size_t a = 0; a < in.aggs.size(); ++a) {
    push.code[a] = in.aggs[a].op | in.aggs[a].x << 4 | in.aggs[a].y << 8;
    push.literal[a] = in.aggs[a].literal;
  }
  stages.run("star-probe",
             std::string(in.cnf.words ? "the fact's condition (" + std::to_string(in.cnf.terms) + " terms" +
                                            (in.cnf.intervals ? ", as raw-bit intervals" : "") + ") and its "
                                      : "") +
                 "fact rows probed in " + std::to_string(in.dims.size()) + " dimension tables, " +
                 std::to_string(in.aggs.size()) + " sums and a count added per group (" + std::to_string(in.domain) +
                 " group indices" +
                 (in.domain == 1 ? ", summed per workgroup)"
                                 : ", 64-bit atomic adds per row" +
                                       (copies > 1 ? " into " + std::to_string(copies) +
                                                         " copies of the group words, one per workgroup index modulo " +
                                                         std::to_string(copies) + ", folded into the first)"
                                                   : std::string(")"))),
             in.fact_rows, [&](VkCommandBuffer cmd) {
               if (!in.fact_rows) return;
               const Pipeline& p = in.cnf.words
                                       ? device.pipeline("star_probe_cnf" + slots_suffix(in.cnf), 32, sizeof(ProbePush))
                                       : device.pipeline("star_probe", 24, sizeof(ProbePush));
               const bool quads = in.cnf.words || !in.fact_selection;
               device.dispatch(cmd, p, b, &push, grid(quads ? prim::div_up(in.fact_rows, 4) : in.fact_rows));
               if (copies == 1) return;
               device.barrier(cmd);
               const FoldPush fp{uint32_t(words), copies};
               device.dispatch(cmd, device.pipeline("star_fold", 1, sizeof(FoldPush)), {&acc}, &fp, grid(words));
             });

  StarResult r;
  std::vector<uint32_t> index;
  std::vector<uint64_t> values;
  if (in.domain <= kDirectReadDomain) {
    values = stages.download<uint64_t>(acc, words, "group words");
    for (uint32_t g = 0; g < in.domain; ++g)
      if (values[uint64_t(g) * stride] != 0) index.push_back(g);
    r.algorithm = "star aggregate: " + std::to_string(in.dims.size()) +
                  " dimension tables by direct addressing, one probe pass over the fact rows, " +
                  std::to_string(in.domain) + " group indices read back whole";
  } else {
    const uint64_t most = std::min<uint64_t>(in.domain, std::max<uint64_t>(in.fact_rows, 1));
    Buffer list = device.create_buffer(padded_bytes(most + 1), MemoryKind::Device);
    Buffer out = device.create_buffer(most * stride * sizeof(uint64_t), MemoryKind::Device);
    stages.run("star-collect", "non-empty groups of " + std::to_string(in.domain) + " listed", in.domain,
               [&](VkCommandBuffer cmd) {
                 vkCmdFillBuffer(cmd, list.handle(), 0, 16, 0);
                 device.barrier(cmd);
                 const CollectPush cp{in.domain, stride};
                 device.dispatch(cmd, device.pipeline("star_collect", 3, sizeof(CollectPush)), {&acc, &list, &out}, &cp,
                                 grid(in.domain));
               });
    // The count with the first kListedFirstRead groups in one wait; the rest, if any, in a second.
    const uint64_t first = std::min<uint64_t>(most, kListedFirstRead);
    std::vector<uint32_t> head(1 + first);
    index.resize(first);
    values.resize(first * stride);
    auto start = join::Stages::Clock::now();
    device.download_many({{&list, head.data(), head.size() * sizeof(uint32_t), 0},
                          {&out, values.data(), values.size() * sizeof(uint64_t), 0}});
    const uint64_t n = head[0];
    stages.add("download",
               "group count with the first " + std::to_string(first) + " groups' indices and words (" +
                   std::to_string(first * (4 + 8 * stride) + 4) + " bytes)",
               std::min(n, first), start);
    std::copy(head.begin() + 1, head.begin() + 1 + std::min(n, first), index.begin());
    index.resize(n);
    values.resize(n * stride);
    if (n > first) {
      start = join::Stages::Clock::now();
      device.download_many(
          {{&list, index.data() + first, (n - first) * sizeof(uint32_t), (1 + first) * sizeof(uint32_t)},
           {&out, values.data() + first * stride, (n - first) * stride * sizeof(uint64_t),
            first * stride * sizeof(uint64_t)}});
      stages.add("download",
                 "the other " + std::to_string(n - first) + " groups' indices and words (" +
                     std::to_string((n - first) * (4 + 8 * stride)) + " bytes)",
                 n - first, start);
    }
    r.algorithm = "star aggregate: " + std::to_string(in.dims.size()) +
                  " dimension tables by direct addressing, one probe pass over the fact rows, the non-empty of " +
                  std::to_string(in.domain) + " group indices listed on the device";
  }
  // Group j's words: at g * stride when read back whole, else at j * stride in list order.
  const bool whole = in.domain <= kDirectReadDomain;
  std::vector<size_t> order(index.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return index[a] < index[b]; });
  for (size_t j : order) {
    const uint64_t* w = values.data() + (whole ? uint64_t(index[j]) : uint64_t(j)) * stride;
    StarGroup g;
    g.index = index[j];
    g.count = w[0];
    for (size_t a = 0; a < in.aggs.size(); ++a)
      g.sums.push_back((__int128(int64_t(w[2 + 2 * a])) << 32) + __int128(w[1 + 2 * a]));
    r.groups.push_back(std::move(g));
  }
  return r;
}

}  // namespace gfxq::vk::star
