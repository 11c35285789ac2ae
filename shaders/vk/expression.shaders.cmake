# Kernels of the expression programs (src/vk/relational/expression.h): without and with the DOUBLE
# instructions (expression.cpp picks the latter for programs that compute DOUBLE values).
gfxq_vk_shader(expression_eval expression_eval.comp)
gfxq_vk_shader(expression_eval_f64 expression_eval.comp DEFINES EXPR_F64)
# The same with FLOAT + - * / by float instructions where that is exact (declares RoundingModeRTE for
# 32-bit floats: expression.cpp picks them for FLOAT arithmetic on devices that support it).
gfxq_vk_shader(expression_eval_rte expression_eval.comp DEFINES EXPR_RTE)
gfxq_vk_shader(expression_eval_f64_rte expression_eval.comp DEFINES EXPR_F64 EXPR_RTE)
# The interpreter-free variant for one integer operator on two INT columns (expression.cpp picks it).
gfxq_vk_shader(expression_eval_binary expression_eval.comp DEFINES EXPR_BINARY)
