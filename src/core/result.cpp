#include "gfxq/result.h"

#include <cstdio>

#include "gfxq/error.h"

namespace gfxq {

const char* to_string(Backend b) noexcept {
  switch (b) {
    case Backend::Cpu: return "cpu";
    case Backend::Raster: return "raster";
    case Backend::Compute: return "compute";
    case Backend::Auto: return "auto";
  }
  return "?";
}

Backend parse_backend(std::string_view text) {
  for (Backend b : {Backend::Cpu, Backend::Raster, Backend::Compute, Backend::Auto})
    if (text == to_string(b)) return b;
  throw Error(ErrorCode::InvalidQuery, "unknown backend '" + std::string(text) + "' (cpu, raster, compute, auto)");
}

namespace {
std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", v);
  return buf;
}
}  // namespace

std::string ExecutionReport::text() const {
  std::string s = "backend: " + std::string(to_string(backend)) + "\nalgorithm: " + algorithm + "\n";
  if (!reason.empty()) s += "reason: " + reason + "\n";
  if (!prepared.empty()) s += "prepared: " + prepared + "\n";
  if (!plan.empty()) {
    s += "plan:\n";
    const std::string* last_reason = nullptr;
    for (const auto& n : plan) {
      s += std::string(2 + 2 * n.depth, ' ') + n.node + "\n" + std::string(6 + 2 * n.depth, ' ') + "[" +
           to_string(n.backend) + "] " + n.algorithm + "; rows " + std::to_string(n.rows_in) + " -> " +
           std::to_string(n.rows_out);
      if (n.gpu_ms) s += ", gpu " + ms(*n.gpu_ms);
      s += ", " + ms(n.wall_ms);
      if (!n.reason.empty() && (!last_reason || *last_reason != n.reason)) s += "; " + n.reason;
      last_reason = &n.reason;
      s += "\n";
    }
  }
  if (!partitioning.empty()) s += "partitioning: " + partitioning + "\n";
  for (const auto& p : partitions)
    s += "  " + p.device + ": rows " + std::to_string(p.first_row) + ".." + std::to_string(p.first_row + p.rows) +
         " -> " + std::to_string(p.rows_out) + ", " + ms(p.wall_ms) + "; " + p.algorithm + "\n";
  if (!partitions.empty())
    s += "exchange: " + std::to_string(exchange_bytes) + " bytes to the host, " + ms(exchange_ms) + "\n";
  s += "passes: " + std::to_string(passes.size()) + "\n";
  for (size_t i = 0; i < passes.size(); ++i) {
    const auto& p = passes[i];
    s += "  " + std::to_string(i + 1) + ". " + p.kind;
    if (!p.detail.empty()) s += " [" + p.detail + "]";
    s += " items=" + std::to_string(p.items);
    if (p.passed) s += " passed=" + std::to_string(*p.passed);
    if (p.gpu_ms) s += " gpu=" + ms(*p.gpu_ms);
    s += " wall=" + ms(p.wall_ms) + "\n";
  }
  if (gpu_submissions)
    s += "gpu submissions: " + std::to_string(gpu_submissions) + ", host waits: " + std::to_string(gpu_waits) + "\n";
  s += "total: " + ms(total_ms) + "\n";
  return s;
}

}  // namespace gfxq
