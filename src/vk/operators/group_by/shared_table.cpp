#include "vk/operators/group_by/shared_table.h"

#include <bit>

#include "group_by_config.glsl"

namespace gfxq::vk::gb {

KernelLaunch shared_launch(const Choice& choice) {
  KernelLaunch launch;
  launch.kernel = choice.shared;
  launch.rows_per_group = choice.rows_per_group;
  launch.combine = choice.variant == GroupByVariant::SubgroupCombine;
  return launch;
}

std::string describe_shared(const Layout& layout, const KernelLaunch& launch, uint64_t rows, uint64_t table_slots) {
  const uint64_t groups = (rows + launch.rows_per_group - 1) / launch.rows_per_group;
  const std::string slots = std::has_single_bit(table_slots) ? "2^" + std::to_string(std::countr_zero(table_slots))
                                                             : std::to_string(table_slots);
  if (is_private(launch.kernel))
    return "per-invocation accumulators in shared memory (" + shared_size_text(launch.kernel) + " kernel, " +
           std::to_string(shared_capacity(launch.kernel, layout) + 1) + " slots of " +
           std::to_string(layout.private_words * 4) + " bytes per invocation, " + std::to_string(GB_PRIVATE_WG) +
           " invocations per workgroup), " + std::to_string(groups) + " workgroups x " +
           std::to_string(launch.rows_per_group) + " rows, added up per workgroup and merged into a global table of " +
           slots + " slots";
  return std::string(launch.combine ? "subgroup-combined rows into " : "") + "workgroup-private " +
         shared_size_text(launch.kernel) + " shared tables (" + std::to_string(shared_capacity(launch.kernel, layout)) +
         " slots of " + std::to_string(layout.slot_words * 4) + " bytes), " + std::to_string(groups) +
         " workgroups x " + std::to_string(launch.rows_per_group) + " rows, merged into a global table of " + slots +
         " slots";
}

}  // namespace gfxq::vk::gb
