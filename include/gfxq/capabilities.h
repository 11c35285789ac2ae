#pragma once
//! \file capabilities.h
//! What each GPU backend's driver reports, filled once at context/device creation.
//! Callers and the planner read these records; nothing probes a driver by trial.

#include <cstdint>
#include <string>
#include <vector>

namespace gfxq {

//! OpenGL context capabilities (raster backend).
struct GlCapabilities {
  bool available = false;               //!< a context could be created
  std::string unavailable_reason;       //!< why not, when !available
  std::string platform;                 //!< "EGL device", "EGL surfaceless" or "GLFW window"
  std::string vendor;                   //!< GL_VENDOR
  std::string renderer;                 //!< GL_RENDERER
  std::string version;                  //!< GL_VERSION
  std::string glsl_version;             //!< GL_SHADING_LANGUAGE_VERSION
  int major = 0;                        //!< context major version (4)
  int minor = 0;                        //!< context minor version (6, or 5 after the fallback)
  bool depth_bounds_test = false;       //!< GL_EXT_depth_bounds_test
  bool float_depth = false;             //!< 32-bit float depth attachments (GL_DEPTH32F_STENCIL8)
  bool nv_depth_buffer_float = false;   //!< GL_NV_depth_buffer_float (unclamped float depth)
  bool clip_control = false;            //!< glClipControl (core 4.5)
  bool gl_spirv = false;                //!< GL_ARB_gl_spirv
  bool khr_debug = false;               //!< KHR_debug (core 4.3)
  bool conditional_render = false;      //!< conditional rendering (core 3.0)
  bool nv_conditional_render = false;   //!< GL_NV_conditional_render
  int occlusion_counter_bits = 0;       //!< GL_QUERY_COUNTER_BITS of GL_SAMPLES_PASSED
  int timer_counter_bits = 0;           //!< GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED
  int max_framebuffer_width = 0;        //!< GL_MAX_FRAMEBUFFER_WIDTH
  int max_framebuffer_height = 0;       //!< GL_MAX_FRAMEBUFFER_HEIGHT
  int max_texture_size = 0;             //!< GL_MAX_TEXTURE_SIZE
  int max_renderbuffer_size = 0;        //!< GL_MAX_RENDERBUFFER_SIZE
  int stencil_bits = 0;                 //!< stencil bits of gfxq's depth-stencil format
  std::vector<std::string> extensions;  //!< the extensions gfxq uses that the driver has
  //! Multi-line text, as `gfxq info` prints it.
  std::string text() const;
};

//! One Vulkan memory heap.
struct VkHeap {
  uint64_t size = 0;          //!< bytes
  bool device_local = false;  //!< VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
};

//! Vulkan device capabilities (compute backend).
struct VkCapabilities {
  bool available = false;                       //!< a device could be created
  std::string unavailable_reason;               //!< why not, when !available
  std::string device_name;                      //!< VkPhysicalDeviceProperties::deviceName
  std::string device_type;                      //!< "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver_name;                      //!< VkPhysicalDeviceDriverProperties::driverName
  std::string driver_info;                      //!< VkPhysicalDeviceDriverProperties::driverInfo
  uint32_t vendor_id = 0;                       //!< PCI vendor id
  uint32_t device_id = 0;                       //!< PCI device id
  uint32_t api_version = 0;                     //!< VK_MAKE_API_VERSION of the device
  uint32_t subgroup_size = 0;                   //!< default subgroup size
  bool subgroup_arithmetic = false;             //!< subgroup arithmetic ops in compute
  bool subgroup_ballot = false;                 //!< subgroup ballot ops in compute
  bool subgroup_shuffle = false;                //!< subgroup shuffle ops in compute
  uint32_t max_shared_memory = 0;               //!< maxComputeSharedMemorySize, bytes
  uint64_t max_storage_buffer_range = 0;        //!< maxStorageBufferRange, bytes
  uint32_t max_workgroup_invocations = 0;       //!< maxComputeWorkGroupInvocations
  uint32_t max_workgroup_size[3] = {0, 0, 0};   //!< maxComputeWorkGroupSize
  uint32_t max_workgroup_count[3] = {0, 0, 0};  //!< maxComputeWorkGroupCount
  //! Loop iterations after which the driver silently ends a shader invocation's loops, counted over
  //! all its loops together (lavapipe: 65,535); 0 when the driver has no such limit.
  uint64_t shader_loop_limit = 0;
  bool shader_int64 = false;                   //!< shaderInt64
  bool shader_float64 = false;                 //!< shaderFloat64 (the exact FLOAT SUM adds doubles)
  bool rounding_rte_float32 = false;           //!< shaderRoundingModeRTEFloat32 (fast FLOAT expressions)
  bool buffer_int64_atomics = false;           //!< shaderBufferInt64Atomics
  bool shared_int64_atomics = false;           //!< shaderSharedInt64Atomics
  uint32_t max_push_descriptors = 0;           //!< maxPushDescriptors (VK_KHR_push_descriptor)
  uint32_t max_storage_buffers_per_stage = 0;  //!< maxPerStageDescriptorStorageBuffers
  bool timestamps = false;                     //!< compute queue supports timestamps
  double timestamp_period_ns = 0;              //!< nanoseconds per timestamp tick
  std::vector<VkHeap> heaps;                   //!< memory heaps
  std::vector<std::string> all_devices;        //!< every physical device seen, "index: name (type)"
  //! Multi-line text, as `gfxq info` prints it.
  std::string text() const;
};

}  // namespace gfxq
