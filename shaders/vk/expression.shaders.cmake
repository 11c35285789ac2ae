# Kernels of the expression programs (src/vk/relational/expression.h): without and with the DOUBLE
# instructions (the latter needs shaderFloat64), each also with the float-controls execution modes
# (_fc: round to nearest even, denormals kept), which expression.cpp picks where the device has them.
gfxq_vk_shader(expression_eval expression_eval.comp)
gfxq_vk_shader(expression_eval_f64 expression_eval.comp DEFINES EXPR_F64)
gfxq_vk_shader(expression_eval_fc expression_eval.comp DEFINES EXPR_FLOAT_CONTROLS)
gfxq_vk_shader(expression_eval_f64_fc expression_eval.comp DEFINES EXPR_F64 EXPR_FLOAT_CONTROLS)
# The interpreter-free variant for one integer operator on two INT columns (expression.cpp picks it).
gfxq_vk_shader(expression_eval_binary expression_eval.comp DEFINES EXPR_BINARY)
