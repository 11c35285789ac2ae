// gfxq column files: write_column_file, read_column_file, and reading/writing by extension.
// docs/FORMATS.md gives the layout; the constants below are its numbers.

#include "gfxq/column_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>
#include <vector>

#include "core/huge_pages.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "gfxq/error.h"

namespace gfxq {

namespace {

constexpr char kMagic[8] = {'G', 'F', 'X', 'Q', 'C', 'O', 'L', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 32, kDescriptorBytes = 64, kAlign = 64;
constexpr uint32_t kHasNulls = 1;
constexpr uint64_t kMaxNameBytes = 65535;
constexpr uint64_t kPieceRows = uint64_t{1} << 22;  // rows per unit of copying work

// The on-disk type numbers (docs/FORMATS.md).
uint32_t type_number(Type t) {
  switch (t) {
    case Type::Int32: return 0;
    case Type::Float32: return 1;
    case Type::Int64: return 2;
    case Type::Float64: return 3;
    case Type::String: return 4;
    case Type::Date: return 5;
  }
  return 0;
}

uint64_t width(Type t) {
  return t == Type::Int64 || t == Type::Float64 ? 8 : 4;
}

uint64_t align(uint64_t x) {
  return (x + kAlign - 1) / kAlign * kAlign;
}

template <class T>
void put(std::vector<char>& out, uint64_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}

template <class T>
T get(std::string_view bytes, uint64_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

std::string io_reason() {
  return errno ? std::strerror(errno) : "unknown error";
}

// Where one column's sections go.
struct Layout {
  uint64_t name = 0, values = 0, nulls = 0, dict_offsets = 0, dict_text = 0, dict_text_bytes = 0;
};

// Writes `bytes` at `offset` of `fd` (all of it, retrying short writes).
void write_at(int fd, const std::string& path, const void* bytes, uint64_t size, uint64_t offset) {
  const auto* p = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, p, std::min<uint64_t>(size, uint64_t{1} << 30), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::Io, "cannot write '" + path + "': " + io_reason());
    }
    p += n;
    size -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

const void* values_of(const Column& c) {
  return std::visit([](const auto& v) -> const void* { return v.data(); }, c.data);
}

// Checks a file before anything in it is trusted; errors name the path.
class Checker {
 public:
  Checker(const std::string& path, std::string_view bytes) : path_(path), bytes_(bytes) {}

  [[noreturn]] void fail(const std::string& what) const { throw Error(ErrorCode::InvalidInput, path_ + ": " + what); }

  // [offset, offset + count·unit) lies inside the file and starts on a section boundary.
  void section(uint64_t offset, uint64_t count, uint64_t unit, const std::string& what) const {
    const uint64_t size = bytes_.size();
    if (offset % kAlign != 0)
      fail(what + " starts at byte " + std::to_string(offset) + ", not a multiple of " + std::to_string(kAlign));
    if (offset > size || (unit != 0 && count > (size - offset) / unit))
      fail(what + " (" + std::to_string(count) + " x " + std::to_string(unit) + " bytes at byte " +
           std::to_string(offset) + ") lies outside the file of " + std::to_string(size) + " bytes");
  }

 private:
  const std::string& path_;
  std::string_view bytes_;
};

// One column as the file describes it, checked.
struct ColumnEntry {
  Type type = Type::Int32;
  bool nulls = false;
  std::string name;
  uint64_t values = 0, null_flags = 0, dict_size = 0, dict_offsets = 0, dict_text = 0;
};

}  // namespace

void write_column_file(const std::string& path, const Table& table) {
  table.validate();
  const uint64_t rows = table.rows();
  const size_t n = table.columns.size();
  std::vector<Layout> layout(n);
  uint64_t at = kHeaderBytes + n * kDescriptorBytes;
  for (size_t i = 0; i < n; ++i) {
    const Column& c = table.columns[i];
    if (c.name.size() > kMaxNameBytes)
      throw Error(ErrorCode::InvalidInput, "cannot write '" + path + "': column name longer than 65,535 bytes");
    layout[i].name = at;
    at += c.name.size();
  }
  for (size_t i = 0; i < n; ++i) {
    const Column& c = table.columns[i];
    Layout& l = layout[i];
    at = align(at);
    l.values = at;
    at = align(at + rows * width(c.type));
    if (!c.nulls.empty()) {
      l.nulls = at;
      at = align(at + rows);
    }
    if (c.type == Type::String) {  // the dictionary as it lies in memory: offsets, then bytes
      l.dict_offsets = at;
      at = align(at + c.dictionary->offsets().size() * 8);
      l.dict_text = at;
      l.dict_text_bytes = c.dictionary->bytes();
      at = align(at + l.dict_text_bytes);
    }
  }
  const uint64_t file_size = align(at);

  // Header, descriptors and names.
  std::vector<char> head(align(n == 0 ? kHeaderBytes : layout.back().name + table.columns.back().name.size()), 0);
  std::memcpy(head.data(), kMagic, sizeof kMagic);
  put<uint32_t>(head, 8, kVersion);
  put<uint32_t>(head, 12, static_cast<uint32_t>(n));
  put<uint64_t>(head, 16, rows);
  put<uint64_t>(head, 24, file_size);
  for (size_t i = 0; i < n; ++i) {
    const Column& c = table.columns[i];
    const uint64_t d = kHeaderBytes + i * kDescriptorBytes;
    put<uint32_t>(head, d + 0, type_number(c.type));
    put<uint32_t>(head, d + 4, c.nulls.empty() ? 0 : kHasNulls);
    put<uint64_t>(head, d + 8, layout[i].name);
    put<uint32_t>(head, d + 16, static_cast<uint32_t>(c.name.size()));
    put<uint64_t>(head, d + 24, layout[i].values);
    put<uint64_t>(head, d + 32, layout[i].nulls);
    if (c.type == Type::String) {
      put<uint64_t>(head, d + 40, c.dictionary->size());
      put<uint64_t>(head, d + 48, layout[i].dict_offsets);
      put<uint64_t>(head, d + 56, layout[i].dict_text);
    }
    std::memcpy(head.data() + layout[i].name, c.name.data(), c.name.size());
  }

  const std::string tmp = path + ".tmp";
  errno = 0;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open '" + tmp + "' for writing: " + io_reason());
  try {
    // ftruncate first: padding reads as zeros, and the file has its size before the parallel writes.
    if (::ftruncate(fd, static_cast<off_t>(file_size)) != 0)
      throw Error(ErrorCode::Io, "cannot write '" + tmp + "': " + io_reason());
    write_at(fd, tmp, head.data(), head.size(), 0);
    // The big sections in pieces, on all cores.
    struct Piece {
      const char* bytes;
      uint64_t size, offset;
    };
    std::vector<Piece> pieces;
    const auto add = [&](const void* bytes, uint64_t size, uint64_t offset) {
      constexpr uint64_t kPiece = uint64_t{16} << 20;
      for (uint64_t done = 0; done < size; done += kPiece)
        pieces.push_back({static_cast<const char*>(bytes) + done, std::min(kPiece, size - done), offset + done});
    };
    for (size_t i = 0; i < n; ++i) {
      const Column& c = table.columns[i];
      add(values_of(c), rows * width(c.type), layout[i].values);
      if (!c.nulls.empty()) add(c.nulls.data(), rows, layout[i].nulls);
      if (c.type == Type::String) {
        const std::span<const uint64_t> offsets = c.dictionary->offsets();
        add(offsets.data(), offsets.size() * 8, layout[i].dict_offsets);
        add(c.dictionary->data(), c.dictionary->bytes(), layout[i].dict_text);
      }
    }
    detail::parallel_for(pieces.size(), 0,
                         [&](size_t k) { write_at(fd, tmp, pieces[k].bytes, pieces[k].size, pieces[k].offset); });
    if (::close(fd) != 0) throw Error(ErrorCode::Io, "cannot write '" + tmp + "': " + io_reason());
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = io_reason();
    ::unlink(tmp.c_str());
    throw Error(ErrorCode::Io, "cannot rename '" + tmp + "' to '" + path + "': " + reason);
  }
}

Table read_column_file(const std::string& path, const ColumnFileReadOptions& options) {
  const detail::FileBytes file(path, /*populate=*/false);
  const std::string_view bytes = file.bytes();
  const Checker check(path, bytes);
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    check.fail("not a gfxq column file (it does not start with \"GFXQCOL\")");
  const auto version = get<uint32_t>(bytes, 8);
  if (version != kVersion)
    check.fail("gfxq column file version " + std::to_string(version) + "; this gfxq reads version " +
               std::to_string(kVersion));
  const auto n = get<uint32_t>(bytes, 12);
  const auto rows = get<uint64_t>(bytes, 16);
  const auto size = get<uint64_t>(bytes, 24);
  if (size != bytes.size())
    check.fail("the header says the file has " + std::to_string(size) + " bytes, it has " +
               std::to_string(bytes.size()) + " (cut short or grown)");
  if (n > (bytes.size() - kHeaderBytes) / kDescriptorBytes)
    check.fail(std::to_string(n) + " column descriptors do not fit in the file");

  std::vector<ColumnEntry> entries(n);
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t d = kHeaderBytes + uint64_t{i} * kDescriptorBytes;
    ColumnEntry& e = entries[i];
    const std::string which = "column " + std::to_string(i);
    const auto type = get<uint32_t>(bytes, d);
    const auto flags = get<uint32_t>(bytes, d + 4);
    if (type > 5) check.fail(which + ": unknown type number " + std::to_string(type));
    static constexpr Type kTypes[] = {Type::Int32, Type::Float32, Type::Int64, Type::Float64, Type::String, Type::Date};
    e.type = kTypes[type];
    if (flags & ~kHasNulls) check.fail(which + ": unknown flags " + std::to_string(flags));
    e.nulls = (flags & kHasNulls) != 0;
    const auto name_at = get<uint64_t>(bytes, d + 8);
    const auto name_bytes = get<uint32_t>(bytes, d + 16);
    if (name_bytes == 0 || name_bytes > kMaxNameBytes || name_at > bytes.size() || name_bytes > bytes.size() - name_at)
      check.fail(which + ": its name (" + std::to_string(name_bytes) + " bytes at byte " + std::to_string(name_at) +
                 ") is empty, too long or outside the file");
    e.name = std::string(bytes.substr(name_at, name_bytes));
    if (!names.insert(e.name).second) check.fail("duplicate column name '" + e.name + "'");
    const std::string where = which + " ('" + e.name + "')";
    e.values = get<uint64_t>(bytes, d + 24);
    check.section(e.values, rows, width(e.type), where + ": its values");
    e.null_flags = get<uint64_t>(bytes, d + 32);
    if (e.nulls) check.section(e.null_flags, rows, 1, where + ": its NULL flags");
    if (e.type == Type::String) {
      e.dict_size = get<uint64_t>(bytes, d + 40);
      e.dict_offsets = get<uint64_t>(bytes, d + 48);
      e.dict_text = get<uint64_t>(bytes, d + 56);
      if (e.dict_size > static_cast<uint64_t>(INT32_MAX))
        check.fail(where + ": a dictionary of " + std::to_string(e.dict_size) + " strings (at most 2^31 - 1)");
      check.section(e.dict_offsets, e.dict_size + 1, 8, where + ": its dictionary offsets");
      check.section(e.dict_text, get<uint64_t>(bytes, e.dict_offsets + e.dict_size * 8), 1,
                    where + ": its dictionary text");
    }
  }

  const unsigned threads = detail::worker_count(options.threads);
  Table table;
  for (const ColumnEntry& e : entries) {
    Column c = Column::make(e.name, e.type);
    std::visit([&](auto& v) { detail::resize_huge(v, rows); }, c.data);
    if (e.nulls) detail::resize_huge(c.nulls, rows);
    if (e.type == Type::String) {
      // The dictionary: its offsets and bytes copied, the offsets checked to ascend within the text,
      // then its strings to be sorted and distinct (in blocks, on all cores).
      const uint64_t text_bytes = get<uint64_t>(bytes, e.dict_offsets + e.dict_size * 8);
      std::vector<uint64_t> offsets;
      detail::resize_huge(offsets, e.dict_size + 1);
      std::unique_ptr<char[]> text = text_bytes ? std::make_unique_for_overwrite<char[]>(text_bytes) : nullptr;
      detail::advise_huge_pages(text.get(), text_bytes);
      constexpr uint64_t kBlock = 65536;
      const uint64_t blocks = (e.dict_size + kBlock - 1) / kBlock;
      std::vector<std::string> problem(blocks);
      detail::parallel_for(blocks, threads, [&](size_t b) {
        const uint64_t first = b * kBlock, last = std::min<uint64_t>(e.dict_size, first + kBlock);
        std::memcpy(offsets.data() + first, bytes.data() + e.dict_offsets + first * 8, (last + 1 - first) * 8);
        if (first == 0 && offsets[0] != 0) {
          problem[b] = "its dictionary offsets do not start at 0";
          return;
        }
        for (uint64_t k = first; k < last; ++k)
          if (offsets[k] > offsets[k + 1] || offsets[k + 1] > text_bytes) {
            problem[b] = "its dictionary offsets do not ascend within the text at string " + std::to_string(k);
            return;
          }
        if (offsets[last] > offsets[first])
          std::memcpy(text.get() + offsets[first], bytes.data() + e.dict_text + offsets[first],
                      offsets[last] - offsets[first]);
      });
      for (const std::string& p : problem)
        if (!p.empty()) check.fail("column '" + e.name + "': " + p);
      auto dictionary = std::make_shared<const Dictionary>(std::move(text), std::move(offsets));
      std::vector<uint64_t> unsorted(blocks);
      // Each block compares its strings with the ones before them (its first with the last before it).
      detail::parallel_for(blocks, threads, [&](size_t b) {
        const uint64_t first = b * kBlock, last = std::min<uint64_t>(e.dict_size, first + kBlock);
        const uint64_t k = dictionary->sorted_at(first, last);
        unsorted[b] = k < last ? k : UINT64_MAX;
      });
      for (const uint64_t k : unsorted)
        if (k != UINT64_MAX)
          check.fail("column '" + e.name + "': its dictionary is not sorted and distinct: string " + std::to_string(k) +
                     " does not sort after string " + std::to_string(k - 1));
      c.dictionary = std::move(dictionary);
    }
    table.columns.push_back(std::move(c));
  }

  // The values, in pieces on all cores; string codes and NULL flags checked as they are copied.
  struct Piece {
    size_t column;
    uint64_t first, last;
  };
  std::vector<Piece> pieces;
  for (size_t i = 0; i < entries.size(); ++i)
    for (uint64_t r = 0; r < rows; r += kPieceRows) pieces.push_back({i, r, std::min(rows, r + kPieceRows)});
  std::vector<std::string> problem(pieces.size());
  detail::parallel_for(pieces.size(), threads, [&](size_t k) {
    const Piece& p = pieces[k];
    const ColumnEntry& e = entries[p.column];
    Column& c = table.columns[p.column];
    const uint64_t w = width(e.type);
    void* out = std::visit([&](auto& v) -> void* { return v.data() + p.first; }, c.data);
    std::memcpy(out, bytes.data() + e.values + p.first * w, (p.last - p.first) * w);
    if (e.nulls) {
      std::memcpy(c.nulls.data() + p.first, bytes.data() + e.null_flags + p.first, p.last - p.first);
      for (uint64_t r = p.first; r < p.last; ++r)
        if (c.nulls[r] > 1) {
          problem[k] = "column '" + e.name + "': row " + std::to_string(r) + " has NULL flag " +
                       std::to_string(c.nulls[r]) + " (0 or 1)";
          return;
        }
    }
    if (e.type == Type::String) {
      const auto& codes = c.as<int32_t>();
      const auto limit = static_cast<int64_t>(e.dict_size);
      for (uint64_t r = p.first; r < p.last; ++r)
        if ((codes[r] < 0 || codes[r] >= limit) && !c.is_null(r)) {
          problem[k] = "column '" + e.name + "': row " + std::to_string(r) + " holds code " + std::to_string(codes[r]) +
                       " outside its dictionary of " + std::to_string(e.dict_size) + " strings";
          return;
        }
    }
  });
  for (const std::string& p : problem)
    if (!p.empty()) check.fail(p);
  return table;
}

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Table read_table_file(const std::string& path) {
  if (ends_with(path, ".csv")) return read_csv_file(path);
  if (ends_with(path, ".gfxq")) return read_column_file(path);
  // A pipe or device (/dev/stdin, a named pipe) is read as CSV, checked while it streams.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return read_csv_file(path);
  throw Error(ErrorCode::InvalidInput, "cannot tell the format of '" + excerpt(path, 4096) +
                                           "' from its name: use a .csv or .gfxq file (docs/FORMATS.md)");
}

void write_table_file(const std::string& path, const Table& table) {
  if (ends_with(path, ".csv")) return write_csv_file(path, table);
  if (ends_with(path, ".gfxq")) return write_column_file(path, table);
  throw Error(ErrorCode::InvalidInput, "cannot tell the format for '" + excerpt(path, 4096) +
                                           "' from its name: use a .csv or .gfxq file (docs/FORMATS.md)");
}

}  // namespace gfxq
