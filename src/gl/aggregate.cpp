#include "gl/aggregate.h"

#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>

#include "core/exact_sum.h"
#include "core/order_key.h"
#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/select.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

// Resets the GL state the aggregate passes touch to GL's defaults (the viewport to what it was).
class AggregateState {
 public:
  AggregateState() {
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glCreateVertexArrays(1, &vertex_array_);  // core profile draws need a bound VAO
    glBindVertexArray(vertex_array_);
    glDisable(GL_DEPTH_TEST);
    glDepthMask(GL_FALSE);
    glEnable(GL_STENCIL_TEST);
  }
  ~AggregateState() {
    // The aggregate passes use no depth-bounds test (select.h).
    restore_default_state(false);
    if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  AggregateState(const AggregateState&) = delete;
  AggregateState& operator=(const AggregateState&) = delete;

 private:
  GLint viewport_[4] = {0, 0, 0, 0};
  GLuint vertex_array_ = 0;
};

// Issues one counting pass of `program` over every tile of `slot` under the kept selection's
// stencil test (`set_uniforms` sets the program's uniforms first) and returns its queries.
// One counting pass as issued: its occlusion queries, its GL_TIME_ELAPSED query (0 when untimed)
// and the fragments it drew.
struct IssuedPass {
  std::vector<GLuint> queries;
  GLuint timer = 0;
  uint64_t pixels = 0;
};

class Counter {
 public:
  Counter(Context& context, const RasterInput& input, const KeptStencil& kept, const RasterOptions& options)
      : input_(input),
        kept_(kept),
        cap_(fragments_per_query(context.caps(), options.max_fragments_per_query)),
        timed_(options.pass_queries && context.caps().timer_counter_bits > 0),
        batch_(context) {}

  // One pass over every tile, timed by one GL_TIME_ELAPSED query around all its tiles' draws.
  template <class SetUniforms>
  IssuedPass issue(GLuint program, size_t slot, const SetUniforms& set_uniforms) {
    const TextureStore& store = input_.store();
    const TileLayout& layout = store.layout();
    set_uniforms(program);
    IssuedPass pass;
    pass.timer = timed_ ? batch_.make(GL_TIME_ELAPSED) : 0;
    ScopedQuery timing(GL_TIME_ELAPSED, pass.timer);
    for (uint64_t t = 0; t < layout.tiles(); ++t) {
      const uint32_t h = layout.pixel_rows(t);
      glBindFramebuffer(GL_FRAMEBUFFER, GLuint(kept_.framebuffers.at(t)));
      glViewport(0, 0, GLsizei(layout.width), GLsizei(h));
      glBindTextureUnit(0, store.texture(slot, t));
      const auto q = issue_count(batch_, program, layout.width, h, kept_.state, kept_.mask, cap_);
      pass.queries.insert(pass.queries.end(), q.begin(), q.end());
      pass.pixels += uint64_t(layout.width) * h;
    }
    check_error("raster aggregate pass");
    return pass;
  }

  // The fragments that passed `pass` (waits for the GPU once for everything issued before, bounded
  // by the timeout).
  uint64_t total(const IssuedPass& pass) const {
    uint64_t n = 0;
    for (GLuint q : pass.queries) n += batch_.result(q);
    return n;
  }

  // A PassRecord of `pass` with its kind, detail, fragments drawn and passed, host wall time and,
  // when timed, GPU time.
  PassRecord record(const IssuedPass& pass, std::string kind, std::string detail, uint64_t passed,
                    double wall_ms) const {
    PassRecord r;
    r.kind = std::move(kind);
    r.detail = std::move(detail);
    r.items = pass.pixels;
    r.passed = passed;
    r.wall_ms = wall_ms;
    if (pass.timer) r.gpu_ms = double(batch_.result(pass.timer)) / 1e6;
    return r;
  }

 private:
  const RasterInput& input_;
  const KeptStencil& kept_;
  uint64_t cap_;
  bool timed_;
  QueryBatch batch_;
};

struct Runner {
  Context& context;
  const RasterInput& input;
  const BoundQuery& bq;
  Counter& counter;
  uint64_t n;
  std::vector<PassRecord>& passes;
  std::map<size_t, __int128> sums;      // per INT table column: its exact sum over the selection
  std::map<size_t, double> float_sums;  // per FLOAT table column: its rounded exact sum

  // The exact sum of INT column `c` over the selection: 32 bit-plane counts, all issued before
  // any is read.
  __int128 sum(const BoundAggregate& agg) {
    const size_t index = agg.column->index;
    if (auto it = sums.find(index); it != sums.end()) return it->second;
    const GLuint program = context.program("fullscreen.vert", "raster_bitplane.frag");
    const size_t slot = input.slot(index);
    std::vector<IssuedPass> issued_passes(32);
    std::vector<double> wall(32);
    for (uint32_t b = 0; b < 32; ++b) {
      const auto issued = Clock::now();
      issued_passes[b] = counter.issue(program, slot, [&](GLuint p) { glProgramUniform1ui(p, 1, b); });
      wall[b] = ms_since(issued);
    }
    __int128 total = 0;
    for (uint32_t b = 0; b < 32; ++b) {
      const auto waited = Clock::now();
      const uint64_t count = counter.total(issued_passes[b]);
      const __int128 weight = __int128(1) << b;
      total += b < 31 ? weight * count : -weight * count;
      passes.push_back(counter.record(issued_passes[b], "bit-plane count",
                                      agg.column->name + ": bit " + std::to_string(b) + " set (weight " +
                                          (b < 31 ? "" : "-") + "2^" + std::to_string(b) + "), stencil EQUAL " +
                                          std::to_string(counter_state()) + "/0x3, occlusion count",
                                      count, wall[b] + ms_since(waited)));
    }
    sums[index] = total;
    return total;
  }

  // The sum of FLOAT column `agg.column` over the selection, exact and rounded once: one
  // occlusion-counted pass per fixed-point bit position and sign the column uses (FloatBits), and
  // one key >= candidate count per non-finite kind it holds; all issued before any is read.
  double float_sum(const BoundAggregate& agg) {
    const size_t index = agg.column->index;
    if (auto it = float_sums.find(index); it != float_sums.end()) return it->second;
    const size_t slot = input.slot(index);
    const FloatBits& fb = input.store().info(slot).float_bits;
    struct Issued {
      std::string detail;
      bool negative = false;  // planes: the sign counted
      IssuedPass pass;
      double wall = 0;
    };
    const GLuint plane = context.program("fullscreen.vert", "raster_float_plane.frag");
    std::vector<Issued> planes;
    std::vector<ExactTerm> terms;
    for (const bool negative : {false, true})
      for (const int q : fb.positions(negative)) {
        Issued p;
        p.negative = negative;
        const auto issued = Clock::now();
        p.pass = counter.issue(plane, slot, [&](GLuint prog) {
          glProgramUniform1ui(prog, 1, uint32_t(q));
          glProgramUniform1ui(prog, 2, negative ? 1u : 0u);
        });
        p.wall = ms_since(issued);
        p.detail = agg.column->name + ": bit " + std::to_string(q) + " of M << s set, values " +
                   (negative ? "< 0 (weight -2^" : "> 0 (weight 2^") + std::to_string(q - 149) + "), stencil EQUAL " +
                   std::to_string(state) + "/0x3, occlusion count";
        planes.push_back(std::move(p));
        terms.push_back({0, q});
      }
    // Non-finite values: count(key >= candidate) at the keys of NaN, +inf and -FLT_MAX.
    const GLuint key_ge = context.program("fullscreen.vert", "raster_key_ge.frag");
    enum class Counted { Nan, InfOrNan, NotNegativeInf };
    struct Special {
      Counted counted;
      const char* what;
      uint32_t candidate;
    };
    std::vector<Special> specials;
    if (fb.nan) specials.push_back({Counted::Nan, "NaN", float_key(std::numeric_limits<float>::quiet_NaN())});
    if (fb.positive_inf)
      specials.push_back({Counted::InfOrNan, "+inf or NaN", float_key(std::numeric_limits<float>::infinity())});
    if (fb.negative_inf)
      specials.push_back({Counted::NotNegativeInf, "not -inf", float_key(-std::numeric_limits<float>::max())});
    std::vector<Issued> counts;
    for (const Special& sp : specials) {
      Issued c;
      const auto issued = Clock::now();
      c.pass = counter.issue(key_ge, slot, [&](GLuint prog) {
        glProgramUniform1ui(prog, 1, sp.candidate);
        glProgramUniform1ui(prog, 2, 1u);
      });
      c.wall = ms_since(issued);
      c.detail = agg.column->name + ": " + sp.what + ": count(key >= " + hex8(sp.candidate) + "), stencil EQUAL " +
                 std::to_string(state) + "/0x3";
      counts.push_back(std::move(c));
    }
    auto record = [&](Issued& p, const char* kind) {
      const auto waited = Clock::now();
      const uint64_t count = counter.total(p.pass);
      passes.push_back(counter.record(p.pass, kind, std::move(p.detail), count, p.wall + ms_since(waited)));
      return count;
    };
    for (size_t i = 0; i < planes.size(); ++i) {
      const __int128 count = record(planes[i], "float bit-plane count");
      terms[i].count = planes[i].negative ? -count : count;
    }
    uint64_t nan = 0, at_least_inf = 0, not_negative_inf = n;
    for (size_t i = 0; i < counts.size(); ++i) {
      const uint64_t count = record(counts[i], "special-value count");
      switch (specials[i].counted) {
        case Counted::Nan: nan = count; break;
        case Counted::InfOrNan: at_least_inf = count; break;
        case Counted::NotNegativeInf: not_negative_inf = count; break;
      }
    }
    const auto special = special_sum(nan > 0, at_least_inf > nan, not_negative_inf < n);
    const double total = special ? *special : exact_sum(terms);
    float_sums[index] = total;
    return total;
  }

  int32_t counter_state() const { return state; }
  int32_t state = 1;

  // The k-th largest order key of column `agg.column` over the selection (1 <= k <= n): the
  // largest x with count(key >= x) >= k, built MSB first, one count per bit.
  uint32_t kth_largest_key(const BoundAggregate& agg, uint64_t k) {
    const GLuint program = context.program("fullscreen.vert", "raster_key_ge.frag");
    const size_t slot = input.slot(agg.column->index);
    const GLuint is_float = agg.column->type == Type::Float32 ? 1u : 0u;
    uint32_t x = 0;  // count(key >= 0) = n >= k
    for (int b = 31; b >= 0; --b) {
      const uint32_t candidate = x | (uint32_t(1) << b);
      const auto issued = Clock::now();
      const IssuedPass pass = counter.issue(program, slot, [&](GLuint p) {
        glProgramUniform1ui(p, 1, candidate);
        glProgramUniform1ui(p, 2, is_float);
      });
      const uint64_t count = counter.total(pass);  // one round trip per bit
      const bool take = count >= k;
      if (take) x = candidate;
      passes.push_back(counter.record(pass, "bitwise search",
                                      agg.name + ": bit " + std::to_string(b) + ", candidate key " + hex8(candidate) +
                                          ": count(key(" + agg.column->name + ") >= candidate) " +
                                          (take ? ">= " : "< ") + "k = " + std::to_string(k) + " -> bit " +
                                          (take ? "1" : "0") + ", stencil EQUAL " + std::to_string(state) + "/0x3",
                                      count, ms_since(issued)));
    }
    return x;
  }

  Value ranked(const BoundAggregate& agg, uint64_t k) {
    const uint32_t key = kth_largest_key(agg, k);
    if (agg.column->type == Type::Float32) return float_from_key(key);
    return int_from_key(key);
  }

  Value value(const BoundAggregate& agg) {
    if (agg.kind == AggKind::Count) return static_cast<int64_t>(n);
    if (n == 0) return std::monostate{};
    switch (agg.kind) {
      case AggKind::Sum:
        if (agg.column->type == Type::Float32) return canonical_double(float_sum(agg));
        return int_sum_result(sum(agg), agg.name);
      case AggKind::Avg:
        if (agg.column->type == Type::Float32) return canonical_double(float_sum(agg) / double(n));
        return int_average(sum(agg), n);
      case AggKind::Min: return ranked(agg, n);
      case AggKind::Max: return ranked(agg, 1);
      case AggKind::Median:
      case AggKind::Quantile: return ranked(agg, n - quantile_rank(agg.q, n) + 1);
      case AggKind::KthLargest:
        if (static_cast<uint64_t>(agg.k) > n) return std::monostate{};
        return ranked(agg, static_cast<uint64_t>(agg.k));
      case AggKind::Count: break;
    }
    throw Error(ErrorCode::Internal, "raster: unhandled aggregate " + agg.name);
  }
};

// The algorithm text of one aggregate over `input`.
std::string aggregate_text(const BoundAggregate& agg, const RasterInput& input) {
  switch (agg.kind) {
    case AggKind::Count: return agg.name + ": the selection's occlusion count";
    case AggKind::Sum:
    case AggKind::Avg:
      if (agg.column->type == Type::Float32) {
        const FloatBits& fb = input.store().info(input.slot(agg.column->index)).float_bits;
        const size_t pos = fb.positions(false).size(), neg = fb.positions(true).size();
        const size_t special = size_t(fb.nan) + size_t(fb.positive_inf) + size_t(fb.negative_inf);
        return agg.name + ": exact fixed-point bit planes (" + std::to_string(pos + neg + special) +
               " occlusion-counted passes: " + std::to_string(pos) + " positive + " + std::to_string(neg) +
               " negative bit positions of M << s, " + std::to_string(special) +
               " non-finite counts; exact sum rounded once" + (agg.kind == AggKind::Avg ? ", / COUNT" : "") + ")";
      }
      return agg.name + ": bit-plane counts (32 occlusion-counted passes, one per bit" +
             (agg.kind == AggKind::Avg ? ", / COUNT" : "") + ")";
    default: return agg.name + ": bitwise search on the 32-bit order key (32 occlusion counts, MSB first)";
  }
}

}  // namespace

Result execute_aggregates(Context& context, const BoundQuery& bq, const RasterOptions& options) {
  const auto start = Clock::now();
  if (bq.join || bq.group_by || bq.order_by)
    throw Error(ErrorCode::Internal, "raster: execute_aggregates needs a query without join, GROUP BY, ORDER BY");
  std::vector<const BoundAggregate*> aggs;
  for (const auto& item : bq.items) {
    const auto* a = std::get_if<BoundAggregate>(&item);
    if (!a) throw Error(ErrorCode::Internal, "raster: execute_aggregates needs aggregate items only");
    aggs.push_back(a);
  }

  // The WHERE's columns, then the aggregates' columns, each uploaded once.
  std::vector<size_t> columns = where_columns(bq.where);
  for (const auto* a : aggs)
    if (a->kind != AggKind::Count && a->column &&
        std::find(columns.begin(), columns.end(), a->column->index) == columns.end())
      columns.push_back(a->column->index);
  const RasterInput input(context, *bq.left, bq.left_name, columns, options);
  WhereResult where = evaluate_where(context, input, bq.where, WhereOutput::Keep, options);

  Result result;
  result.report.backend = Backend::Raster;
  result.report.algorithm = where.algorithm;
  for (const auto* a : aggs) result.report.algorithm += "; " + aggregate_text(*a, input);
  if (!columns.empty()) result.report.passes.push_back(input.upload());
  for (auto& p : where.passes) result.report.passes.push_back(std::move(p));

  std::vector<Value> values;
  {
    AggregateState state;
    KeptStencil none;
    const KeptStencil& kept = where.kept ? *where.kept : none;
    Counter counter(context, input, kept, options);
    Runner runner{context, input, bq, counter, where.count, result.report.passes, {}, {}};
    runner.state = kept.state;
    for (const auto* a : aggs) {
      if (a->kind != AggKind::Count && where.count > 0 && !where.kept)
        throw Error(ErrorCode::Internal, "raster: no kept selection for " + a->name);
      values.push_back(runner.value(*a));
    }
    check_error("raster aggregates");
  }
  where.kept.reset();

  Table& out = result.table;
  for (const auto& c : bq.output) out.columns.push_back(Column::make(c.name, c.type));
  if (!bq.limit || *bq.limit > 0)
    for (size_t i = 0; i < values.size(); ++i) out.columns[i].push(values[i]);
  result.report.total_ms = ms_since(start);
  return result;
}

}  // namespace gfxq::gl
