#include "gl/join.h"

#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_map>

#include "core/key_compare.h"
#include "core/order_key.h"
#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/select.h"
#include "gl/sort.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kWindow = 1u << 24;       // depth values v < 2^24 are exact
constexpr uint64_t kProbeBatch = 4096;       // probes whose passes are issued before any count is read
constexpr uint64_t kSearchBatch = 1u << 18;  // probes per search draw (2 counts each at most)
constexpr uint32_t kSearchWidth = 1024;      // counts per row of a search draw

// Resets the GL state (restore_default_state) and the viewport on return and on error.
class JoinState {
 public:
  explicit JoinState(bool depth_bounds) : depth_bounds_(depth_bounds) {
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glCreateVertexArrays(1, &vertex_array_);  // core profile draws need a bound VAO
    glBindVertexArray(vertex_array_);
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);  // depth k * 2^-24 stored unchanged
  }
  ~JoinState() {
    restore_default_state(depth_bounds_);
    if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  JoinState(const JoinState&) = delete;
  JoinState& operator=(const JoinState&) = delete;

 private:
  bool depth_bounds_;
  GLint viewport_[4] = {0, 0, 0, 0};
  GLuint vertex_array_ = 0;
};

// Query objects reused batch after batch (a join issues millions of counts).
class QueryPool {
 public:
  QueryPool() = default;
  ~QueryPool() {
    if (!queries_.empty()) glDeleteQueries(GLsizei(queries_.size()), queries_.data());
  }
  QueryPool(const QueryPool&) = delete;
  QueryPool& operator=(const QueryPool&) = delete;
  // At least n GL_SAMPLES_PASSED queries.
  const std::vector<GLuint>& reserve(size_t n) {
    if (queries_.size() < n) {
      const size_t before = queries_.size();
      queries_.resize(n);
      glCreateQueries(GL_SAMPLES_PASSED, GLsizei(n - before), queries_.data() + before);
    }
    return queries_;
  }

 private:
  std::vector<GLuint> queries_;
};

// Which tables a WHERE clause reads: (left, right).
std::pair<bool, bool> clause_sides(const BoundClause& clause) {
  bool reads_left = false, reads_right = false;
  for (const auto& term : clause.terms) {
    const auto use = [&](const BoundColumn& c) { (c.side == Side::Left ? reads_left : reads_right) = true; };
    use(term.lhs);
    if (const auto* c = std::get_if<BoundColumn>(&term.rhs)) use(*c);
  }
  return {reads_left, reads_right};
}

// WHERE clauses that read only the left or only the right table (join_unsupported refuses others).
std::pair<BoundCnf, BoundCnf> split_where(const BoundCnf& where) {
  BoundCnf left, right;
  for (const auto& clause : where.clauses) (clause_sides(clause).second ? right : left).clauses.push_back(clause);
  return {std::move(left), std::move(right)};
}

// The lowest key satisfying `p` (a lower bound: Ge or Gt), or nullopt for none.
std::optional<uint32_t> lowest(const KeyPredicate& p) {
  if (p.kind == KeyPredicate::Kind::Always) return 0u;
  if (p.kind == KeyPredicate::Kind::Never) return std::nullopt;
  if (p.op == CmpOp::Ge) return p.key;
  if (p.op == CmpOp::Gt) return p.key == UINT32_MAX ? std::nullopt : std::optional<uint32_t>(p.key + 1);
  throw Error(ErrorCode::Internal, "raster join: a lower bound translated to " + std::string(to_string(p.op)));
}

// The highest key satisfying `p` (an upper bound: Le or Lt), or nullopt for none.
std::optional<uint32_t> highest(const KeyPredicate& p) {
  if (p.kind == KeyPredicate::Kind::Always) return UINT32_MAX;
  if (p.kind == KeyPredicate::Kind::Never) return std::nullopt;
  if (p.op == CmpOp::Le) return p.key;
  if (p.op == CmpOp::Lt) return p.key == 0 ? std::nullopt : std::optional<uint32_t>(p.key - 1);
  throw Error(ErrorCode::Internal, "raster join: an upper bound translated to " + std::string(to_string(p.op)));
}

double depth_of(uint32_t v) {
  return double(v) * 0x1p-24;
}

// One count of the probe phase: keys < c (Lt) or keys in [a, b] (Bounds), over every inner tile.
struct Count {
  uint32_t a = 0, b = 0;  // Lt: c = a; Bounds: [a, b]
};

// The inner relation in sorted order on the GPU and the probe passes over it.
class Inner {
 public:
  Inner(Context& context, const SortOutput& sorted, const RasterOptions& options, const JoinPlan& plan,
        std::vector<PassRecord>& passes)
      : context_(context),
        layout_(inner_layout(context, sorted.keys.size(), options)),
        store_(context, layout_),
        plan_(plan),
        cap_(fragments_per_query(context.caps(), options.max_fragments_per_query)),
        timed_(options.pass_queries && context.caps().timer_counter_bits > 0),
        vertex_depth_(options.vertex_constant_depth) {
    const auto start = Clock::now();
    if (plan_.route == JoinRoute::Search) {
      upload_search_keys(sorted, passes);
      return;
    }
    std::vector<int32_t> cells(sorted.keys.size());
    for (size_t i = 0; i < cells.size(); ++i) cells[i] = int_from_key(sorted.keys[i]);  // int_key(cell) = key
    store_.add(Column::ints("sorted key", std::move(cells)));
    PassRecord upload;
    upload.kind = "upload";
    upload.detail = "sorted inner keys as R32UI tiles of " + std::to_string(layout_.width) + "x" +
                    std::to_string(layout_.height) + " (" + std::to_string(layout_.tiles()) + " tile(s))";
    upload.items = layout_.rows;
    upload.wall_ms = ms_since(start);
    passes.push_back(std::move(upload));
    build(passes);
    for (uint64_t t = 0; t < layout_.tiles(); ++t)
      bands_.push_back(count_bands(layout_.width, layout_.pixel_rows(t), cap_));
    for (const auto& b : bands_) queries_per_count_ += b.size();
  }

  const TileLayout& layout() const noexcept { return layout_; }

  // Issues `counts` of one kind (`bounds`: keys in [a, b], else keys < a), every tile, and
  // returns the counts. `record` gets the fragments drawn, the fragments passed and the times.
  std::vector<uint64_t> run(const std::vector<Count>& counts, bool bounds, PassRecord& record) {
    if (counts.empty()) return {};
    if (plan_.route == JoinRoute::Search) return search(counts, record);
    const auto issued = Clock::now();
    const std::vector<GLuint>& queries = pool_.reserve(counts.size() * queries_per_count_);
    const GLuint timer = timed_ ? timers_.make(GL_TIME_ELAPSED) : 0;
    std::optional<ScopedQuery> timing;
    if (timed_) timing.emplace(GL_TIME_ELAPSED, timer);
    const bool compare = plan_.route == JoinRoute::KeyCompare;
    GLuint program = 0;
    if (compare) {
      program = context_.program("fullscreen.vert", "raster_key_ge.frag");
      glProgramUniform1ui(program, 2, 0u);  // the texture holds int_from_key(key): its INT key is the key
      glDisable(GL_DEPTH_TEST);
    } else if (bounds) {
      program = context_.program("fullscreen.vert", "raster_empty.frag");
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_ALWAYS);
      glEnable(GL_DEPTH_BOUNDS_TEST_EXT);
    } else {
      program = context_.program("fullscreen.vert", vertex_depth_ ? "raster_empty.frag" : "raster_constant.frag");
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_GREATER);  // incoming c - base > stored key - base
    }
    glUseProgram(program);
    glDepthMask(GL_FALSE);
    glEnable(GL_STENCIL_TEST);
    glStencilFunc(GL_EQUAL, 1, 0x1);  // the records, not the padding
    glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
    glStencilMask(0);
    size_t offset = 0;  // first query of this tile within a count's block
    uint64_t pixels = 0;
    for (uint64_t t = 0; t < layout_.tiles(); ++t) {
      const auto& bands = bands_[t];
      glBindFramebuffer(GL_FRAMEBUFFER, framebuffers_.framebuffers[t]);
      glViewport(0, 0, GLsizei(layout_.width), GLsizei(layout_.pixel_rows(t)));
      if (compare) glBindTextureUnit(0, store_.texture(0, t));
      const bool scissored = bands.size() > 1;
      if (scissored) glEnable(GL_SCISSOR_TEST);
      for (size_t i = 0; i < counts.size(); ++i) {
        const Count& c = counts[i];
        if (compare) {
          glProgramUniform1ui(program, 1, c.a);
        } else if (bounds) {
          glDepthBoundsEXT(depth_of(c.a - plan_.base), depth_of(c.b - plan_.base));
        } else {
          const float z = float(depth_of(c.a - plan_.base));
          glProgramUniform1f(program, 0, z);
          if (!vertex_depth_) glProgramUniform1f(program, 1, z);
        }
        for (size_t k = 0; k < bands.size(); ++k) {
          const Band& b = bands[k];
          if (scissored) glScissor(b.x, b.y, b.width, b.height);
          const GLuint q = queries[i * queries_per_count_ + offset + k];
          glBeginQuery(GL_SAMPLES_PASSED, q);
          glDrawArrays(GL_TRIANGLES, 0, 3);
          glEndQuery(GL_SAMPLES_PASSED);
        }
      }
      if (scissored) glDisable(GL_SCISSOR_TEST);
      offset += bands.size();
      pixels += uint64_t(layout_.width) * layout_.pixel_rows(t);
    }
    if (bounds) glDisable(GL_DEPTH_BOUNDS_TEST_EXT);
    timing.reset();
    check_error("raster join probe passes");
    // One wait for the batch's counts and its timer (the pool's queries are reused, outside the batch).
    timers_.wait("raster join: probe counts");
    std::vector<uint64_t> result(counts.size());
    uint64_t passed = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      uint64_t n = 0;
      for (size_t k = 0; k < queries_per_count_; ++k)
        n += query_result(context_, queries[i * queries_per_count_ + k], "raster join: probe counts");
      passed += n;
      result[i] = compare ? layout_.rows - n : n;  // key >= c counted: key < c is the rest
    }
    if (timed_) record.gpu_ms = record.gpu_ms.value_or(0) + double(timers_.result(timer)) / 1e6;
    record.items += pixels * counts.size();
    record.passed = record.passed.value_or(0) + passed;
    record.wall_ms += ms_since(issued);
    return result;
  }

 private:
  // Search: the sorted order keys as one R32UI texture, key i at (i mod width, i / width).
  void upload_search_keys(const SortOutput& sorted, std::vector<PassRecord>& passes) {
    const auto start = Clock::now();
    const uint64_t m = sorted.keys.size();
    search_width_ = uint32_t(std::min<uint64_t>(m, uint64_t(context_.caps().max_texture_size)));
    const auto height = uint32_t((m + search_width_ - 1) / search_width_);
    std::vector<uint32_t> texels(uint64_t(search_width_) * height, 0xffffffffu);
    std::copy(sorted.keys.begin(), sorted.keys.end(), texels.begin());
    search_keys_ = make_texture(search_width_, height, "the join's sorted inner keys");
    glTextureSubImage2D(search_keys_, 0, 0, 0, GLsizei(search_width_), GLsizei(height), GL_RED_INTEGER, GL_UNSIGNED_INT,
                        texels.data());
    check_error("raster join: search keys upload");
    PassRecord upload;
    upload.kind = "upload";
    upload.detail = "sorted inner order keys as one R32UI texture of " + std::to_string(search_width_) + "x" +
                    std::to_string(height) + " for the batched search";
    upload.items = m;
    upload.wall_ms = ms_since(start);
    passes.push_back(std::move(upload));
  }

  // An R32UI texture of width x height (nearest filtering) for `what`, deleted with the join.
  GLuint make_texture(uint32_t width, uint32_t height, const std::string& what) {
    GLuint texture = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &texture);
    textures_.ids.push_back(texture);
    texture_storage(context_, texture, GL_R32UI, width, height, what);
    glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    check_error("raster join: R32UI texture");
    return texture;
  }

  // Search: count(key < c) for every count of the batch in one draw of join_search.frag into an
  // R32UI target, one fragment per count, read back.
  std::vector<uint64_t> search(const std::vector<Count>& counts, PassRecord& record) {
    const auto issued = Clock::now();
    const uint64_t n = counts.size();
    const auto width = uint32_t(std::min<uint64_t>(n, kSearchWidth));
    const auto height = uint32_t((n + width - 1) / width);
    std::vector<uint32_t> cells(uint64_t(width) * height, 0);
    for (uint64_t i = 0; i < n; ++i) cells[i] = counts[i].a;
    // The batch's textures and framebuffer, released (and the state set here reset) on return and on error.
    struct Scratch {
      TextureList& textures;
      size_t first;  // the batch's first texture in `textures`
      GLuint framebuffer = 0;
      ~Scratch() {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        if (framebuffer) glDeleteFramebuffers(1, &framebuffer);
        glBindTextureUnit(1, 0);
        glEnable(GL_DITHER);
        glDeleteTextures(GLsizei(textures.ids.size() - first), textures.ids.data() + first);
        textures.ids.resize(first);
      }
    } scratch{textures_, textures_.ids.size()};
    const GLuint bounds = make_texture(width, height, "the join's search bounds");
    glTextureSubImage2D(bounds, 0, 0, 0, GLsizei(width), GLsizei(height), GL_RED_INTEGER, GL_UNSIGNED_INT,
                        cells.data());
    const GLuint target = make_texture(width, height, "the join's search target");
    glCreateFramebuffers(1, &scratch.framebuffer);
    const GLuint framebuffer = scratch.framebuffer;
    glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, target, 0);
    if (glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw Error(ErrorCode::Internal, "raster join: search target framebuffer incomplete");
    const uint64_t m = layout_.rows;
    const GLuint program = context_.program("fullscreen.vert", "join_search.frag");
    glUseProgram(program);
    glProgramUniform1ui(program, 1, uint32_t(m));
    glProgramUniform1ui(program, 2, m ? uint32_t(std::bit_floor(m)) : 0u);
    glProgramUniform1ui(program, 3, search_width_);
    glBindTextureUnit(0, search_keys_);
    glBindTextureUnit(1, bounds);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, GLsizei(width), GLsizei(height));
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_DITHER);
    const GLuint timer = timed_ ? timers_.make(GL_TIME_ELAPSED) : 0;
    {
      ScopedQuery timing(GL_TIME_ELAPSED, timer);
      glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    timers_.wait("raster join: search counts");
    glGetTextureSubImage(target, 0, 0, 0, 0, GLsizei(width), GLsizei(height), 1, GL_RED_INTEGER, GL_UNSIGNED_INT,
                         GLsizei(cells.size() * sizeof(uint32_t)), cells.data());
    check_error("raster join search pass");
    std::vector<uint64_t> result(cells.begin(), cells.begin() + ptrdiff_t(n));
    uint64_t passed = 0;
    for (uint64_t r : result) passed += r;
    if (timed_) record.gpu_ms = record.gpu_ms.value_or(0) + double(timers_.result(timer)) / 1e6;
    record.items += uint64_t(width) * height;
    record.passed = record.passed.value_or(0) + passed;
    record.wall_ms += ms_since(issued);
    return result;
  }

  static TileLayout inner_layout(Context& context, uint64_t m, const RasterOptions& options) {
    // Near-square tiles: a probe pass draws the tile's pixel rows, so little padding is drawn.
    const auto [w, h] = tile_size(context.caps(), options);
    const auto side = static_cast<uint32_t>(std::ceil(std::sqrt(double(std::max<uint64_t>(m, 1)))));
    return tile_layout(m, std::min(w, std::max(side, 1u)), h);
  }

  // Per tile: a depth-stencil buffer with stencil 1 on the records and, on the window routes, the
  // keys minus base as depth.
  void build(std::vector<PassRecord>& passes) {
    const auto start = Clock::now();
    const bool window = plan_.route != JoinRoute::KeyCompare;
    const GLuint copy = window ? context_.program("fullscreen.vert", "raster_value.frag") : 0;
    if (window) {
      glProgramUniform1ui(copy, 1, 0u);  // mode 0: key - base
      glProgramUniform1ui(copy, 2, 0u);  // INT cells holding int_from_key(key)
      glProgramUniform1ui(copy, 3, plan_.base);
      glProgramUniform1f(copy, 0, 0.0f);
    }
    uint64_t pixels = 0;
    for (uint64_t t = 0; t < layout_.tiles(); ++t) {
      GLuint rb = 0, fb = 0;
      glCreateRenderbuffers(1, &rb);
      framebuffers_.renderbuffers.push_back(rb);
      renderbuffer_storage(context_, rb, GL_DEPTH32F_STENCIL8, layout_.width, layout_.height,
                           "the depth-stencil buffer of the join's inner tile " + std::to_string(t));
      glCreateFramebuffers(1, &fb);
      framebuffers_.framebuffers.push_back(fb);
      glNamedFramebufferRenderbuffer(fb, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, rb);
      glNamedFramebufferDrawBuffer(fb, GL_NONE);
      glNamedFramebufferReadBuffer(fb, GL_NONE);
      if (glCheckNamedFramebufferStatus(fb, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw Error(ErrorCode::Internal, "raster join: depth-stencil framebuffer incomplete");
      const uint32_t h = layout_.pixel_rows(t);
      glBindFramebuffer(GL_FRAMEBUFFER, fb);
      glViewport(0, 0, GLsizei(layout_.width), GLsizei(h));
      init_stencil(fb, layout_.width, h, layout_.records(t));
      if (window) {
        glDisable(GL_STENCIL_TEST);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_ALWAYS);
        glDepthMask(GL_TRUE);
        glUseProgram(copy);
        glBindTextureUnit(0, store_.texture(0, t));
        glDrawArrays(GL_TRIANGLES, 0, 3);
      }
      pixels += uint64_t(layout_.width) * h;
    }
    check_error("raster join build");
    PassRecord init;
    init.kind = "stencil-init";
    init.detail = "inner tiles: stencil 1 on the sorted keys' records, 0 past the last";
    init.items = pixels;
    init.wall_ms = ms_since(start);
    passes.push_back(std::move(init));
    if (window) {
      PassRecord c;
      c.kind = "copy-to-depth";
      c.detail = "inner tiles: depth <- sorted key - " + hex8(plan_.base) + " as k*2^-24 (GL_ALWAYS, depth write)";
      c.items = pixels;
      passes.push_back(std::move(c));
    }
  }

  Context& context_;
  TileLayout layout_;
  TextureStore store_;
  const JoinPlan& plan_;
  uint64_t cap_;
  bool timed_;
  bool vertex_depth_;
  KeptStencil framebuffers_;   // per inner tile (owns the GL objects)
  GLuint search_keys_ = 0;     // Search: the sorted keys (in textures_)
  uint32_t search_width_ = 1;  // Search: keys per row of search_keys_
  // Search: the keys texture and a batch's textures while it runs, deleted with the join.
  struct TextureList {
    std::vector<GLuint> ids;
    TextureList() = default;
    TextureList(const TextureList&) = delete;
    TextureList& operator=(const TextureList&) = delete;
    ~TextureList() {
      if (!ids.empty()) glDeleteTextures(GLsizei(ids.size()), ids.data());
    }
  } textures_;
  std::vector<std::vector<Band>> bands_;
  size_t queries_per_count_ = 0;
  QueryPool pool_;
  QueryBatch timers_{context_};
};

// A probe's interval after folding by the inner key range.
struct Probe {
  uint64_t row = 0;
  uint32_t a = 0, b = 0;  // keys in [a, b], inside the inner key range
  bool empty = true;      // the interval misses the inner keys: no pass
  uint64_t start = 0;     // count(key < a)
  uint64_t end = 0;       // count(key <= b)
};

}  // namespace

JoinPlan plan_join(const KeyRange& keys, bool pairs, const RasterOptions& options, bool depth_bounds_test) {
  JoinPlan plan;
  if (options.join_search) {
    plan.route = JoinRoute::Search;
    plan.base = keys.lo;
    plan.algorithm =
        "probes batched: count(key < klo) and count(key <= khi) of a batch of probes in one draw, one fragment per "
        "distinct bound running a bitwise search of the sorted inner order keys (join_search.frag, log2 m exact "
        "integer compares)";
    PassRecord r;
    r.kind = "probe search";
    r.detail =
        "join_search.frag over one R32UI pixel per count of the batch: pos += bit while key[pos + bit - 1] < c, "
        "read back with glGetTextureSubImage; items: counts";
    plan.passes.push_back(std::move(r));
    return plan;
  }
  const bool window = keys.span() < kWindow - 1;
  plan.base = keys.lo;
  if (!window) {
    plan.route = JoinRoute::KeyCompare;
    plan.algorithm = "probes by key compare passes (inner keys span " + std::to_string(uint64_t(keys.span()) + 1) +
                     " >= 2^24 keys: raster_key_ge.frag's exact integer compare, count(key >= c)): count(key < klo) "
                     "and count(key <= khi), 2 passes per probe at most";
    PassRecord r;
    r.kind = "probe key compare";
    r.detail = "count(key >= c) for c = klo and khi + 1 (raster_key_ge.frag, candidate c), stencil EQUAL 1/0x1";
    plan.passes.push_back(std::move(r));
    return plan;
  }
  const std::string base = "key - " + hex8(keys.lo) + " as depth k*2^-24 (24-bit window)";
  if (!pairs && depth_bounds_test && options.depth_bounds) {
    plan.route = JoinRoute::DepthBounds;
    plan.algorithm = "probes by depth-bounds passes (" + base +
                     "): count(klo <= key <= khi) by one GL_EXT_depth_bounds_test pass per probe";
    PassRecord r;
    r.kind = "probe depth-bounds";
    r.detail =
        "glDepthBoundsEXT((klo - base)*2^-24, (khi - base)*2^-24) on the stored keys, depth GL_ALWAYS, no "
        "depth write, stencil EQUAL 1/0x1";
    plan.passes.push_back(std::move(r));
    return plan;
  }
  plan.route = JoinRoute::DepthTest;
  plan.algorithm = "probes by depth-test passes (" + base +
                   "): count(key < klo) and count(key <= khi), 2 constant-depth passes per probe at most" +
                   (pairs ? "" : (depth_bounds_test && options.depth_bounds ? "" : " (no GL_EXT_depth_bounds_test)"));
  PassRecord r;
  r.kind = "probe depth-test";
  r.detail = std::string("depth GL_GREATER incoming ref=(c - base)*2^-24 as ") +
             (options.vertex_constant_depth ? "vertex z" : "gl_FragDepth") +
             " vs stored key - base, c = klo and khi + 1, no depth write, stencil EQUAL 1/0x1";
  plan.passes.push_back(std::move(r));
  return plan;
}

std::optional<std::pair<uint32_t, uint32_t>> probe_interval(double left, Type right_type, double lo, double hi) {
  const auto a = lowest(literal_predicate(right_type, CmpOp::Ge, left + lo));
  const auto b = highest(literal_predicate(right_type, CmpOp::Le, left + hi));
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

std::string join_unsupported(const BoundQuery& bq) {
  std::string missing;
  if (bq.group_by) {
    missing = "GROUP BY over a join";
  } else if (bq.order_by) {
    missing = "ORDER BY";
  } else {
    for (const auto& item : bq.items)
      if (const auto* a = std::get_if<BoundAggregate>(&item); a && a->kind != AggKind::Count && missing.empty())
        missing = "aggregate " + std::string(to_string(a->kind)) + " over a join";
  }
  if (!missing.empty())
    return "raster backend cannot run " + missing +
           " (the raster join runs COUNT of the pairs and projections of both tables' columns, with WHERE clauses "
           "on one table each and LIMIT)";
  for (const auto& clause : bq.where.clauses)
    if (const auto [l, r] = clause_sides(clause); l && r)
      return "raster backend cannot run a WHERE clause over a join that reads columns of both tables (the raster "
             "join filters each side before the probes; clauses that read one table each are supported)";
  return {};
}

Result execute_join(Context& context, const BoundQuery& bq, const RasterOptions& options) {
  const auto start = Clock::now();
  if (!bq.join || !bq.right) throw Error(ErrorCode::Internal, "raster: execute_join needs a join");
  if (const std::string lack = join_unsupported(bq); !lack.empty()) throw Error(ErrorCode::Unsupported, lack);
  const auto [left_where, right_where] = split_where(bq.where);
  const BoundJoin& join = *bq.join;
  const bool pairs = !bq.aggregate;
  const std::optional<uint64_t> limit = bq.limit;

  Result result;
  result.report.backend = Backend::Raster;
  auto& passes = result.report.passes;
  std::string algorithm = std::string("raster: ") + (join.equi() ? "equi-join" : "band join") +
                          " (sort the inner relation on the GPU, probe by occlusion counts)";

  // The probes: the left rows that pass the left side's WHERE, ascending.
  std::vector<uint64_t> probes;
  if (left_where.empty()) {
    probes.resize(bq.left->rows());
    std::iota(probes.begin(), probes.end(), uint64_t{0});
  } else {
    const RasterInput input(context, *bq.left, bq.left_name, where_columns(left_where), options);
    WhereResult w = evaluate_where(context, input, left_where, WhereOutput::Rows, options);
    passes.push_back(input.upload());
    for (auto& p : w.passes) passes.push_back(std::move(p));
    probes = std::move(w.rows);
    algorithm += "; left WHERE: " + w.algorithm;
  }

  // The inner rows (after the right side's WHERE), sorted by key on the GPU.
  std::vector<size_t> right_columns{join.right_key.index};
  for (size_t c : where_columns(right_where))
    if (c != join.right_key.index) right_columns.push_back(c);
  SortOutput sorted;
  {
    const RasterInput input(context, *bq.right, bq.right_name, right_columns, options);
    passes.push_back(input.upload());
    std::vector<uint64_t> right_rows;
    if (!right_where.empty()) {
      WhereResult w = evaluate_where(context, input, right_where, WhereOutput::Rows, options);
      for (auto& p : w.passes) passes.push_back(std::move(p));
      right_rows = std::move(w.rows);
      algorithm += "; right WHERE: " + w.algorithm;
    }
    sorted = sort_rows(context, input, input.slot(join.right_key.index), false, options,
                       right_where.empty() ? nullptr : &right_rows);
    for (auto& p : sorted.passes) passes.push_back(std::move(p));
    algorithm += "; inner " + sorted.algorithm;
  }
  const uint64_t m = sorted.rows.size();

  std::vector<uint64_t> out_left, out_right;
  uint64_t total = 0;
  if (m > 0 && !probes.empty() && (!limit || *limit > 0)) {
    const KeyRange keys{sorted.keys.front(), sorted.keys.back()};
    // The search reads every key from one texture: past its largest size, the per-probe passes.
    const uint64_t texture_side = uint64_t(std::max(context.caps().max_texture_size, 1));
    RasterOptions probe_options = options;
    if (m > texture_side * texture_side) probe_options.join_search = false;
    const JoinPlan plan = plan_join(keys, pairs, probe_options, context.caps().depth_bounds_test);
    algorithm += "; " + plan.algorithm;
    JoinState state(context.caps().depth_bounds_test);
    Inner inner(context, sorted, options, plan, passes);
    PassRecord probe_record = plan.passes.front();
    uint64_t folded = 0, folded_bounds = 0;
    double fold_ms = 0;
    const Type right_type = join.right_key.type;
    const Column& left_key = bq.column(join.left_key);
    const bool left_float = left_key.type == Type::Float32;
    const uint64_t batch = options.join_probe_batch          ? options.join_probe_batch
                           : plan.route == JoinRoute::Search ? kSearchBatch
                                                             : kProbeBatch;
    std::vector<Probe> batch_probes;
    std::vector<Count> counts;
    std::vector<uint64_t> run;
    // Counts by bound (Lt: c; Bounds: a << 32 | b): probes with equal bounds share one count.
    std::unordered_map<uint64_t, uint64_t> known;
    std::unordered_map<uint64_t, size_t> pending;  // bound -> its count in this batch
    uint64_t shared = 0;
    const bool bounds = plan.route == JoinRoute::DepthBounds;
    const auto need = [&](uint64_t bound, Count c) {
      if (options.join_share_counts && (known.count(bound) || pending.count(bound))) {
        ++shared;
        return;
      }
      pending[bound] = counts.size();
      counts.push_back(c);
    };
    const auto count_of = [&](uint64_t bound) {
      const auto it = pending.find(bound);
      return it != pending.end() ? run[it->second] : known.at(bound);
    };
    for (size_t first = 0; first < probes.size(); first += batch) {
      if (limit && out_left.size() >= *limit) break;
      const auto fold_start = Clock::now();
      batch_probes.clear();
      counts.clear();
      pending.clear();
      for (size_t i = first; i < std::min<size_t>(probes.size(), first + batch); ++i) {
        Probe p;
        p.row = probes[i];
        const double v = left_float ? double(left_key.as<float>()[p.row]) : double(left_key.as<int32_t>()[p.row]);
        const auto interval = probe_interval(v, right_type, join.lo, join.hi);
        if (interval && interval->second >= keys.lo && interval->first <= keys.hi) {
          p.empty = false;
          p.a = std::max(interval->first, keys.lo);
          p.b = std::min(interval->second, keys.hi);
          p.start = 0;
          p.end = m;
        } else {
          ++folded;
        }
        batch_probes.push_back(p);
      }
      // The counts a bound inside the key range needs; bounds at its ends are 0 or m.
      for (const Probe& p : batch_probes) {
        if (p.empty) continue;
        if (bounds) {
          if (p.a == keys.lo && p.b == keys.hi)
            ++folded_bounds;
          else
            need(uint64_t(p.a) << 32 | p.b, {p.a, p.b});
          continue;
        }
        if (p.a > keys.lo)
          need(p.a, {p.a, 0});
        else
          ++folded_bounds;
        if (p.b < keys.hi)
          need(uint64_t(p.b) + 1, {p.b + 1, 0});
        else
          ++folded_bounds;
      }
      fold_ms += ms_since(fold_start);
      run = inner.run(counts, bounds, probe_record);
      for (Probe& p : batch_probes) {
        if (p.empty) continue;
        if (bounds) {
          if (p.a != keys.lo || p.b != keys.hi) p.end = count_of(uint64_t(p.a) << 32 | p.b);
        } else {
          if (p.a > keys.lo) p.start = count_of(p.a);
          if (p.b < keys.hi) p.end = count_of(uint64_t(p.b) + 1);
        }
      }
      if (options.join_share_counts)
        for (const auto& [bound, k] : pending) known[bound] = run[k];
      for (const Probe& p : batch_probes) {
        if (p.empty) continue;
        if (p.end < p.start || p.end > m)
          throw Error(ErrorCode::Internal, "raster join: probe counts out of order (" + std::to_string(p.start) + ", " +
                                               std::to_string(p.end) + " of " + std::to_string(m) + ")");
        total += p.end - p.start;
        if (!pairs) continue;
        const size_t before = out_right.size();
        for (uint64_t i = p.start; i < p.end; ++i) out_right.push_back(sorted.rows[i]);
        // A run of one key holds ascending row ids (the sort is stable); wider runs are in key order.
        if (p.a != p.b) std::sort(out_right.begin() + ptrdiff_t(before), out_right.end());
        out_left.resize(out_right.size(), p.row);
      }
    }
    PassRecord fold;
    fold.kind = "fold";
    fold.detail = std::to_string(folded) + " of " + std::to_string(probes.size()) +
                  " probe(s) miss the inner key range [" + hex8(keys.lo) + ", " + hex8(keys.hi) + "]: no pass; " +
                  std::to_string(folded_bounds) + " bound(s) at the range's ends: count 0 or all, no pass; " +
                  std::to_string(shared) + " count(s) shared with earlier probes of equal bounds: no pass";
    fold.items = probes.size();
    fold.wall_ms = fold_ms;
    passes.push_back(std::move(fold));
    passes.push_back(std::move(probe_record));
  } else {
    algorithm += "; no probe pass (" +
                 std::string(m == 0           ? "no inner rows"
                             : probes.empty() ? "no probes"
                                              : "LIMIT 0") +
                 ")";
  }

  const auto gather_start = Clock::now();
  Table& out = result.table;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  if (!pairs) {
    if (!limit || *limit > 0)
      for (auto& c : out.columns) c.push(static_cast<int64_t>(total));
  } else {
    if (limit && out_left.size() > *limit) {
      out_left.resize(*limit);
      out_right.resize(*limit);
    }
    for (size_t i = 0; i < bq.items.size(); ++i) {
      const BoundColumn& c = std::get<BoundColumn>(bq.items[i]);
      const Column& src = bq.column(c);
      const std::vector<uint64_t>& rows = c.side == Side::Left ? out_left : out_right;
      std::visit(
          [&](const auto& values) {
            using V = std::decay_t<decltype(values)>;
            V& d = std::get<V>(out.columns[i].data);
            d.reserve(rows.size());
            for (uint64_t r : rows) d.push_back(values[r]);
          },
          src.data);
    }
  }
  PassRecord gather;
  gather.kind = "gather";
  gather.detail = pairs ? "host gather of " + std::to_string(out.columns.size()) +
                              " column(s) at the (left row, right row) pairs" +
                              (limit ? " (LIMIT " + std::to_string(*limit) + ": the first pairs)" : "")
                        : "COUNT = the sum of the probes' run lengths";
  gather.items = pairs ? out_left.size() : total;
  gather.wall_ms = ms_since(gather_start);
  passes.push_back(std::move(gather));
  result.report.algorithm = algorithm;
  result.report.total_ms = ms_since(start);
  return result;
}

}  // namespace gfxq::gl
