#pragma once
//! \file expression_inputs.h
//! What the compute fragments that evaluate expressions (project, scalar aggregate, GROUP BY) share:
//! the claim-time check of one expression over a node's input, and the run-time binding of its
//! program's columns to the input's device columns.

#include <optional>
#include <string>

#include "plan/logical.h"
#include "vk/engine/inputs.h"
#include "vk/relational/expression.h"

namespace gfxq::vk {

//! `e` (over `input`'s schema) compiled for the compute path, or nullopt with `why` naming `what`
//! ("select item", "aggregate SUM(a * b)", ...): what the compiler refuses, or a column it reads
//! that may hold NULLs.
std::optional<ExprProgram> claim_expression(const plan::Expr& e, const plan::Node& input, const std::string& what,
                                            std::string& why);

//! The program's columns from `in` (resident, in place or uploaded once per InputRows), over the rows
//! of `taking_part` (InputRows::live: a device selection, or every row).
ExprInput expression_input(InputRows& in, const ExprProgram& program, const DeviceRows& taking_part);

}  // namespace gfxq::vk
