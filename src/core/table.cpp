#include "gfxq/table.h"

#include <algorithm>
#include <set>

#include "gfxq/error.h"

namespace gfxq {

const char* to_string(Type type) noexcept {
  switch (type) {
    case Type::Int32: return "int";
    case Type::Float32: return "float";
    case Type::Int64: return "bigint";
    case Type::Float64: return "double";
  }
  return "?";
}

namespace {
template <class T>
constexpr Type type_of() {
  if constexpr (std::is_same_v<T, int32_t>) return Type::Int32;
  if constexpr (std::is_same_v<T, float>) return Type::Float32;
  if constexpr (std::is_same_v<T, int64_t>) return Type::Int64;
  return Type::Float64;
}
}  // namespace

Column Column::make(std::string name, Type type) {
  Column c;
  c.name = std::move(name);
  c.type = type;
  switch (type) {
    case Type::Int32: c.data = std::vector<int32_t>{}; break;
    case Type::Float32: c.data = std::vector<float>{}; break;
    case Type::Int64: c.data = std::vector<int64_t>{}; break;
    case Type::Float64: c.data = std::vector<double>{}; break;
  }
  return c;
}

Column Column::ints(std::string name, std::vector<int32_t> values) {
  Column c = make(std::move(name), Type::Int32);
  c.data = std::move(values);
  return c;
}

Column Column::floats(std::string name, std::vector<float> values) {
  Column c = make(std::move(name), Type::Float32);
  c.data = std::move(values);
  return c;
}

uint64_t Column::size() const noexcept {
  return std::visit([](const auto& v) { return static_cast<uint64_t>(v.size()); }, data);
}

Value Column::value(uint64_t row) const {
  if (is_null(row)) return std::monostate{};
  return std::visit([row](const auto& v) -> Value { return v[row]; }, data);
}

void Column::push(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) {
    if (nulls.empty()) nulls.assign(size(), 0);
    std::visit([](auto& vec) { vec.emplace_back(); }, data);
    nulls.push_back(1);
    return;
  }
  std::visit(
      [&](auto& vec) {
        using T = typename std::decay_t<decltype(vec)>::value_type;
        if (!std::holds_alternative<T>(v))
          throw Error(ErrorCode::Internal, "column '" + name + "': value of the wrong type pushed");
        vec.push_back(std::get<T>(v));
      },
      data);
  if (!nulls.empty()) nulls.push_back(0);
}

template <class T>
const std::vector<T>& Column::as() const {
  if (type != type_of<T>() || !std::holds_alternative<std::vector<T>>(data))
    throw Error(ErrorCode::Internal, "column '" + name + "' is " + to_string(type) + ", accessed as " +
                                         to_string(type_of<T>()));
  return std::get<std::vector<T>>(data);
}

template <class T>
std::vector<T>& Column::as() {
  return const_cast<std::vector<T>&>(static_cast<const Column*>(this)->as<T>());
}

template const std::vector<int32_t>& Column::as<int32_t>() const;
template const std::vector<float>& Column::as<float>() const;
template const std::vector<int64_t>& Column::as<int64_t>() const;
template const std::vector<double>& Column::as<double>() const;
template std::vector<int32_t>& Column::as<int32_t>();
template std::vector<float>& Column::as<float>();
template std::vector<int64_t>& Column::as<int64_t>();
template std::vector<double>& Column::as<double>();

uint64_t Table::rows() const noexcept { return columns.empty() ? 0 : columns.front().size(); }

std::optional<size_t> Table::find(std::string_view name) const noexcept {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return i;
  return std::nullopt;
}

const Column& Table::column(std::string_view name) const {
  if (auto i = find(name)) return columns[*i];
  std::string have;
  for (const auto& c : columns) have += (have.empty() ? "" : ", ") + c.name;
  throw Error(ErrorCode::InvalidQuery, "unknown column '" + std::string(name) + "' (columns: " + have + ")");
}

void Table::validate() const {
  std::set<std::string_view> seen;
  for (const auto& c : columns) {
    if (c.name.empty()) throw Error(ErrorCode::InvalidInput, "a column has an empty name");
    if (!seen.insert(c.name).second) throw Error(ErrorCode::InvalidInput, "duplicate column name '" + c.name + "'");
    if (c.size() != rows())
      throw Error(ErrorCode::InvalidInput, "column '" + c.name + "' has " + std::to_string(c.size()) +
                                               " rows, column '" + columns.front().name + "' has " +
                                               std::to_string(rows()));
    if (!c.nulls.empty() && c.nulls.size() != c.size())
      throw Error(ErrorCode::InvalidInput, "column '" + c.name + "': null flags do not match its length");
  }
}

std::string Table::schema() const {
  std::string s;
  for (const auto& c : columns) s += (s.empty() ? "" : ",") + c.name + ":" + to_string(c.type);
  return s;
}

void Catalog::add(std::string name, Table table) {
  if (name.empty()) throw Error(ErrorCode::InvalidInput, "a table needs a name");
  table.validate();
  tables_.insert_or_assign(std::move(name), std::move(table));
}

const Table& Catalog::get(std::string_view name) const {
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    std::string have;
    for (const auto& [n, t] : tables_) have += (have.empty() ? "" : ", ") + n;
    throw Error(ErrorCode::InvalidQuery,
                "unknown table '" + std::string(name) + "' (tables: " + (have.empty() ? "none" : have) + ")");
  }
  return it->second;
}

bool Catalog::contains(std::string_view name) const { return tables_.find(name) != tables_.end(); }

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& [n, t] : tables_) out.push_back(n);
  return out;
}

}  // namespace gfxq
