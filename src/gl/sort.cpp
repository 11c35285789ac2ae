#include "gl/sort.h"

#include <glad/gl.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>

#include "core/order_key.h"
#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kNormalsPerSign = 0x7f000000u;       // 2^31 - 2^24 normal floats of each sign
constexpr uint32_t kPlusInf = 0x7f800000u;              // padding of the blending network
constexpr uint64_t kMaxPadded = uint64_t(1) << 31;      // positions are 32-bit in the shaders
constexpr uint32_t kStepsPerPass = 2;                   // pair network: texel steps per pass by default
constexpr uint64_t kSyncFragments = uint64_t(1) << 29;  // fragments queued before the network waits (pass())

// Power-of-two tiles of texels: texel q of the padded sequence lives in tile q / T at pixel
// (q mod width, (q mod T) / width), the tile layout of texture_store.h with width and height
// rounded down to powers of two, so the partner q XOR d of a texel is the same pixel XOR (d mod T)
// in the tile t XOR (d / T). A texel holds `per_texel` consecutive records: records 2q and 2q + 1
// (pairs: RGBA32UI), or record q (blending: R32F).
struct SortLayout {
  uint64_t count = 0;   // real records
  uint64_t padded = 0;  // the network's size: the power of two >= count (>= per_texel)
  uint32_t per_texel = 1;
  uint32_t steps_per_pass = 1;  // pairs: texel steps one pass runs (1 to 3)
  uint32_t width = 1, height = 1;
  uint32_t log_width = 0;
  uint64_t tile_texels = 1;  // width * height, a power of two dividing texels()
  uint64_t texels() const { return padded / per_texel; }
  uint64_t tile_records() const { return tile_texels * per_texel; }
  uint64_t tiles() const { return texels() / tile_texels; }
  uint32_t log_padded() const { return uint32_t(std::countr_zero(padded)); }
  // Comparator steps of the bitonic network: p (p + 1) / 2 for N = 2^p.
  uint32_t steps() const { return log_padded() * (log_padded() + 1) / 2; }
  // Passes: one per step for blending. Pairs: stage k = 2^s has s - 1 texel steps, run
  // steps_per_pass to a pass, the last pass also taking the step within texels (j = 1), and stage 2
  // is that step alone: 1 + sum over s = 2..p of ceil((s - 1) / steps_per_pass) (1 + p (p - 1) / 2
  // for one step per pass).
  uint32_t passes() const {
    if (per_texel == 1) return steps();
    uint32_t n = 1;
    for (uint32_t s = 2; s <= log_padded(); ++s) n += (s - 1 + steps_per_pass - 1) / steps_per_pass;
    return n;
  }
};

SortLayout sort_layout(const GlCapabilities& caps, const RasterOptions& options, uint64_t count, uint32_t per_texel) {
  const auto [w, h] = tile_size(caps, options);
  SortLayout l;
  l.count = count;
  l.per_texel = per_texel;
  l.steps_per_pass =
      per_texel == 2
          ? std::clamp<uint32_t>(options.sort_steps_per_pass ? options.sort_steps_per_pass : kStepsPerPass, 1, 3)
          : 1;
  l.padded = std::bit_ceil(std::max<uint64_t>(count, per_texel));
  if (l.padded > kMaxPadded)
    throw Error(ErrorCode::Unsupported, "raster sort: " + std::to_string(count) + " records pad to " +
                                            std::to_string(l.padded) + ", past the network's 2^31 positions");
  const uint32_t width = std::bit_floor(w), height = std::bit_floor(h);
  l.tile_texels = std::min<uint64_t>(uint64_t(width) * height, l.texels());
  l.width = uint32_t(std::min<uint64_t>(width, l.tile_texels));
  l.height = uint32_t(l.tile_texels / l.width);
  l.log_width = uint32_t(std::countr_zero(l.width));
  return l;
}

// e.g. "n=898, padded to 1024, 55 steps in 46 passes, 1 tile(s) of 512x1 texels"
std::string layout_text(const SortLayout& l, bool blend) {
  const std::string steps = std::to_string(l.steps());
  return "n=" + std::to_string(l.count) + ", padded to " + std::to_string(l.padded) + ", " + steps + " steps in " +
         (blend
              ? steps + " copies + " + std::to_string(2 * l.steps()) + " blended passes"
              : std::to_string(l.passes()) + " passes (2 records per RGBA32UI texel, up to " +
                    std::to_string(l.steps_per_pass) + " texel steps per pass, step j = 1 fused into a stage's last)") +
         ", " + std::to_string(l.tiles()) + " tile(s) of " + std::to_string(l.width) + "x" + std::to_string(l.height) +
         " texels";
}

// Resets the GL state the sort touches (restore_default_state, blending, dithering, viewport) on return and error.
class SortState {
 public:
  SortState() {
    glGetIntegerv(GL_VIEWPORT, viewport_);
    glCreateVertexArrays(1, &vertex_array_);  // core profile draws need a bound VAO
    glBindVertexArray(vertex_array_);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    // Dithering (on by default) has no effect on integer and float targets, but NVIDIA warns
    // about it on every draw into an integer framebuffer.
    glDisable(GL_DITHER);
  }
  ~SortState() {
    restore_default_state(false);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDisable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glEnable(GL_DITHER);
    for (GLuint unit = 1; unit < 8; ++unit) glBindTextureUnit(unit, 0);
    if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  SortState(const SortState&) = delete;
  SortState& operator=(const SortState&) = delete;

 private:
  GLint viewport_[4] = {0, 0, 0, 0};
  GLuint vertex_array_ = 0;
};

// Two sets (ping, pong) of one texture and framebuffer per tile, deleted on return and error.
struct Targets {
  std::vector<GLuint> textures[2], framebuffers[2];
  Targets() = default;
  Targets(const Targets&) = delete;
  Targets& operator=(const Targets&) = delete;
  ~Targets() {
    for (int s = 0; s < 2; ++s) {
      if (!framebuffers[s].empty()) glDeleteFramebuffers(GLsizei(framebuffers[s].size()), framebuffers[s].data());
      if (!textures[s].empty()) glDeleteTextures(GLsizei(textures[s].size()), textures[s].data());
    }
  }
};

void make_targets(Context& context, Targets& targets, const SortLayout& l, GLenum format) {
  const char* name = format == GL_RGBA32UI ? "RGBA32UI" : "R32F";
  const uint64_t bytes = 2 * l.padded * (format == GL_RGBA32UI ? 8 : 4);
  for (int s = 0; s < 2; ++s)
    for (uint64_t t = 0; t < l.tiles(); ++t) {
      GLuint texture = 0, framebuffer = 0;
      glCreateTextures(GL_TEXTURE_2D, 1, &texture);
      targets.textures[s].push_back(texture);
      texture_storage(context, texture, format, l.width, l.height,
                      "raster sort target " + std::to_string(s * l.tiles() + t + 1) + " of 2 x " +
                          std::to_string(l.tiles()) + " (" + std::to_string(bytes >> 10) + " KiB in all)");
      glTextureParameteri(texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTextureParameteri(texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glCreateFramebuffers(1, &framebuffer);
      targets.framebuffers[s].push_back(framebuffer);
      glNamedFramebufferTexture(framebuffer, GL_COLOR_ATTACHMENT0, texture, 0);
      const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
      if (status != GL_FRAMEBUFFER_COMPLETE)
        throw Error(ErrorCode::Internal, std::string("raster sort: ") + name + " framebuffer incomplete (status " +
                                             std::to_string(status) + ")");
    }
}

// One stage of a sort (init, network, readback) as a PassRecord: its host time, and its GPU time
// from two GL_TIMESTAMP queries around it. (Per-pass GL_TIME_ELAPSED sums were unreliable: at 2^28
// records NVIDIA returned one elapsed time that summed to a negative total.)
struct Stage {
  std::string kind, detail;
  uint64_t items = 0;
  double wall_ms = 0;
  GLuint begin = 0, end = 0;  // GL_TIMESTAMP queries (0: not timed)
};

// A GL_TIMESTAMP query recorded now, or 0 when `on` is false.
GLuint stamp(QueryBatch& batch, bool on) {
  if (!on) return 0;
  const GLuint query = batch.make(GL_TIMESTAMP);
  glQueryCounter(query, GL_TIMESTAMP);
  return query;
}

// The stages as pass records; a GPU time is dropped, with the reason in the detail, when it is
// negative or exceeds `wall_ms`, the host time of the whole call (select.cpp's rule: some drivers
// return raw timestamps for some queries).
std::vector<PassRecord> finish(const QueryBatch& batch, const std::vector<Stage>& stages, double wall_ms) {
  std::vector<PassRecord> out;
  for (const Stage& s : stages) {
    PassRecord p;
    p.kind = s.kind;
    p.detail = s.detail;
    p.items = s.items;
    p.wall_ms = s.wall_ms;
    if (s.begin && s.end) {
      const uint64_t begin = batch.result(s.begin), end = batch.result(s.end);
      const double ms = (double(end) - double(begin)) / 1e6;
      if (end >= begin && ms <= wall_ms)
        p.gpu_ms = ms;
      else
        p.detail += " (GPU timestamps " + std::to_string(begin) + " .. " + std::to_string(end) +
                    " do not fit the call's wall time " + std::to_string(wall_ms) + " ms: dropped)";
    }
    out.push_back(std::move(p));
  }
  return out;
}

// The order key of `column`'s cell `row`, ~key when descending.
uint32_t directed_key(const Column& column, uint64_t row, bool descending) {
  const uint32_t key =
      column.type == Type::Float32 ? float_key(column.as<float>()[row]) : int_key(column.as<int32_t>()[row]);
  return descending ? ~key : key;
}

// What one network run needs: the layout, the ping-pong targets, the record source.
struct Network {
  Network(Context& c, const RasterInput& in, size_t s, bool desc, const std::vector<uint64_t>* r, SortLayout l, bool b,
          uint32_t lo, bool timed_queries)
      : context(c),
        input(in),
        slot(s),
        descending(desc),
        rows(r),
        layout(l),
        blend(b),
        kmin(lo),
        batch(c),
        timed_passes(timed_queries) {}
  Context& context;
  const RasterInput& input;
  size_t slot;
  bool descending;
  const std::vector<uint64_t>* rows;
  SortLayout layout;
  bool blend;  // R32F normal-float keys (blending network) instead of RGBA32UI record pairs
  uint32_t kmin;
  Targets targets;
  int current = 0;  // the set holding the records
  QueryBatch batch;
  bool timed_passes;
  GLuint program_of_pass = 0;  // the network's program (pass() sets its tile uniform)
  uint64_t queued = 0;         // fragments issued since the last wait
  uint64_t syncs = 0;          // waits inside the network

  // Fills set 0: from the column's tiles by draws per overlapping (sort tile, column tile) (and per
  // record of a texel, under a colour mask), or, for a subset of rows, from the host table (keys of
  // the given rows, uploaded per tile).
  void init(Stage& stage) {
    const SortLayout& l = layout;
    if (rows) {
      const Column& column = input.table().columns.at(input.columns().at(slot));
      // Records in order are texels in order: (key, position) pairs, two per RGBA32UI texel.
      std::vector<uint32_t> buffer(l.tile_records() * (blend ? 1 : 2));
      for (uint64_t t = 0; t < l.tiles(); ++t) {
        for (uint64_t r = 0; r < l.tile_records(); ++r) {
          const uint64_t i = t * l.tile_records() + r;
          const bool real = i < l.count;
          const uint32_t key = real ? directed_key(column, (*rows)[i], descending) : 0xffffffffu;
          if (blend) {
            buffer[r] = real ? normal_float_bits(key - kmin) : kPlusInf;
          } else {
            buffer[2 * r] = key;
            buffer[2 * r + 1] = uint32_t(i);
          }
        }
        {
          glTextureSubImage2D(targets.textures[0][t], 0, 0, 0, GLsizei(l.width), GLsizei(l.height),
                              blend ? GL_RED : GL_RGBA_INTEGER, blend ? GL_FLOAT : GL_UNSIGNED_INT, buffer.data());
        }
      }
      stage.detail = std::string("host keys of the ") + std::to_string(l.count) + " given rows uploaded as " +
                     (blend ? "R32F normal floats" : "RGBA32UI (key, position) x 2") + " tiles, padding " +
                     (blend ? "+inf" : "(0xffffffff, position >= n)");
      stage.items = l.padded;
      return;
    }
    const TextureStore& store = input.store();
    const TileLayout& columns = store.layout();
    const ColumnInfo& info = store.info(slot);
    const GLuint program = context.program("fullscreen.vert", blend ? "sort_init_blend.frag" : "sort_init_pairs.frag");
    glUseProgram(program);
    glProgramUniform1ui(program, 2, l.log_width);
    glProgramUniform1ui(program, 3, uint32_t(l.count));
    glProgramUniform1ui(program, 6, columns.width);
    glProgramUniform1ui(program, 7, (info.type == Type::Float32 ? 1u : 0u) | (descending ? 2u : 0u));
    if (blend) glProgramUniform1ui(program, 9, kmin);
    glViewport(0, 0, GLsizei(l.width), GLsizei(l.height));
    for (uint64_t t = 0; t < l.tiles(); ++t) {
      const uint64_t first = t * l.tile_records();
      const uint64_t last = std::min(first + l.tile_records(), l.count);  // real records [first, last)
      const uint64_t u0 = first < last ? first / columns.tile_records() : 0;
      const uint64_t u1 = first < last ? (last - 1) / columns.tile_records() : 0;
      glBindFramebuffer(GL_FRAMEBUFFER, targets.framebuffers[0][t]);
      glProgramUniform1ui(program, 1, uint32_t(t * l.tile_texels));
      for (uint64_t u = u0; u <= u1; ++u)
        for (uint32_t e = 0; e < l.per_texel; ++e) {
          {
            // Pairs: record 2q + e of texel q, written to its half of the texel only.
            if (!blend) {
              glColorMask(e == 0, e == 0, e == 1, e == 1);
              glProgramUniform1ui(program, 10, e);
            }
            glProgramUniform1ui(program, 4, uint32_t(u * columns.tile_records()));
            glProgramUniform1ui(program, 5, uint32_t(columns.records(u)));
            glBindTextureUnit(0, store.texture(slot, u));
            glDrawArrays(GL_TRIANGLES, 0, 3);
          }
          stage.items += l.tile_texels;
        }
    }
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    stage.detail = std::string(blend ? "sort_init_blend.frag: (key - kmin)-th normal float"
                                     : "sort_init_pairs.frag: (order key, position), one draw per record of a "
                                       "texel under a colour mask,") +
                   (descending ? " of ~key" : "") + " from " + info.name +
                   "'s column tiles, draws per overlapping (sort tile, column tile), padding " +
                   (blend ? "+inf" : "(0xffffffff, position >= n)");
    check_error("raster sort init");
  }

  // One pass over every tile into the other set. `distances` are the pass's partner distances in
  // texels (none, one, or up to 3 consecutive halvings): tile unit s gets the tile holding the
  // texels q XOR D_s, D_s the XOR of the distances picked by the bits of s, which is tile
  // t XOR (D_s / T) (T texels per tile, all powers of two).
  // Every kSyncFragments fragments issued, the host waits for the GPU (Context::finish, bounded by
  // the timeout; it was glFinish): on NVIDIA (H200, driver 580)
  // a network of 2^28 records issued in one go (about 14 s of GPU work) came back with its last
  // tile wrong and later queries zero; waiting after every pass fixed it, and this bound keeps the
  // queued work near 0.1 s there at no measurable cost.
  template <class Draw>
  void pass(const std::vector<uint64_t>& distances, const Draw& draw) {
    const SortLayout& l = layout;
    const int next = 1 - current;
    for (uint64_t t = 0; t < l.tiles(); ++t) {
      glBindFramebuffer(GL_FRAMEBUFFER, targets.framebuffers[next][t]);
      glProgramUniform1ui(program_of_pass, 1, uint32_t(t * l.tile_texels));
      for (uint64_t subset = 0; subset < (uint64_t(1) << distances.size()); ++subset) {
        uint64_t offset = 0;
        for (size_t i = 0; i < distances.size(); ++i)
          if (subset >> i & 1) offset ^= distances[i];
        glBindTextureUnit(GLuint(subset), targets.textures[current][t ^ (offset / l.tile_texels)]);
      }
      draw(t, next);
    }
    current = next;
    queued += l.texels() * (blend ? 2 : 1);
    if (queued >= kSyncFragments) {
      context.finish("raster sort: the network's queued passes");
      queued = 0;
      ++syncs;
    }
  }

  // The bitonic network: for k = 2, 4, ..., padded and j = k/2, ..., 1 one step over every tile.
  // Pairs hold records 2q and 2q + 1 in texel q: a step j >= 2 compares texel q with q XOR j/2
  // (both records alike, since their directions agree) and the step j = 1 the two records of a
  // texel. A pass runs up to `steps_per_pass` consecutive texel steps of a stage (the first group
  // of a stage takes the remainder), the last pass of a stage also the step j = 1; stage k = 2 is
  // the step j = 1 alone.
  void run(Stage& stage) {
    const SortLayout& l = layout;
    const GLuint program = context.program("fullscreen.vert", blend ? "sort_blend.frag" : "sort_pairs.frag");
    program_of_pass = program;
    glUseProgram(program);
    glProgramUniform1ui(program, 2, l.log_width);
    glProgramUniform1ui(program, 3, uint32_t(l.tile_texels - 1));
    glViewport(0, 0, GLsizei(l.width), GLsizei(l.height));
    uint32_t passes = 0;
    const auto draw = [](uint64_t, int) { glDrawArrays(GL_TRIANGLES, 0, 3); };
    for (uint64_t k = 2; k <= l.padded; k *= 2) {
      glProgramUniform1ui(program, 5, uint32_t(k));
      if (blend) {
        for (uint64_t j = k / 2; j >= 1; j /= 2) {
          glProgramUniform1ui(program, 4, uint32_t(j));
          pass({j}, [&](uint64_t t, int next) {
            // Copy the keys, then blend the partners' keys in: MIN at the lower, MAX at the upper positions.
            glCopyImageSubData(targets.textures[current][t], GL_TEXTURE_2D, 0, 0, 0, 0, targets.textures[next][t],
                               GL_TEXTURE_2D, 0, 0, 0, 0, GLsizei(l.width), GLsizei(l.height), 1);
            glEnable(GL_BLEND);
            for (const GLuint lower : {1u, 0u}) {
              glBlendEquation(lower ? GL_MIN : GL_MAX);
              glProgramUniform1ui(program, 6, lower);
              glDrawArrays(GL_TRIANGLES, 0, 3);
            }
            glDisable(GL_BLEND);
          });
          ++passes;
        }
        continue;
      }
      if (k == 2) {
        glProgramUniform1ui(program, 6, 2u);  // mode 2: the records of a texel
        pass({}, draw);
        ++passes;
        continue;
      }
      // Texel distances k/4 .. 1, in groups of steps_per_pass (the first takes the remainder).
      const uint32_t texel_steps = uint32_t(std::countr_zero(k)) - 1;
      uint32_t group = texel_steps % l.steps_per_pass ? texel_steps % l.steps_per_pass : l.steps_per_pass;
      for (uint64_t d = k / 4; d >= 1; d >>= group, group = l.steps_per_pass) {
        std::vector<uint64_t> distances;
        for (uint32_t i = 0; i < group; ++i) distances.push_back(d >> i);
        const bool last = distances.back() == 1;
        glProgramUniform1ui(program, 4, uint32_t(d));
        glProgramUniform1ui(program, 6, last ? 1u : 0u);
        glProgramUniform1ui(program, 7, group);
        pass(distances, draw);
        ++passes;
        if (last) break;
      }
    }
    if (passes != l.passes()) throw Error(ErrorCode::Internal, "raster sort: pass count differs from the layout's");
    stage.items = uint64_t(passes) * l.texels() * (blend ? 2 : 1);
    stage.detail =
        blend ? std::to_string(passes) +
                    " bitonic steps, each per tile: glCopyImageSubData of the keys, then two draws of "
                    "sort_blend.frag (partner key at i XOR j) with glBlendEquation GL_MIN (lower positions) and "
                    "GL_MAX (upper), R32F ping-pong; items: fragments of both draws"
              : std::to_string(l.steps()) + " bitonic steps in " + std::to_string(passes) +
                    " passes, each one draw per tile of sort_pairs.frag: up to " + std::to_string(l.steps_per_pass) +
                    " texel steps per pass (fetch the 2^s texels q XOR the pass's distances, their tiles bound "
                    "beside, run the steps in registers, keep texel q's min/max of (key, position)), the step j = 1 "
                    "in a stage's last pass, RGBA32UI ping-pong; items: fragments (texels)";
    if (syncs) stage.detail += "; a wait after every 2^29 fragments issued (" + std::to_string(syncs) + " waits)";
    check_error("raster sort network");
  }

  // Reads the first `keep` records of the sorted sequence: (key, position) pairs, or keys as floats.
  // The stage's wait (run_stage) has finished the network, so the reads do not block on the GPU.
  std::vector<uint32_t> read(uint64_t keep, Stage& stage) {
    const SortLayout& l = layout;
    const uint32_t per = blend ? 1 : 2;  // 32-bit words per record
    std::vector<uint32_t> out(keep * per);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    uint64_t done = 0;
    std::vector<uint32_t> tile(l.tile_records() * per);
    for (uint64_t t = 0; done < keep; ++t) {
      const uint64_t want = std::min(keep - done, l.tile_records());
      const uint64_t texels = (want + l.per_texel - 1) / l.per_texel;
      const auto pixel_rows = GLsizei((texels + l.width - 1) / l.width);
      {
        glGetTextureSubImage(targets.textures[current][t], 0, 0, 0, 0, GLsizei(l.width), pixel_rows, 1,
                             blend ? GL_RED : GL_RGBA_INTEGER, blend ? GL_FLOAT : GL_UNSIGNED_INT,
                             GLsizei(tile.size() * 4), tile.data());
      }
      std::copy_n(tile.begin(), want * per, out.begin() + done * per);
      stage.items += uint64_t(pixel_rows) * l.width;
      done += want;
    }
    stage.detail = "glGetTextureSubImage of the first " + std::to_string(keep) + " sorted " +
                   (blend ? "keys (GL_RED, GL_FLOAT)" : "records (GL_RGBA_INTEGER)");
    check_error("raster sort readback");
    return out;
  }
};

// Runs one stage between two GL_TIMESTAMP queries and two waits for the GPU (Context::finish,
// bounded by the timeout), so its wall time is the time the GPU took for it (the network is
// GPU-bound: issuing is far faster than drawing); the readback waits for the GPU anyway.
template <class Work>
void run_stage(Network& net, Stage& stage, const Work& work) {
  net.context.finish(("raster sort: before " + stage.kind).c_str());
  const auto started = Clock::now();
  stage.begin = stamp(net.batch, net.timed_passes);
  work();
  stage.end = stamp(net.batch, net.timed_passes);
  net.context.finish(("raster sort: " + stage.kind).c_str());
  stage.wall_ms = ms_since(started);
}

// Runs the whole network under the sort's GL state: targets of `format`, then its three stages
// (init, the comparator passes, the readback of the first `keep` records) timed into `stages`.
// Returns the words read back.
std::vector<uint32_t> run_network(Network& net, GLenum format, uint64_t keep, std::vector<Stage>& stages) {
  SortState state;
  make_targets(net.context, net.targets, net.layout, format);
  stages = {{"sort-init", "", 0, 0, 0, 0}, {"sort-network", "", 0, 0, 0, 0}, {"sort-readback", "", 0, 0, 0, 0}};
  std::vector<uint32_t> words;
  run_stage(net, stages[0], [&] { net.init(stages[0]); });
  run_stage(net, stages[1], [&] { net.run(stages[1]); });
  run_stage(net, stages[2], [&] { words = net.read(keep, stages[2]); });
  return words;
}

uint64_t input_count(const RasterInput& input, const std::vector<uint64_t>* rows) {
  return rows ? rows->size() : input.store().layout().rows;
}

void check_slot(const RasterInput& input, size_t slot) {
  if (slot >= input.columns().size())
    throw Error(ErrorCode::Internal, "raster sort: slot " + std::to_string(slot) + " was not uploaded");
}

}  // namespace

bool blend_applicable(uint32_t lo, uint32_t hi) noexcept {
  return lo <= hi && hi - lo < 2 * kNormalsPerSign;
}

uint32_t normal_float_bits(uint32_t index) noexcept {
  return index < kNormalsPerSign ? 0xff7fffffu - index : 0x00800000u + (index - kNormalsPerSign);
}

uint32_t normal_float_index(uint32_t bits) noexcept {
  return (bits & 0x80000000u) ? 0xff7fffffu - bits : bits - 0x00800000u + kNormalsPerSign;
}

SortOutput sort_rows(Context& context, const RasterInput& input, size_t slot, bool descending,
                     const RasterOptions& options, const std::vector<uint64_t>* rows, std::optional<uint64_t> limit) {
  const auto start = Clock::now();
  check_slot(input, slot);
  const uint64_t n = input_count(input, rows);
  const uint64_t keep = std::min(n, limit.value_or(n));
  SortOutput out;
  const std::string what = "raster sort: bitonic network of (key, row id) pairs by comparator fragment passes";
  if (keep == 0) {
    out.algorithm = what + " (n=" + std::to_string(n) + (n ? ", LIMIT 0" : "") + ": nothing to sort, no GPU pass)";
    return out;
  }
  Network net(context, input, slot, descending, rows, sort_layout(context.caps(), options, n, 2), false, 0,
              options.pass_queries && context.caps().timer_counter_bits > 0);
  std::vector<Stage> stages;
  const std::vector<uint32_t> records = run_network(net, GL_RGBA32UI, keep, stages);
  // The records read back are checked on the host (O(keep)): each is a real record whose key is its
  // row's, no position repeats, and (key, position) ascends. A driver fault then ends the query with
  // an error instead of a wrong order (seen once on NVIDIA at 2^28 records).
  const Column& column = input.table().columns.at(input.columns().at(slot));
  std::vector<bool> seen(n, false);
  out.rows.reserve(keep);
  out.keys.reserve(keep);
  for (uint64_t i = 0; i < keep; ++i) {
    const uint32_t key = records[2 * i], position = records[2 * i + 1];
    const bool ordered =
        i == 0 || records[2 * i - 2] < key || (records[2 * i - 2] == key && records[2 * i - 1] < position);
    if (position >= n || seen[position] || !ordered ||
        key != directed_key(column, rows ? (*rows)[position] : position, descending))
      throw Error(ErrorCode::Internal, "raster sort: the GPU's sorted records fail the host check at " +
                                           std::to_string(i) + " of " + std::to_string(keep) + " (key " +
                                           std::to_string(key) + ", position " + std::to_string(position) +
                                           "): the driver did not run the passes as issued");
    seen[position] = true;
    out.rows.push_back(rows ? (*rows)[position] : position);
    out.keys.push_back(descending ? ~key : key);
  }
  out.algorithm = what + " (" + layout_text(net.layout, net.blend) + ", " + (descending ? "DESC" : "ASC") +
                  ", stable by row id" + (limit ? ", first " + std::to_string(keep) + " read back" : "") + ")";
  out.passes = finish(net.batch, stages, ms_since(start));
  return out;
}

KeySortOutput sort_keys_blend(Context& context, const RasterInput& input, size_t slot, bool descending,
                              const RasterOptions& options, const std::vector<uint64_t>* rows,
                              std::optional<uint64_t> limit) {
  const auto start = Clock::now();
  check_slot(input, slot);
  const uint64_t n = input_count(input, rows);
  const uint64_t keep = std::min(n, limit.value_or(n));
  KeySortOutput out;
  const std::string what = "raster sort: bitonic network by min/max blending (keys only, normal-float keys)";
  if (keep == 0) {
    out.algorithm = what + " (n=" + std::to_string(n) + (n ? ", LIMIT 0" : "") + ": nothing to sort, no GPU pass)";
    return out;
  }
  // The keys' span, after the direction is applied.
  uint32_t lo = ~0u, hi = 0;
  if (rows) {
    const Column& column = input.table().columns.at(input.columns().at(slot));
    for (uint64_t r : *rows) {
      const uint32_t k = directed_key(column, r, descending);
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
  } else {
    const KeyRange& keys = input.store().info(slot).keys;
    lo = descending ? ~keys.hi : keys.lo;
    hi = descending ? ~keys.lo : keys.hi;
  }
  if (!blend_applicable(lo, hi))
    throw Error(ErrorCode::Unsupported, "raster sort by blending: the keys span " + std::to_string(uint64_t(hi) - lo) +
                                            " values, more than the 2^32 - 2^25 normal floats min/max blending "
                                            "compares exactly (use the pair network)");
  Network net(context, input, slot, descending, rows, sort_layout(context.caps(), options, n, 1), true, lo,
              options.pass_queries && context.caps().timer_counter_bits > 0);
  std::vector<Stage> stages;
  const std::vector<uint32_t> bits = run_network(net, GL_R32F, keep, stages);
  out.keys.reserve(keep);
  for (uint64_t i = 0; i < keep; ++i) {
    // Only normal floats were written (and +inf padding, which sorts last), ascending: anything
    // else read back would mean the driver changed a value or skipped a pass.
    const uint32_t exponent = (bits[i] >> 23) & 0xffu;
    if (exponent == 0 || exponent == 0xff || (i > 0 && normal_float_index(bits[i - 1]) > normal_float_index(bits[i])))
      throw Error(ErrorCode::Internal, "raster sort by blending: read back float bits " + std::to_string(bits[i]) +
                                           " at " + std::to_string(i) + ", not a normal float above the one before");
    const uint32_t key = lo + normal_float_index(bits[i]);
    out.keys.push_back(descending ? ~key : key);
  }
  out.algorithm = what + " (" + layout_text(net.layout, net.blend) + ", " + (descending ? "DESC" : "ASC") +
                  ", key span " + std::to_string(uint64_t(hi) - lo) + " < 2^32 - 2^25" +
                  (limit ? ", first " + std::to_string(keep) + " read back" : "") + ")";
  out.passes = finish(net.batch, stages, ms_since(start));
  return out;
}

}  // namespace gfxq::gl
