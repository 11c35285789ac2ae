#include "vk/operators/group_by/shared_table.h"

#include <bit>

#include "group_by_config.glsl"

namespace gfxq::vk::gb {

KernelLaunch shared_launch(const Choice& choice) {
  KernelLaunch launch;
  launch.kernel = choice.shared;
  launch.rows_per_group = choice.rows_per_group;
  launch.few = choice.few;
  return launch;
}

std::string describe_shared(const Layout& layout, const KernelLaunch& launch, uint64_t rows, uint64_t table_slots) {
  const uint64_t groups = (rows + launch.rows_per_group - 1) / launch.rows_per_group;
  const std::string slots = std::has_single_bit(table_slots) ? "2^" + std::to_string(std::countr_zero(table_slots))
                                                             : std::to_string(table_slots);
  if (is_private(launch.kernel))
    return "few-groups kernel (" + shared_size_text(launch.kernel) + " of shared memory: keys to " +
           std::to_string(launch.few.ids) + " group ids by a table of " + std::to_string(launch.few.slots) +
           " slots, " + std::to_string(launch.few.copies) + " copies of " + std::to_string(layout.private_words * 4) +
           "-byte accumulators per group, " +
           (launch.few.copies == GB_WG ? "one per invocation, no atomics" : "updated by shared atomics") + "), " +
           std::to_string(groups) + " workgroups x " + std::to_string(launch.rows_per_group) +
           " rows, each group added up per workgroup and merged into a global table of " + slots + " slots";
  return "workgroup-private " + shared_size_text(launch.kernel) + " shared tables (" +
         std::to_string(shared_capacity(launch.kernel, layout)) + " slots of " +
         std::to_string(layout.shared_words * 4) + " bytes), " + std::to_string(groups) + " workgroups x " +
         std::to_string(launch.rows_per_group) + " rows, merged into a global table of " + slots + " slots";
}

}  // namespace gfxq::vk::gb
