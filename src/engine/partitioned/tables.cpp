#include "engine/partitioned/tables.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/append_column.h"
#include "gfxq/error.h"

namespace gfxq::engine::partitioned {

std::pair<uint64_t, uint64_t> row_range(uint64_t rows, size_t parts, size_t index) noexcept {
  const auto at = [&](size_t i) { return uint64_t((unsigned __int128)rows * i / parts); };
  return {at(index), at(index + 1) - at(index)};
}

Table slice(const Table& table, uint64_t first, uint64_t count) {
  Table out;
  for (const Column& c : table.columns) {
    Column s;
    s.name = c.name;
    s.type = c.type;
    s.dictionary = c.dictionary;
    std::visit(
        [&](const auto& values) {
          using V = std::decay_t<decltype(values)>;
          s.data = V(values.begin() + long(first), values.begin() + long(first + count));
        },
        c.data);
    if (!c.nulls.empty()) s.nulls.assign(c.nulls.begin() + long(first), c.nulls.begin() + long(first + count));
    out.columns.push_back(std::move(s));
  }
  return out;
}

const Catalog& PartitionCatalog::prepare(const Split& split, const Catalog& catalog, size_t parts, size_t index) {
  // Copies of tables the catalog no longer has, or has in another version, go first.
  for (auto it = from_.begin(); it != from_.end();) {
    if (!catalog.contains(it->first) || catalog.version(it->first) != it->second.version) {
      catalog_.remove(it->first);
      it = from_.erase(it);
    } else {
      ++it;
    }
  }
  auto need = [&](const std::string& name, bool sliced) {
    if (auto it = from_.find(name); it != from_.end() && it->second.sliced == sliced) return;
    const Table& whole = catalog.get(name);
    const auto [first, count] = row_range(whole.rows(), parts, index);
    catalog_.add(name, sliced ? slice(whole, first, count) : whole);
    from_[name] = {catalog.version(name), sliced};
  };
  need(split.partitioned_table, true);
  for (const auto& b : split.broadcast) need(b, false);
  return catalog_;
}

uint64_t table_bytes(const Table& table) noexcept {
  uint64_t bytes = 0;
  for (const Column& c : table.columns) {
    const uint64_t width = std::visit([](const auto& v) { return uint64_t(sizeof(v[0])); }, c.data);
    bytes += c.size() * width + c.nulls.size();
  }
  return bytes;
}

namespace {

// `part`, a STRING column of another dictionary than `dictionary`, with its codes re-encoded into it.
Column recoded(const Column& part, const std::shared_ptr<const Dictionary>& dictionary, const std::string& name) {
  Column out = part;
  out.dictionary = dictionary;
  auto& codes = out.as<int32_t>();
  for (size_t r = 0; r < codes.size(); ++r) {
    if (part.is_null(r)) {
      codes[r] = 0;
      continue;
    }
    const std::string_view s = part.dictionary->value(size_t(codes[r]));
    const auto code = dictionary->find(s);
    if (!code)
      throw Error(ErrorCode::Internal,
                  "a partial result's string '" + std::string(s) + "' is not in the merge's dictionary of " + name);
    codes[r] = *code;
  }
  return out;
}

}  // namespace

Table concatenate(const std::vector<Table>& parts, const plan::Schema& schema) {
  Table out;
  for (size_t c = 0; c < schema.size(); ++c) {
    Column col = Column::make("c" + std::to_string(c), schema[c].type);
    if (schema[c].type == Type::String)
      col.dictionary = schema[c].dictionary ? schema[c].dictionary
                                            : (parts.empty() ? col.dictionary : parts[0].columns[c].dictionary);
    out.columns.push_back(std::move(col));
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    const Table& part = parts[p];
    if (part.columns.size() != schema.size())
      throw Error(ErrorCode::Internal, "partial result " + std::to_string(p) + " has " +
                                           std::to_string(part.columns.size()) + " columns, the merge expects " +
                                           std::to_string(schema.size()));
    for (size_t c = 0; c < schema.size(); ++c) {
      if (part.columns[c].type != schema[c].type)
        throw Error(ErrorCode::Internal, "partial result " + std::to_string(p) + " column " + schema[c].name + " is " +
                                             to_string(part.columns[c].type) + ", the merge expects " +
                                             to_string(schema[c].type));
      Column& to = out.columns[c];
      if (to.type == Type::String && part.columns[c].dictionary != to.dictionary)
        append_column(to, recoded(part.columns[c], to.dictionary, to.name));
      else
        append_column(to, part.columns[c]);
    }
  }
  return out;
}

namespace {

void put(std::vector<uint8_t>& out, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}

template <class T>
void put_value(std::vector<uint8_t>& out, T v) {
  put(out, &v, sizeof v);
}

// Reads from a byte range, failing with Error(Internal) past its end.
struct Reader {
  const uint8_t* at;
  const uint8_t* end;
  void get(void* p, size_t n) {
    if (size_t(end - at) < n) throw Error(ErrorCode::Internal, "a serialized partial result ends early");
    std::memcpy(p, at, n);
    at += n;
  }
  template <class T>
  T value() {
    T v;
    get(&v, sizeof v);
    return v;
  }
};

}  // namespace

std::vector<uint8_t> serialize(const Table& table) {
  std::vector<uint8_t> out;
  put_value<uint64_t>(out, table.rows());
  put_value<uint32_t>(out, uint32_t(table.columns.size()));
  for (const Column& c : table.columns) {
    put_value<uint8_t>(out, uint8_t(c.type));
    put_value<uint8_t>(out, uint8_t(!c.nulls.empty()));
    std::visit([&](const auto& v) { put(out, v.data(), v.size() * sizeof(v[0])); }, c.data);
    put(out, c.nulls.data(), c.nulls.size());
    if (c.type == Type::String) {
      // The dictionary as it lies in memory: its size, offsets and bytes.
      const std::span<const uint64_t> offsets = c.dictionary->offsets();
      put_value<uint32_t>(out, uint32_t(c.dictionary->size()));
      put(out, offsets.data(), offsets.size() * sizeof(uint64_t));
      put(out, c.dictionary->data(), c.dictionary->bytes());
    }
  }
  return out;
}

Table deserialize(const uint8_t* bytes, size_t size) {
  Reader in{bytes, bytes + size};
  const uint64_t rows = in.value<uint64_t>();
  const uint32_t columns = in.value<uint32_t>();
  Table t;
  for (uint32_t i = 0; i < columns; ++i) {
    const uint8_t type = in.value<uint8_t>();
    if (type > uint8_t(Type::Date)) throw Error(ErrorCode::Internal, "a serialized partial result has a bad type");
    Column c = Column::make("c" + std::to_string(i), Type(type));
    const bool nulls = in.value<uint8_t>() != 0;
    std::visit(
        [&](auto& v) {
          v.resize(rows);
          in.get(v.data(), rows * sizeof(v[0]));
        },
        c.data);
    if (nulls) {
      c.nulls.resize(rows);
      in.get(c.nulls.data(), rows);
    }
    if (c.type == Type::String) {
      std::vector<uint64_t> offsets(size_t{in.value<uint32_t>()} + 1);
      in.get(offsets.data(), offsets.size() * sizeof(uint64_t));
      if (offsets[0] != 0 || !std::is_sorted(offsets.begin(), offsets.end()))
        throw Error(ErrorCode::Internal, "a serialized partial result has a bad dictionary");
      auto text = offsets.back() ? std::make_unique_for_overwrite<char[]>(offsets.back()) : nullptr;
      if (text) in.get(text.get(), offsets.back());
      c.dictionary = std::make_shared<const Dictionary>(std::move(text), std::move(offsets));
    }
    t.columns.push_back(std::move(c));
  }
  return t;
}

}  // namespace gfxq::engine::partitioned
