// The Arrow C Data Interface (gfxq/arrow.h): export then import of every column type, zero-copy
// export, children released on their own, hand-built arrays (slices, validity bitmaps at bit
// offsets, utf8 and large utf8, dictionaries unsorted and with every index width), streams of
// several batches, every import error, and a round trip through DuckDB's Arrow C API.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "duckdb/duckdb_client.h"
#include "gfxq/arrow.h"
#include "gfxq/error.h"
#include "gfxq/table.h"
#include "test_support.h"

namespace {

using gfxq::ErrorCode;

// A cell as text: strings as they are, NULL as "NULL", numbers as format_value writes them.
std::string cell(const gfxq::Column& c, uint64_t row) {
  if (c.is_null(row)) return "NULL";
  if (c.type == gfxq::Type::String) return "'" + std::string(c.string_at(row)) + "'";
  return gfxq::format_value(c.value(row));
}

// Same names, types, NULLs and values; float bits compared exactly (NaN payloads included).
void check_identical(const gfxq::Table& a, const gfxq::Table& b) {
  REQUIRE(a.columns.size() == b.columns.size());
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const gfxq::Column& x = a.columns[i];
    const gfxq::Column& y = b.columns[i];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    REQUIRE(x.type == y.type);
    REQUIRE(x.size() == y.size());
    CHECK(x.nulls == y.nulls);
    if (x.type == gfxq::Type::String) {
      CHECK(*x.dictionary == *y.dictionary);
      for (uint64_t r = 0; r < x.size(); ++r)
        if (!x.is_null(r)) REQUIRE(x.as<int32_t>()[r] == y.as<int32_t>()[r]);
      continue;
    }
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          CHECK(std::memcmp(v.data(), std::get<V>(y.data).data(), v.size() * sizeof(v[0])) == 0);
        },
        x.data);
  }
}

gfxq::Table sample(std::mt19937_64& rng, size_t rows, bool specials) {
  std::vector<int32_t> k(rows), i(rows), d(rows);
  std::vector<float> f(rows);
  std::vector<std::string> s(rows);
  static const std::vector<std::string> words = {"a, b", "say \"hi\"", "日本", "", "zz", "line\nend", "A"};
  for (size_t r = 0; r < rows; ++r) {
    k[r] = static_cast<int32_t>(r);
    i[r] = static_cast<int32_t>(rng());
    f[r] = specials ? std::bit_cast<float>(static_cast<uint32_t>(rng()))
                    : static_cast<float>(static_cast<int32_t>(rng() % 2000001) - 1000000) / 64.0f;
    d[r] = static_cast<int32_t>(rng() % 40000) - 10000;
    s[r] = words[rng() % words.size()] + (rng() % 2 ? std::to_string(rng() % 50) : "");
  }
  gfxq::Column str = gfxq::Column::strings("s", s);
  gfxq::Column big = gfxq::Column::make("big", gfxq::Type::Int64);
  gfxq::Column dbl = gfxq::Column::make("dbl", gfxq::Type::Float64);
  for (size_t r = 0; r < rows; ++r) {
    if (r % 7 == 3)
      big.push(gfxq::Value{});
    else
      big.push(static_cast<int64_t>(rng()) >> (specials ? 0 : 12));
    dbl.push(specials ? std::bit_cast<double>(rng()) : static_cast<double>(rng() % 1000000) / 8.0);
  }
  if (rows > 2) {
    str.nulls.assign(rows, 0);
    str.nulls[1] = 1;
  }
  return gfxq::Table{{gfxq::Column::ints("k", k), gfxq::Column::ints("i", i), gfxq::Column::floats("f", f),
                      gfxq::Column::dates("d", d), str, big, dbl}};
}

void no_op_release(ArrowArray* a) {
  a->release = nullptr;
}
void no_op_release_schema(ArrowSchema* s) {
  s->release = nullptr;
}

// Hand-built arrays over caller-owned buffers (released by doing nothing).
struct Built {
  ArrowSchema schema{};
  ArrowArray array{};
  std::vector<const void*> buffers;
};

void build(Built& b, const char* format, int64_t length, int64_t offset, int64_t null_count,
           std::vector<const void*> buffers, const char* name = "x") {
  b.buffers = std::move(buffers);
  b.schema.format = format;
  b.schema.name = name;
  b.schema.release = no_op_release_schema;
  b.array.length = length;
  b.array.offset = offset;
  b.array.null_count = null_count;
  b.array.n_buffers = static_cast<int64_t>(b.buffers.size());
  b.array.buffers = b.buffers.data();
  b.array.release = no_op_release;
}

}  // namespace

TEST_CASE("arrow: export then import gives the same table; fixed-width columns are exported without a copy") {
  const uint64_t seed = 8080;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const size_t rows : {0, 1, 5, 3000}) {
    CAPTURE(rows);
    const gfxq::Table t = sample(rng, rows, true);
    gfxq::Table moved = t;
    const void* ints = moved.columns[1].as<int32_t>().data();
    const void* codes = moved.columns[4].as<int32_t>().data();
    ArrowSchema schema{};
    ArrowArray array{};
    gfxq::export_arrow(std::move(moved), &schema, &array);
    CHECK(std::string(schema.format) == "+s");
    REQUIRE(schema.n_children == 7);
    CHECK(std::string(schema.children[1]->format) == "i");
    CHECK(std::string(schema.children[2]->format) == "f");
    CHECK(std::string(schema.children[3]->format) == "tdD");
    CHECK(std::string(schema.children[4]->format) == "i");
    REQUIRE(schema.children[4]->dictionary != nullptr);
    CHECK(std::string(schema.children[4]->dictionary->format) == "u");
    CHECK((schema.children[4]->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
    CHECK(std::string(schema.children[5]->format) == "l");
    CHECK(std::string(schema.children[6]->format) == "g");
    CHECK(std::string(schema.children[4]->name) == "s");
    CHECK(array.length == static_cast<int64_t>(rows));
    if (rows > 0) {
      CHECK(array.children[1]->buffers[1] == ints);
      CHECK(array.children[4]->buffers[1] == codes);
    }
    check_identical(gfxq::import_arrow(schema, array), t);
    gfxq::ArrowImportOptions one;
    one.threads = 1;
    check_identical(gfxq::import_arrow(schema, array, one), t);
    array.release(&array);
    schema.release(&schema);
    CHECK(!array.release);
    CHECK(!schema.release);
  }
}

TEST_CASE("arrow: a child moved out of an exported array stays valid after its parent is released") {
  std::mt19937_64 rng(3);
  const gfxq::Table t = sample(rng, 100, false);
  ArrowSchema schema{};
  ArrowArray array{};
  gfxq::export_arrow(t, &schema, &array);
  ArrowArray child = *array.children[4];  // the string column, moved out
  array.children[4]->release = nullptr;
  ArrowSchema child_schema = *schema.children[4];
  schema.children[4]->release = nullptr;
  array.release(&array);
  schema.release(&schema);
  const gfxq::Table back = gfxq::import_arrow(child_schema, child);
  REQUIRE(back.columns.size() == 1);
  CHECK(back.columns[0].name == "s");
  for (uint64_t r = 0; r < 100; ++r) CHECK(cell(back.columns[0], r) == cell(t.columns[4], r));
  child.release(&child);
  child_schema.release(&child_schema);
}

TEST_CASE("arrow: hand-built arrays: slices, validity at bit offsets, utf8 and large utf8, dates") {
  // int32 values 0..9, the array a slice from 3 of length 5, validity bits cleared at 4 and 6.
  const int32_t values[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const uint8_t validity[2] = {static_cast<uint8_t>(0xff & ~(1u << 4) & ~(1u << 6)), 0xff};
  Built ints;
  build(ints, "i", 5, 3, 2, {validity, values}, "n");
  gfxq::Table t = gfxq::import_arrow(ints.schema, ints.array);
  CHECK(t.schema() == "n:int");
  CHECK(t.columns[0].as<int32_t>() == std::vector<int32_t>{3, 4, 5, 6, 7});
  CHECK(t.columns[0].nulls == std::vector<uint8_t>{0, 1, 0, 1, 0});
  // null_count 0: the bitmap is not read; a missing bitmap: no NULLs.
  build(ints, "i", 5, 3, 0, {validity, values}, "n");
  CHECK(gfxq::import_arrow(ints.schema, ints.array).columns[0].nulls.empty());
  build(ints, "i", 5, 3, 0, {nullptr, values}, "n");
  CHECK(gfxq::import_arrow(ints.schema, ints.array).columns[0].nulls.empty());

  // utf8 and large utf8, sliced: "", "b", "cc", "b", "ddd" from offset 1.
  const char text[] = "xbccbddd";
  const int32_t off32[7] = {0, 1, 1, 2, 4, 5, 8};
  const int64_t off64[7] = {0, 1, 1, 2, 4, 5, 8};
  for (const bool large : {false, true}) {
    CAPTURE(large);
    Built s;
    build(s, large ? "U" : "u", 5, 1, 0, {nullptr, large ? static_cast<const void*>(off64) : off32, text}, "s");
    const gfxq::Table st = gfxq::import_arrow(s.schema, s.array);
    CHECK(st.schema() == "s:string");
    CHECK(st.columns[0].dictionary->strings() == std::vector<std::string>{"", "b", "cc", "ddd"});
    CHECK(st.columns[0].as<int32_t>() == std::vector<int32_t>{0, 1, 2, 1, 3});
  }

  // date32, float32, int64, float64.
  const int32_t days[3] = {-1, 0, 19000};
  Built d;
  build(d, "tdD", 3, 0, 0, {nullptr, days}, "d");
  const gfxq::Table dt = gfxq::import_arrow(d.schema, d.array);
  CHECK(dt.schema() == "d:date");
  CHECK(dt.columns[0].as<int32_t>() == std::vector<int32_t>{-1, 0, 19000});
  const double doubles[2] = {0.5, -2.25};
  Built g;
  build(g, "g", 2, 0, 0, {nullptr, doubles});
  CHECK(gfxq::import_arrow(g.schema, g.array).columns[0].as<double>() == std::vector<double>{0.5, -2.25});
}

TEST_CASE("arrow: dictionary-encoded strings: unsorted dictionaries sorted, every index width, NULL rows") {
  // Dictionary "zeta", "alpha", "mid" (unsorted); rows: mid, zeta, NULL, alpha, zeta.
  const char text[] = "zetaalphamid";
  const int32_t offsets[4] = {0, 4, 9, 12};
  const uint8_t validity[1] = {static_cast<uint8_t>(0x1f & ~(1u << 2))};
  const int8_t i8[5] = {2, 0, 99, 1, 0};
  const int16_t i16[5] = {2, 0, -5, 1, 0};
  const int32_t i32[5] = {2, 0, 7, 1, 0};
  const int64_t i64[5] = {2, 0, 1000, 1, 0};
  const uint8_t u8[5] = {2, 0, 255, 1, 0};
  const uint64_t u64[5] = {2, 0, ~uint64_t{0}, 1, 0};
  const std::pair<const char*, const void*> widths[] = {{"c", i8},  {"s", i16}, {"i", i32},
                                                        {"l", i64}, {"C", u8},  {"L", u64}};
  for (const auto& [format, indices] : widths) {
    CAPTURE(format);
    Built dict;
    build(dict, "u", 3, 0, 0, {nullptr, offsets, text}, "");
    Built col;
    build(col, format, 5, 0, 1, {validity, indices}, "w");
    col.schema.dictionary = &dict.schema;
    col.array.dictionary = &dict.array;
    const gfxq::Table t = gfxq::import_arrow(col.schema, col.array);
    CHECK(t.schema() == "w:string");
    const gfxq::Column& c = t.columns[0];
    CHECK(c.dictionary->strings() == std::vector<std::string>{"alpha", "mid", "zeta"});
    CHECK(c.nulls == std::vector<uint8_t>{0, 0, 1, 0, 0});
    CHECK(cell(c, 0) == "'mid'");
    CHECK(cell(c, 1) == "'zeta'");
    CHECK(cell(c, 3) == "'alpha'");
    CHECK(cell(c, 4) == "'zeta'");
    t.validate();
  }
  // Without the NULL: index 99 is outside the dictionary.
  Built dict;
  build(dict, "u", 3, 0, 0, {nullptr, offsets, text}, "");
  Built col;
  build(col, "c", 5, 0, 0, {nullptr, i8}, "w");
  col.schema.dictionary = &dict.schema;
  col.array.dictionary = &dict.array;
  CHECK_ERROR(gfxq::import_arrow(col.schema, col.array), ErrorCode::InvalidInput, "column 'w'",
              "row 2 holds index 99 outside its dictionary of 3 strings");
  build(col, "L", 5, 0, 0, {nullptr, u64}, "w");
  col.schema.dictionary = &dict.schema;
  col.array.dictionary = &dict.array;
  CHECK_ERROR(gfxq::import_arrow(col.schema, col.array), ErrorCode::InvalidInput, "row 2 holds index -1");
}

TEST_CASE("arrow: import errors name the column and what is wrong") {
  const int32_t values[4] = {1, 2, 3, 4};
  Built b;
  build(b, "b", 4, 0, 0, {nullptr, values}, "flag");
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::Unsupported, "Arrow column 'flag'", "format 'b'",
              "int32 'i'");
  build(b, "tsu:", 4, 0, 0, {nullptr, values}, "ts");
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::Unsupported, "'ts'", "format 'tsu:'");
  build(b, "i", 4, 0, 0, {nullptr, nullptr}, "n");
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::InvalidInput, "column 'n'", "buffer 1 is missing");
  build(b, "i", 4, 0, 0, {nullptr}, "n");
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::InvalidInput, "column 'n'", "at least 2 buffers");
  build(b, "i", -1, 0, 0, {nullptr, values}, "n");
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::InvalidInput, "negative length");
  build(b, "i", 4, 0, 0, {nullptr, values}, "n");
  b.array.release = nullptr;
  CHECK_ERROR(gfxq::import_arrow(b.schema, b.array), ErrorCode::InvalidInput, "released");
  // Dictionary of ints, and a struct-level NULL.
  Built dict, col;
  build(dict, "i", 4, 0, 0, {nullptr, values}, "");
  build(col, "i", 4, 0, 0, {nullptr, values}, "e");
  col.schema.dictionary = &dict.schema;
  col.array.dictionary = &dict.array;
  CHECK_ERROR(gfxq::import_arrow(col.schema, col.array), ErrorCode::Unsupported, "column 'e'",
              "dictionary-encoded utf8 only");
  Built child;
  build(child, "i", 4, 0, 0, {nullptr, values}, "a");
  ArrowSchema* schema_children[1] = {&child.schema};
  ArrowArray* array_children[1] = {&child.array};
  const uint8_t rows_valid[1] = {0x0b};  // row 2 of the batch is NULL
  Built batch;
  build(batch, "+s", 4, 0, 1, {rows_valid}, "");
  batch.schema.n_children = batch.array.n_children = 1;
  batch.schema.children = schema_children;
  batch.array.children = array_children;
  CHECK_ERROR(gfxq::import_arrow(batch.schema, batch.array), ErrorCode::InvalidInput, "row 2", "struct-level NULL");
  batch.array.null_count = 0;
  CHECK(gfxq::import_arrow(batch.schema, batch.array).columns[0].as<int32_t>() == std::vector<int32_t>{1, 2, 3, 4});
  // The struct's offset slices its children.
  batch.array.offset = 1;
  batch.array.length = 2;
  CHECK(gfxq::import_arrow(batch.schema, batch.array).columns[0].as<int32_t>() == std::vector<int32_t>{2, 3});
  batch.array.length = 4;
  CHECK_ERROR(gfxq::import_arrow(batch.schema, batch.array), ErrorCode::InvalidInput, "column 'a'", "shorter");
}

TEST_CASE("arrow: streams: one batch out, several batches in, an empty stream keeps the columns") {
  std::mt19937_64 rng(11);
  const gfxq::Table t = sample(rng, 500, true);
  ArrowArrayStream stream{};
  gfxq::export_arrow_stream(t, &stream);
  check_identical(gfxq::import_arrow_stream(stream), t);
  // The stream is at its end now: a second read gives the columns without rows.
  const gfxq::Table rest = gfxq::import_arrow_stream(stream);
  CHECK(rest.schema() == t.schema());
  CHECK(rest.rows() == 0);
  stream.release(&stream);
  CHECK(!stream.release);

  // Several batches (each a stream's one batch), strings with different dictionaries.
  struct Batches {
    std::vector<gfxq::Table> tables;
    size_t next = 0;
  };
  const gfxq::Table a = sample(rng, 300, true), b = sample(rng, 1, true), c = sample(rng, 700, true);
  Batches batches{{a, b, c}};
  ArrowArrayStream many{};
  many.private_data = &batches;
  many.get_schema = [](ArrowArrayStream* s, ArrowSchema* out) {
    ArrowArray unused{};
    gfxq::export_arrow(static_cast<Batches*>(s->private_data)->tables[0], out, &unused);
    unused.release(&unused);
    return 0;
  };
  many.get_next = [](ArrowArrayStream* s, ArrowArray* out) {
    auto* data = static_cast<Batches*>(s->private_data);
    if (data->next == data->tables.size()) {
      *out = ArrowArray{};
      return 0;
    }
    ArrowSchema unused{};
    gfxq::export_arrow(data->tables[data->next++], &unused, out);
    unused.release(&unused);
    return 0;
  };
  many.get_last_error = [](ArrowArrayStream*) -> const char* { return nullptr; };
  many.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  const gfxq::Table all = gfxq::import_arrow_stream(many);
  REQUIRE(all.rows() == 1001);
  uint64_t row = 0;
  for (const gfxq::Table* part : {&a, &b, &c})
    for (uint64_t r = 0; r < part->rows(); ++r, ++row)
      for (size_t i = 0; i < all.columns.size(); ++i) REQUIRE(cell(all.columns[i], row) == cell(part->columns[i], r));
  all.validate();

  // A stream that fails says so.
  many.get_next = [](ArrowArrayStream*, ArrowArray*) { return 5; };
  many.get_last_error = [](ArrowArrayStream*) -> const char* { return "the source went away"; };
  CHECK_ERROR(gfxq::import_arrow_stream(many), ErrorCode::InvalidInput, "get_next failed (error 5",
              "the source went away");
}

TEST_CASE("arrow: a table goes through DuckDB's Arrow C API and back unchanged") {
  std::unique_ptr<gfxq::duckdb::Client> db;
  try {
    db = std::make_unique<gfxq::duckdb::Client>();
  } catch (const gfxq::Error& e) {
    FAIL("DuckDB is required for this test: " << std::string(e.what()));
  }
  std::mt19937_64 rng(2024);
  const gfxq::Table t = sample(rng, 5000, false);
  ArrowArrayStream stream{};
  gfxq::export_arrow_stream(t, &stream);
  db->scan_arrow("from_gfxq", &stream);
  db->query("CREATE TABLE d AS SELECT * FROM from_gfxq");
  stream.release(&stream);
  // DuckDB read what gfxq exported: its own aggregates agree with the table's.
  const auto r = db->query("SELECT COUNT(*), SUM(i), COUNT(s), MIN(s), MAX(s), MIN(d)::VARCHAR, COUNT(big) FROM d");
  int64_t sum = 0, strings = 0, bigs = 0;
  std::string lo, hi;
  for (uint64_t row = 0; row < t.rows(); ++row) {
    sum += t.columns[1].as<int32_t>()[row];
    bigs += !t.columns[5].is_null(row);
    if (t.columns[4].is_null(row)) continue;
    const std::string_view s = t.columns[4].string_at(row);
    if (strings++ == 0 || s < lo) lo = s;
    if (strings == 1 || s > hi) hi = s;
  }
  int32_t min_day = INT32_MAX;
  for (int32_t v : t.columns[3].as<int32_t>()) min_day = std::min(min_day, v);
  REQUIRE(r.rows.size() == 1);
  CHECK(*r.rows[0][0] == "5000");
  CHECK(*r.rows[0][1] == std::to_string(sum));
  CHECK(*r.rows[0][2] == std::to_string(strings));
  CHECK(*r.rows[0][3] == lo);
  CHECK(*r.rows[0][4] == hi);
  CHECK(*r.rows[0][5] == gfxq::format_date(gfxq::Date{min_day}));
  CHECK(*r.rows[0][6] == std::to_string(bigs));
  // And back: DuckDB's Arrow export (VARCHAR as utf8, in chunks) imported by gfxq.
  uint64_t row = 0;
  size_t batches = 0;
  db->query_arrow("SELECT * FROM d ORDER BY k", [&](const ArrowSchema& schema, const ArrowArray& array) {
    const gfxq::Table part = gfxq::import_arrow(schema, array);
    REQUIRE(part.columns.size() == t.columns.size());
    for (uint64_t p = 0; p < part.rows(); ++p, ++row)
      for (size_t i = 0; i < t.columns.size(); ++i) {
        CAPTURE(row);
        CAPTURE(t.columns[i].name);
        CHECK(part.columns[i].type == t.columns[i].type);
        REQUIRE(cell(part.columns[i], p) == cell(t.columns[i], row));
      }
    ++batches;
  });
  CHECK(row == t.rows());
  CHECK(batches >= 1);
  // An ENUM comes as a dictionary-encoded array with unsigned indices, in declaration order.
  db->query("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
  std::vector<std::string> moods;
  db->query_arrow("SELECT m::mood AS m FROM (VALUES ('ok'), ('sad'), ('happy'), ('ok')) v(m)",
                  [&](const ArrowSchema& schema, const ArrowArray& array) {
                    REQUIRE(schema.children[0]->dictionary != nullptr);
                    const gfxq::Table part = gfxq::import_arrow(schema, array);
                    CHECK(part.columns[0].dictionary->strings() == std::vector<std::string>{"happy", "ok", "sad"});
                    for (uint64_t p = 0; p < part.rows(); ++p) moods.emplace_back(part.columns[0].string_at(p));
                  });
  CHECK(moods == std::vector<std::string>{"ok", "sad", "happy", "ok"});
}
