// Constants shared by C++ and GLSL. Plain #defines only, so both languages read this file.
#ifndef GFXQ_SHADERS_COMMON_CONSTANTS_H
#define GFXQ_SHADERS_COMMON_CONSTANTS_H

// Default compute workgroup size (invocations) of gfxq's 1-D kernels.
#define GFXQ_WORKGROUP_SIZE 256

#endif
