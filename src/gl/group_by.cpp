#include "gl/group_by.h"

#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <memory>
#include <tuple>

#include "core/bind.h"
#include "core/exact_sum.h"
#include "core/order_key.h"
#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/sort.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kExact = uint64_t(1) << 24;                        // float32 holds every integer up to 2^24 exactly
constexpr uint32_t kDefaultTarget = 8192;                             // the group target's default largest side
constexpr size_t kMaxDirectKeys = 4;                                  // key columns group_by.vert reads (keys[4])
constexpr size_t kMaxValues = 8;                                      // value columns one pass reads (vals[8])
constexpr uint32_t kMaxAttachments = 8;                               // group_by.frag's outputs
constexpr uint32_t kPerAttachment = 4;                                // channels per RGBA32F attachment
constexpr uint64_t kTargetBudget = uint64_t(1) << 30;                 // bytes of targets one pass may hold
constexpr uint64_t kMaxPlaneCounts = uint64_t(1) << 31;               // host counts (groups x channels) at most
constexpr uint32_t kNoGroup = 0xffffffffu;                            // id of a record outside the selection
constexpr float kMinClear = float(kExact);                            // above every 24-bit key part
constexpr GLuint kSelectionUnit = 4, kValueUnit = 5, kHighUnit = 13;  // texture units of the shaders

// How a channel's values combine at a pixel.
enum class Blend { Add, Min, Max };

// group_by.frag's channel kinds.
enum class ChannelKind : uint32_t {
  Zero = 0,
  One = 1,
  Bit = 2,
  FloatPlane = 3,
  Special = 4,
  KeyHigh = 5,
  KeyLowMin = 6,
  KeyLowMax = 7,
};

// One channel: what group_by.frag writes per record (kind, value column, parameters a and b), how
// it blends, and its result per group once every chunk is added (Add) or compared (Min, Max).
struct Channel {
  ChannelKind kind = ChannelKind::One;
  Blend blend = Blend::Add;
  size_t slot = 0;  // the input slot of its value column (unused by One)
  uint32_t a = 0, b = 0;
  std::vector<int64_t> result;
  auto key() const { return std::tuple(uint32_t(kind), uint32_t(blend), slot, a, b); }
};

// One blending pass: its attachments (each up to 4 channels of one blend equation, channel
// c of attachment k at component c) and the value columns it reads.
struct Pass {
  std::vector<std::vector<size_t>> attachments;  // channel indices
  std::vector<size_t> slots;                     // value columns, vals[i] = slot i
};

const char* blend_name(Blend b) {
  switch (b) {
    case Blend::Add: return "GL_FUNC_ADD";
    case Blend::Min: return "GL_MIN";
    case Blend::Max: return "GL_MAX";
  }
  return "?";
}

GLenum blend_equation(Blend b) {
  return b == Blend::Add ? GL_FUNC_ADD : (b == Blend::Min ? GL_MIN : GL_MAX);
}

// The order key of cell `row` of an Int32 or Float32 column.
uint32_t cell_key(const Column& column, uint64_t row) {
  return column.type == Type::Float32 ? float_key(column.as<float>()[row]) : int_key(column.as<int32_t>()[row]);
}

// Resets the GL state the blending passes touch (restore_default_state, blending per attachment,
// dithering, the texture units, the viewport) on return and on error.
class GroupState {
 public:
  GroupState() {
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glCreateVertexArrays(1, &vertex_array_);  // core profile draws need a bound VAO
  }
  // Sets the state of the blending passes (again after a sort, which resets it on return).
  void apply() const {
    glBindVertexArray(vertex_array_);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_SCISSOR_TEST);
    // Dithering has no effect on float targets, but NVIDIA warns about it on such draws.
    glDisable(GL_DITHER);
    glPointSize(1.0f);
  }
  ~GroupState() {
    restore_default_state(false);
    for (GLuint i = 0; i < kMaxAttachments; ++i) {
      glDisablei(GL_BLEND, i);
      glBlendEquationi(i, GL_FUNC_ADD);
      glBlendFunci(i, GL_ONE, GL_ZERO);
    }
    glEnable(GL_DITHER);
    for (GLuint unit = 0; unit <= kHighUnit; ++unit) glBindTextureUnit(unit, 0);
    if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  GroupState(const GroupState&) = delete;
  GroupState& operator=(const GroupState&) = delete;

 private:
  GLint viewport_[4] = {0, 0, 0, 0};
  GLuint vertex_array_ = 0;
};

// GL textures and one framebuffer, deleted on return and on error.
struct Objects {
  std::vector<GLuint> textures;
  GLuint framebuffer = 0;
  Objects() = default;
  Objects(const Objects&) = delete;
  Objects& operator=(const Objects&) = delete;
  ~Objects() {
    if (framebuffer) glDeleteFramebuffers(1, &framebuffer);
    if (!textures.empty()) glDeleteTextures(GLsizei(textures.size()), textures.data());
  }
  GLuint texture(GLenum target) {
    GLuint t = 0;
    glCreateTextures(target, 1, &t);
    textures.push_back(t);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    return t;
  }
};

// The dense ids of the groups: how they are made and what the keys of id g are.
struct Ids {
  GroupIds mode = GroupIds::Direct;
  uint64_t range = 0;                       // ids 0 .. range - 1
  std::vector<uint32_t> lo, stride, span;   // Direct: per key column
  std::vector<std::vector<uint32_t>> keys;  // Rank: [key column][id]
  std::unique_ptr<TextureStore> id_store;   // Rank: the id of each record (kNoGroup outside the selection)
  std::string text;                         // for the algorithm
};

// The product of the key columns' spans, or nullopt past `limit`.
std::optional<uint64_t> key_range(const RasterInput& input, const std::vector<size_t>& key_slots, uint64_t limit) {
  uint64_t product = 1;
  for (size_t s : key_slots) {
    const KeyRange& k = input.store().info(s).keys;
    product *= uint64_t(k.hi) - k.lo + 1;
    if (product > limit) return std::nullopt;
  }
  return product;
}

// Where the group target cannot hold `groups` groups: Unsupported naming the sizes.
[[noreturn]] void too_many_groups(const std::string& groups, uint32_t width, uint32_t height) {
  throw Error(ErrorCode::Unsupported,
              "raster GROUP BY: " + groups + " do not fit the group target of " + std::to_string(width) + "x" +
                  std::to_string(height) + " pixels (one pixel per group; the raster path blends each group into " +
                  "its own pixel, and the largest target is the driver's or RasterOptions::group_width x " +
                  "group_height)");
}

}  // namespace

Value GroupByOutput::value(size_t a, size_t g) const {
  switch (kinds.at(a)) {
    case AggKind::Count: return static_cast<int64_t>(counts.at(g));
    case AggKind::Sum:
      if (types[a] == Type::Float32) return canonical_double(float_sums[a].at(g));
      return int_sum_result(sums[a].at(g), names[a]);
    case AggKind::Avg:
      if (types[a] == Type::Float32) return canonical_double(float_sums[a].at(g) / double(counts[g]));
      return int_average(sums[a].at(g), counts[g]);
    case AggKind::Min:
    case AggKind::Max:
      if (types[a] == Type::Float32) return float_from_key(extremes[a].at(g));
      return int_from_key(extremes[a].at(g));
    default: break;
  }
  throw Error(ErrorCode::Internal, "raster GROUP BY: no value for " + names[a]);
}

namespace {

// One GROUP BY execution: the plan of channels and passes, the GL objects, and the results.
class Grouping {
 public:
  Grouping(Context& context, const GroupState& state, const RasterInput& input, const std::vector<size_t>& key_slots,
           const GroupSelection& selection, const RasterOptions& options)
      : context_(context),
        state_(state),
        input_(input),
        key_slots_(key_slots),
        selection_(selection),
        options_(options) {
    const GlCapabilities& caps = context.caps();
    const int max_width = std::min({caps.max_texture_size, caps.max_framebuffer_width, caps.max_renderbuffer_size});
    const int max_height = std::min({caps.max_texture_size, caps.max_framebuffer_height, caps.max_renderbuffer_size});
    max_width_ = options.group_width ? options.group_width : std::min<uint32_t>(kDefaultTarget, uint32_t(max_width));
    max_height_ =
        options.group_height ? options.group_height : std::min<uint32_t>(kDefaultTarget, uint32_t(max_height));
    if (max_width_ > uint32_t(max_width) || max_height_ > uint32_t(max_height))
      throw Error(ErrorCode::InvalidQuery, "raster GROUP BY: group target " + std::to_string(max_width_) + "x" +
                                               std::to_string(max_height_) + " is larger than the driver allows (" +
                                               std::to_string(max_width) + "x" + std::to_string(max_height) + ")");
    chunk_ = std::min(kExact, options.group_chunk_rows ? options.group_chunk_rows : kExact);
  }

  // The channel of this description, added once (aggregates reading the same planes share them).
  size_t channel(ChannelKind kind, Blend blend, size_t slot, uint32_t a, uint32_t b) {
    Channel c;
    c.kind = kind;
    c.blend = blend;
    c.slot = kind == ChannelKind::One ? 0 : slot;
    c.a = a;
    c.b = b;
    for (size_t i = 0; i < channels_.size(); ++i)
      if (channels_[i].key() == c.key()) return i;
    channels_.push_back(std::move(c));
    return channels_.size() - 1;
  }

  // Makes the ids: Direct when the keys' spans fit (or forced), else Rank by the raster sort.
  void make_ids(std::vector<PassRecord>& passes) {
    const uint64_t capacity = uint64_t(max_width_) * max_height_;
    const auto range = key_range(input_, key_slots_, capacity);
    GroupIds mode = options_.group_ids;
    if (mode == GroupIds::Auto) mode = range && key_slots_.size() <= kMaxDirectKeys ? GroupIds::Direct : GroupIds::Rank;
    if (mode == GroupIds::Direct && (!range || key_slots_.size() > kMaxDirectKeys)) {
      if (key_slots_.size() > kMaxDirectKeys)
        throw Error(ErrorCode::Unsupported,
                    "raster GROUP BY: direct group ids read at most 4 key columns, the query has " +
                        std::to_string(key_slots_.size()));
      too_many_groups("the key ranges' product of values", max_width_, max_height_);
    }
    ids_.mode = mode;
    std::string names;
    for (size_t s : key_slots_) names += (names.empty() ? "" : ", ") + input_.store().info(s).name;
    if (mode == GroupIds::Direct) {
      ids_.range = *range;
      uint64_t stride = 1;
      ids_.lo.resize(key_slots_.size());
      ids_.stride.resize(key_slots_.size());
      ids_.span.resize(key_slots_.size());
      for (size_t i = key_slots_.size(); i-- > 0;) {
        const KeyRange& k = input_.store().info(key_slots_[i]).keys;
        ids_.lo[i] = k.lo;
        ids_.span[i] = k.hi - k.lo + 1;  // the product fits, so no span is 2^32
        ids_.stride[i] = uint32_t(stride);
        stride *= ids_.span[i];
      }
      ids_.text = "direct group ids from the keys of (" + names + "): sum of (order key - smallest) * stride, " +
                  std::to_string(ids_.range) + " ids";
      return;
    }
    rank(names, passes);
  }

  // Rank ids: the selected rows sorted by the key tuple on the GPU (a stable sort per key column,
  // last column first), ranked on the host, uploaded as one R32UI id per record.
  void rank(const std::string& names, std::vector<PassRecord>& passes) {
    const uint64_t rows = input_.store().layout().rows;
    std::vector<uint64_t> order;
    bool all = false;
    if (selection_.rows) {
      order = *selection_.rows;
    } else if (selection_.stencil) {
      order = stencil_rows(*selection_.stencil, passes);
    } else {
      all = true;
    }
    for (size_t i = key_slots_.size(); i-- > 0;) {
      SortOutput sorted = sort_rows(context_, input_, key_slots_[i], false, options_, all ? nullptr : &order);
      all = false;
      order = std::move(sorted.rows);
      for (auto& p : sorted.passes) {
        p.detail = input_.store().info(key_slots_[i]).name + ": " + p.detail;
        passes.push_back(std::move(p));
      }
    }
    const auto start = Clock::now();
    std::vector<const Column*> columns;
    for (size_t s : key_slots_) columns.push_back(&input_.table().columns.at(input_.columns().at(s)));
    std::vector<int32_t> ids(rows, std::bit_cast<int32_t>(kNoGroup));
    ids_.keys.assign(key_slots_.size(), {});
    uint64_t groups = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      const uint64_t row = order[i];
      bool same = i > 0;
      for (size_t k = 0; k < columns.size() && same; ++k) same = cell_key(*columns[k], row) == ids_.keys[k].back();
      if (!same) {
        ++groups;
        if (groups > uint64_t(max_width_) * max_height_)
          too_many_groups("more than " + std::to_string(groups - 1) + " groups", max_width_, max_height_);
        for (size_t k = 0; k < columns.size(); ++k) ids_.keys[k].push_back(cell_key(*columns[k], row));
      }
      ids[row] = int32_t(groups - 1);
    }
    ids_.range = groups;
    ids_.id_store = std::make_unique<TextureStore>(context_, input_.store().layout());
    ids_.id_store->add(Column::ints("group id", std::move(ids)));
    PassRecord upload;
    upload.kind = "upload";
    upload.detail = "group ids: ranks of the sorted key tuples of (" + names +
                    "), one R32UI per record (0xffffffff outside the selection)";
    upload.items = rows;
    upload.wall_ms = ms_since(start);
    passes.push_back(std::move(upload));
    ids_.text = "rank group ids: raster sort of the " + std::to_string(order.size()) + " selected rows by (" + names +
                "), " + std::to_string(key_slots_.size()) + " stable sort(s), last key first, ranked on the host, " +
                std::to_string(groups) + " groups";
  }

  // The row ids a kept stencil selects (a stencil readback per tile).
  std::vector<uint64_t> stencil_rows(const KeptStencil& kept, std::vector<PassRecord>& passes) {
    const auto start = Clock::now();
    const TileLayout& layout = input_.store().layout();
    std::vector<uint8_t> stencil(layout.tile_records());
    std::vector<uint64_t> rows;
    context_.finish("raster GROUP BY: the kept stencil's readback");
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (uint64_t t = 0; t < layout.tiles(); ++t) {
      glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(kept.framebuffers.at(t)));
      glReadPixels(0, 0, GLsizei(layout.width), GLsizei(layout.pixel_rows(t)), GL_STENCIL_INDEX, GL_UNSIGNED_BYTE,
                   stencil.data());
      for (uint64_t i = 0; i < layout.records(t); ++i)
        if ((stencil[i] & kept.mask) == uint32_t(kept.state)) rows.push_back(t * layout.tile_records() + i);
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    check_error("raster GROUP BY stencil readback");
    PassRecord p;
    p.kind = "readback";
    p.detail = "the WHERE's kept stencil per tile (glReadPixels GL_STENCIL_INDEX): row ids for the rank sort";
    p.items = layout.rows;
    p.passed = rows.size();
    p.wall_ms = ms_since(start);
    passes.push_back(std::move(p));
    return rows;
  }

  // Runs the channels `round` names: packed into passes, each drawn over every tile in chunks.
  void run_round(const std::vector<size_t>& round, const std::string& title, std::vector<PassRecord>& passes) {
    if (round.empty()) return;
    std::vector<size_t> ordered = round;
    std::stable_sort(ordered.begin(), ordered.end(), [&](size_t x, size_t y) {
      return std::tuple(uint32_t(channels_[x].blend), channels_[x].slot) <
             std::tuple(uint32_t(channels_[y].blend), channels_[y].slot);
    });
    // Attachments of one blend equation, 4 channels each; passes of up to `attachments_` of them
    // reading up to 8 value columns.
    std::vector<std::vector<size_t>> attachments;
    for (size_t c : ordered) {
      if (attachments.empty() || attachments.back().size() == kPerAttachment ||
          channels_[attachments.back().front()].blend != channels_[c].blend)
        attachments.emplace_back();
      attachments.back().push_back(c);
    }
    std::vector<Pass> plan;
    for (auto& a : attachments) {
      std::vector<size_t> slots = plan.empty() ? std::vector<size_t>{} : plan.back().slots;
      for (size_t c : a)
        if (channels_[c].kind != ChannelKind::One &&
            std::find(slots.begin(), slots.end(), channels_[c].slot) == slots.end())
          slots.push_back(channels_[c].slot);
      if (plan.empty() || plan.back().attachments.size() == attachments_ || slots.size() > kMaxValues) {
        plan.emplace_back();
        slots.clear();
        for (size_t c : a)
          if (channels_[c].kind != ChannelKind::One &&
              std::find(slots.begin(), slots.end(), channels_[c].slot) == slots.end())
            slots.push_back(channels_[c].slot);
      }
      plan.back().attachments.push_back(std::move(a));
      plan.back().slots = std::move(slots);
    }
    PassRecord record;
    record.kind = "group-blend";
    record.wall_ms = 0;
    PassRecord readback;
    readback.kind = "group-readback";
    uint64_t chunks = 0;
    double gpu_ms = 0;
    bool timed = options_.pass_queries && context_.caps().timer_counter_bits > 0;
    for (const Pass& pass : plan) run_pass(pass, record, readback, chunks, gpu_ms, timed);
    record.detail = title + ": " + std::to_string(round.size()) + " channel(s) in " + std::to_string(plan.size()) +
                    " pass(es) of up to " + std::to_string(attachments_) + " RGBA32F attachment(s) of " +
                    std::to_string(width_) + "x" + std::to_string(height_) +
                    ", one GL_POINTS point per record at its group's pixel, blending " + blend_summary(round) + ", " +
                    std::to_string(chunks) + " chunk(s) of at most " + std::to_string(chunk_) +
                    " records per additive pass; items: points drawn";
    if (timed) record.gpu_ms = gpu_ms;
    readback.detail = title +
                      ": glGetTextureSubImage of the targets after every chunk, added (or compared) on the "
                      "host in 64 bits; items: group pixels read";
    passes.push_back(std::move(record));
    passes.push_back(std::move(readback));
  }

  std::string blend_summary(const std::vector<size_t>& round) const {
    std::string s;
    for (Blend b : {Blend::Add, Blend::Min, Blend::Max}) {
      const auto n = std::count_if(round.begin(), round.end(), [&](size_t c) { return channels_[c].blend == b; });
      if (n) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + blend_name(b);
    }
    return s;
  }

  // Sets up the group target for `range` groups.
  void make_target() {
    width_ = uint32_t(std::min<uint64_t>(ids_.range, max_width_));
    height_ = uint32_t((ids_.range + width_ - 1) / width_);
    GLint draw_buffers = 0, color_attachments = 0;
    glGetIntegerv(GL_MAX_DRAW_BUFFERS, &draw_buffers);
    glGetIntegerv(GL_MAX_COLOR_ATTACHMENTS, &color_attachments);
    const uint64_t pixel_bytes = uint64_t(width_) * height_ * 16;
    attachments_ = std::min<uint32_t>({kMaxAttachments, uint32_t(std::max(draw_buffers, 1)),
                                       uint32_t(std::max(color_attachments, 1)),
                                       uint32_t(std::max<uint64_t>(1, kTargetBudget / pixel_bytes))});
    if (options_.group_attachments) attachments_ = std::min(attachments_, options_.group_attachments);
    for (uint32_t k = 0; k < attachments_; ++k) {
      const GLuint t = gl_.texture(GL_TEXTURE_2D);
      texture_storage(context_, t, GL_RGBA32F, width_, height_,
                      "GROUP BY group target " + std::to_string(k + 1) + " of " + std::to_string(attachments_));
      targets_.push_back(t);
    }
    glCreateFramebuffers(1, &gl_.framebuffer);
    for (uint32_t k = 0; k < attachments_; ++k)
      glNamedFramebufferTexture(gl_.framebuffer, GL_COLOR_ATTACHMENT0 + k, targets_[k], 0);
    const GLenum status = glCheckNamedFramebufferStatus(gl_.framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw Error(ErrorCode::Internal,
                  "raster GROUP BY: group target framebuffer incomplete (status " + std::to_string(status) + ")");
    program_ = context_.program("group_by.vert", "group_by.frag");
    glProgramUniform1ui(program_, 0, input_.store().layout().width);
    glProgramUniform1ui(program_, 1, ids_.mode == GroupIds::Direct ? 0u : 1u);
    glProgramUniform1ui(program_, 2, ids_.mode == GroupIds::Direct ? uint32_t(key_slots_.size()) : 0u);
    glProgramUniform2ui(program_, 7, width_, height_);
    if (ids_.mode == GroupIds::Direct)
      for (size_t i = 0; i < key_slots_.size(); ++i) {
        glProgramUniform1ui(program_, GLint(8 + i), input_.store().info(key_slots_[i]).type == Type::Float32);
        glProgramUniform1ui(program_, GLint(12 + i), ids_.lo[i]);
        glProgramUniform1ui(program_, GLint(16 + i), ids_.stride[i]);
      }
    uint32_t sel_mode = 0, sel_mask = 0, sel_state = 0;
    if (selection_.stencil && ids_.mode == GroupIds::Direct) {
      sel_mode = 1;
      sel_mask = selection_.stencil->mask;
      sel_state = uint32_t(selection_.stencil->state);
      if (selection_.stencil->textures.size() != input_.store().layout().tiles())
        throw Error(ErrorCode::Internal, "raster GROUP BY: the kept stencil has no texture per tile");
      selection_textures_ = selection_.stencil->textures;
    } else if (selection_.rows && ids_.mode == GroupIds::Direct) {
      sel_mode = 1;
      sel_mask = 1;
      sel_state = 1;
      upload_row_mask();
    }
    glProgramUniform1ui(program_, 3, sel_mode);
    glProgramUniform1ui(program_, 4, sel_mask);
    glProgramUniform1ui(program_, 5, sel_state);
    check_error("raster GROUP BY setup");
  }

  // Selected row ids as one R8UI mask texture per tile (1: selected).
  void upload_row_mask() {
    const TileLayout& layout = input_.store().layout();
    std::vector<uint8_t> mask(layout.tile_records());
    size_t next = 0;
    const std::vector<uint64_t>& rows = *selection_.rows;
    for (uint64_t t = 0; t < layout.tiles(); ++t) {
      std::fill(mask.begin(), mask.end(), uint8_t(0));
      const uint64_t first = t * layout.tile_records(), end = first + layout.records(t);
      for (; next < rows.size() && rows[next] < end; ++next)
        if (rows[next] >= first) mask[rows[next] - first] = 1;
      const GLuint texture = gl_.texture(GL_TEXTURE_2D);
      texture_storage(context_, texture, GL_R8UI, layout.width, layout.pixel_rows(t),
                      "the GROUP BY's selection mask of tile " + std::to_string(t));
      glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
      glTextureSubImage2D(texture, 0, 0, 0, GLsizei(layout.width), GLsizei(layout.pixel_rows(t)), GL_RED_INTEGER,
                          GL_UNSIGNED_BYTE, mask.data());
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
      selection_textures_.push_back(texture);
    }
  }

  // Uploads the high 24 bits of every MIN/MAX result, one layer per aggregate, for round two.
  void upload_high(const std::vector<size_t>& high_channels) {
    const GLuint texture = gl_.texture(GL_TEXTURE_2D_ARRAY);
    texture_array_storage(context_, texture, GL_R32UI, width_, height_, uint32_t(high_channels.size()),
                          "the GROUP BY's MIN/MAX high parts");
    std::vector<uint32_t> layer(uint64_t(width_) * height_, 0);
    for (size_t l = 0; l < high_channels.size(); ++l) {
      const auto& result = channels_[high_channels[l]].result;
      for (uint64_t g = 0; g < ids_.range; ++g) layer[g] = uint32_t(std::clamp<int64_t>(result[g], 0, kExact - 1));
      glTextureSubImage3D(texture, 0, 0, 0, GLint(l), GLsizei(width_), GLsizei(height_), 1, GL_RED_INTEGER,
                          GL_UNSIGNED_INT, layer.data());
    }
    glBindTextureUnit(kHighUnit, texture);
    check_error("raster GROUP BY high parts upload");
  }

  std::vector<Channel>& channels() { return channels_; }
  const Ids& ids() const { return ids_; }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }

 private:
  // One pass: clear, draw every tile's records in chunks, read back and combine after each chunk.
  void run_pass(const Pass& pass, PassRecord& record, PassRecord& readback, uint64_t& chunks, double& gpu_ms,
                bool timed) {
    const auto start = Clock::now();
    state_.apply();
    glUseProgram(program_);
    glBindFramebuffer(GL_FRAMEBUFFER, gl_.framebuffer);
    glViewport(0, 0, GLsizei(width_), GLsizei(height_));
    const auto n = GLsizei(pass.attachments.size());
    std::vector<GLenum> buffers(n);
    bool additive = false;
    for (GLsizei k = 0; k < n; ++k) {
      buffers[k] = GL_COLOR_ATTACHMENT0 + GLenum(k);
      const Blend b = channels_[pass.attachments[k].front()].blend;
      additive = additive || b == Blend::Add;
      glEnablei(GL_BLEND, GLuint(k));
      glBlendEquationi(GLuint(k), blend_equation(b));
      glBlendFunci(GLuint(k), GL_ONE, GL_ONE);
    }
    glNamedFramebufferDrawBuffers(gl_.framebuffer, n, buffers.data());
    std::vector<GLuint> descriptors(4 * kPerAttachment * kMaxAttachments, 0);
    for (GLsizei k = 0; k < n; ++k)
      for (size_t i = 0; i < pass.attachments[k].size(); ++i) {
        const Channel& c = channels_[pass.attachments[k][i]];
        const size_t value = c.kind == ChannelKind::One
                                 ? 0
                                 : size_t(std::find(pass.slots.begin(), pass.slots.end(), c.slot) - pass.slots.begin());
        GLuint* d = &descriptors[4 * (k * kPerAttachment + i)];
        d[0] = uint32_t(c.kind);
        d[1] = uint32_t(value);
        d[2] = c.a;
        d[3] = c.b;
      }
    glProgramUniform1ui(program_, 33, uint32_t(n) * kPerAttachment);
    glProgramUniform4uiv(program_, 34, GLsizei(kPerAttachment * kMaxAttachments), descriptors.data());
    glProgramUniform1ui(program_, 6, uint32_t(pass.slots.size()));

    const auto clear = [&] {
      for (GLsizei k = 0; k < n; ++k) {
        const Blend b = channels_[pass.attachments[k].front()].blend;
        const float v = b == Blend::Add ? 0.0f : (b == Blend::Min ? kMinClear : -1.0f);
        const GLfloat value[4] = {v, v, v, v};
        glClearNamedFramebufferfv(gl_.framebuffer, GL_COLOR, GLint(k), value);
      }
    };
    std::vector<float> pixels(uint64_t(width_) * height_ * 4);
    const auto flush = [&] {
      const auto read_start = Clock::now();
      batch_.wait("raster GROUP BY: group targets after a chunk");
      for (GLsizei k = 0; k < n; ++k) {
        glGetTextureSubImage(targets_[k], 0, 0, 0, 0, GLsizei(width_), GLsizei(height_), 1, GL_RGBA, GL_FLOAT,
                             GLsizei(pixels.size() * sizeof(float)), pixels.data());
        for (size_t i = 0; i < pass.attachments[k].size(); ++i) {
          Channel& c = channels_[pass.attachments[k][i]];
          for (uint64_t g = 0; g < ids_.range; ++g) {
            const auto v = int64_t(pixels[4 * g + i]);
            int64_t& r = c.result[g];
            r = c.blend == Blend::Add ? r + v : (c.blend == Blend::Min ? std::min(r, v) : std::max(r, v));
          }
        }
        readback.items += ids_.range;
      }
      check_error("raster GROUP BY readback");
      readback.wall_ms += ms_since(read_start);
      ++chunks;
      clear();
    };
    for (auto& a : pass.attachments)
      for (size_t c : a) {
        const Blend b = channels_[c].blend;
        channels_[c].result.assign(ids_.range, b == Blend::Add ? 0 : (b == Blend::Min ? int64_t(kExact) : -1));
      }
    clear();
    // Additive passes: at most chunk_ records between readbacks, so no pixel exceeds 2^24.
    const uint64_t cap = additive ? chunk_ : std::numeric_limits<uint64_t>::max();
    const TileLayout& layout = input_.store().layout();
    uint64_t in_chunk = 0;
    GLuint timer = 0;
    const auto begin_timer = [&] {
      if (!timed || timer) return;
      timer = batch_.make(GL_TIME_ELAPSED);
      glBeginQuery(GL_TIME_ELAPSED, timer);
    };
    const auto end_timer = [&] {
      if (!timer) return;
      glEndQuery(GL_TIME_ELAPSED);
      timers_.push_back(timer);
      timer = 0;
    };
    for (uint64_t t = 0; t < layout.tiles(); ++t) {
      if (ids_.mode == GroupIds::Direct) {
        for (size_t i = 0; i < key_slots_.size(); ++i)
          glBindTextureUnit(GLuint(i), input_.store().texture(key_slots_[i], t));
      } else {
        glBindTextureUnit(0, ids_.id_store->texture(0, t));
      }
      if (!selection_textures_.empty()) glBindTextureUnit(kSelectionUnit, selection_textures_[t]);
      for (size_t i = 0; i < pass.slots.size(); ++i)
        glBindTextureUnit(GLuint(kValueUnit + i), input_.store().texture(pass.slots[i], t));
      const uint64_t records = layout.records(t);
      for (uint64_t first = 0; first < records;) {
        const uint64_t count = std::min(records - first, cap - in_chunk);
        begin_timer();
        glDrawArrays(GL_POINTS, GLint(first), GLsizei(count));
        record.items += count;
        first += count;
        in_chunk += count;
        if (in_chunk == cap) {
          end_timer();
          flush();
          in_chunk = 0;
        }
      }
    }
    end_timer();
    if (in_chunk > 0) flush();
    for (GLsizei k = 0; k < n; ++k) glDisablei(GL_BLEND, GLuint(k));
    check_error("raster GROUP BY pass");
    for (GLuint q : timers_) gpu_ms += double(batch_.result(q)) / 1e6;
    timers_.clear();
    record.wall_ms += ms_since(start);
  }

  Context& context_;
  const GroupState& state_;
  const RasterInput& input_;
  const std::vector<size_t>& key_slots_;
  GroupSelection selection_;
  const RasterOptions& options_;
  uint32_t max_width_ = 1, max_height_ = 1;
  uint64_t chunk_ = kExact;
  std::vector<Channel> channels_;
  Ids ids_;
  uint32_t width_ = 1, height_ = 1, attachments_ = 1;
  Objects gl_;
  std::vector<GLuint> targets_;
  std::vector<uint32_t> selection_textures_;
  GLuint program_ = 0;
  QueryBatch batch_{context_};
  std::vector<GLuint> timers_;
};

// What an aggregate reads: its channels, by role.
struct AggregatePlan {
  std::vector<std::pair<size_t, uint32_t>> bits;          // INT SUM: (channel, bit)
  int32_t base = 0;                                       // INT SUM: the column's smallest value
  std::vector<std::tuple<size_t, bool, int>> planes;      // FLOAT SUM: (channel, negative, q)
  std::optional<size_t> nan, positive_inf, negative_inf;  // FLOAT SUM: special counts
  std::optional<size_t> high, low;                        // MIN/MAX
};

}  // namespace

void check_group_aggregates(const std::vector<GroupAggregate>& aggregates) {
  for (const auto& a : aggregates)
    if (a.kind != AggKind::Count && a.kind != AggKind::Sum && a.kind != AggKind::Avg && a.kind != AggKind::Min &&
        a.kind != AggKind::Max)
      throw Error(ErrorCode::Unsupported, "raster backend cannot run " + a.name +
                                              " per group in GROUP BY (the raster GROUP BY blends COUNT, SUM, AVG, "
                                              "MIN and MAX; MEDIAN, QUANTILE and KTH_LARGEST need a search per group)");
}

GroupByOutput group_by(Context& context, const RasterInput& input, const std::vector<size_t>& key_slots,
                       const std::vector<GroupAggregate>& aggregates, const GroupSelection& selection,
                       const RasterOptions& options) {
  if (key_slots.empty()) throw Error(ErrorCode::Internal, "raster GROUP BY: no key column");
  check_group_aggregates(aggregates);
  for (const auto& a : aggregates)
    if (a.kind != AggKind::Count && !a.slot)
      throw Error(ErrorCode::Internal, "raster GROUP BY: " + a.name + " has no column");
  const TileLayout& layout = input.store().layout();
  GroupByOutput out;
  out.keys.assign(key_slots.size(), {});
  for (const auto& a : aggregates) {
    out.kinds.push_back(a.kind);
    out.names.push_back(a.name);
    out.types.push_back(a.slot ? input.store().info(*a.slot).type : Type::Int32);
  }
  out.sums.resize(aggregates.size());
  out.float_sums.resize(aggregates.size());
  out.extremes.resize(aggregates.size());
  std::string aggregate_text;
  for (const auto& a : aggregates) aggregate_text += (aggregate_text.empty() ? "" : ", ") + a.name;
  const bool empty_selection = (selection.rows && selection.rows->empty()) || layout.rows == 0;
  if (empty_selection) {
    out.algorithm = "raster GROUP BY by blending: no selected row, no group (no GPU pass)";
    return out;
  }

  GroupState state;
  Grouping grouping(context, state, input, key_slots, selection, options);
  grouping.make_ids(out.passes);
  out.ids = grouping.ids().mode;
  if (grouping.ids().range == 0) {
    out.algorithm = "raster GROUP BY by blending: " + grouping.ids().text + " (no selected row, no blending pass)";
    return out;
  }

  // The channels: COUNT always (it tells which ids are groups), then each aggregate's.
  const size_t count = grouping.channel(ChannelKind::One, Blend::Add, 0, 0, 0);
  std::vector<AggregatePlan> plans(aggregates.size());
  std::vector<size_t> highs;  // MIN/MAX high channels in layer order
  std::vector<std::string> texts;
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const GroupAggregate& a = aggregates[i];
    AggregatePlan& p = plans[i];
    if (a.kind == AggKind::Count) {
      texts.push_back(a.name + ": additive count");
      continue;
    }
    const ColumnInfo& info = input.store().info(*a.slot);
    if (a.kind == AggKind::Sum || a.kind == AggKind::Avg) {
      if (info.type == Type::Int32) {
        // sum = count * min + sum_b 2^b count_b over the bits of value - min (unsigned, < 2^32).
        p.base = info.min_int;
        const uint32_t span = uint32_t(int64_t(info.max_int) - info.min_int);
        const auto width = uint32_t(std::bit_width(span));
        for (uint32_t b = 0; b < width; ++b)
          p.bits.emplace_back(
              grouping.channel(ChannelKind::Bit, Blend::Add, *a.slot, std::bit_cast<uint32_t>(p.base), b), b);
        texts.push_back(a.name + ": " + std::to_string(width) + " additive bit planes of value - " +
                        std::to_string(p.base) + (a.kind == AggKind::Avg ? ", / COUNT" : ""));
      } else {
        const FloatBits& fb = info.float_bits;
        for (const bool negative : {false, true})
          for (const int q : fb.positions(negative))
            p.planes.emplace_back(
                grouping.channel(ChannelKind::FloatPlane, Blend::Add, *a.slot, negative ? 1u : 0u, uint32_t(q)),
                negative, q);
        if (fb.nan) p.nan = grouping.channel(ChannelKind::Special, Blend::Add, *a.slot, 0, 0);
        if (fb.positive_inf) p.positive_inf = grouping.channel(ChannelKind::Special, Blend::Add, *a.slot, 1, 0);
        if (fb.negative_inf) p.negative_inf = grouping.channel(ChannelKind::Special, Blend::Add, *a.slot, 2, 0);
        texts.push_back(
            a.name + ": " + std::to_string(p.planes.size()) + " additive exact fixed-point planes of M << s, " +
            std::to_string(size_t(fb.nan) + size_t(fb.positive_inf) + size_t(fb.negative_inf)) +
            " non-finite counts, exact sum per group rounded once" + (a.kind == AggKind::Avg ? ", / COUNT" : ""));
      }
      continue;
    }
    const Blend b = a.kind == AggKind::Min ? Blend::Min : Blend::Max;
    const uint32_t is_float = info.type == Type::Float32 ? 1u : 0u;
    p.high = grouping.channel(ChannelKind::KeyHigh, b, *a.slot, is_float, 0);
    const auto layer = std::find(highs.begin(), highs.end(), *p.high);
    const auto index = uint32_t(layer - highs.begin());
    if (layer == highs.end()) highs.push_back(*p.high);
    p.low = grouping.channel(a.kind == AggKind::Min ? ChannelKind::KeyLowMin : ChannelKind::KeyLowMax, b, *a.slot,
                             is_float, index);
    texts.push_back(a.name + ": " + blend_name(b) +
                    " blending of the order key's high 24 bits, then of its low 8 bits "
                    "where the high bits are the group's");
  }
  const uint64_t counts = uint64_t(grouping.channels().size()) * grouping.ids().range;
  if (counts > kMaxPlaneCounts)
    throw Error(ErrorCode::Unsupported, "raster GROUP BY: " + std::to_string(grouping.channels().size()) +
                                            " channels x " + std::to_string(grouping.ids().range) +
                                            " groups would hold more than 2^31 counts on the host");

  grouping.make_target();
  std::vector<size_t> first_round, second_round;
  for (size_t c = 0; c < grouping.channels().size(); ++c) {
    const ChannelKind k = grouping.channels()[c].kind;
    (k == ChannelKind::KeyLowMin || k == ChannelKind::KeyLowMax ? second_round : first_round).push_back(c);
  }
  grouping.run_round(first_round, "round 1 (counts, bit planes, high key parts)", out.passes);
  if (!second_round.empty()) {
    grouping.upload_high(highs);
    grouping.run_round(second_round, "round 2 (low key parts where the high part is the group's)", out.passes);
  }

  // The groups: the ids with records, ascending; their keys and aggregates.
  const auto& channels = grouping.channels();
  const Ids& ids = grouping.ids();
  for (uint64_t g = 0; g < ids.range; ++g) {
    const int64_t n = channels[count].result[g];
    if (n == 0) continue;
    const size_t group = out.counts.size();
    out.counts.push_back(uint64_t(n));
    for (size_t k = 0; k < key_slots.size(); ++k)
      out.keys[k].push_back(ids.mode == GroupIds::Direct ? ids.lo[k] + uint32_t(g / ids.stride[k] % ids.span[k])
                                                         : ids.keys[k][g]);
    for (size_t i = 0; i < aggregates.size(); ++i) {
      const AggregatePlan& p = plans[i];
      switch (aggregates[i].kind) {
        case AggKind::Sum:
        case AggKind::Avg:
          if (out.types[i] == Type::Int32) {
            __int128 sum = __int128(n) * p.base;
            for (const auto& [c, b] : p.bits) sum += __int128(channels[c].result[g]) << b;
            out.sums[i].push_back(sum);
          } else {
            const auto has = [&](const std::optional<size_t>& c) { return c && channels[*c].result[g] > 0; };
            const auto special = special_sum(has(p.nan), has(p.positive_inf), has(p.negative_inf));
            if (special) {
              out.float_sums[i].push_back(*special);
            } else {
              std::vector<ExactTerm> terms;
              for (const auto& [c, negative, q] : p.planes)
                if (const int64_t v = channels[c].result[g])
                  terms.push_back({negative ? -__int128(v) : __int128(v), q});
              out.float_sums[i].push_back(exact_sum(terms));
            }
          }
          break;
        case AggKind::Min:
        case AggKind::Max: {
          const int64_t high = channels[*p.high].result[g], low = channels[*p.low].result[g];
          if (high < 0 || high >= int64_t(kExact) || low < 0 || low > 0xff)
            throw Error(ErrorCode::Internal, "raster GROUP BY: " + aggregates[i].name + " of group " +
                                                 std::to_string(group) + " blended to parts " + std::to_string(high) +
                                                 ", " + std::to_string(low) + ", outside the key's parts");
          out.extremes[i].push_back(uint32_t(high) << 8 | uint32_t(low));
          break;
        }
        default: break;
      }
    }
  }
  std::string text = "raster GROUP BY by blending (" + ids.text + "; group target " + std::to_string(grouping.width()) +
                     "x" + std::to_string(grouping.height()) + ", " + std::to_string(out.groups()) + " groups";
  for (const auto& t : texts) text += "; " + t;
  out.algorithm = text + ")";
  return out;
}

}  // namespace gfxq::gl
