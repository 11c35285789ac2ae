#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/parallel.h"
#include "gfxq/error.h"

namespace gfxq::detail {

namespace {

std::string reason(int error) {
  return error ? std::strerror(error) : "unknown error";
}

}  // namespace

FileBytes::FileBytes(const std::string& path, bool populate) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open '" + excerpt(path, 4096) + "': " + reason(errno));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } close{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(ErrorCode::Io, "cannot read '" + excerpt(path, 4096) + "': " + reason(errno));
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::Io, "cannot read '" + excerpt(path, 4096) + "': " + reason(EISDIR));
  if (S_ISREG(st.st_mode)) {
    if (st.st_size == 0) return;
    void* map =
        ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    if (map == MAP_FAILED) throw Error(ErrorCode::Io, "cannot map '" + excerpt(path, 4096) + "': " + reason(errno));
    map_ = static_cast<const char*>(map);
    size_ = static_cast<uint64_t>(st.st_size);
    return;
  }
  // Not a regular file: read to the end.
  size_t used = 0;
  owned_.resize(1 << 16);
  for (;;) {
    if (used == owned_.size()) owned_.resize(owned_.size() * 2);
    const ssize_t got = ::read(fd, owned_.data() + used, owned_.size() - used);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::Io, "cannot read '" + excerpt(path, 4096) + "': " + reason(errno));
    }
    used += static_cast<size_t>(got);
  }
  owned_.resize(used);
}

void FileBytes::populate(unsigned threads) const noexcept {
#ifdef MADV_POPULATE_READ
  advise_parallel(map_, size_, MADV_POPULATE_READ, threads);
#else
  (void)threads;
#endif
}

void FileBytes::release(unsigned threads) const noexcept {
  advise_parallel(map_, size_, MADV_DONTNEED, threads);
}

FileBytes::~FileBytes() {
  if (map_) ::munmap(const_cast<char*>(map_), static_cast<size_t>(size_));
}

}  // namespace gfxq::detail
