#include "core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

// Calls madvise(`advice`) on the pages of [p, p + bytes) in pieces of at least 16 MiB on up to
// `threads` threads, errors ignored (the advice only saves time).
void advise_in_pieces(const char* p, uint64_t bytes, int advice, unsigned threads) noexcept {
  constexpr uint64_t kPage = 4096, kMinPiece = 16u << 20;
  const unsigned workers = worker_count(threads);
  if (!p || bytes == 0) return;
  const uint64_t pieces = std::clamp<uint64_t>(bytes / kMinPiece, 1, 4 * uint64_t{workers});
  const uint64_t per = (bytes / pieces + kPage - 1) / kPage * kPage;
  const auto advise = [&](size_t i) {
    const uint64_t begin = std::min(bytes, i * per), end = std::min(bytes, begin + per);
    if (end > begin) ::madvise(const_cast<char*>(p + begin), end - begin, advice);
  };
  if (pieces == 1 || workers == 1) {
    for (size_t i = 0; i < pieces; ++i) advise(i);
    return;
  }
  try {
    parallel_for(pieces, threads, advise);
  } catch (...) {  // no threads to be had: the pages are mapped or unmapped on use anyway
  }
}

}  // namespace

void FileBytes::populate(unsigned threads) const noexcept {
#ifdef MADV_POPULATE_READ
  advise_in_pieces(map_, size_, MADV_POPULATE_READ, threads);
#else
  (void)threads;
#endif
}

void FileBytes::release(unsigned threads) const noexcept {
  advise_in_pieces(map_, size_, MADV_DONTNEED, threads);
}

FileBytes::~FileBytes() {
  if (map_) ::munmap(const_cast<char*>(map_), static_cast<size_t>(size_));
}

}  // namespace gfxq::detail
