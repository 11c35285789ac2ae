#include "core/host_memory.h"

#include <unistd.h>

#include <string>

#include "gfxq/error.h"

namespace gfxq {

uint64_t host_memory_bytes() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return uint64_t(pages) * uint64_t(page);
}

uint64_t default_host_limit() noexcept {
  const uint64_t total = host_memory_bytes();
  return total ? total / 2 : uint64_t{1} << 62;
}

void check_host_bytes(uint64_t count, uint64_t bytes_each, uint64_t limit, std::string_view what) {
  if (limit == 0) limit = default_host_limit();
  if (bytes_each == 0 || count <= limit / bytes_each) return;
  const unsigned __int128 bytes = static_cast<unsigned __int128>(count) * bytes_each;
  const std::string size = bytes >> 64 ? "more than 2^64" : std::to_string(static_cast<uint64_t>(bytes));
  throw Error(ErrorCode::ResultTooLarge, std::string(what) + " would take " + size + " bytes (" +
                                             std::to_string(count) + " x " + std::to_string(bytes_each) +
                                             "), more than the host limit of " + std::to_string(limit) +
                                             " bytes (half the physical memory unless set)");
}

}  // namespace gfxq
