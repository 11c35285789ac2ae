#include "vk/engine/expression_inputs.h"

namespace gfxq::vk {

std::optional<ExprProgram> claim_expression(const plan::Expr& e, const plan::Node& input, const std::string& what,
                                            std::string& why) {
  std::string reason;
  auto program = compile_expression(e, reason);
  if (!program) {
    why = what + " " + e.text + " is not compiled for the compute path: " + reason;
    return std::nullopt;
  }
  for (size_t c : program->columns)
    if (may_be_null(input, c)) {
      why = what + " " + e.text + " reads " + input.schema.at(c).name +
            ", which may be NULL (the compute expressions carry no NULLs)";
      return std::nullopt;
    }
  return program;
}

ExprInput expression_input(InputRows& in, const ExprProgram& program, const DeviceRows& taking_part) {
  ExprInput x;
  for (size_t c : program.columns) x.columns.push_back(&in.column(c));
  x.rows = in.rows();
  if (taking_part.selection) {
    x.selection = taking_part.selection;
    x.selected = taking_part.count;
  }
  return x;
}

}  // namespace gfxq::vk
