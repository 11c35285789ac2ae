#include "engine/partitioned/tables.h"

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

uint64_t table_bytes(const Table& table) noexcept {
  uint64_t bytes = 0;
  for (const Column& c : table.columns) {
    const uint64_t width = std::visit([](const auto& v) { return uint64_t(sizeof(v[0])); }, c.data);
    bytes += c.size() * width + c.nulls.size();
  }
  return bytes;
}

namespace {

// Appends `part` (a column of the same storage type) to `out`, re-encoding STRING codes into out's
// dictionary when the part has another.
void append(Column& out, const Column& part, uint64_t rows_before) {
  const bool recode = out.type == Type::String && part.dictionary != out.dictionary;
  std::visit(
      [&](auto& values) {
        using V = std::decay_t<decltype(values)>;
        const V& in = std::get<V>(part.data);
        if constexpr (std::is_same_v<V, std::vector<int32_t>>) {
          if (recode) {
            for (size_t r = 0; r < in.size(); ++r) {
              if (part.is_null(r)) {
                values.push_back(0);
                continue;
              }
              const auto code = out.dictionary->find(part.dictionary->values[size_t(in[r])]);
              if (!code)
                throw Error(ErrorCode::Internal, "a partial result's string '" +
                                                     part.dictionary->values[size_t(in[r])] +
                                                     "' is not in the merge's dictionary of " + out.name);
              values.push_back(*code);
            }
            return;
          }
        }
        values.insert(values.end(), in.begin(), in.end());
      },
      out.data);
  if (!part.nulls.empty() || !out.nulls.empty()) {
    out.nulls.resize(rows_before, 0);
    if (part.nulls.empty())
      out.nulls.resize(rows_before + part.size(), 0);
    else
      out.nulls.insert(out.nulls.end(), part.nulls.begin(), part.nulls.end());
  }
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
      append(out.columns[c], part.columns[c], out.columns[c].size());
    }
  }
  return out;
}

}  // namespace gfxq::engine::partitioned
