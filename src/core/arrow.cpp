// The Arrow C Data Interface: import_arrow, import_arrow_stream, export_arrow, export_arrow_stream.
//
// Import copies (gfxq columns own their storage): fixed-width buffers by parallel memcpy from the
// array's offset, validity bitmaps into NULL flags, utf8 strings interned in parallel into one
// sorted dictionary, dictionary-encoded strings by sorting the dictionary (when it is not sorted
// and distinct already) and mapping the indices.
//
// Export moves the table into storage shared by every exported struct (each holds a reference and
// its own buffers, so a child moved out and released on its own stays valid): fixed-width columns
// point at the table's vectors; a STRING column's codes are its indices, its dictionary is written
// once as Arrow text (offsets + bytes).

#include "gfxq/arrow.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "core/huge_pages.h"
#include "core/parallel.h"
#include "core/string_interner.h"
#include "gfxq/error.h"

namespace gfxq {

namespace {

constexpr int64_t kPieceRows = int64_t{1} << 20;  // rows per unit of parallel work

Error invalid(const std::string& column, const std::string& what) {
  return Error(ErrorCode::InvalidInput, "Arrow column '" + column + "': " + what);
}

bool valid_bit(const void* bitmap, int64_t i) {
  return (static_cast<const uint8_t*>(bitmap)[i >> 3] >> (i & 7)) & 1;
}

// The buffer `k` of `a`, which must be there when the array has rows.
const void* buffer(const ArrowArray& a, int64_t k, const std::string& column) {
  if (a.n_buffers <= k || !a.buffers) throw invalid(column, "expected at least " + std::to_string(k + 1) + " buffers");
  const void* b = a.buffers[k];
  if (!b && a.length > 0) throw invalid(column, "buffer " + std::to_string(k) + " is missing");
  return b;
}

// NULL flags of rows [first, first + n) of `a` (offset included), or empty when none is NULL.
std::vector<uint8_t> import_nulls(const ArrowArray& a, int64_t first, int64_t n) {
  std::vector<uint8_t> nulls;
  if (a.null_count == 0 || !a.buffers || a.n_buffers < 1 || !a.buffers[0]) return nulls;
  const void* bitmap = a.buffers[0];
  bool any = false;
  nulls.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    nulls[static_cast<size_t>(i)] = valid_bit(bitmap, a.offset + first + i) ? 0 : 1;
    any |= nulls[static_cast<size_t>(i)] != 0;
  }
  if (!any) nulls.clear();
  return nulls;
}

// Copies n values of `width` bytes from `src` to `dst` in parallel pieces.
void parallel_copy(void* dst, const void* src, int64_t n, size_t width, unsigned threads) {
  const auto pieces = static_cast<size_t>((n + kPieceRows - 1) / kPieceRows);
  detail::parallel_for(pieces, threads, [&](size_t p) {
    const int64_t first = static_cast<int64_t>(p) * kPieceRows, count = std::min(kPieceRows, n - first);
    std::memcpy(static_cast<char*>(dst) + first * static_cast<int64_t>(width),
                static_cast<const char*>(src) + first * static_cast<int64_t>(width),
                static_cast<size_t>(count) * width);
  });
}

// The string of row i (array offset included) of a utf8 ("u") or large utf8 ("U") array.
struct Utf8 {
  const void* offsets;
  const char* data;
  bool large;
  int64_t offset;

  std::string_view at(int64_t i) const {
    const int64_t k = offset + i;
    int64_t from, to;
    if (large) {
      from = static_cast<const int64_t*>(offsets)[k];
      to = static_cast<const int64_t*>(offsets)[k + 1];
    } else {
      from = static_cast<const int32_t*>(offsets)[k];
      to = static_cast<const int32_t*>(offsets)[k + 1];
    }
    return {data + from, static_cast<size_t>(to - from)};
  }
};

Utf8 utf8_of(const ArrowArray& a, bool large, const std::string& column) {
  const void* offsets = buffer(a, 1, column);
  const void* data = buffer(a, 2, column);
  static const char kEmpty[1] = {0};
  static const int64_t kZero[2] = {0, 0};
  return {offsets ? offsets : kZero, data ? static_cast<const char*>(data) : kEmpty, large, a.offset};
}

bool is_utf8(std::string_view f) {
  return f == "u" || f == "U";
}

// A STRING column from n rows of a utf8 array: each piece of rows interned by one thread, merged.
Column import_utf8(const std::string& name, const ArrowArray& a, bool large, int64_t first, int64_t n,
                   std::vector<uint8_t> nulls, unsigned threads) {
  const Utf8 text = utf8_of(a, large, name);
  const auto pieces = static_cast<size_t>((n + kPieceRows - 1) / kPieceRows);
  std::vector<int32_t> codes;
  detail::resize_huge(codes, static_cast<size_t>(n));
  std::vector<detail::StringInterner> interners(pieces);
  detail::parallel_for(pieces, threads, [&](size_t p) {
    const int64_t from = static_cast<int64_t>(p) * kPieceRows, to = std::min(n, from + kPieceRows);
    for (int64_t i = from; i < to; ++i)
      codes[static_cast<size_t>(i)] =
          !nulls.empty() && nulls[static_cast<size_t>(i)] ? -1 : interners[p].intern(text.at(first + i), true);
  });
  std::vector<const detail::StringInterner*> parts;
  for (const auto& in : interners) parts.push_back(&in);
  const detail::MergedDictionary merged = detail::merge_dictionaries(parts, {threads}, name);
  detail::parallel_for(pieces, threads, [&](size_t p) {
    const int64_t from = static_cast<int64_t>(p) * kPieceRows, to = std::min(n, from + kPieceRows);
    for (int64_t i = from; i < to; ++i) {
      int32_t& c = codes[static_cast<size_t>(i)];
      c = c < 0 ? 0 : merged.code_of(p)[static_cast<size_t>(c)];  // a NULL row's code is 0, unread
    }
  });
  Column column = Column::make(name, Type::String);
  column.data = std::move(codes);
  column.dictionary = merged.dictionary;
  column.nulls = std::move(nulls);
  return column;
}

// The index of row i of a dictionary-encoded array's index buffer.
int64_t index_at(const void* indices, char format, int64_t i) {
  switch (format) {
    case 'c': return static_cast<const int8_t*>(indices)[i];
    case 's': return static_cast<const int16_t*>(indices)[i];
    case 'i': return static_cast<const int32_t*>(indices)[i];
    case 'l': return static_cast<const int64_t*>(indices)[i];
    case 'C': return static_cast<const uint8_t*>(indices)[i];
    case 'S': return static_cast<const uint16_t*>(indices)[i];
    case 'I': return static_cast<const uint32_t*>(indices)[i];
    default: {  // 'L': past INT64_MAX reads as negative, outside every dictionary
      const uint64_t k = static_cast<const uint64_t*>(indices)[i];
      return k > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(k);
    }
  }
}

// A STRING column from a dictionary-encoded utf8 array.
Column import_dictionary(const std::string& name, const ArrowSchema& s, const ArrowArray& a, int64_t first, int64_t n,
                         std::vector<uint8_t> nulls, unsigned threads) {
  const std::string_view index_format = s.format;
  if (!a.dictionary) throw invalid(name, "a dictionary-encoded array without its dictionary");
  const ArrowArray& d = *a.dictionary;
  if (d.length < 0) throw invalid(name, "a dictionary of negative length");
  if (d.null_count != 0 && d.n_buffers > 0 && d.buffers && d.buffers[0])
    for (int64_t k = 0; k < d.length; ++k)
      if (!valid_bit(d.buffers[0], d.offset + k))
        throw Error(ErrorCode::Unsupported, "Arrow column '" + name + "': a NULL inside its dictionary");
  const Utf8 text = utf8_of(d, std::string_view(s.dictionary->format) == "U", name);
  // The dictionary's strings in its order, then sorted and distinct (when they are not already),
  // and where each of its entries went.
  const auto count = static_cast<size_t>(d.length);
  std::vector<uint64_t> offsets(count + 1, 0);
  for (size_t k = 0; k < count; ++k) offsets[k + 1] = offsets[k] + text.at(static_cast<int64_t>(k)).size();
  auto bytes = offsets[count] ? std::make_unique_for_overwrite<char[]>(offsets[count]) : nullptr;
  for (size_t k = 0; k < count; ++k) {
    const std::string_view v = text.at(static_cast<int64_t>(k));
    if (!v.empty()) std::memcpy(bytes.get() + offsets[k], v.data(), v.size());
  }
  auto dictionary = std::make_shared<const Dictionary>(std::move(bytes), std::move(offsets));
  std::vector<int32_t> code_of(count);
  if (dictionary->sorted_at(0, count) == count) {
    std::iota(code_of.begin(), code_of.end(), 0);  // already sorted and distinct
  } else {
    const std::shared_ptr<const Dictionary> given = std::move(dictionary);
    dictionary = Dictionary::of(given->strings());
    for (size_t k = 0; k < count; ++k) code_of[k] = *dictionary->find(given->value(k));
  }
  const void* indices = buffer(a, 1, name);
  const char f = index_format[0];
  std::vector<int32_t> codes;
  detail::resize_huge(codes, static_cast<size_t>(n));
  const auto pieces = static_cast<size_t>((n + kPieceRows - 1) / kPieceRows);
  std::vector<int64_t> bad(pieces, -1);
  detail::parallel_for(pieces, threads, [&](size_t p) {
    const int64_t from = static_cast<int64_t>(p) * kPieceRows, to = std::min(n, from + kPieceRows);
    for (int64_t i = from; i < to; ++i) {
      if (!nulls.empty() && nulls[static_cast<size_t>(i)]) {
        codes[static_cast<size_t>(i)] = 0;
        continue;
      }
      const int64_t k = index_at(indices, f, a.offset + first + i);
      if (k < 0 || k >= d.length) {
        bad[p] = i;
        return;
      }
      codes[static_cast<size_t>(i)] = code_of[static_cast<size_t>(k)];
    }
  });
  for (int64_t i : bad)
    if (i >= 0)
      throw invalid(name, "row " + std::to_string(i) + " holds index " +
                              std::to_string(index_at(indices, f, a.offset + first + i)) +
                              " outside its dictionary of " + std::to_string(d.length) + " strings");
  Column column = Column::make(name, Type::String);
  column.data = std::move(codes);
  column.dictionary = std::move(dictionary);
  column.nulls = std::move(nulls);
  return column;
}

// The gfxq type of an Arrow column; Error(Unsupported) naming it when there is none.
Type column_type(const std::string& name, const ArrowSchema& s) {
  if (!s.format) throw invalid(name, "a schema without a format");
  const std::string_view f = s.format;
  if (s.dictionary) {
    if (f.size() != 1 || std::string_view("csilCSIL").find(f[0]) == std::string_view::npos)
      throw Error(ErrorCode::Unsupported, "Arrow column '" + name + "': dictionary indices of format '" +
                                              std::string(f) + "' (8- to 64-bit integers only)");
    if (!s.dictionary->format || !is_utf8(s.dictionary->format))
      throw Error(ErrorCode::Unsupported, "Arrow column '" + name + "': a dictionary of format '" +
                                              std::string(s.dictionary->format ? s.dictionary->format : "") +
                                              "' (dictionary-encoded utf8 only)");
    return Type::String;
  }
  if (f == "i") return Type::Int32;
  if (f == "f") return Type::Float32;
  if (f == "l") return Type::Int64;
  if (f == "g") return Type::Float64;
  if (f == "tdD") return Type::Date;
  if (is_utf8(f)) return Type::String;
  throw Error(ErrorCode::Unsupported,
              "Arrow column '" + name + "' has format '" + std::string(f) +
                  "', which no gfxq column holds (int32 'i', float32 'f', int64 'l', float64 'g', date32 'tdD', "
                  "utf8 'u' or 'U', dictionary-encoded utf8)");
}

// One column from rows [first, first + n) of `a` (its own offset added).
Column import_column(const std::string& name, const ArrowSchema& s, const ArrowArray& a, int64_t first, int64_t n,
                     unsigned threads) {
  if (!s.format) throw invalid(name, "a schema without a format");
  if (!a.release) throw invalid(name, "a released array");
  if (a.length < first + n || a.offset < 0) throw invalid(name, "shorter than its parent");
  const Type type = column_type(name, s);
  std::vector<uint8_t> nulls = import_nulls(a, first, n);
  if (s.dictionary) return import_dictionary(name, s, a, first, n, std::move(nulls), threads);
  if (is_utf8(s.format))
    return import_utf8(name, a, std::string_view(s.format) == "U", first, n, std::move(nulls), threads);
  Column column = Column::make(name, type);
  const void* values = buffer(a, 1, name);
  std::visit(
      [&](auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        detail::resize_huge(v, static_cast<size_t>(n));
        if (n > 0) parallel_copy(v.data(), static_cast<const T*>(values) + a.offset + first, n, sizeof(T), threads);
      },
      column.data);
  column.nulls = std::move(nulls);
  return column;
}

// ---- Export ----

// What every exported struct of one export shares: the table, and each STRING column's dictionary
// as Arrow text.
struct Shared {
  Table table;
  struct Text {
    std::vector<int32_t> offsets32;  // the dictionary's offsets as utf8 has them (large utf8: its own)
  };
  std::vector<Text> texts;  // per column (STRING columns only)
};

alignas(64) const int64_t kEmptyBuffer[8] = {};  // data for zero-length buffers (never null)

const void* data_or_empty(const void* p) {
  return p ? p : kEmptyBuffer;
}

// Releases and frees a child array or schema this module allocated.
template <class T>
void release_owned(T* p) {
  if (p->release) p->release(p);
  delete p;
}

struct ArrayData {
  std::shared_ptr<Shared> shared;
  std::vector<const void*> buffers;
  std::vector<uint8_t> validity;
  std::vector<ArrowArray*> children;  // owned
  ArrowArray* dictionary = nullptr;   // owned
};

void release_array(ArrowArray* a) {
  auto* data = static_cast<ArrayData*>(a->private_data);
  for (ArrowArray* c : data->children) release_owned(c);
  if (data->dictionary) release_owned(data->dictionary);
  delete data;
  a->release = nullptr;
}

struct SchemaData {
  std::string format, name;
  std::vector<ArrowSchema*> children;  // owned
  std::vector<ArrowSchema*> child_pointers;
  ArrowSchema* dictionary = nullptr;  // owned
};

void release_schema(ArrowSchema* s) {
  auto* data = static_cast<SchemaData*>(s->private_data);
  for (ArrowSchema* c : data->children) release_owned(c);
  if (data->dictionary) release_owned(data->dictionary);
  delete data;
  s->release = nullptr;
}

void fill_schema(ArrowSchema* s, std::string format, std::string name, int64_t flags) {
  auto* data = new SchemaData{std::move(format), std::move(name), {}, {}, nullptr};
  *s = ArrowSchema{};
  s->format = data->format.c_str();
  s->name = data->name.c_str();
  s->metadata = nullptr;
  s->flags = flags;
  s->release = release_schema;
  s->private_data = data;
}

const char* format_of(Type t) {
  switch (t) {
    case Type::Int32: return "i";
    case Type::Float32: return "f";
    case Type::Int64: return "l";
    case Type::Float64: return "g";
    case Type::Date: return "tdD";
    case Type::String: return "i";  // the indices; the dictionary is utf8
  }
  return "";
}

// The dictionary text of a STRING column needs 64-bit offsets past INT32_MAX bytes.
bool large_text(const Column& c) {
  return c.dictionary->bytes() > static_cast<uint64_t>(INT32_MAX);
}

void make_schema(const Table& table, ArrowSchema* out) {
  fill_schema(out, "+s", "", 0);
  auto* data = static_cast<SchemaData*>(out->private_data);
  for (const Column& c : table.columns) {
    auto* child = new ArrowSchema;
    fill_schema(child, format_of(c.type), c.name, c.nulls.empty() ? 0 : ARROW_FLAG_NULLABLE);
    if (c.type == Type::String) {
      child->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
      auto* dict = new ArrowSchema;
      fill_schema(dict, large_text(c) ? "U" : "u", "", 0);
      static_cast<SchemaData*>(child->private_data)->dictionary = dict;
      child->dictionary = dict;
    }
    data->children.push_back(child);
  }
  data->child_pointers = data->children;
  out->n_children = static_cast<int64_t>(data->children.size());
  out->children = data->child_pointers.data();
}

ArrowArray* new_array(const std::shared_ptr<Shared>& shared, int64_t length, int64_t null_count) {
  auto* a = new ArrowArray{};
  auto* data = new ArrayData{shared, {}, {}, {}, nullptr};
  a->length = length;
  a->null_count = null_count;
  a->offset = 0;
  a->release = release_array;
  a->private_data = data;
  return a;
}

void set_buffers(ArrowArray* a, std::vector<const void*> buffers) {
  auto* data = static_cast<ArrayData*>(a->private_data);
  data->buffers = std::move(buffers);
  a->n_buffers = static_cast<int64_t>(data->buffers.size());
  a->buffers = data->buffers.data();
}

// The struct array of `shared`'s table, written into `out`.
void make_array(const std::shared_ptr<Shared>& shared, ArrowArray* out) {
  const Table& table = shared->table;
  const auto rows = static_cast<int64_t>(table.rows());
  ArrowArray* root = new_array(shared, rows, 0);
  set_buffers(root, {nullptr});
  auto* root_data = static_cast<ArrayData*>(root->private_data);
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    int64_t null_count = 0;
    for (uint8_t f : c.nulls) null_count += f != 0;
    ArrowArray* child = new_array(shared, rows, null_count);
    auto* data = static_cast<ArrayData*>(child->private_data);
    const void* validity = nullptr;
    if (null_count > 0) {
      data->validity.assign(static_cast<size_t>((rows + 7) / 8), 0);
      for (int64_t r = 0; r < rows; ++r)
        if (!c.nulls[static_cast<size_t>(r)]) data->validity[static_cast<size_t>(r >> 3)] |= uint8_t(1u << (r & 7));
      validity = data->validity.data();
    }
    const void* values = std::visit([](const auto& v) -> const void* { return v.data(); }, c.data);
    set_buffers(child, {validity, data_or_empty(values)});
    if (c.type == Type::String) {
      Shared::Text& text = shared->texts[i];
      const auto distinct = static_cast<int64_t>(c.dictionary->size());
      ArrowArray* dict = new_array(shared, distinct, 0);
      // The dictionary's bytes and (large utf8) offsets as they are: int64 offsets have the bits of
      // gfxq's uint64 ones. utf8 gets int32 offsets, made once.
      const std::span<const uint64_t> offsets = c.dictionary->offsets();
      const void* arrow_offsets = offsets.data();
      if (!large_text(c)) {
        if (text.offsets32.empty()) text.offsets32.assign(offsets.begin(), offsets.end());
        arrow_offsets = text.offsets32.data();
      }
      set_buffers(dict, {nullptr, arrow_offsets, data_or_empty(c.dictionary->data())});
      data->dictionary = dict;
      child->dictionary = dict;
    }
    root_data->children.push_back(child);
  }
  *out = *root;
  delete root;  // its contents moved to `out`; the children and data stay with out->private_data
  auto* data = static_cast<ArrayData*>(out->private_data);
  out->n_children = static_cast<int64_t>(data->children.size());
  out->children = data->children.data();
  out->buffers = data->buffers.data();
}

// A stream of one record batch.
struct StreamData {
  std::shared_ptr<Shared> shared;
  bool sent = false;
  std::string error;
};

int stream_get_schema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  try {
    make_schema(data->shared->table, out);
    return 0;
  } catch (const std::exception& e) {
    data->error = e.what();
    return 12;  // ENOMEM: the only way this fails
  }
}

int stream_get_next(ArrowArrayStream* stream, ArrowArray* out) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  if (data->sent) {
    *out = ArrowArray{};  // the end of the stream: a released array
    return 0;
  }
  try {
    make_array(data->shared, out);
    data->sent = true;
    return 0;
  } catch (const std::exception& e) {
    data->error = e.what();
    return 12;
  }
}

const char* stream_last_error(ArrowArrayStream* stream) {
  auto* data = static_cast<StreamData*>(stream->private_data);
  return data->error.empty() ? nullptr : data->error.c_str();
}

void stream_release(ArrowArrayStream* stream) {
  delete static_cast<StreamData*>(stream->private_data);
  stream->release = nullptr;
}

std::shared_ptr<Shared> share(Table table) {
  // As write_csv: equal lengths and codes inside their dictionaries; names may repeat (results).
  for (const Column& c : table.columns) {
    if (c.size() != table.rows() || (!c.nulls.empty() && c.nulls.size() != c.size()))
      throw Error(ErrorCode::InvalidInput, "Arrow export: column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows (and " + std::to_string(c.nulls.size()) +
                                               " NULL flags), the table " + std::to_string(table.rows()));
    if (c.type != Type::String) continue;
    if (!c.dictionary)
      throw Error(ErrorCode::InvalidInput, "Arrow export: string column '" + c.name + "' has no dictionary");
    const auto& codes = c.as<int32_t>();
    for (uint64_t r = 0; r < codes.size(); ++r)
      if (!c.is_null(r) && (codes[r] < 0 || static_cast<size_t>(codes[r]) >= c.dictionary->size()))
        throw Error(ErrorCode::InvalidInput, "Arrow export: string column '" + c.name + "': row " + std::to_string(r) +
                                                 " holds code " + std::to_string(codes[r]) + " outside its dictionary");
  }
  auto shared = std::make_shared<Shared>();
  shared->texts.resize(table.columns.size());
  shared->table = std::move(table);
  return shared;
}

}  // namespace

Table import_arrow(const ArrowSchema& schema, const ArrowArray& array, const ArrowImportOptions& options) {
  if (!schema.release || !array.release) throw Error(ErrorCode::InvalidInput, "Arrow import: a released struct");
  if (!schema.format) throw Error(ErrorCode::InvalidInput, "Arrow import: a schema without a format");
  if (array.length < 0 || array.offset < 0)
    throw Error(ErrorCode::InvalidInput, "Arrow import: negative length or offset");
  const unsigned threads = detail::worker_count(options.threads);
  Table table;
  if (std::string_view(schema.format) != "+s") {
    const std::string name = schema.name && *schema.name ? schema.name : "column";
    table.columns.push_back(import_column(name, schema, array, 0, array.length, threads));
    table.validate();
    return table;
  }
  if (schema.n_children != array.n_children || (array.n_children > 0 && (!schema.children || !array.children)))
    throw Error(ErrorCode::InvalidInput, "Arrow import: the schema has " + std::to_string(schema.n_children) +
                                             " children, the array " + std::to_string(array.n_children));
  if (array.null_count != 0 && array.n_buffers > 0 && array.buffers && array.buffers[0])
    for (int64_t r = 0; r < array.length; ++r)
      if (!valid_bit(array.buffers[0], array.offset + r))
        throw Error(ErrorCode::InvalidInput, "Arrow import: row " + std::to_string(r) +
                                                 " of the record batch is NULL as a whole (a struct-level NULL)");
  for (int64_t i = 0; i < schema.n_children; ++i) {
    const ArrowSchema& s = *schema.children[i];
    const std::string name = s.name && *s.name ? s.name : "column" + std::to_string(i);
    // A struct's offset applies to its children too.
    table.columns.push_back(import_column(name, s, *array.children[i], array.offset, array.length, threads));
  }
  table.validate();
  return table;
}

Table import_arrow_stream(ArrowArrayStream& stream, const ArrowImportOptions& options) {
  if (!stream.release) throw Error(ErrorCode::InvalidInput, "Arrow import: a released stream");
  const auto failed = [&](int code, const char* what) {
    const char* message = stream.get_last_error ? stream.get_last_error(&stream) : nullptr;
    return Error(ErrorCode::InvalidInput, std::string("Arrow stream: ") + what + " failed (error " +
                                              std::to_string(code) + (message ? std::string(": ") + message : "") +
                                              ")");
  };
  ArrowSchema schema{};
  if (const int rc = stream.get_schema(&stream, &schema); rc != 0) throw failed(rc, "get_schema");
  struct ReleaseSchema {
    ArrowSchema& s;
    ~ReleaseSchema() {
      if (s.release) s.release(&s);
    }
  } release_schema_at_end{schema};
  std::vector<Table> batches;
  for (;;) {
    ArrowArray array{};
    if (const int rc = stream.get_next(&stream, &array); rc != 0) throw failed(rc, "get_next");
    if (!array.release) break;
    struct ReleaseArray {
      ArrowArray& a;
      ~ReleaseArray() {
        if (a.release) a.release(&a);
      }
    } release_array_at_end{array};
    batches.push_back(import_arrow(schema, array, options));
  }
  if (batches.empty()) {  // no batch: the schema's columns, without rows
    Table table;
    if (std::string_view(schema.format) != "+s")
      table.columns.push_back(
          Column::make(schema.name && *schema.name ? schema.name : "column", column_type("column", schema)));
    for (int64_t i = 0; std::string_view(schema.format) == "+s" && i < schema.n_children; ++i) {
      const ArrowSchema& s = *schema.children[i];
      const std::string name = s.name && *s.name ? s.name : "column" + std::to_string(i);
      table.columns.push_back(Column::make(name, column_type(name, s)));
    }
    table.validate();
    return table;
  }
  if (batches.size() == 1) return std::move(batches.front());
  // Append the batches column by column; string columns through one merged dictionary.
  Table table;
  const unsigned threads = detail::worker_count(options.threads);
  for (size_t i = 0; i < batches.front().columns.size(); ++i) {
    const Column& first = batches.front().columns[i];
    Column column = Column::make(first.name, first.type);
    uint64_t rows = 0;
    bool nullable = false;
    for (const Table& b : batches) {
      rows += b.columns[i].size();
      nullable |= !b.columns[i].nulls.empty();
    }
    std::visit([&](auto& v) { detail::resize_huge(v, rows); }, column.data);
    if (nullable) column.nulls.assign(rows, 0);
    std::vector<std::vector<int32_t>> code_of(batches.size());
    if (first.type == Type::String) {
      // Each batch's dictionary is sorted and distinct: merge them into one.
      std::vector<const Dictionary*> all;
      for (const Table& b : batches) all.push_back(b.columns[i].dictionary.get());
      column.dictionary = Dictionary::union_of(all);
      for (size_t k = 0; k < batches.size(); ++k)
        for (const std::string_view s : *batches[k].columns[i].dictionary)
          code_of[k].push_back(*column.dictionary->find(s));
    }
    uint64_t at = 0;
    for (size_t k = 0; k < batches.size(); ++k) {
      const Column& from = batches[k].columns[i];
      std::visit(
          [&](auto& to) {
            using V = std::decay_t<decltype(to)>;
            const V& src = std::get<V>(from.data);
            if (first.type == Type::String) {
              for (size_t r = 0; r < src.size(); ++r)
                to[at + r] = from.is_null(r) ? 0 : code_of[k][static_cast<size_t>(src[r])];
            } else {
              parallel_copy(to.data() + at, src.data(), static_cast<int64_t>(src.size()), sizeof(src[0]), threads);
            }
          },
          column.data);
      if (!from.nulls.empty()) std::copy(from.nulls.begin(), from.nulls.end(), column.nulls.begin() + at);
      at += from.size();
    }
    table.columns.push_back(std::move(column));
  }
  return table;
}

void export_arrow(Table table, ArrowSchema* out_schema, ArrowArray* out_array) {
  const std::shared_ptr<Shared> shared = share(std::move(table));
  make_schema(shared->table, out_schema);
  try {
    make_array(shared, out_array);
  } catch (...) {
    out_schema->release(out_schema);
    throw;
  }
}

void export_arrow_stream(Table table, ArrowArrayStream* out) {
  auto* data = new StreamData{share(std::move(table)), false, {}};
  *out = ArrowArrayStream{};
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = data;
}

}  // namespace gfxq
