#include "gl/cost.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

namespace gfxq::gl {

namespace {

constexpr uint64_t kTile = uint64_t(8192) * 8192;  // records per default tile
constexpr uint64_t kChunk = uint64_t(1) << 24;     // GROUP BY records per additive chunk

// Passes and fragments of one kind, and their time.
struct Work {
  double passes = 0, fragments = 0, seconds = 0;
  void add(double n_passes, double n_fragments, double rate, double overhead) {
    passes += n_passes;
    fragments += n_fragments;
    seconds += n_passes * overhead + (rate > 0 ? n_fragments / rate : 0);
  }
};

uint64_t tiles(uint64_t rows) {
  return std::max<uint64_t>(1, (rows + kTile - 1) / kTile);
}

// The pair network's passes for n records, 2 texel steps per pass (gl/sort.h).
double sort_passes(uint64_t n) {
  const uint64_t p = uint64_t(std::countr_zero(std::bit_ceil(std::max<uint64_t>(n, 2))));
  double passes = 1;
  for (uint64_t s = 2; s <= p; ++s) passes += double(s / 2);  // ceil((s - 1) / 2) texel-step passes
  return passes;
}

std::string figure(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

CostEstimate RasterCostModel::estimate(const PlanNodeShape& node) const {
  const double overhead = c_.pass_overhead_s;
  const double n = double(node.rows);
  const double t = double(tiles(node.rows));
  Work work;
  std::string basis;
  // The WHERE of Filter and Aggregate: a one-part comparison is one value pass (the constant by a
  // clear); otherwise each part copies its column (a value pass) and compares it (constant passes:
  // strict and tie for all but the last part).
  const auto filter = [&] {
    const double parts = double(node.comparisons) * node.parts;
    if (node.comparisons == 1 && node.parts == 1 && c_.clear_depth_exact) {
      work.add(t, n, c_.value_rate, overhead);
    } else {
      work.add(t * parts, n * parts, c_.value_rate, overhead);
      const double compares = double(node.comparisons) * (2.0 * node.parts - 1);
      work.add(t * compares, n * compares, c_.fill_rate, overhead);
    }
    if (node.row_ids) work.seconds += n / std::max(c_.readback_bytes_per_s, 1.0);
    basis += "WHERE: " + figure(double(node.comparisons)) + " comparison(s) of " + figure(double(node.parts)) +
             " part(s)" + (node.row_ids ? ", stencil readback" : ", fused occlusion count");
  };
  switch (node.kind) {
    case PlanNodeShape::Kind::Filter: filter(); break;
    case PlanNodeShape::Kind::Aggregate: {
      filter();
      const double planes = double(node.sums) * node.sum_planes;
      work.add(t * planes, n * planes, c_.value_rate, overhead);
      // Each bitwise-search bit is read back before the next: one round trip per pass.
      const double steps = 32.0 * node.searches;
      work.add(t * steps, n * steps, c_.value_rate, overhead * 4);
      basis += "; " + figure(planes) + " bit-plane pass(es), " + figure(steps) + " bitwise-search pass(es)";
      break;
    }
    case PlanNodeShape::Kind::GroupBy: {
      // Channels: the count, the SUM planes and the MIN/MAX high parts (round 1), 4 per attachment,
      // 8 attachments per pass; MIN/MAX low parts in a second round. Each pass draws every record.
      const double channels = 1.0 + double(node.sums) * node.sum_planes + node.searches;
      const double passes =
          std::ceil(std::ceil(channels / 4) / 8) + (node.searches ? std::ceil(node.searches / 32.0) : 0);
      work.add(passes * t, n * passes, c_.point_rate, overhead);
      const double chunks = std::max(1.0, std::ceil(n / double(kChunk)));
      work.seconds += passes * chunks * double(node.groups) * 16 * 8 / std::max(c_.readback_bytes_per_s, 1.0);
      basis += "GROUP BY: " + figure(channels) + " channel(s) in " + figure(passes) + " point pass(es) over " +
               figure(double(node.groups)) + " group id(s), readbacks after every chunk of 2^24 records";
      if (node.rank_ids) {
        const double sort = sort_passes(node.rows);
        work.add(sort * t, sort * n / 2, c_.value_rate / 2, overhead);
        basis += "; rank ids: the pair sort, " + figure(sort) + " pass(es)";
      }
      break;
    }
    case PlanNodeShape::Kind::Sort: {
      // Each fragment fetches 4 texels (2 steps): half the value pass rate.
      const double passes = sort_passes(node.rows);
      work.add(passes * t, passes * std::bit_ceil(std::max<uint64_t>(node.rows, 2)) / 2.0, c_.value_rate / 2, overhead);
      basis += "ORDER BY: the pair network, " + figure(passes) + " pass(es) of padded n / 2 texels";
      break;
    }
    case PlanNodeShape::Kind::Join: {
      const double m = double(node.inner_rows);
      const double sort = sort_passes(node.inner_rows);
      work.add(sort, sort * std::bit_ceil(std::max<uint64_t>(node.inner_rows, 2)) / 2.0, c_.value_rate / 2, overhead);
      const double probes = double(node.distinct_probes ? std::min(node.distinct_probes, node.rows) : node.rows);
      if (node.probe_passes) {
        work.add(2 * probes, 2 * probes * m, c_.fill_rate, overhead);
        basis += "JOIN: inner sort (" + figure(sort) + " passes), 2 constant-depth passes over the " + figure(m) +
                 " inner keys per distinct probe bound (" + figure(probes) + ")";
      } else {
        // One search draw per batch of 2^18 probes: 2 counts per distinct bound, log2 m fetches each.
        const double draws = std::ceil(double(node.rows) / double(1 << 18));
        const double fetches = std::max(1.0, std::ceil(std::log2(std::max(m, 1.0))));
        work.add(draws, 2 * probes * fetches, c_.value_rate, overhead);
        work.seconds += 2 * probes * 8 / std::max(c_.readback_bytes_per_s, 1.0);
        basis += "JOIN: inner sort (" + figure(sort) + " passes), " + figure(draws) + " search draw(s) of 2 x " +
                 figure(probes) + " bound(s), " + figure(fetches) + " key fetches each";
      }
      break;
    }
    case PlanNodeShape::Kind::Scan:
      // No pass: the raster path gathers projected columns on the host at the row ids.
      work.seconds += n * node.columns * 4 / std::max(c_.readback_bytes_per_s, 1.0);
      basis += "host gather of " + figure(double(node.columns)) + " column(s)";
      break;
  }
  if (node.upload) {
    // A whole query: its columns uploaded, and the fixed cost of a query's round trip.
    work.seconds += n * node.columns * 4 / std::max(c_.readback_bytes_per_s, 1.0) + c_.query_s;
    basis +=
        "; upload of " + figure(double(node.columns)) + " column(s), " + figure(c_.query_s * 1e3) + " ms per query";
  }
  CostEstimate e;
  e.seconds = work.seconds;
  e.passes = uint64_t(work.passes);
  e.fragments = uint64_t(work.fragments);
  e.basis = basis + "; " + figures();
  return e;
}

std::string RasterCostModel::figures() const {
  return "fill " + figure(c_.fill_rate) + "/s, values " + figure(c_.value_rate) + "/s, points " +
         figure(c_.point_rate) + "/s, " + figure(c_.pass_overhead_s * 1e6) + " us per pass, transfers " +
         figure(c_.readback_bytes_per_s) + " B/s, " + figure(c_.query_s * 1e3) + " ms per small query";
}

}  // namespace gfxq::gl
