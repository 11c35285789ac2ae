#pragma once
// A whole file's bytes for the loaders (CSV, gfxq column files): memory-mapped when the file is a
// regular file (page-cache speed, no copy), read whole otherwise (pipes, character devices).

#include <cstdint>
#include <string>
#include <string_view>

namespace gfxq::detail {

//! The bytes of one file, valid while the object lives. A regular file is mapped read-only; a file
//! truncated by another process while mapped makes reading its lost pages fail (SIGBUS), as with
//! any mapped input.
class FileBytes {
 public:
  //! Opens `path`. Error(Io) naming the path and the reason when it cannot be opened, is a
  //! directory, or cannot be read or mapped. `populate`: map every page at once (MAP_POPULATE)
  //! rather than on first touch.
  explicit FileBytes(const std::string& path, bool populate = true);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  //! Maps the pages of a mapped file on up to `threads` threads, a piece each (MADV_POPULATE_READ,
  //! where the kernel has it), so that reading them takes no page faults: one thread populating a
  //! large mapping, as MAP_POPULATE does, is a serial step of the load.
  void populate(unsigned threads) const noexcept;
  //! Drops the mapping's pages on up to `threads` threads, a piece each, before the destructor
  //! unmaps what is left (unmapping a large mapping on one thread is a serial step too). The bytes
  //! stay readable (mapped again on use).
  void release(unsigned threads) const noexcept;

  //! The file's bytes.
  std::string_view bytes() const noexcept { return map_ ? std::string_view(map_, size_) : std::string_view(owned_); }

 private:
  const char* map_ = nullptr;
  uint64_t size_ = 0;
  std::string owned_;
};

}  // namespace gfxq::detail
