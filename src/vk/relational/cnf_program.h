#pragma once
// The encoding of a WHERE condition (a BoundCnf) as the small term table that the fused CNF
// kernels (shaders/vk/cnf_scan.comp) walk once per row.
//
// A program reads up to kMaxCnfSlots distinct columns ("slots"). Every comparison becomes one
// term of two words; the last term of each clause carries the clause-end flag:
//   word 0: op (bits 0-2, CmpOp) | kind (bits 3-4, TermKind) | lhs slot (bits 8-11)
//           | rhs slot (bits 12-15) | clause end (bit 16)
//   word 1: the constant's order key (TermKind::Literal)
// Comparisons whose outcome does not depend on the row are folded on the host: a literal the
// key translation (key_compare.h) decides, and `c op c` on one column (true for =, <=, >= in the
// total order, false otherwise). A clause with a true term is dropped; a false term is dropped
// from its clause; a clause left empty makes the whole condition false.

#include <cstdint>
#include <string>
#include <vector>

#include "core/bind.h"

namespace gfxq::vk {

//! Columns one CNF program (plus an aggregate's value column) may read.
inline constexpr uint32_t kMaxCnfSlots = 8;

//! How a term compares.
enum class TermKind : uint32_t {
  Literal = 0,   //!< key(lhs) op constant key (key_compare.h's exact translation)
  Keys = 1,      //!< key(lhs) op key(rhs): INT vs INT or FLOAT vs FLOAT, in the total order
  IntFloat = 2,  //!< INT lhs op FLOAT rhs, exactly (integer arithmetic on the float's bits)
};

//! One encoded comparison (host form).
struct CnfTerm {
  TermKind kind = TermKind::Literal;  //!< how it compares
  CmpOp op = CmpOp::Eq;               //!< the operator (lhs op rhs)
  uint32_t lhs = 0;                   //!< slot of the left column
  uint32_t rhs = 0;                   //!< slot of the right column (Keys, IntFloat)
  uint32_t key = 0;                   //!< constant order key (Literal)
  bool clause_end = false;            //!< last term of its clause
};

//! A compiled WHERE condition.
struct CnfProgram {
  //! What the condition is after folding.
  enum class Outcome {
    Rows,  //!< depends on the row: run the terms
    All,   //!< true for every row (no condition, or every clause folded to true)
    None,  //!< false for every row (a clause folded to false)
  };
  Outcome outcome = Outcome::All;  //!< the folded outcome
  std::vector<BoundColumn> slots;  //!< distinct columns read, by slot
  std::vector<CnfTerm> terms;      //!< clauses one after another (empty unless Outcome::Rows)
  uint32_t clauses = 0;            //!< number of clauses left after folding

  //! The slot of `c`, adding it when absent; Error(Unsupported) past kMaxCnfSlots columns.
  uint32_t slot(const BoundColumn& c);
  //! Bit s set when slot s is a FLOAT column.
  uint32_t float_slots() const noexcept;
  //! The term table as the kernels read it: two words per term.
  std::vector<uint32_t> words() const;
  //! E.g. "3 clauses, 5 terms over 2 columns", "constant true", "constant false".
  std::string summary() const;
};

//! Compiles `cnf` (every column Side::Left). Error(Unsupported) when it reads more than
//! kMaxCnfSlots columns.
CnfProgram compile_cnf(const BoundCnf& cnf);

//! The program `program AND (c op key)`, for a column `c` and an order key (the top-k threshold).
CnfProgram with_key_clause(CnfProgram program, const BoundColumn& c, CmpOp op, uint32_t key);

//! Evaluates the program on one row whose slot values (raw int32 / float32 bits) are `raw`:
//! the host mirror of the kernel, used by tests.
bool evaluate(const CnfProgram& program, const std::vector<uint32_t>& raw);

//! The exact comparison of an int32 with a float32 in gfxq's total order (NaN above all):
//! -1, 0 or 1. Integer arithmetic only; the kernels do the same.
int compare_int_float(int32_t i, uint32_t float_bits) noexcept;

}  // namespace gfxq::vk
