#include "vk/engine/resident.h"

#include <chrono>

#include "gfxq/error.h"

namespace gfxq::vk {

std::shared_ptr<const DeviceColumn> ResidentColumns::share(Device& device, const ResidentKey& key, const Column& column,
                                                           std::vector<PassRecord>& passes) {
  const auto start = std::chrono::steady_clock::now();
  ++clock_;
  // Columns of another version of this table: it was replaced (or a copy of the catalog replaced it).
  for (auto it = entries_.lower_bound(ResidentKey{key.table, 0, 0});
       it != entries_.end() && it->first.table == key.table;) {
    if (it->first.version != key.version) {
      bytes_ -= it->second.bytes;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  PassRecord p;
  p.items = column.size();
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    p.kind = "resident";
    p.detail = key.table + "." + column.name + " on the device (0 bytes)";
  } else {
    Entry e;
    e.column = std::make_shared<const DeviceColumn>(upload_column(device, column));
    e.bytes = e.column->buffer.size();
    it = entries_.emplace(key, std::move(e)).first;
    bytes_ += it->second.bytes;
    p.kind = "upload";
    p.detail = key.table + "." + column.name + " (" + std::to_string(column.size() * 4) + " bytes)";
  }
  it->second.last_use = clock_;
  p.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  passes.push_back(std::move(p));
  return it->second.column;
}

void ResidentColumns::trim() {
  while (bytes_ > budget_ && !entries_.empty()) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    bytes_ -= oldest->second.bytes;
    entries_.erase(oldest);
  }
}

}  // namespace gfxq::vk
