#include "gl/select.h"

#include <glad/gl.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <span>

#include "core/trace_text.h"
#include "gfxq/error.h"
#include "gl/check.h"
#include "gl/context.h"
#include "gl/count.h"
#include "gl/depth_encode.h"
#include "gl/storage.h"

namespace gfxq::gl {

namespace {

using Clock = std::chrono::steady_clock;

// Stencil layout: bits 0-1 the clause state (1 or 2 alive, 0 rejected), bit 2 the tie flag.
constexpr GLint kStateMask = 0x3;
constexpr GLint kTie = 0x4;
constexpr GLint kTieMask = 0x7;
constexpr uint32_t kWindowValues = 1u << 24;  // a depth part holds 0 .. 2^24 - 1 exactly

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string hex(uint32_t v, int digits = 1) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

std::string term_text(const BoundComparison& c) {
  const auto* col = std::get_if<BoundColumn>(&c.rhs);
  return c.lhs.name + " " + to_string(c.op) + " " + (col ? col->name : number_text(std::get<double>(c.rhs)));
}

// The slot of table column `index` in `columns` (table column per slot).
size_t slot_of(const std::vector<size_t>& columns, size_t index) {
  for (size_t s = 0; s < columns.size(); ++s)
    if (columns[s] == index) return s;
  throw Error(ErrorCode::Internal, "raster: column " + std::to_string(index) + " was not uploaded");
}

// What the planner reads of its input, host only: per slot, the table column and its ColumnInfo.
// From a RasterInput (evaluate_where) or from a host table (plan_where), so both plan alike.
struct PlanInput {
  std::vector<size_t> columns;    // table column index per slot
  std::vector<ColumnInfo> infos;  // per slot
  size_t slot(size_t index) const { return slot_of(columns, index); }
  const ColumnInfo& info(size_t s) const { return infos.at(s); }
};

PlanInput plan_input(const RasterInput& input) {
  PlanInput p{input.columns(), {}};
  for (size_t s = 0; s < p.columns.size(); ++s) p.infos.push_back(input.store().info(s));
  return p;
}

// ---------------------------------------------------------------------------------------------
// The plan: GPU passes of one WHERE, the same for every tile.

enum class PassKind { CopyToDepth, DepthClear, Compare, DepthBounds, StencilResolve, FusedCount };

const char* kind_name(PassKind kind) {
  switch (kind) {
    case PassKind::CopyToDepth: return "copy-to-depth";
    case PassKind::DepthClear: return "depth-clear";
    case PassKind::Compare: return "compare";
    case PassKind::DepthBounds: return "depth-bounds";
    case PassKind::StencilResolve: return "stencil-resolve";
    case PassKind::FusedCount: return "fused-count";
  }
  return "?";
}

struct StencilState {
  GLenum func = GL_ALWAYS;
  GLint ref = 0;
  GLuint mask = 0xff;  // test mask
  GLuint write = 0;    // write mask
  GLenum sfail = GL_KEEP, zfail = GL_KEEP, zpass = GL_KEEP;
};

const char* op_name(GLenum op) {
  switch (op) {
    case GL_KEEP: return "KEEP";
    case GL_ZERO: return "ZERO";
    case GL_REPLACE: return "REPLACE";
    case GL_INVERT: return "INVERT";
    default: return "?";
  }
}

// e.g. "stencil EQUAL 0x5/0x7, zfail ZERO, zpass REPLACE, write 0x4"
std::string stencil_text(const StencilState& s) {
  std::string t = "stencil ";
  // func_name without its "GL_" prefix
  t += s.func == GL_ALWAYS ? std::string("ALWAYS")
                           : std::string(func_name(s.func) + 3) + " " + hex(GLuint(s.ref)) + "/" + hex(s.mask);
  if (s.sfail != GL_KEEP) t += std::string(", sfail ") + op_name(s.sfail);
  if (s.zfail != GL_KEEP) t += std::string(", zfail ") + op_name(s.zfail);
  if (s.zpass != GL_KEEP) t += std::string(", zpass ") + op_name(s.zpass);
  if (s.write) t += ", write " + hex(s.write);
  return t;
}

struct Pass {
  PassKind kind = PassKind::Compare;
  std::string detail;
  std::optional<ColumnValue> value;  // per-pixel depth: a copy's source or a column compare's incoming side
  uint32_t constant = 0;             // depth value of a constant draw (no `value`)
  bool depth_test = true;
  GLenum depth = GL_ALWAYS;  // depth function
  bool depth_write = false;
  uint32_t bounds_lo = 0, bounds_hi = 0;  // DepthBounds: stored values kept, inclusive
  StencilState stencil;
  GLint satisfied = 1;         // state of the records satisfying this pass's clause so far (PassSnapshot)
  bool counts = false;         // its passing fragments are qualifying records (a satisfying pass of the last clause)
  bool clear_stencil = false;  // DepthClear: depth and stencil in one clear (no stencil in the plan)
  bool subtracts = false;      // FusedCount: its passing fragments are taken off the count
};

// Two single-comparison clauses `c >= lo`, `c <= hi` on one 24-bit-window column, merged.
struct Range {
  ColumnValue stored;
  uint32_t lo = 0, hi = 0;  // window values kept, inclusive
};

// One clause as the GPU runs it: OR-ed lowered comparisons, or a range.
struct GpuClause {
  std::vector<DepthCompare> terms;
  std::vector<std::string> texts;
  std::optional<Range> range;
};

struct Plan {
  std::vector<PassRecord> notes;  // host decisions: folds, range choices
  std::optional<bool> constant;   // the WHERE's value for every row when no pass is needed
  std::vector<GpuClause> clauses;
  std::vector<Pass> passes;
  GLint final_state = 1;  // stencil state (bits 0-1) of the qualifying records
  // A one-pass COUNT (RasterOptions::single_pass_count): passes are a depth-and-stencil clear and
  // a fused-count draw over the records only, without stencil test or stencil-init.
  bool single_pass = false;
  bool range_counts = false;  // single_pass of a range: records <= hi minus records < lo
  size_t ranges_by_bounds = 0;
  size_t ranges_as_pairs = 0;
  std::vector<std::string> encodings;  // one line per column (pair) and encoding
};

PassRecord note(std::string detail) {
  PassRecord p;
  p.kind = "fold";
  p.detail = std::move(detail);
  return p;
}

// A single-comparison clause bounding a 24-bit-window column by a constant, as a window value.
struct Bound {
  ColumnValue stored;
  bool lower = false;
  uint32_t value = 0;
};

std::optional<Bound> as_bound(const GpuClause& c) {
  if (c.range || c.terms.size() != 1) return std::nullopt;
  const DepthCompare& d = c.terms[0];
  if (d.parts.size() != 1 || d.parts[0].stored.mode != ValueMode::Window) return std::nullopt;
  const auto* k = std::get_if<uint32_t>(&d.parts[0].incoming);
  if (!k) return std::nullopt;
  // Not folded, so `> k` has k below the column's largest value and `< k` k above its smallest.
  switch (d.op) {
    case CmpOp::Ge: return Bound{d.parts[0].stored, true, *k};
    case CmpOp::Gt: return Bound{d.parts[0].stored, true, *k + 1};
    case CmpOp::Le: return Bound{d.parts[0].stored, false, *k};
    case CmpOp::Lt: return Bound{d.parts[0].stored, false, *k - 1};
    default: return std::nullopt;
  }
}

// Pairs lower and upper bound clauses on the same column into ranges: one depth-bounds pass each
// where `bounds` (the extension is there and wanted), else only noted (two comparisons run).
void merge_ranges(Plan& plan, bool bounds, const std::string& why_not) {
  std::vector<bool> paired(plan.clauses.size(), false);
  std::vector<GpuClause> merged;
  for (size_t i = 0; i < plan.clauses.size(); ++i) {
    GpuClause& clause = plan.clauses[i];
    const auto first = paired[i] ? std::nullopt : as_bound(clause);
    for (size_t j = i + 1; first && j < plan.clauses.size(); ++j) {
      const auto second = paired[j] ? std::nullopt : as_bound(plan.clauses[j]);
      if (!second || !(second->stored == first->stored) || second->lower == first->lower) continue;
      paired[i] = paired[j] = true;
      const std::string text = clause.texts[0] + " AND " + plan.clauses[j].texts[0];
      if (!bounds) {
        ++plan.ranges_as_pairs;
        plan.notes.push_back(note("range " + text + ": two comparisons (" + why_not + ")"));
        break;
      }
      const Bound& lo = first->lower ? *first : *second;
      const Bound& hi = first->lower ? *second : *first;
      if (lo.value > hi.value) {
        plan.notes.push_back(note("range " + text + " is empty: WHERE is FALSE for every row"));
        plan.constant = false;
        return;
      }
      ++plan.ranges_by_bounds;
      plan.notes.push_back(note("range " + text + ": one depth-bounds pass"));
      plan.clauses[j].terms.clear();  // merged into this clause: dropped below
      clause.terms.clear();
      clause.texts = {text};
      clause.range = Range{first->stored, lo.value, hi.value};
      break;
    }
    if (!clause.terms.empty() || clause.range) merged.push_back(std::move(clause));
  }
  plan.clauses = std::move(merged);
}

// Lowers and folds every comparison; drops TRUE clauses and FALSE comparisons.
void lower_where(Plan& plan, const PlanInput& input, const BoundCnf& where) {
  for (size_t i = 0; i < where.clauses.size(); ++i) {
    const std::string clause_name = "clause " + std::to_string(i + 1);
    GpuClause clause;
    bool always = false;
    for (const auto& term : where.clauses[i].terms) {
      const std::string text = term_text(term);
      const size_t lhs = input.slot(term.lhs.index);
      const auto* rhs_column = std::get_if<BoundColumn>(&term.rhs);
      const size_t rhs = rhs_column ? input.slot(rhs_column->index) : lhs;
      Lowered lowered = rhs_column ? lower_columns(lhs, input.info(lhs), term.op, rhs, input.info(rhs))
                                   : lower_literal(lhs, input.info(lhs), term.op, std::get<double>(term.rhs));
      if (const bool* value = std::get_if<bool>(&lowered)) {
        plan.notes.push_back(note(clause_name + ": " + text + " is " + (*value ? "TRUE" : "FALSE") +
                                  " for every row (the columns' key ranges decide it)" +
                                  (*value ? ", clause dropped" : ", comparison dropped")));
        if (*value) {
          always = true;
          break;
        }
        continue;
      }
      DepthCompare& d = std::get<DepthCompare>(lowered);
      const std::string who = input.info(lhs).name + (rhs_column ? " vs " + input.info(rhs).name : "");
      const std::string line = who + ": " + d.encoding;
      if (std::find(plan.encodings.begin(), plan.encodings.end(), line) == plan.encodings.end())
        plan.encodings.push_back(line);
      clause.terms.push_back(std::move(d));
      clause.texts.push_back(text);
    }
    if (always) continue;
    if (clause.terms.empty()) {
      plan.notes.push_back(note(clause_name + " holds for no row: WHERE is FALSE for every row"));
      plan.constant = false;
      return;
    }
    plan.clauses.push_back(std::move(clause));
  }
  if (plan.clauses.empty()) plan.constant = true;
}

// Emits the passes of EvalCNF. Per clause, records alive and not yet satisfying it hold `cur`
// (1 or 2); a comparison that holds flips them to the other value (INVERT of bits 0-1), so later
// comparisons of the clause skip them. After the clause, records still at `cur` failed it: the
// next clause's first pass clears those bits (ZERO under the write mask `cur | tie`), which leaves
// the flipped records untouched because 1 and 2 share no bit. So the values alternate per clause
// and no pass is spent resetting the survivors.
// A comparison of m parts: for each part k < m, records tied so far (state cur, and the tie
// bit for k > 0) that compare strictly in op's direction are satisfied; those equal get the tie bit
// (REPLACE under write mask 0x4), the others lose it (zfail ZERO); the last part applies op itself.
// Ne is satisfied by any part that differs. The tie bit is stale outside a comparison, which
// is harmless: part 1 tests bits 0-1 only and rewrites the bit of every record it tests.
void emit_passes(Plan& plan, const PlanInput& input, bool vertex_constant_depth, bool constant_by_clear) {
  // The stored side of every part, in the order the passes use them: a part whose column the
  // next part compares too keeps its copy-to-depth (one copy serves both).
  std::vector<ColumnValue> order;
  for (const GpuClause& clause : plan.clauses) {
    if (clause.range) order.push_back(clause.range->stored);
    for (const DepthCompare& d : clause.terms)
      for (const Part& part : d.parts) order.push_back(part.stored);
  }
  size_t position = 0;  // the part being emitted, in `order`
  GLint cur = 1;
  std::optional<ColumnValue> held;  // what the depth buffer holds
  GLuint resolve = 0;               // stencil bits a pending clause resolve clears; 0: none pending
  const auto value_text = [&](const ColumnValue& v) { return describe(v, input.info(v.slot)); };
  const auto resolve_text = [&](GLuint bits) {
    return "clause resolve: rejects the records that failed the previous clause (ZERO under " + hex(bits) + ")";
  };
  const StencilState resolve_state = {GL_ALWAYS, 0, 0xff, 0, GL_ZERO, GL_ZERO, GL_ZERO};
  const auto hold = [&](const ColumnValue& v) {
    if (held == v) return;
    Pass p;
    p.kind = PassKind::CopyToDepth;
    p.value = v;
    p.depth = GL_ALWAYS;
    p.depth_write = true;
    p.detail = "depth <- " + value_text(v) + " as k*2^-24 (GL_ALWAYS, depth write)";
    if (resolve) {
      p.stencil = resolve_state;
      p.stencil.write = resolve;
      p.detail += "; " + resolve_text(resolve);
      resolve = 0;
    }
    plan.passes.push_back(std::move(p));
    held = v;
  };
  const auto flush_resolve = [&] {
    if (!resolve) return;
    Pass p;
    p.kind = PassKind::StencilResolve;
    p.depth_test = false;
    p.stencil = resolve_state;
    p.stencil.write = resolve;
    p.detail = resolve_text(resolve);
    plan.passes.push_back(std::move(p));
    resolve = 0;
  };
  const auto draw = [&](const std::string& what, const Part& part, GLenum func, const StencilState& s) {
    flush_resolve();
    Pass p;
    p.kind = PassKind::Compare;
    std::string incoming;
    if (const auto* v = std::get_if<ColumnValue>(&part.incoming)) {
      p.value = *v;
      incoming = value_text(*v);
    } else {
      p.constant = std::get<uint32_t>(part.incoming);
      incoming = std::string("ref=k*2^-24 as ") + (vertex_constant_depth ? "vertex z" : "gl_FragDepth") +
                 ", k=" + hex(p.constant, 6);
    }
    p.depth = func;
    p.stencil = s;
    p.detail = what + ": depth " + func_name(func) + " incoming " + incoming + " vs stored " + value_text(part.stored) +
               ", " + stencil_text(s);
    plan.passes.push_back(std::move(p));
  };

  for (size_t i = 0; i < plan.clauses.size(); ++i) {
    const GpuClause& clause = plan.clauses[i];
    const size_t first_pass = plan.passes.size();
    if (i > 0) resolve = GLuint((3 - cur) | kTie);  // the previous clause's state, and the tie bit
    const StencilState satisfy_alive{GL_EQUAL, cur, kStateMask, kStateMask, GL_KEEP, GL_KEEP, GL_INVERT};
    if (clause.range) {
      const Range& r = *clause.range;
      // A window value is < 2^24 (depth_encode.h), so its k*2^-24 is exact in float and double.
      if (r.lo > r.hi || r.hi >= kWindowValues)
        throw Error(ErrorCode::Internal, "raster: depth-bounds range [" + hex(r.lo) + ", " + hex(r.hi) +
                                             "] is not inside the 24-bit window");
      // The depth bounds test reads the STORED depth: the column's window values must be in the
      // depth buffer when it runs (a copy-to-depth pass unless they already are; compare passes
      // never write depth).
      hold(r.stored);
      ++position;
      flush_resolve();
      Pass p;
      p.kind = PassKind::DepthBounds;
      p.depth = GL_ALWAYS;  // the depth test passes every fragment: only the bounds decide
      p.bounds_lo = r.lo;
      p.bounds_hi = r.hi;
      p.stencil = satisfy_alive;
      p.detail = clause.texts[0] + ": depth bounds [" + hex(r.lo, 6) + ", " + hex(r.hi, 6) + "]*2^-24 on stored " +
                 value_text(r.stored) + ", " + stencil_text(p.stencil);
      plan.passes.push_back(std::move(p));
    }
    for (size_t t = 0; t < clause.terms.size(); ++t) {
      const DepthCompare& d = clause.terms[t];
      const size_t m = d.parts.size();
      for (size_t k = 0; k < m; ++k) {
        const Part& part = d.parts[k];
        const std::string what =
            clause.texts[t] + (m > 1 ? " (part " + std::to_string(k + 1) + "/" + std::to_string(m) + ")" : "");
        ++position;
        const auto* constant = std::get_if<uint32_t>(&part.incoming);
        if (constant_by_clear && constant && m == 1 && !(held == part.stored) && !resolve &&
            !(position < order.size() && order[position] == part.stored)) {
          // One comparison of a column with a constant: the constant goes in the depth buffer by a
          // clear and the column's values are drawn as the incoming side (one draw instead of a
          // copy-to-depth and a compare). `column op k` is `incoming op stored`.
          Pass c;
          c.kind = PassKind::DepthClear;
          c.constant = *constant;
          c.depth_test = false;
          c.depth_write = true;
          c.detail = "depth <- k*2^-24, k=" + hex(*constant, 6) + " by glClearBufferfv (the constant side of " +
                     clause.texts[t] + ")";
          plan.passes.push_back(std::move(c));
          held.reset();
          Part swapped{ColumnValue{}, part.stored};
          const GLenum func = d.op == CmpOp::Ne ? GL_NOTEQUAL : depth_func(flip(d.op));
          draw(what, swapped, func, satisfy_alive);
          plan.passes.back().detail = what + ": depth " + std::string(func_name(func)) + " incoming " +
                                      value_text(part.stored) + " vs stored constant k=" + hex(*constant, 6) + ", " +
                                      stencil_text(satisfy_alive);
          continue;
        }
        hold(part.stored);
        if (d.op == CmpOp::Ne) {
          draw(what, part, GL_NOTEQUAL, satisfy_alive);
          continue;
        }
        // Records entering part k: alive and unsatisfied, and tied on parts 1..k-1.
        StencilState satisfy = satisfy_alive;
        if (k > 0) {
          satisfy.ref = cur | kTie;
          satisfy.mask = kTieMask;
        }
        if (k + 1 < m) {
          if (d.op != CmpOp::Eq) {
            const CmpOp strict = d.op == CmpOp::Lt || d.op == CmpOp::Le ? CmpOp::Lt : CmpOp::Gt;
            draw(what + " strict", part, depth_func(strict), satisfy);
          }
          const StencilState tie{GL_EQUAL, cur | kTie, satisfy.mask, GLuint(kTie), GL_KEEP, GL_ZERO, GL_REPLACE};
          draw(what + " tie", part, GL_EQUAL, tie);
        } else {
          draw(what, part, depth_func(d.op), satisfy);
        }
      }
    }
    for (size_t p = first_pass; p < plan.passes.size(); ++p) {
      plan.passes[p].satisfied = 3 - cur;
      // In the last clause, every record alive when it starts holds `cur` (the previous clause's
      // failures are cleared by its first pass) and a satisfying pass (INVERT) flips it to the
      // final state once: so those passes' passing fragments are exactly the qualifying records.
      plan.passes[p].counts = i + 1 == plan.clauses.size() && plan.passes[p].stencil.zpass == GL_INVERT;
    }
    cur = 3 - cur;
  }
  plan.final_state = cur;
}

// Makes `plan` a one-pass COUNT where it is one comparison of a column with a constant cleared
// into depth (a depth-clear and one counted compare): the compare's passing fragments are then
// the qualifying records by the depth test alone, when it covers the tile's records and no other
// pixel. So the stencil is neither initialised nor tested; the clear takes the stencil along
// (one clear of the whole packed buffer), and the draw is scissored to the records.
void make_single_pass(Plan& plan, const PlanInput& input) {
  if (plan.clauses.size() != 1 || plan.clauses[0].range || plan.clauses[0].terms.size() != 1) return;
  if (plan.passes.size() != 2 || plan.passes[0].kind != PassKind::DepthClear) return;
  Pass& draw = plan.passes[1];
  if (draw.kind != PassKind::Compare || !draw.counts || !draw.value) return;
  plan.single_pass = true;
  plan.passes[0].clear_stencil = true;
  plan.passes[0].detail += "; stencil 0 in the same clear (no stencil pass follows)";
  draw.kind = PassKind::FusedCount;
  draw.stencil = StencilState{};
  draw.detail = plan.clauses[0].texts[0] + ": depth " + func_name(draw.depth) + " incoming " +
                describe(*draw.value, input.info(draw.value->slot)) +
                " vs stored constant k=" + hex(plan.passes[0].constant, 6) +
                ", no stencil test; drawn over the tile's records only (scissored), its passing fragments counted";
}

// Makes `plan` a COUNT of two draws without stencil when it is two clauses bounding one
// 24-bit-window column from both sides (a range, as BETWEEN gives): the records <= hi minus the
// records < lo, each counted as the one-pass COUNT's clear and draw. Exact: with lo <= hi every
// record below lo is also at most hi. Returns whether it did (an empty range: WHERE FALSE).
bool make_range_counts(Plan& plan, const PlanInput& input) {
  if (plan.clauses.size() != 2) return false;
  const auto a = as_bound(plan.clauses[0]);
  const auto b = as_bound(plan.clauses[1]);
  if (!a || !b || !(a->stored == b->stored) || a->lower == b->lower) return false;
  const Bound& lo = a->lower ? *a : *b;
  const Bound& hi = a->lower ? *b : *a;
  const std::string text = plan.clauses[0].texts[0] + " AND " + plan.clauses[1].texts[0];
  if (lo.value > hi.value) {
    plan.notes.push_back(note("range " + text + " is empty: WHERE is FALSE for every row"));
    plan.constant = false;
    return true;
  }
  plan.notes.push_back(note("range " + text + ": two counts without stencil (records <= hi minus records < lo)"));
  const std::string column = describe(lo.stored, input.info(lo.stored.slot));
  for (const bool below : {false, true}) {
    const uint32_t k = below ? lo.value : hi.value;
    Pass c;
    c.kind = PassKind::DepthClear;
    c.constant = k;
    c.depth_test = false;
    c.depth_write = true;
    c.clear_stencil = true;
    c.detail = "depth <- k*2^-24, k=" + hex(k, 6) + " by glClearBufferfi, stencil 0 (the range's " +
               (below ? "lower" : "upper") + " bound)";
    plan.passes.push_back(std::move(c));
    Pass d;
    d.kind = PassKind::FusedCount;
    d.value = lo.stored;
    d.depth = below ? GL_LESS : GL_LEQUAL;
    d.counts = true;
    d.subtracts = below;
    d.detail = text + ": depth " + func_name(d.depth) + " incoming " + column + " vs stored constant k=" + hex(k, 6) +
               ", no stencil test; drawn over the tile's records only (scissored), its passing fragments " +
               (below ? "subtracted (below the range)" : "counted (at most the upper bound)");
    plan.passes.push_back(std::move(d));
  }
  plan.single_pass = true;
  plan.range_counts = true;
  return true;
}

// The plan of `where`; `extension`: the driver has GL_EXT_depth_bounds_test. Host only, so
// plan_where makes the plans of drivers with the extension on drivers without it.
Plan make_plan(const PlanInput& input, const BoundCnf& where, WhereOutput output, const RasterOptions& options,
               bool extension) {
  Plan plan;
  lower_where(plan, input, where);
  if (plan.constant) return plan;
  const bool count_alone = output == WhereOutput::Count && options.single_pass_count && options.fuse_count &&
                           options.constant_by_clear && !options.observer;
  if (count_alone && options.range_by_counts && make_range_counts(plan, input)) return plan;
  merge_ranges(plan, extension && options.depth_bounds,
               extension ? "depth bounds turned off" : "no GL_EXT_depth_bounds_test on this driver");
  if (plan.constant) return plan;
  emit_passes(plan, input, options.vertex_constant_depth, options.constant_by_clear);
  if (count_alone) make_single_pass(plan, input);
  return plan;
}

std::string algorithm_text(const Plan& plan, WhereOutput output) {
  if (plan.constant)
    return std::string("raster: WHERE is ") + (*plan.constant ? "TRUE" : "FALSE") +
           " for every row (decided on the host, no GPU pass)";
  std::string s;
  if (plan.range_counts) {
    s = "raster: range COUNT by two passes (records <= hi minus records < lo, each the constant cleared into "
        "depth and the column drawn against it inside occlusion queries, no stencil)";
  } else if (plan.single_pass) {
    s = "raster: one-pass COUNT (the constant cleared into depth, the column drawn against it inside "
        "occlusion queries, no stencil)";
  } else {
    s = "raster: copy-to-depth + stencil CNF (" + std::to_string(plan.clauses.size()) + " clause" +
        (plan.clauses.size() == 1 ? "" : "s");
    if (plan.ranges_by_bounds) s += ", " + std::to_string(plan.ranges_by_bounds) + " range(s) by depth bounds";
    if (plan.ranges_as_pairs) s += ", " + std::to_string(plan.ranges_as_pairs) + " range(s) as two comparisons";
    s += output != WhereOutput::Rows ? ") + occlusion count" : ") + stencil readback";
  }
  for (const auto& e : plan.encodings) s += "; " + e;
  return s;
}

// The algorithm text of a WHERE over `rows` records.
std::string where_algorithm(const Plan& plan, WhereOutput output, uint64_t rows, const BoundCnf& where) {
  if (rows == 0) return "raster: empty input (no GPU pass)";
  if (where.empty()) return "raster: no WHERE, every row qualifies (no GPU pass)";
  return algorithm_text(plan, output);
}

// ---------------------------------------------------------------------------------------------
// Execution.

// Resets the GL state the raster path touches (restore_default_state) and the viewport, on return
// and on error alike, so the next user of the context starts clean.
class StateGuard {
 public:
  explicit StateGuard(bool depth_bounds) : depth_bounds_(depth_bounds) { glGetIntegerv(GL_VIEWPORT, viewport_); }
  ~StateGuard() {
    restore_default_state(depth_bounds_);
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  StateGuard(const StateGuard&) = delete;
  StateGuard& operator=(const StateGuard&) = delete;

 private:
  bool depth_bounds_;
  GLint viewport_[4] = {0, 0, 0, 0};
};

// The GL objects of one execution, deleted on return and on error.
struct Objects {
  GLuint framebuffer = 0, depth_stencil = 0, vertex_array = 0, readback = 0;
  bool mapped = false;
  Objects() = default;
  Objects(const Objects&) = delete;
  Objects& operator=(const Objects&) = delete;
  ~Objects() {
    if (mapped) glUnmapNamedBuffer(readback);
    if (readback) glDeleteBuffers(1, &readback);
    if (vertex_array) glDeleteVertexArrays(1, &vertex_array);
    if (framebuffer) glDeleteFramebuffers(1, &framebuffer);
    if (depth_stencil) glDeleteRenderbuffers(1, &depth_stencil);
  }
};

// Per recorded pass: the queries of every tile, and sums.
struct Timing {
  std::vector<GLuint> timers;   // GL_TIME_ELAPSED, one per tile (when timed)
  std::vector<GLuint> samples;  // GL_SAMPLES_PASSED, one per tile (when counted)
  uint64_t items = 0;
  double wall_ms = 0;
};

// A pass record from the pass's queries. GPU times are dropped when their sum exceeds `wall_ms`,
// the host time the whole execution took: no GPU work outlasts it, but some drivers (llvmpipe,
// for clear-only queries) return raw timestamps instead of elapsed times.
PassRecord finish(const QueryBatch& batch, const Timing& t, std::string kind, std::string detail, double wall_ms) {
  PassRecord p;
  p.kind = std::move(kind);
  p.detail = std::move(detail);
  p.items = t.items;
  p.wall_ms = t.wall_ms;
  if (!t.samples.empty()) {
    uint64_t passed = 0;
    for (GLuint q : t.samples) passed += batch.result(q);
    p.passed = passed;
  }
  if (!t.timers.empty()) {
    uint64_t ns = 0;
    for (GLuint q : t.timers) ns += batch.result(q);
    if (double(ns) / 1e6 <= wall_ms) p.gpu_ms = double(ns) / 1e6;
  }
  return p;
}

void require_caps(const GlCapabilities& caps, const Plan& plan) {
  const bool bounds = std::any_of(plan.passes.begin(), plan.passes.end(),
                                  [](const Pass& p) { return p.kind == PassKind::DepthBounds; });
  if (bounds && !caps.depth_bounds_test)
    throw Error(ErrorCode::Internal,
                "raster: a depth-bounds pass was planned for a driver without "
                "GL_EXT_depth_bounds_test (" +
                    caps.renderer + ")");
  if (!caps.float_depth || !caps.clip_control)
    throw Error(ErrorCode::Unsupported, "raster: needs GL_DEPTH32F_STENCIL8 and glClipControl for exact depth (" +
                                            caps.renderer + " lacks them)");
  if (caps.stencil_bits < 3)
    throw Error(ErrorCode::Unsupported,
                "raster: the CNF needs 3 stencil bits, the driver gives " + std::to_string(caps.stencil_bits));
}

// The programs of the raster passes, all with fullscreen.vert.
struct Programs {
  GLuint value;     // raster_value.frag: a column's values as depth
  GLuint constant;  // raster_constant.frag: a constant as gl_FragDepth
  GLuint flat;      // raster_empty.frag: fullscreen.vert's z (stencil-only passes, vertex constant depth)
};

// Sets the GL state of `pass` and draws it over the tile's viewport.
void draw_pass(const Pass& pass, const TextureStore& store, uint64_t tile, const Programs& programs,
               bool vertex_constant_depth) {
  if (pass.kind == PassKind::DepthClear) {
    // k * 2^-24 (k < 2^24) is exact in float32, and a GL_DEPTH32F_STENCIL8 buffer stores it unchanged.
    const GLfloat depth = depth_of(pass.constant);
    glDepthMask(GL_TRUE);
    if (pass.clear_stencil) {
      glStencilMask(0xff);
      glClearBufferfi(GL_DEPTH_STENCIL, 0, depth, 0);
    } else {
      glClearBufferfv(GL_DEPTH, 0, &depth);
    }
    return;
  }
  if (pass.depth_test) {
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(pass.depth);
  } else {
    glDisable(GL_DEPTH_TEST);
  }
  glDepthMask(pass.depth_write ? GL_TRUE : GL_FALSE);
  glStencilFunc(pass.stencil.func, pass.stencil.ref, pass.stencil.mask);
  glStencilOp(pass.stencil.sfail, pass.stencil.zfail, pass.stencil.zpass);
  glStencilMask(pass.stencil.write);
  if (pass.kind == PassKind::DepthBounds) {
    glEnable(GL_DEPTH_BOUNDS_TEST_EXT);
    // The bounds are the very float32 values the copy-to-depth pass stored for lo and hi
    // (depth_of: k * 2^-24, k < 2^24, exact in float and double, inside [0, 1] so unclamped).
    // The test keeps stored depths zmin <= z <= zmax, both ends inclusive: the values lo..hi.
    glDepthBoundsEXT(double(depth_of(pass.bounds_lo)), double(depth_of(pass.bounds_hi)));
  }
  if (pass.value) {
    const ColumnValue& v = *pass.value;
    glUseProgram(programs.value);
    glProgramUniform1ui(programs.value, 1, static_cast<GLuint>(v.mode));
    glProgramUniform1ui(programs.value, 2, store.info(v.slot).type == Type::Float32 ? 1u : 0u);
    glProgramUniform1ui(programs.value, 3, v.base);
    glBindTextureUnit(0, store.texture(v.slot, tile));
  } else {
    const bool flat = vertex_constant_depth || pass.kind != PassKind::Compare;
    const GLuint program = flat ? programs.flat : programs.constant;
    glUseProgram(program);
    glProgramUniform1f(program, 0, depth_of(pass.constant));
    if (!flat) glProgramUniform1f(program, 1, depth_of(pass.constant));
  }
  glDrawArrays(GL_TRIANGLES, 0, 3);
  if (pass.kind == PassKind::DepthBounds) glDisable(GL_DEPTH_BOUNDS_TEST_EXT);
}

// Reads the tile's depth and stencil buffers into `s` (width x height set) past any bound pixel
// pack buffer, for a pass observer (after a wait for the GPU, so the reads do not block on it).
void read_buffers(PassSnapshot& s) {
  const size_t pixels = size_t(s.width) * s.height;
  s.depth.resize(pixels);
  s.stencil.resize(pixels);
  GLint pack = 0;
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, GLsizei(s.width), GLsizei(s.height), GL_DEPTH_COMPONENT, GL_FLOAT, s.depth.data());
  glReadPixels(0, 0, GLsizei(s.width), GLsizei(s.height), GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, s.stencil.data());
  glBindBuffer(GL_PIXEL_PACK_BUFFER, GLuint(pack));
  check_error("pass observer readback");
}

WhereResult run_plan(Context& context, const RasterInput& input, const Plan& plan, WhereOutput output,
                     const RasterOptions& options, std::optional<uint64_t> limit) {
  const GlCapabilities& caps = context.caps();
  require_caps(caps, plan);
  const TextureStore& store = input.store();
  const TileLayout& layout = store.layout();
  const uint64_t cap = fragments_per_query(caps, options.max_fragments_per_query);
  const bool timed = options.pass_queries && caps.timer_counter_bits > 0;
  const auto start = Clock::now();

  StateGuard guard(caps.depth_bounds_test);
  Objects gl;
  // A single-sample depth-stencil buffer (occlusion queries count fragments) and its framebuffer:
  // a texture when `texture` (a kept stencil that later passes may sample), else a renderbuffer.
  const auto make_framebuffer = [&](GLuint& framebuffer, GLuint& depth_stencil, bool texture) {
    if (texture) {
      glCreateTextures(GL_TEXTURE_2D, 1, &depth_stencil);
      texture_storage(context, depth_stencil, GL_DEPTH32F_STENCIL8, layout.width, layout.height,
                      "a WHERE's kept depth-stencil tile");
      glTextureParameteri(depth_stencil, GL_DEPTH_STENCIL_TEXTURE_MODE, GL_STENCIL_INDEX);
      glTextureParameteri(depth_stencil, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTextureParameteri(depth_stencil, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      check_error("raster WHERE: depth-stencil texture");
    } else {
      glCreateRenderbuffers(1, &depth_stencil);
      renderbuffer_storage(context, depth_stencil, GL_DEPTH32F_STENCIL8, layout.width, layout.height,
                           "a WHERE's depth-stencil buffer");
    }
    glCreateFramebuffers(1, &framebuffer);
    if (texture)
      glNamedFramebufferTexture(framebuffer, GL_DEPTH_STENCIL_ATTACHMENT, depth_stencil, 0);
    else
      glNamedFramebufferRenderbuffer(framebuffer, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, depth_stencil);
    glNamedFramebufferDrawBuffer(framebuffer, GL_NONE);
    glNamedFramebufferReadBuffer(framebuffer, GL_NONE);
    const GLenum status = glCheckNamedFramebufferStatus(framebuffer, GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE)
      throw Error(ErrorCode::Internal, "raster: depth-stencil framebuffer " + std::to_string(layout.width) + "x" +
                                           std::to_string(layout.height) + " incomplete (status " + hex(status) + ")");
  };
  // Keep: one depth-stencil texture per tile, handed to the caller; otherwise one buffer for every tile.
  std::shared_ptr<KeptStencil> kept;
  if (output == WhereOutput::Keep) {
    kept = std::make_shared<KeptStencil>();
    kept->state = plan.final_state;
    kept->mask = GLuint(kStateMask);
    for (uint64_t t = 0; t < layout.tiles(); ++t) {
      kept->framebuffers.push_back(0);
      kept->textures.push_back(0);
      make_framebuffer(kept->framebuffers.back(), kept->textures.back(), true);
    }
  } else {
    make_framebuffer(gl.framebuffer, gl.depth_stencil, false);
  }
  glCreateVertexArrays(1, &gl.vertex_array);  // core profile draws need a bound VAO, even an empty one
  const Programs programs{context.program("fullscreen.vert", "raster_value.frag"),
                          context.program("fullscreen.vert", "raster_constant.frag"),
                          context.program("fullscreen.vert", "raster_empty.frag")};
  const uint64_t readback_tile = uint64_t(layout.width) * layout.height;
  if (output == WhereOutput::Rows) {
    glCreateBuffers(1, &gl.readback);
    // Host-side storage: the stencil bytes are read by the CPU once.
    buffer_storage(context, gl.readback, readback_tile * layout.tiles(), GL_MAP_READ_BIT | GL_CLIENT_STORAGE_BIT,
                   "a WHERE's stencil readback of " + std::to_string(layout.tiles()) + " tile(s)");
    glBindBuffer(GL_PIXEL_PACK_BUFFER, gl.readback);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
  }
  glBindVertexArray(gl.vertex_array);
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);  // depth = NDC z: k * 2^-24 lands in the buffer unchanged
  // A one-pass COUNT has no stencil pass: the depth test alone decides, over the records only.
  const bool stencil = !plan.single_pass;
  const size_t first = stencil ? 1 : 0;  // the label of the plan's first pass
  if (stencil) glEnable(GL_STENCIL_TEST);
  check_error("raster pass setup");

  // Kind and detail of each recorded pass: stencil init, the plan's passes, count or readback.
  const std::string final_text = "stencil EQUAL " + hex(GLuint(plan.final_state)) + "/" + hex(GLuint(kStateMask));
  std::vector<std::pair<std::string, std::string>> labels;
  if (stencil) labels.emplace_back("stencil-init", "stencil 1 on each tile's records, 0 past the last");
  for (const Pass& p : plan.passes) labels.emplace_back(kind_name(p.kind), p.detail);
  // The count: occlusion queries around the last clause's satisfying passes (fused), or a
  // stencil-only count pass testing the final state.
  const bool fused = output != WhereOutput::Rows && options.fuse_count &&
                     std::any_of(plan.passes.begin(), plan.passes.end(), [](const Pass& p) { return p.counts; });
  const std::string counters = std::to_string(caps.occlusion_counter_bits) + "-bit counters, at most " +
                               std::to_string(cap) + " fragments each, 64-bit host total";
  if (plan.range_counts)
    labels.emplace_back("count", "occlusion queries (" + counters +
                                     ") around the fused-count draws: the first's passing fragments minus the "
                                     "second's (no stencil, no count pass)");
  else if (plan.single_pass)
    labels.emplace_back("count", "occlusion queries (" + counters +
                                     ") around the fused-count draw, whose passing fragments are the qualifying "
                                     "records (no stencil, no count pass)");
  else if (fused)
    labels.emplace_back("count", "occlusion queries (" + counters +
                                     ") around the last clause's satisfying passes, whose passing fragments are the "
                                     "records reaching " +
                                     final_text + " (no count pass)");
  else if (output != WhereOutput::Rows)
    labels.emplace_back("count", "occlusion queries (" + counters + ") over " + final_text);
  else
    labels.emplace_back("readback",
                        "glReadPixels GL_STENCIL_INDEX per tile into one buffer; row ids where " + final_text);

  QueryBatch batch(context);
  std::vector<Timing> timing(labels.size());
  std::vector<GLuint> count_queries;
  std::vector<GLuint> subtracted_queries;  // fused-count draws whose fragments are taken off
  for (uint64_t t = 0; t < layout.tiles(); ++t) {
    const uint32_t h = layout.pixel_rows(t);
    const uint64_t pixels = uint64_t(layout.width) * h;
    const bool counted = options.pass_queries && pixels <= cap;
    const GLuint framebuffer = kept ? GLuint(kept->framebuffers[t]) : gl.framebuffer;
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, GLsizei(layout.width), GLsizei(h));
    // Runs recorded pass `index` on this tile inside its queries; returns its occlusion query (0: none).
    const auto timed_pass = [&](size_t index, bool count_samples, const auto& issue) {
      Timing& slot = timing[index];
      const auto issued = Clock::now();
      const GLuint timer = timed ? batch.make(GL_TIME_ELAPSED) : 0;
      const GLuint samples = count_samples ? batch.make(GL_SAMPLES_PASSED) : 0;
      {
        ScopedQuery timing_query(GL_TIME_ELAPSED, timer);
        ScopedQuery samples_query(GL_SAMPLES_PASSED, samples);
        issue();
      }
      if (timer) slot.timers.push_back(timer);
      if (samples) slot.samples.push_back(samples);
      slot.items += pixels;
      slot.wall_ms += ms_since(issued);
      return samples;
    };
    // Shows the tile's buffers after pass `index` to the observer; `occlusion`: the pass's occlusion
    // queries on this tile. Nothing is read back without an observer.
    const auto observe = [&](size_t index, std::span<const GLuint> occlusion) {
      if (!options.observer) return;
      batch.wait("raster WHERE: a pass observer's readback");
      PassSnapshot s;
      s.record.kind = labels[index].first;
      s.record.detail = labels[index].second;
      s.record.items = pixels;
      if (!occlusion.empty()) {
        uint64_t passed = 0;
        for (GLuint q : occlusion) passed += batch.result(q);
        s.record.passed = passed;
      }
      s.pass = index;
      s.tile = t;
      s.width = layout.width;
      s.height = h;
      s.records = layout.records(t);
      s.satisfied = uint8_t(index < first                        ? 1
                            : index < first + plan.passes.size() ? plan.passes[index - first].satisfied
                                                                 : plan.final_state);
      read_buffers(s);
      options.observer->on_pass(s);
    };
    const size_t tile_counts = count_queries.size();  // this tile's first count query
    if (stencil) {
      timed_pass(0, false, [&] { init_stencil(framebuffer, layout.width, h, layout.records(t)); });
      observe(0, {});
    }
    for (size_t p = 0; p < plan.passes.size(); ++p) {
      const Pass& pass = plan.passes[p];
      if (fused && pass.counts) {
        // Counted in bands of at most `cap` fragments, each its own query (also the trace's `passed`).
        std::vector<GLuint>& into = pass.subtracts ? subtracted_queries : count_queries;
        const size_t tile_queries = into.size();
        timed_pass(p + first, false, [&] {
          // Without a stencil, only the records' pixels may be drawn: bands of the records alone.
          const std::vector<Band> bands =
              stencil ? count_bands(layout.width, h, cap) : record_bands(layout.width, layout.records(t), cap);
          const bool scissored = bands.size() > 1 || (!stencil && layout.records(t) < pixels);
          if (scissored) glEnable(GL_SCISSOR_TEST);
          for (const Band& b : bands) {
            if (scissored) glScissor(b.x, b.y, b.width, b.height);
            into.push_back(batch.make(GL_SAMPLES_PASSED));
            ScopedQuery counted_band(GL_SAMPLES_PASSED, into.back());
            draw_pass(pass, store, t, programs, options.vertex_constant_depth);
          }
          if (scissored) glDisable(GL_SCISSOR_TEST);
        });
        const std::span<const GLuint> queries = std::span<const GLuint>(into).subspan(tile_queries);
        timing[p + first].samples.insert(timing[p + first].samples.end(), queries.begin(), queries.end());
        observe(p + first, queries);
        continue;
      }
      const GLuint samples = timed_pass(p + first, counted && pass.kind != PassKind::DepthClear,
                                        [&] { draw_pass(pass, store, t, programs, options.vertex_constant_depth); });
      observe(p + first, std::span<const GLuint>(&samples, samples ? 1 : 0));
    }
    const size_t last = labels.size() - 1;
    if (fused) {
      observe(last, std::span<const GLuint>(count_queries).subspan(tile_counts));
    } else if (output != WhereOutput::Rows) {
      const size_t tile_queries = count_queries.size();
      timed_pass(last, false, [&] {
        glDisable(GL_DEPTH_TEST);
        const auto queries = issue_count(batch, programs.flat, layout.width, h, plan.final_state, kStateMask, cap);
        count_queries.insert(count_queries.end(), queries.begin(), queries.end());
      });
      observe(last, std::span<const GLuint>(count_queries).subspan(tile_queries));
    } else {
      timed_pass(last, false, [&] {
        glReadPixels(0, 0, GLsizei(layout.width), GLsizei(h), GL_STENCIL_INDEX, GL_UNSIGNED_BYTE,
                     reinterpret_cast<void*>(static_cast<uintptr_t>(t * readback_tile)));
      });
      observe(last, {});
    }
    check_error(("raster passes of tile " + std::to_string(t)).c_str());
  }

  WhereResult result;
  const auto wait = Clock::now();
  batch.wait(output != WhereOutput::Rows ? "raster WHERE: occlusion counts" : "raster WHERE: stencil readback");
  if (output != WhereOutput::Rows) {
    for (GLuint q : count_queries) result.count += batch.result(q);
    uint64_t below = 0;
    for (GLuint q : subtracted_queries) below += batch.result(q);
    if (below > result.count)
      throw Error(ErrorCode::Internal, "raster: a range COUNT found " + std::to_string(below) +
                                           " records below the range but only " + std::to_string(result.count) +
                                           " at most its upper bound");
    result.count -= below;
  } else {
    const auto* stencil = static_cast<const uint8_t*>(
        glMapNamedBufferRange(gl.readback, 0, GLsizeiptr(readback_tile * layout.tiles()), GL_MAP_READ_BIT));
    check_error("glMapNamedBufferRange(stencil readback)");
    gl.mapped = true;
    const uint64_t keep = limit.value_or(layout.rows);
    for (uint64_t t = 0; t < layout.tiles() && result.rows.size() < keep; ++t) {
      const uint8_t* s = stencil + t * readback_tile;
      const uint64_t first = t * layout.tile_records();
      for (uint64_t i = 0; i < layout.records(t) && result.rows.size() < keep; ++i)
        if ((s[i] & kStateMask) == plan.final_state) result.rows.push_back(first + i);
    }
    glUnmapNamedBuffer(gl.readback);
    gl.mapped = false;
    result.count = result.rows.size();
  }
  timing.back().wall_ms += ms_since(wait);  // the count / readback pass includes the wait for the GPU

  const double wall_ms = ms_since(start);
  for (size_t i = 0; i < labels.size(); ++i)
    result.passes.push_back(finish(batch, timing[i], labels[i].first, labels[i].second, wall_ms));
  result.passes.back().passed = result.count;
  check_error("reading raster query results");
  result.kept = std::move(kept);
  return result;
}

}  // namespace

std::vector<size_t> where_columns(const BoundCnf& where) {
  std::vector<size_t> columns;
  const auto use = [&](const BoundColumn& c) {
    if (std::find(columns.begin(), columns.end(), c.index) == columns.end()) columns.push_back(c.index);
  };
  for (const auto& clause : where.clauses)
    for (const auto& term : clause.terms) {
      use(term.lhs);
      if (const auto* c = std::get_if<BoundColumn>(&term.rhs)) use(*c);
    }
  return columns;
}

WhereResult plan_where(const Table& table, const BoundCnf& where, WhereOutput output, const RasterOptions& options,
                       bool depth_bounds_test) {
  PlanInput input{where_columns(where), {}};
  for (size_t c : input.columns) {
    if (c >= table.columns.size())
      throw Error(ErrorCode::Internal, "raster: column " + std::to_string(c) + " is not in the table");
    input.infos.push_back(column_info(table.columns[c]));
  }
  const Plan plan = make_plan(input, where, output, options, depth_bounds_test);
  WhereResult result;
  result.algorithm = where_algorithm(plan, output, table.rows(), where);
  result.passes = plan.notes;
  if (!plan.constant && table.rows() > 0)
    for (const Pass& p : plan.passes) {
      PassRecord r;
      r.kind = kind_name(p.kind);
      r.detail = p.detail;
      result.passes.push_back(std::move(r));
    }
  return result;
}

WhereResult evaluate_where(Context& context, const RasterInput& input, const BoundCnf& where, WhereOutput output,
                           const RasterOptions& options, std::optional<uint64_t> limit) {
  const uint64_t rows = input.store().layout().rows;
  const Plan plan = make_plan(plan_input(input), where, output, options, context.caps().depth_bounds_test);
  if (output == WhereOutput::Keep && plan.constant && *plan.constant && rows > 0) {
    // Every row qualifies: the kept stencil is the stencil-init of each tile (no plan pass).
    WhereResult result = run_plan(context, input, plan, output, options, limit);
    result.algorithm = where.empty() ? "raster: no WHERE, every row qualifies (stencil-init + occlusion count)"
                                     : algorithm_text(plan, output) + " (stencil-init + occlusion count)";
    result.passes.insert(result.passes.begin(), plan.notes.begin(), plan.notes.end());
    return result;
  }
  if (!plan.constant && rows > 0) {
    WhereResult result = run_plan(context, input, plan, output, options, limit);
    result.algorithm = where_algorithm(plan, output, rows, where);
    result.passes.insert(result.passes.begin(), plan.notes.begin(), plan.notes.end());
    return result;
  }
  // Nothing depends on the data (or there is none): the answer is known without a pass.
  WhereResult result;
  const bool all = rows > 0 && *plan.constant;
  result.count = all ? rows : 0;
  if (output == WhereOutput::Rows) {
    result.count = all ? std::min(rows, limit.value_or(rows)) : 0;
    for (uint64_t i = 0; i < result.count; ++i) result.rows.push_back(i);
  }
  result.algorithm = where_algorithm(plan, output, rows, where);
  result.passes = plan.notes;
  return result;
}

}  // namespace gfxq::gl
