#include "vk/relational/cnf_program.h"

#include <bit>

#include "core/key_compare.h"
#include "core/order_key.h"
#include "gfxq/error.h"

namespace gfxq::vk {

namespace {

bool compare_keys(uint32_t a, CmpOp op, uint32_t b) {
  switch (op) {
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    case CmpOp::Ge: return a >= b;
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
  }
  return false;
}

// `v op v` for any value v: the total order is reflexive (NaN = NaN).
bool reflexive(CmpOp op) {
  return op == CmpOp::Eq || op == CmpOp::Le || op == CmpOp::Ge;
}

uint32_t key_of(Type type, uint32_t raw) {
  return type == Type::Float32 ? float_key(std::bit_cast<float>(raw)) : int_key(std::bit_cast<int32_t>(raw));
}

// One comparison folded or encoded. Returns 1 (always true), 0 (always false) or -1 (a term,
// written to `term`).
int encode(CnfProgram& program, const BoundComparison& cmp, CnfTerm& term) {
  if (const double* literal = std::get_if<double>(&cmp.rhs)) {
    const KeyPredicate p = literal_predicate(cmp.lhs.type, cmp.op, *literal);
    if (p.kind != KeyPredicate::Kind::Compare) return p.kind == KeyPredicate::Kind::Always ? 1 : 0;
    term = {TermKind::Literal, p.op, program.slot(cmp.lhs), 0, p.key, false};
    return -1;
  }
  const BoundColumn& rhs = std::get<BoundColumn>(cmp.rhs);
  if (same_column(cmp.lhs, rhs)) return reflexive(cmp.op) ? 1 : 0;
  if (cmp.lhs.type == rhs.type) {
    term = {TermKind::Keys, cmp.op, program.slot(cmp.lhs), program.slot(rhs), 0, false};
  } else if (cmp.lhs.type == Type::Int32) {
    term = {TermKind::IntFloat, cmp.op, program.slot(cmp.lhs), program.slot(rhs), 0, false};
  } else {
    // FLOAT op INT  <=>  INT flip(op) FLOAT.
    term = {TermKind::IntFloat, flip(cmp.op), program.slot(rhs), program.slot(cmp.lhs), 0, false};
  }
  return -1;
}

}  // namespace

uint32_t CnfProgram::slot(const BoundColumn& c) {
  for (uint32_t s = 0; s < slots.size(); ++s)
    if (same_column(slots[s], c)) return s;
  if (slots.size() == kMaxCnfSlots)
    throw Error(ErrorCode::Unsupported, "compute backend cannot run a WHERE (with its aggregate) over more than " +
                                            std::to_string(kMaxCnfSlots) + " distinct columns yet (column " + c.name +
                                            " would be number " + std::to_string(kMaxCnfSlots + 1) + ")");
  slots.push_back(c);
  return uint32_t(slots.size() - 1);
}

uint32_t CnfProgram::float_slots() const noexcept {
  uint32_t bits = 0;
  for (uint32_t s = 0; s < slots.size(); ++s)
    if (slots[s].type == Type::Float32) bits |= 1u << s;
  return bits;
}

std::vector<uint32_t> CnfProgram::words() const {
  std::vector<uint32_t> w;
  w.reserve(terms.size() * 2);
  for (const CnfTerm& t : terms) {
    w.push_back(static_cast<uint32_t>(t.op) | static_cast<uint32_t>(t.kind) << 3 | t.lhs << 8 | t.rhs << 12 |
                (t.clause_end ? 1u << 16 : 0u));
    w.push_back(t.key);
  }
  return w;
}

std::string CnfProgram::summary() const {
  switch (outcome) {
    case Outcome::All: return "constant true";
    case Outcome::None: return "constant false";
    case Outcome::Rows: break;
  }
  return std::to_string(clauses) + (clauses == 1 ? " clause, " : " clauses, ") + std::to_string(terms.size()) +
         (terms.size() == 1 ? " term" : " terms") + " over " + std::to_string(slots.size()) +
         (slots.size() == 1 ? " column" : " columns");
}

CnfProgram compile_cnf(const BoundCnf& cnf) {
  CnfProgram program;
  for (const BoundClause& clause : cnf.clauses) {
    std::vector<CnfTerm> terms;
    bool always = false;
    for (const BoundComparison& cmp : clause.terms) {
      CnfTerm term;
      const int folded = encode(program, cmp, term);
      if (folded == 1) {
        always = true;
        break;
      }
      if (folded == -1) terms.push_back(term);
    }
    if (always) continue;
    if (terms.empty()) {
      program.outcome = CnfProgram::Outcome::None;
      program.terms.clear();
      program.clauses = 0;
      return program;
    }
    terms.back().clause_end = true;
    program.terms.insert(program.terms.end(), terms.begin(), terms.end());
    ++program.clauses;
  }
  program.outcome = program.terms.empty() ? CnfProgram::Outcome::All : CnfProgram::Outcome::Rows;
  return program;
}

CnfProgram with_key_clause(CnfProgram program, const BoundColumn& c, CmpOp op, uint32_t key) {
  if (program.outcome == CnfProgram::Outcome::None) return program;
  program.terms.push_back({TermKind::Literal, op, program.slot(c), 0, key, true});
  ++program.clauses;
  program.outcome = CnfProgram::Outcome::Rows;
  return program;
}

int compare_int_float(int32_t i, uint32_t bits) noexcept {
  // f = (-1)^s * M * 2^E with M < 2^24. Let T be the integer part of |f| (clamped to 2^32,
  // beyond every int32) and `frac` whether |f| has a fractional part; F = +-T. Then
  //   F <= f < F + 1 (f >= 0)   or   F - 1 < f <= F (f < 0),
  // so for the integer i: i < F implies i <= F - 1 < f (and i <= F - 1 < F <= f); i > F implies
  // i >= F + 1 > f. When i == F, i == f exactly when there is no fraction, else the sign of f
  // decides. -0.0 gives F = 0 without fraction: equal to 0, as the total order says.
  const uint32_t exponent = (bits >> 23) & 0xffu, mantissa = bits & 0x7fffffu;
  const bool negative = bits >> 31;
  if (exponent == 0xffu) {
    if (mantissa != 0) return -1;  // NaN is above every value
    return negative ? 1 : -1;      // -inf, +inf
  }
  const int64_t m = exponent ? (mantissa | 0x800000u) : mantissa;
  const int e = int(exponent ? exponent : 1) - 150;
  int64_t t = 0;
  bool frac = false;
  if (e >= 9) {
    t = int64_t(1) << 32;  // |f| >= 2^32
  } else if (e >= 0) {
    t = m << e;
  } else if (e > -24) {
    t = m >> -e;
    frac = (m & ((int64_t(1) << -e) - 1)) != 0;
  } else {
    frac = m != 0;
  }
  const int64_t f = negative ? -t : t;
  if (i < f) return -1;
  if (i > f) return 1;
  if (!frac) return 0;
  return negative ? 1 : -1;
}

bool evaluate(const CnfProgram& program, const std::vector<uint32_t>& raw) {
  if (program.outcome != CnfProgram::Outcome::Rows) return program.outcome == CnfProgram::Outcome::All;
  bool clause = false;
  for (const CnfTerm& t : program.terms) {
    const uint32_t lk = key_of(program.slots[t.lhs].type, raw[t.lhs]);
    bool r = false;
    switch (t.kind) {
      case TermKind::Literal: r = compare_keys(lk, t.op, t.key); break;
      case TermKind::Keys: r = compare_keys(lk, t.op, key_of(program.slots[t.rhs].type, raw[t.rhs])); break;
      case TermKind::IntFloat:
        r = compare_keys(uint32_t(compare_int_float(std::bit_cast<int32_t>(raw[t.lhs]), raw[t.rhs]) + 1), t.op, 1u);
        break;
    }
    clause = clause || r;
    if (t.clause_end) {
      if (!clause) return false;
      clause = false;
    }
  }
  return true;
}

}  // namespace gfxq::vk
