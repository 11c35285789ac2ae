// Compute pipelines from embedded SPIR-V, cached by name and specialization constants.
#include <string>

#include "core/shaders.h"
#include "gfxq/error.h"
#include "vk/check.h"
#include "vk/device/internal.h"

namespace gfxq::vk {

void destroy_pipeline(VkDevice device, Pipeline& p) noexcept {
  if (p.pipeline) vkDestroyPipeline(device, p.pipeline, nullptr);
  if (p.layout) vkDestroyPipelineLayout(device, p.layout, nullptr);
  if (p.set_layout) vkDestroyDescriptorSetLayout(device, p.set_layout, nullptr);
  p = Pipeline{};
}

const Pipeline& Device::pipeline(std::string_view name, uint32_t bindings, uint32_t push_bytes, bool group_offset,
                                 uint32_t specialization, uint32_t specialization1) {
  Impl& m = *impl_;
  std::string key(name);
  if (specialization || specialization1) key.append("#").append(std::to_string(specialization));
  if (specialization1) key.append("/").append(std::to_string(specialization1));
  if (auto it = m.pipelines.find(key); it != m.pipelines.end()) {
    const Pipeline& p = it->second;
    if (p.bindings != bindings || p.push_bytes != push_bytes || p.group_offset != group_offset)
      throw Error(ErrorCode::Internal, "pipeline " + key + " was created with another layout");
    return p;
  }
  const std::string label = "pipeline " + key;
  if (push_bytes % 4 != 0 || (group_offset && push_bytes < 4))
    throw Error(ErrorCode::Internal, label + ": push constants must be whole words (and hold the group offset)");
  if (push_bytes > m.max_push_bytes)
    throw Error(ErrorCode::Unsupported, label + " needs " + std::to_string(push_bytes) +
                                            " bytes of push constants; the device has " +
                                            std::to_string(m.max_push_bytes));
  if (bindings > m.max_push_descriptors)
    throw Error(ErrorCode::Unsupported, label + " needs " + std::to_string(bindings) +
                                            " buffers; the device pushes at most " +
                                            std::to_string(m.max_push_descriptors));
  const shaders::Spirv spirv = shaders::spirv(name);

  Pipeline p;
  p.bindings = bindings;
  p.push_bytes = push_bytes;
  p.group_offset = group_offset;
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    std::vector<VkDescriptorSetLayoutBinding> slots(bindings);
    for (uint32_t i = 0; i < bindings; ++i)
      slots[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    auto set_info = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    set_info.bindingCount = bindings;
    set_info.pBindings = slots.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device_, &set_info, nullptr, &p.set_layout));

    const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &p.set_layout;
    layout_info.pushConstantRangeCount = push_bytes ? 1 : 0;
    layout_info.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(device_, &layout_info, nullptr, &p.layout));

    auto module_info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    module_info.codeSize = spirv.count * sizeof(uint32_t);
    module_info.pCode = spirv.words;
    VK_CHECK(vkCreateShaderModule(device_, &module_info, nullptr, &module));
    auto pipeline_info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    pipeline_info.stage =
        vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = "main";
    // The nonzero ones of constants 0 and 1 (a constant the shader does not declare is ignored).
    const uint32_t values[2] = {specialization, specialization1};
    const VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
    const VkSpecializationInfo spec{(specialization ? 1u : 0u) + (specialization1 ? 1u : 0u),
                                    specialization ? entries : entries + 1, sizeof values, values};
    if (spec.mapEntryCount) pipeline_info.stage.pSpecializationInfo = &spec;
    pipeline_info.layout = p.layout;
    if (m.executable_statistics) pipeline_info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VK_CHECK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &p.pipeline));
  } catch (...) {
    if (module) vkDestroyShaderModule(device_, module, nullptr);
    destroy_pipeline(device_, p);
    throw;
  }
  vkDestroyShaderModule(device_, module, nullptr);
  return m.pipelines.emplace(key, p).first->second;
}

std::vector<std::string> Device::pipeline_names() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : impl_->pipelines) names.push_back(name);
  return names;
}

std::string Device::pipeline_statistics(std::string_view name) const {
  const Impl& m = *impl_;
  const auto it = m.pipelines.find(name);
  if (!m.executable_statistics || it == m.pipelines.end())
    throw Error(ErrorCode::InvalidInput,
                "no statistics of pipeline " + std::string(name) +
                    (m.executable_statistics ? ": it was not created" : ": the device was created without them"));
  auto info = vk_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  info.pipeline = it->second.pipeline;
  uint32_t count = 0;
  VK_CHECK(m.executable_properties(device_, &info, &count, nullptr));
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, vk_struct<VkPipelineExecutablePropertiesKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR));
  VK_CHECK(m.executable_properties(device_, &info, &count, executables.data()));
  std::string out;
  for (uint32_t e = 0; e < count; ++e) {
    auto exec = vk_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    exec.pipeline = it->second.pipeline;
    exec.executableIndex = e;
    uint32_t n = 0;
    VK_CHECK(m.executable_statistics(device_, &exec, &n, nullptr));
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, vk_struct<VkPipelineExecutableStatisticKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
    VK_CHECK(m.executable_statistics(device_, &exec, &n, stats.data()));
    out += std::string(out.empty() ? "" : "; ") + executables[e].name + ":";
    for (const auto& st : stats) {
      out += std::string(" ") + st.name + " = ";
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: out += st.value.b32 ? "true" : "false"; break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: out += std::to_string(st.value.i64); break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: out += std::to_string(st.value.u64); break;
        default: out += std::to_string(st.value.f64); break;
      }
      out += ",";
    }
  }
  return out;
}

}  // namespace gfxq::vk
