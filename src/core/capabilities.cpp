#include "gfxq/capabilities.h"

#include <cstdio>

namespace gfxq {

namespace {

//! Appends "  name: value\n" with the values aligned.
void line(std::string& out, const char* name, const std::string& value) {
  std::string key = std::string("  ") + name + ":";
  if (key.size() < 30) key.resize(30, ' ');
  out += key + value + "\n";
}

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

//! "134217728 (128.0 MiB)".
std::string bytes(uint64_t n) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%llu (%.1f %s)", static_cast<unsigned long long>(n), v, units[u]);
  return buf;
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::string GlCapabilities::text() const {
  std::string out = "OpenGL (raster backend)\n";
  if (!available) {
    line(out, "available", "no: " + unavailable_reason);
    return out;
  }
  line(out, "available", "yes");
  line(out, "platform", platform);
  line(out, "context", std::to_string(major) + "." + std::to_string(minor) + " core");
  line(out, "vendor", vendor);
  line(out, "renderer", renderer);
  line(out, "version", version);
  line(out, "GLSL version", glsl_version);
  line(out, "depth bounds test", yes_no(depth_bounds_test));
  line(out, "float depth (D32F_S8)", yes_no(float_depth));
  line(out, "NV depth buffer float", yes_no(nv_depth_buffer_float));
  line(out, "clip control", yes_no(clip_control));
  line(out, "GL_ARB_gl_spirv", yes_no(gl_spirv));
  line(out, "KHR debug", yes_no(khr_debug));
  line(out, "conditional render", yes_no(conditional_render) + (nv_conditional_render ? " (and NV)" : ""));
  line(out, "occlusion counter bits", std::to_string(occlusion_counter_bits));
  line(out, "timer counter bits", std::to_string(timer_counter_bits));
  line(out, "max framebuffer", std::to_string(max_framebuffer_width) + " x " + std::to_string(max_framebuffer_height));
  line(out, "max texture size", std::to_string(max_texture_size));
  line(out, "max renderbuffer size", std::to_string(max_renderbuffer_size));
  line(out, "stencil bits", std::to_string(stencil_bits));
  line(out, "extensions used", extensions.empty() ? "(none)" : join(extensions, " "));
  return out;
}

std::string VkCapabilities::text() const {
  std::string out = "Vulkan (compute backend)\n";
  if (!available) {
    line(out, "available", "no: " + unavailable_reason);
    if (!all_devices.empty()) line(out, "devices", join(all_devices, ", "));
    return out;
  }
  line(out, "available", "yes");
  line(out, "device", device_name + " (" + device_type + ")");
  line(out, "driver", driver_name + (driver_info.empty() ? "" : " (" + driver_info + ")"));
  line(out, "vendor / device id", hex(vendor_id) + " / " + hex(device_id));
  line(out, "API version",
       std::to_string(api_version >> 22) + "." + std::to_string((api_version >> 12) & 0x3ff) + "." +
           std::to_string(api_version & 0xfff));
  line(out, "subgroup size", std::to_string(subgroup_size));
  line(out, "subgroup arithmetic", yes_no(subgroup_arithmetic));
  line(out, "subgroup ballot", yes_no(subgroup_ballot));
  line(out, "subgroup shuffle", yes_no(subgroup_shuffle));
  line(out, "max shared memory", bytes(max_shared_memory));
  line(out, "max storage buffer range", bytes(max_storage_buffer_range));
  line(out, "max workgroup invocations", std::to_string(max_workgroup_invocations));
  line(out, "max workgroup size",
       std::to_string(max_workgroup_size[0]) + " x " + std::to_string(max_workgroup_size[1]) + " x " +
           std::to_string(max_workgroup_size[2]));
  line(out, "max workgroup count",
       std::to_string(max_workgroup_count[0]) + " x " + std::to_string(max_workgroup_count[1]) + " x " +
           std::to_string(max_workgroup_count[2]));
  line(out, "shader loop limit",
       shader_loop_limit ? std::to_string(shader_loop_limit) + " iterations per invocation" : std::string("none"));
  line(out, "shaderInt64", yes_no(shader_int64));
  line(out, "shaderFloat64", yes_no(shader_float64));
  line(out, "float32 RTE rounding", yes_no(rounding_rte_float32));
  line(out, "buffer int64 atomics", yes_no(buffer_int64_atomics));
  line(out, "shared int64 atomics", yes_no(shared_int64_atomics));
  line(out, "push descriptors", std::to_string(max_push_descriptors));
  line(out, "storage buffers per stage", std::to_string(max_storage_buffers_per_stage));
  if (timestamps) {
    char period[32];
    std::snprintf(period, sizeof period, "%g", timestamp_period_ns);
    line(out, "timestamps", std::string("yes, ") + period + " ns per tick");
  } else {
    line(out, "timestamps", "no");
  }
  for (size_t i = 0; i < heaps.size(); ++i)
    line(out, ("heap " + std::to_string(i)).c_str(),
         bytes(heaps[i].size) + (heaps[i].device_local ? ", device-local" : ", host"));
  line(out, "devices", join(all_devices, ", "));
  return out;
}

}  // namespace gfxq
