#include "gfxq/table.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/append_column.h"
#include "gfxq/error.h"

namespace gfxq {

const char* to_string(Type type) noexcept {
  switch (type) {
    case Type::Int32: return "int";
    case Type::Float32: return "float";
    case Type::Int64: return "bigint";
    case Type::Float64: return "double";
    case Type::String: return "string";
    case Type::Date: return "date";
  }
  return "?";
}

Type storage_type(Type type) noexcept {
  return type == Type::String || type == Type::Date ? Type::Int32 : type;
}

// Days from civil and back: the proleptic Gregorian calendar in 400-year eras of 146,097 days,
// each era counted from March 1 so that the leap day ends its year.
Date date_from_civil(int32_t year, int32_t month, int32_t day) noexcept {
  const int64_t y = int64_t(year) - (month <= 2 ? 1 : 0);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t year_of_era = y - era * 400;                                             // 0 .. 399
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;  // from March 1
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return Date{int32_t(era * 146097 + day_of_era - 719468)};  // 719468: days from 0000-03-01 to 1970-01-01
}

void civil_from_date(Date date, int32_t& year, int32_t& month, int32_t& day) noexcept {
  const int64_t z = int64_t(date.days) + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t day_of_era = z - era * 146097;
  const int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t mp = (5 * day_of_year + 2) / 153;  // month from March = 0
  day = int32_t(day_of_year - (153 * mp + 2) / 5 + 1);
  month = int32_t(mp < 10 ? mp + 3 : mp - 9);
  year = int32_t(year_of_era + era * 400 + (month <= 2 ? 1 : 0));
}

std::optional<Date> parse_date(std::string_view text) noexcept {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  auto number = [&](size_t at, size_t len, int32_t& out) {
    for (size_t i = at; i < at + len; ++i)
      if (text[i] < '0' || text[i] > '9') return false;
    std::from_chars(text.data() + at, text.data() + at + len, out);
    return true;
  };
  int32_t y = 0, m = 0, d = 0;
  if (!number(0, 4, y) || !number(5, 2, m) || !number(8, 2, d) || y < 1 || m < 1 || m > 12 || d < 1)
    return std::nullopt;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int32_t month_days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d > month_days[m - 1]) return std::nullopt;
  return date_from_civil(y, m, d);
}

std::string format_date(Date date) {
  int32_t y = 0, m = 0, d = 0;
  civil_from_date(date, y, m, d);
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, y >= 0 && y <= 9999 ? "%04d-%02d-%02d" : "%+d-%02d-%02d", y, m, d);
  return std::string(buf, size_t(n));
}

namespace {

// Storage for `bytes` bytes, not zeroed (null for none).
std::unique_ptr<char[]> byte_block(uint64_t bytes) {
  return bytes == 0 ? nullptr : std::make_unique_for_overwrite<char[]>(static_cast<size_t>(bytes));
}

// A dictionary of strings given sorted and distinct, copied into one block.
template <class Strings>
std::shared_ptr<const Dictionary> dictionary_of_sorted(const Strings& strings) {
  if (strings.size() > size_t(INT32_MAX))
    throw Error(ErrorCode::InvalidInput, "a string column holds more than 2^31 - 1 distinct values");
  std::vector<uint64_t> offsets;
  offsets.reserve(strings.size() + 1);
  offsets.push_back(0);
  for (const auto& s : strings) offsets.push_back(offsets.back() + s.size());
  std::unique_ptr<char[]> bytes = byte_block(offsets.back());
  for (size_t k = 0; k < strings.size(); ++k)
    if (!strings[k].empty()) std::memcpy(bytes.get() + offsets[k], strings[k].data(), strings[k].size());
  return std::make_shared<const Dictionary>(std::move(bytes), std::move(offsets));
}

}  // namespace

Dictionary::Dictionary(const Dictionary& other) : bytes_(byte_block(other.bytes())), offsets_(other.offsets_) {
  if (bytes_) std::memcpy(bytes_.get(), other.bytes_.get(), static_cast<size_t>(other.bytes()));
}

Dictionary& Dictionary::operator=(const Dictionary& other) {
  if (this != &other) *this = Dictionary(other);
  return *this;
}

std::span<const uint64_t> Dictionary::offsets() const noexcept {
  static constexpr uint64_t kNone[1] = {0};
  return offsets_.empty() ? std::span<const uint64_t>(kNone) : std::span<const uint64_t>(offsets_);
}

std::optional<int32_t> Dictionary::find(std::string_view s) const noexcept {
  const int32_t code = lower_bound(s);
  if (size_t(code) < size() && value(size_t(code)) == s) return code;
  return std::nullopt;
}

int32_t Dictionary::lower_bound(std::string_view s) const noexcept {
  size_t low = 0, count = size();
  while (count > 0) {
    const size_t half = count / 2;
    if (value(low + half) < s) {
      low += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return int32_t(low);
}

std::vector<std::string> Dictionary::strings() const {
  return std::vector<std::string>(begin(), end());
}

size_t Dictionary::sorted_at(size_t first, size_t last) const noexcept {
  for (size_t k = std::max<size_t>(first, 1); k < last; ++k)
    if (!(value(k - 1) < value(k))) return k;
  return last;
}

bool operator==(const Dictionary& a, const Dictionary& b) noexcept {
  if (a.size() != b.size() || a.bytes() != b.bytes()) return false;
  const std::span<const uint64_t> x = a.offsets(), y = b.offsets();
  return std::equal(x.begin(), x.end(), y.begin()) &&
         (a.bytes() == 0 || std::memcmp(a.data(), b.data(), static_cast<size_t>(a.bytes())) == 0);
}

std::shared_ptr<const Dictionary> Dictionary::of(std::vector<std::string> strings) {
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
  return dictionary_of_sorted(strings);
}

std::shared_ptr<const Dictionary> Dictionary::union_of(const std::vector<const Dictionary*>& parts) {
  // A k-way merge: a heap of each part's next string (smallest on top), equal strings taken once.
  struct Next {
    std::string_view s;
    size_t part, code;
  };
  const auto later = [](const Next& a, const Next& b) { return a.s > b.s; };
  std::vector<Next> heap;
  for (size_t p = 0; p < parts.size(); ++p)
    if (!parts[p]->empty()) heap.push_back({parts[p]->value(0), p, 0});
  std::make_heap(heap.begin(), heap.end(), later);
  std::vector<std::string_view> all;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Next& next = heap.back();
    if (all.empty() || all.back() != next.s) all.push_back(next.s);
    if (++next.code < parts[next.part]->size()) {
      next.s = parts[next.part]->value(next.code);
      std::push_heap(heap.begin(), heap.end(), later);
    } else {
      heap.pop_back();
    }
  }
  return dictionary_of_sorted(all);
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
    case Type::String:
      c.data = std::vector<int32_t>{};
      c.dictionary = std::make_shared<const Dictionary>();
      break;
    case Type::Date: c.data = std::vector<int32_t>{}; break;
  }
  return c;
}

Column Column::strings(std::string name, const std::vector<std::string>& values) {
  auto dictionary = Dictionary::of(values);
  std::vector<int32_t> codes;
  codes.reserve(values.size());
  for (const auto& v : values) codes.push_back(*dictionary->find(v));
  return coded(std::move(name), std::move(codes), std::move(dictionary));
}

Column Column::coded(std::string name, std::vector<int32_t> codes, std::shared_ptr<const Dictionary> dictionary) {
  if (!dictionary) throw Error(ErrorCode::Internal, "string column '" + name + "' without a dictionary");
  for (int32_t c : codes)
    if (c < 0 || size_t(c) >= dictionary->size())
      throw Error(ErrorCode::Internal, "string column '" + name + "': code " + std::to_string(c) +
                                           " outside its dictionary of " + std::to_string(dictionary->size()));
  Column c = make(std::move(name), Type::String);
  c.data = std::move(codes);
  c.dictionary = std::move(dictionary);
  return c;
}

Column Column::dates(std::string name, std::vector<int32_t> days) {
  Column c = make(std::move(name), Type::Date);
  c.data = std::move(days);
  return c;
}

std::string_view Column::string_at(uint64_t row) const {
  if (type != Type::String) throw Error(ErrorCode::Internal, "column '" + name + "' is not a string column");
  return dictionary->value(size_t(std::get<std::vector<int32_t>>(data)[row]));
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
  if (type == Type::String) return std::string(string_at(row));
  if (type == Type::Date) return Date{std::get<std::vector<int32_t>>(data)[row]};
  return std::visit([row](const auto& v) -> Value { return v[row]; }, data);
}

void Column::push(const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) {
    if (nulls.empty()) nulls.assign(size(), 0);
    std::visit([](auto& vec) { vec.emplace_back(); }, data);
    nulls.push_back(1);
    return;
  }
  if (type == Type::String || type == Type::Date) {
    auto& codes = std::get<std::vector<int32_t>>(data);
    if (type == Type::Date) {
      if (!std::holds_alternative<Date>(v))
        throw Error(ErrorCode::Internal, "column '" + name + "': value of the wrong type pushed");
      codes.push_back(std::get<Date>(v).days);
    } else {
      if (!std::holds_alternative<std::string>(v))
        throw Error(ErrorCode::Internal, "column '" + name + "': value of the wrong type pushed");
      const std::string& s = std::get<std::string>(v);
      const int32_t code = dictionary->lower_bound(s);
      if (!dictionary->find(s)) {
        // A new string: a copy of the dictionary with it, and the codes at or after it moved up.
        const std::span<const uint64_t> old = dictionary->offsets();
        const uint64_t at = old[size_t(code)];
        std::vector<uint64_t> offsets(old.begin(), old.end());
        offsets.insert(offsets.begin() + code, at);
        for (size_t k = size_t(code) + 1; k < offsets.size(); ++k) offsets[k] += s.size();
        std::unique_ptr<char[]> bytes = byte_block(offsets.back());
        if (at > 0) std::memcpy(bytes.get(), dictionary->data(), size_t(at));
        if (!s.empty()) std::memcpy(bytes.get() + at, s.data(), s.size());
        if (dictionary->bytes() > at)
          std::memcpy(bytes.get() + at + s.size(), dictionary->data() + at, size_t(dictionary->bytes() - at));
        auto grown = std::make_shared<const Dictionary>(std::move(bytes), std::move(offsets));
        for (auto& c : codes)
          if (c >= code) ++c;
        dictionary = std::move(grown);
      }
      codes.push_back(code);
    }
  } else {
    std::visit(
        [&](auto& vec) {
          using T = typename std::decay_t<decltype(vec)>::value_type;
          if (!std::holds_alternative<T>(v))
            throw Error(ErrorCode::Internal, "column '" + name + "': value of the wrong type pushed");
          vec.push_back(std::get<T>(v));
        },
        data);
  }
  if (!nulls.empty()) nulls.push_back(0);
}

template <class T>
const std::vector<T>& Column::as() const {
  if (storage_type(type) != type_of<T>() || !std::holds_alternative<std::vector<T>>(data))
    throw Error(ErrorCode::Internal,
                "column '" + name + "' is " + to_string(type) + ", accessed as " + to_string(type_of<T>()));
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

void append_column(Column& out, const Column& part) {
  if (part.data.index() != out.data.index())
    throw Error(ErrorCode::Internal, "column '" + part.name + "' (" + to_string(part.type) +
                                         ") cannot be appended to column '" + out.name + "' (" + to_string(out.type) +
                                         ")");
  const uint64_t before = out.size();
  std::visit(
      [&](auto& values) {
        const auto& in = std::get<std::decay_t<decltype(values)>>(part.data);
        values.insert(values.end(), in.begin(), in.end());
      },
      out.data);
  if (part.nulls.empty() && out.nulls.empty()) return;
  out.nulls.resize(before, 0);
  if (part.nulls.empty())
    out.nulls.resize(before + part.size(), 0);
  else
    out.nulls.insert(out.nulls.end(), part.nulls.begin(), part.nulls.end());
}

uint64_t Table::rows() const noexcept {
  return columns.empty() ? 0 : columns.front().size();
}

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
    if (c.type == Type::String) {
      if (!c.dictionary) throw Error(ErrorCode::InvalidInput, "string column '" + c.name + "' has no dictionary");
      const auto& codes = std::get<std::vector<int32_t>>(c.data);
      for (uint64_t r = 0; r < codes.size(); ++r)
        if (!c.is_null(r) && (codes[r] < 0 || size_t(codes[r]) >= c.dictionary->size()))
          throw Error(ErrorCode::InvalidInput, "string column '" + c.name + "': row " + std::to_string(r) +
                                                   " holds code " + std::to_string(codes[r]) + " outside its " +
                                                   std::to_string(c.dictionary->size()) + "-string dictionary");
    }
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
  // One counter for every catalog, so that a version never names two different tables.
  static std::atomic<uint64_t> next_version{1};
  versions_.insert_or_assign(name, next_version.fetch_add(1));
  tables_.insert_or_assign(std::move(name), std::move(table));
}

void Catalog::remove(std::string_view name) {
  const auto it = tables_.find(name);
  if (it == tables_.end())
    throw Error(ErrorCode::InvalidQuery, "no table '" + excerpt(std::string(name)) + "' to remove");
  tables_.erase(it);
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

uint64_t Catalog::version(std::string_view name) const {
  get(name);  // the error for an unknown table
  return versions_.find(name)->second;
}

bool Catalog::contains(std::string_view name) const {
  return tables_.find(name) != tables_.end();
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& [n, t] : tables_) out.push_back(n);
  return out;
}

}  // namespace gfxq
