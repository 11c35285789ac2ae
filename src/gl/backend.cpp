// The raster backend (OpenGL, after Govindaraju et al. 2004): selections with a WHERE in CNF, every
// comparison done by depth and stencil tests; aggregates without GROUP BY over the WHERE's stencil
// (COUNT; SUM/AVG by bit planes; MIN/MAX/MEDIAN/QUANTILE/KTH_LARGEST by bitwise search); GROUP BY by
// blending; ORDER BY by sorting networks; equi and band joins by sorted inner keys and occlusion
// counts (src/gl/execute.h routes to src/gl/select.h, aggregate.h, group_by.h, sort.h, join.h;
// docs/RASTER.md). Other operators are Error(Unsupported) naming the operator.
//
// Its gl::RasterOptions come from the device's calibration (gl/calibration.h), made at the first
// query and cached in the user's cache folder. EngineOptions::raster.calibration (or its override
// GFXQ_RASTER_CALIBRATION, read when the Engine was made: engine/options.h) = "off" runs with the
// default options and measures nothing; = PATH caches in PATH instead of $XDG_CACHE_HOME/gfxq or
// ~/.cache/gfxq.
#include <chrono>
#include <optional>
#include <string>

#include "engine/backend.h"
#include "engine/placement.h"
#include "engine/spec_fragment.h"
#include "gfxq/error.h"
#include "gl/calibration.h"
#include "gl/context.h"
#include "gl/execute.h"
#include "gl/texture_cache.h"

namespace gfxq {

namespace {

// Texture bytes the raster backend keeps between queries unless EngineOptions::resident_bytes says.
constexpr uint64_t kDefaultTextureBytes = uint64_t(1) << 30;

class RasterBackend final : public engine::BackendImpl {
 public:
  RasterBackend(EngineOptions options, bool calibrate, std::string cache_path)
      : options_(std::move(options)), calibrate_(calibrate), cache_path_(std::move(cache_path)) {}
  ~RasterBackend() override {
    // The cached textures are deleted in their context; without it they go with the context.
    if (!textures_ || !context_) return;
    try {
      context_->make_current();
      textures_.reset();
    } catch (const Error&) {
      (void)textures_.release();
    }
  }
  RasterBackend(const RasterBackend&) = delete;
  RasterBackend& operator=(const RasterBackend&) = delete;
  Backend kind() const noexcept override { return Backend::Raster; }

  // The context, started on first use; nullptr when none can be created (caps_ says why).
  gl::Context* context() {
    if (!tried_) {
      tried_ = true;
      try {
        context_ = gl::Context::create_headless({.debug = options_.debug,
                                                 .wait_timeout_ns = uint64_t(options_.gpu_timeout_ms) * 1000000,
                                                 .faults = options_.faults});
        caps_ = context_->caps();
      } catch (const Error& e) {
        caps_ = {};
        caps_.unavailable_reason = e.what();
      }
    }
    if (context_) context_->make_current();
    return context_.get();
  }
  const GlCapabilities& caps() {
    context();
    return caps_;
  }

  // A fragment the Query spec expresses; the router (gl/execute.h) says Unsupported for the rest
  // of that shape, which the claim reports.
  std::optional<engine::Fragment> claim(const plan::Node& node, const Catalog& catalog, std::string& why) override {
    if (!context()) {
      why = "raster backend unavailable: " + caps_.unavailable_reason;
      return std::nullopt;
    }
    auto sf = engine::spec_fragment(node, why);
    if (!sf) return std::nullopt;
    if (const std::string lack = gl::unsupported_operator(sf->query, catalog); !lack.empty()) {
      why = lack;
      return std::nullopt;
    }
    sf->fragment.algorithm = "raster: " + sf->query.text();
    sf->fragment.spec = std::move(sf->query);
    return std::move(sf->fragment);
  }

  // The device's calibration (measured or read from the cache once), or null when calibration is
  // off or no context exists; the options follow from it.
  const gl::RasterCalibration* calibration() {
    gl::Context* ctx = context();
    if (!ctx) return nullptr;
    if (!options_raster_) {
      if (calibrate_) calibration_ = gl::calibrate(*ctx, cache_path_);
      options_raster_ = calibration_ ? gl::calibrated_options(*calibration_) : gl::RasterOptions{};
      textures_ = std::make_unique<gl::TextureCache>(options_.resident_bytes.value_or(kDefaultTextureBytes));
      options_raster_->textures = textures_.get();
    }
    return calibration_ ? &*calibration_ : nullptr;
  }

  engine::FragmentRun run(const engine::Fragment& f, const Catalog& catalog, std::vector<engine::Relation>) override {
    gl::Context* ctx = context();
    ctx->check_alive();
    calibration();
    const auto start = std::chrono::steady_clock::now();
    Result r = gl::execute(*ctx, *f.spec, catalog, *options_raster_);
    ctx->finish("raster query");
    engine::FragmentRun out;
    engine::NodeRun n;
    n.algorithm = r.report.algorithm;
    n.rows_in = catalog.get(f.spec->table).rows();
    n.rows_out = r.table.rows();
    double gpu = 0;
    bool any = false;
    for (const auto& p : r.report.passes)
      if (p.gpu_ms) gpu += *p.gpu_ms, any = true;
    if (any) n.gpu_ms = gpu;
    n.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.nodes[f.root] = std::move(n);
    out.passes = std::move(r.report.passes);
    out.result = cpu::HostRelation::of(std::move(r.table));
    return out;
  }

  std::vector<std::string> take_debug_messages() override {
    if (!context_) return {};
    context_->make_current();
    std::vector<std::string> out;
    for (auto& m : context_->take_debug_messages()) out.push_back("GL: " + m);
    return out;
  }

 private:
  EngineOptions options_;
  bool calibrate_;
  std::string cache_path_;
  bool tried_ = false;
  std::unique_ptr<gl::Context> context_;
  // Catalog columns kept as textures between queries (after context_: destroyed first, while the
  // context still exists; ~RasterBackend makes it current).
  std::unique_ptr<gl::TextureCache> textures_;
  GlCapabilities caps_;
  std::optional<gl::RasterCalibration> calibration_;  // measured or read at the first query
  std::optional<gl::RasterOptions> options_raster_;   // the raster knobs, made once
};

}  // namespace

namespace engine {

std::unique_ptr<BackendImpl> create_raster_backend(const EngineOptions& options) {
  const std::string& value = options.raster.calibration;
  if (value == "off") return std::make_unique<RasterBackend>(options, false, std::string());
  return std::make_unique<RasterBackend>(options, true, value.empty() ? gl::default_calibration_path() : value);
}

const GlCapabilities& raster_capabilities(BackendImpl& raster) {
  return static_cast<RasterBackend&>(raster).caps();
}

const gl::RasterCalibration* raster_calibration(BackendImpl& raster) {
  return static_cast<RasterBackend&>(raster).calibration();
}

}  // namespace engine

}  // namespace gfxq
