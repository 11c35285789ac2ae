// The Star Schema Benchmark's generator (docs/SSB.md): the five tables written from the
// specification (O'Neil, O'Neil, Chen, revision 3) and the TPC-H value lists it inherits, as typed
// CSV files (generate_ssb, here) or as columns in memory (generate_ssb_tables, ssb_tables.cpp).
//
// Determinism: every row draws its values from its own random stream, seeded from (seed, table,
// row index) (lineorder: one stream per order, whose first draw is the order's line count), so a
// row does not depend on which thread makes it or on the chunking. The row functions below are the
// one source of values: they hand each row as cells to a sink, which formats CSV text or fills
// columns (src/core/ssb_rows.h). For the files, chunks of rows are formatted on worker threads and
// written in order by the calling thread; at most two chunks per worker are held in memory,
// whatever the scale factor.

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "core/hash.h"
#include "core/ssb_rows.h"
#include "gfxq/error.h"
#include "gfxq/ssb.h"

namespace gfxq::detail::ssb {

namespace {

// ---- Value lists (TPC-H's, as SSB uses them) ----

struct Nation {
  const char* name;
  int region;  // index into kRegions
};

// TPC-H's nations in key order; a phone number starts with 10 + the nation's index.
constexpr std::array<Nation, 25> kNations = {{
    {"ALGERIA", 0},      {"ARGENTINA", 1},  {"BRAZIL", 1},  {"CANADA", 1},         {"EGYPT", 4},
    {"ETHIOPIA", 0},     {"FRANCE", 3},     {"GERMANY", 3}, {"INDIA", 2},          {"INDONESIA", 2},
    {"IRAN", 4},         {"IRAQ", 4},       {"JAPAN", 2},   {"JORDAN", 4},         {"KENYA", 0},
    {"MOROCCO", 0},      {"MOZAMBIQUE", 0}, {"PERU", 1},    {"CHINA", 2},          {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},    {"RUSSIA", 3},  {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}};
constexpr std::array<const char*, 5> kRegions = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
constexpr std::array<const char*, 5> kSegments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
constexpr std::array<const char*, 5> kPriorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
constexpr std::array<const char*, 7> kShipModes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
constexpr std::array<const char*, 6> kTypeSize = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
constexpr std::array<const char*, 5> kTypeFinish = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
constexpr std::array<const char*, 5> kTypeMetal = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
constexpr std::array<const char*, 5> kContainerSize = {"SM", "LG", "MED", "JUMBO", "WRAP"};
constexpr std::array<const char*, 8> kContainerKind = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
constexpr std::array<const char*, 92> kColors = {
    "almond",   "antique", "aquamarine", "azure",     "beige",      "bisque",    "black",     "blanched", "blue",
    "blush",    "brown",   "burlywood",  "burnished", "chartreuse", "chiffon",   "chocolate", "coral",    "cornflower",
    "cornsilk", "cream",   "cyan",       "dark",      "deep",       "dim",       "dodger",    "drab",     "firebrick",
    "floral",   "forest",  "frosted",    "gainsboro", "ghost",      "goldenrod", "green",     "grey",     "honeydew",
    "hot",      "indian",  "ivory",      "khaki",     "lace",       "lavender",  "lawn",      "lemon",    "light",
    "lime",     "linen",   "magenta",    "maroon",    "medium",     "metallic",  "midnight",  "mint",     "misty",
    "moccasin", "navajo",  "navy",       "olive",     "orange",     "orchid",    "pale",      "papaya",   "peach",
    "peru",     "pink",    "plum",       "powder",    "puff",       "purple",    "red",       "rose",     "rosy",
    "royal",    "saddle",  "salmon",     "sandy",     "seashell",   "sienna",    "sky",       "slate",    "smoke",
    "snow",     "spring",  "steel",      "tan",       "thistle",    "tomato",    "turquoise", "violet",   "wheat",
    "white",    "yellow"};
constexpr std::array<const char*, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                                 "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<const char*, 7> kWeekdays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                  "Thursday", "Friday", "Saturday"};
// Addresses: letters, digits, ',' and ' ' (never first or last, so no reader's trimming changes one).
constexpr std::string_view kAddressChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";
constexpr int kAddressEdgeChars = 62;  // the letters and digits at the front of kAddressChars

// ---- The calendar: 2,556 days from 1992-01-01 (a Wednesday) ----

constexpr int kDays = 2556;
// Orders are placed up to 151 days before the end of the seven years (as TPC-H: the last order's
// lines ship within 121 days and arrive within 30 more), and committed 30 to 90 days after.
constexpr int kLastOrderDay = 2557 - 151 - 1;
constexpr int kCommitMin = 30, kCommitMax = 90;

struct Day {
  int year, month, day, day_of_year;
  int32_t key;  // yyyymmdd
};

bool is_leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int year, int month) {
  constexpr int kLength[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kLength[month - 1] + (month == 2 && is_leap(year) ? 1 : 0);
}

const std::vector<Day>& calendar() {
  static const std::vector<Day> days = [] {
    std::vector<Day> v;
    v.reserve(kDays);
    for (int y = 1992; static_cast<int>(v.size()) < kDays; ++y) {
      int day_of_year = 0;
      for (int m = 1; m <= 12 && static_cast<int>(v.size()) < kDays; ++m)
        for (int d = 1; d <= days_in_month(y, m) && static_cast<int>(v.size()) < kDays; ++d)
          v.push_back({y, m, d, ++day_of_year, y * 10000 + m * 100 + d});
    }
    return v;
  }();
  return days;
}

// ---- Random streams ----

enum class TableId : uint64_t { Lineorder = 1, Customer, Supplier, Part };

// splitmix64 from a start that hashes (seed, table, row): one independent stream per row.
class RowRng {
 public:
  RowRng(uint64_t seed, TableId table, uint64_t row)
      : state_(hash_fmix64(hash_fmix64(seed ^ (static_cast<uint64_t>(table) << 56)) + row * 0x9E3779B97F4A7C15ull)) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi] (hi - lo < 2^32), exact: Lemire's multiply-shift with rejection.
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * range;
    if (static_cast<uint64_t>(m) < range) {
      const uint64_t threshold = (0 - range) % range;
      while (static_cast<uint64_t>(m) < threshold) m = static_cast<unsigned __int128>(next()) * range;
    }
    return lo + static_cast<int64_t>(m >> 64);
  }

  // Uniform in [0, n): an index into a list of n.
  int64_t index(size_t n) { return uniform(0, static_cast<int64_t>(n) - 1); }

 private:
  uint64_t state_;
};

constexpr double kMaxScale = 300;  // lo_orderkey stays an int32 up to SF 300 (as the spec says)

uint64_t scaled(double base, double sf) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
}

// Order i's key: TPC-H's sparse keys, the first 8 of every 32 (1..7, 32..39, 64..71, ...).
int64_t order_key(uint64_t i) {
  const uint64_t k = i + 1;
  return static_cast<int64_t>(((k >> 3) << 5) | (k & 7));
}

// A third of the customers (keys divisible by 3) place no orders, as in TPC-H: the j-th customer
// key (0-based) that is not a multiple of 3.
int64_t ordering_customer(uint64_t j) {
  return static_cast<int64_t>(j + j / 2 + 1);
}

uint64_t ordering_customers(uint64_t customers) {
  return customers - customers / 3;
}

// TPC-H's retail price of a part, in cents.
int64_t retail_price(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + (partkey % 1000) * 100;
}

// ---- CSV fields ----

void put_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// A field, quoted as in RFC 4180 only when it holds a comma, quote or line break.
void put_str(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// ---- Domains: the fixed string sets, numbered as the rows draw them ----

Domain make_domain(std::vector<std::string> text) {
  Domain d;
  d.sorted = text;
  std::sort(d.sorted.begin(), d.sorted.end());
  d.sorted.erase(std::unique(d.sorted.begin(), d.sorted.end()), d.sorted.end());
  d.rank.reserve(text.size());
  for (const std::string& s : text)
    d.rank.push_back(static_cast<int32_t>(std::lower_bound(d.sorted.begin(), d.sorted.end(), s) - d.sorted.begin()));
  for (const std::string& s : text) put_str(d.csv.emplace_back(), s);
  d.text = std::move(text);
  return d;
}

template <size_t N>
Domain domain_of(const std::array<const char*, N>& list) {
  return make_domain(std::vector<std::string>(list.begin(), list.end()));
}

struct Domains {
  Domain nation, region, city, segment;                        // customer, supplier
  Domain priority, ship_priority, ship_mode;                   // lineorder
  Domain mfgr, category, brand, color, name, type, container;  // part
};

const Domains& domains() {
  static const Domains d = [] {
    Domains x;
    std::vector<std::string> nations, cities;
    for (const Nation& n : kNations) {
      nations.emplace_back(n.name);
      // nation·10 + digit: the nation's first 9 characters, space-padded, then the digit ("UNITED KI1").
      for (char digit = '0'; digit <= '9'; ++digit) {
        std::string city(n.name, std::min<size_t>(9, std::strlen(n.name)));
        city.resize(9, ' ');
        cities.push_back(city + digit);
      }
    }
    x.nation = make_domain(std::move(nations));
    x.region = domain_of(kRegions);
    x.city = make_domain(std::move(cities));
    x.segment = domain_of(kSegments);
    x.priority = domain_of(kPriorities);
    x.ship_priority = make_domain({"0"});  // lo_shippriority: always "0", as in dbgen
    x.ship_mode = domain_of(kShipModes);
    // mfgr m - 1; category (m - 1)·5 + c - 1 ("MFGR#mc"); brand category·40 + b - 1 ("MFGR#mcb").
    std::vector<std::string> mfgrs, categories, brands;
    for (int m = 1; m <= 5; ++m) {
      mfgrs.push_back("MFGR#" + std::to_string(m));
      for (int c = 1; c <= 5; ++c) {
        categories.push_back("MFGR#" + std::to_string(m * 10 + c));
        for (int b = 1; b <= 40; ++b) brands.push_back(categories.back() + std::to_string(b));
      }
    }
    x.mfgr = make_domain(std::move(mfgrs));
    x.category = make_domain(std::move(categories));
    x.brand = make_domain(std::move(brands));
    x.color = domain_of(kColors);
    // p_name: two colors, first·92 + second ("lace spring"); a part's two are different.
    std::vector<std::string> names, types, containers;
    for (const char* a : kColors)
      for (const char* b : kColors) names.push_back(std::string(a) + " " + b);
    // p_type: (size·5 + finish)·5 + metal; p_container: size·8 + kind.
    for (const char* s : kTypeSize)
      for (const char* f : kTypeFinish)
        for (const char* m : kTypeMetal) types.push_back(std::string(s) + " " + f + " " + m);
    for (const char* s : kContainerSize)
      for (const char* k : kContainerKind) containers.push_back(std::string(s) + " " + k);
    x.name = make_domain(std::move(names));
    x.type = make_domain(std::move(types));
    x.container = make_domain(std::move(containers));
    return x;
  }();
  return d;
}

// ---- The rows ----

// The decimal digits of v, zero-padded to `width`, at `out` (room for 20 + width); returns the end.
char* put_zero_padded(char* out, int64_t v, int width) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  const auto pad = std::max<ptrdiff_t>(0, width - (end - buf));
  std::memset(out, '0', static_cast<size_t>(pad));
  return std::copy(buf, end, out + pad);
}

// 10 to 40 characters (TPC-H: 0.4 to 1.6 times 25) at `out` (room for 40).
std::string_view draw_address(RowRng& rng, char* out) {
  const int64_t length = rng.uniform(10, 40);
  for (int64_t i = 0; i < length; ++i) {
    const bool edge = i == 0 || i == length - 1;
    out[i] =
        kAddressChars[static_cast<size_t>(rng.uniform(0, edge ? kAddressEdgeChars - 1 : kAddressChars.size() - 1))];
  }
  return {out, static_cast<size_t>(length)};
}

// "34-617-354-1222": 10 + the nation's index, then three random groups, at `out` (room for 24).
std::string_view draw_phone(RowRng& rng, int64_t nation, char* out) {
  char* p = std::to_chars(out, out + 4, 10 + nation).ptr;
  *p++ = '-';
  p = std::to_chars(p, p + 4, rng.uniform(100, 999)).ptr;
  *p++ = '-';
  p = std::to_chars(p, p + 4, rng.uniform(100, 999)).ptr;
  *p++ = '-';
  p = std::to_chars(p, p + 4, rng.uniform(1000, 9999)).ptr;
  return {out, static_cast<size_t>(p - out)};
}

uint64_t lineorder_rows(const Plan& p, uint64_t first, uint64_t count, const RowSink& sink) {
  const auto& days = calendar();
  const uint64_t ordering = ordering_customers(p.customers);
  struct Line {
    int64_t partkey, suppkey, quantity, discount, tax, commit_day, shipmode;
  };
  Cell c[17];
  uint64_t rows = 0;
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Lineorder, i);
    const int64_t lines = rng.uniform(1, 7);  // first draw: count_lines counts with it
    const int64_t order_day = rng.uniform(0, kLastOrderDay);
    const int64_t custkey = ordering_customer(static_cast<uint64_t>(rng.uniform(0, ordering - 1)));
    const int64_t priority = rng.index(kPriorities.size());
    Line line[7];
    int64_t total_price = 0;
    for (int64_t l = 0; l < lines; ++l) {
      Line& x = line[l];
      x.partkey = rng.uniform(1, static_cast<int64_t>(p.parts));
      x.suppkey = rng.uniform(1, static_cast<int64_t>(p.suppliers));
      x.quantity = rng.uniform(1, 50);
      x.discount = rng.uniform(0, 10);
      x.tax = rng.uniform(0, 8);
      x.commit_day = order_day + rng.uniform(kCommitMin, kCommitMax);
      x.shipmode = rng.index(kShipModes.size());
      const int64_t extended = retail_price(x.partkey) * x.quantity;
      total_price += extended * (100 - x.discount) / 100 * (100 + x.tax) / 100;
    }
    c[0].value = order_key(i);
    c[2].value = custkey;
    c[5].value = days[static_cast<size_t>(order_day)].key;
    c[6].value = priority;
    c[7].value = 0;  // lo_shippriority
    c[10].value = total_price;
    for (int64_t l = 0; l < lines; ++l) {
      const Line& x = line[l];
      const int64_t price = retail_price(x.partkey), extended = price * x.quantity;
      c[1].value = l + 1;
      c[3].value = x.partkey;
      c[4].value = x.suppkey;
      c[8].value = x.quantity;
      c[9].value = extended;
      c[11].value = x.discount;
      c[12].value = extended * (100 - x.discount) / 100;  // lo_revenue
      c[13].value = 6 * price / 10;                       // lo_supplycost
      c[14].value = x.tax;
      c[15].value = days[static_cast<size_t>(x.commit_day)].key;
      c[16].value = x.shipmode;
      sink.row(sink.context, c);
    }
    rows += static_cast<uint64_t>(lines);
  }
  return rows;
}

// customer and supplier: key, name ("Customer#000000001"), address, city, nation, region, phone,
// and the customer's market segment.
template <bool kCustomer>
uint64_t party_rows(const Plan& p, uint64_t first, uint64_t count, const RowSink& sink) {
  char name[40], address[40], phone[24];
  std::memcpy(name, kCustomer ? "Customer#" : "Supplier#", 9);
  Cell c[8];
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, kCustomer ? TableId::Customer : TableId::Supplier, i);
    const auto key = static_cast<int64_t>(i + 1);
    c[0].value = key;
    c[1].text = {name, static_cast<size_t>(put_zero_padded(name + 9, key, 9) - name)};
    c[2].text = draw_address(rng, address);
    const int64_t nation = rng.index(kNations.size());
    c[3].value = nation * 10 + rng.uniform(0, 9);
    c[4].value = nation;
    c[5].value = kNations[static_cast<size_t>(nation)].region;
    c[6].text = draw_phone(rng, nation, phone);
    if (kCustomer) c[7].value = rng.index(kSegments.size());
    sink.row(sink.context, c);
  }
  return count;
}

uint64_t part_rows(const Plan& p, uint64_t first, uint64_t count, const RowSink& sink) {
  Cell c[9];
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Part, i);
    // Three different colors: the first is p_color, the other two p_name ("lace spring").
    int64_t color[3];
    for (int k = 0; k < 3; ++k) {
      do color[k] = rng.index(kColors.size());
      while ((k > 0 && color[k] == color[0]) || (k > 1 && color[k] == color[1]));
    }
    const int64_t mfgr = rng.uniform(1, 5), category = rng.uniform(1, 5), brand = rng.uniform(1, 40);
    const int64_t category_index = (mfgr - 1) * 5 + category - 1;
    c[0].value = static_cast<int64_t>(i + 1);
    c[1].value = color[1] * static_cast<int64_t>(kColors.size()) + color[2];
    c[2].value = mfgr - 1;
    c[3].value = category_index;
    c[4].value = category_index * 40 + brand - 1;
    c[5].value = color[0];
    const int64_t type_size = rng.index(kTypeSize.size());
    const int64_t type_finish = rng.index(kTypeFinish.size());
    c[6].value = (type_size * 5 + type_finish) * 5 + rng.index(kTypeMetal.size());
    c[7].value = rng.uniform(1, 50);
    const int64_t container_size = rng.index(kContainerSize.size());
    c[8].value = container_size * 8 + rng.index(kContainerKind.size());
    sink.row(sink.context, c);
  }
  return count;
}

const char* selling_season(int month) {
  if (month <= 3) return "Winter";
  if (month == 4) return "Spring";
  if (month <= 8) return "Summer";
  if (month <= 10) return "Fall";
  return "Christmas";
}

bool is_holiday(const Day& d) {
  return (d.month == 1 && d.day == 1) || (d.month == 7 && d.day == 4) || (d.month == 12 && d.day == 25);
}

uint64_t date_rows(const Plan&, uint64_t first, uint64_t count, const RowSink& sink) {
  const auto& days = calendar();
  Cell c[17];
  for (uint64_t i = first; i < first + count; ++i) {
    const Day& d = days[i];
    const int weekday = static_cast<int>((3 + i) % 7);  // 0 = Sunday; 1992-01-01 was a Wednesday
    const std::string month = kMonths[static_cast<size_t>(d.month - 1)];
    const std::string date = month + " " + std::to_string(d.day) + ", " + std::to_string(d.year);
    const std::string year_month = month.substr(0, 3) + std::to_string(d.year);
    c[0].value = d.key;
    c[1].text = date;
    c[2].text = kWeekdays[static_cast<size_t>(weekday)];
    c[3].text = month;
    c[4].value = d.year;
    c[5].value = d.year * 100 + d.month;
    c[6].text = year_month;
    c[7].value = weekday + 1;
    c[8].value = d.day;
    c[9].value = d.day_of_year;
    c[10].value = d.month;
    c[11].value = (d.day_of_year - 1) / 7 + 1;
    c[12].text = selling_season(d.month);
    c[13].value = weekday == 6 ? 1 : 0;
    c[14].value = d.day == days_in_month(d.year, d.month) ? 1 : 0;
    c[15].value = is_holiday(d) ? 1 : 0;
    c[16].value = weekday != 0 && weekday != 6 ? 1 : 0;
    sink.row(sink.context, c);
  }
  return count;
}

// ---- Writing CSV ----

// A kept column of a CSV file: its cell, and for a Domain column its strings as CSV fields.
struct CsvColumn {
  size_t cell;
  ColumnKind kind;
  const std::string* fields;
};

// The CSV sink: appends the kept columns of each row to `out`.
struct CsvRows {
  const std::vector<CsvColumn>* columns;
  std::string* out;
};

void csv_row(void* context, const Cell* cells) {
  const CsvRows& rows = *static_cast<const CsvRows*>(context);
  std::string& out = *rows.out;
  for (const CsvColumn& column : *rows.columns) {
    const Cell& cell = cells[column.cell];
    switch (column.kind) {
      case ColumnKind::Int: put_int(out, cell.value); break;
      case ColumnKind::Domain: out += column.fields[cell.value]; break;
      case ColumnKind::Text: put_str(out, cell.text); break;
    }
    out += ',';
  }
  out.back() = '\n';  // the last column's comma
}

}  // namespace

// ---- Shared with the in-memory tables (ssb_rows.h) ----

Plan make_plan(const SsbOptions& o) {
  const double sf = o.scale_factor;
  if (!(sf > 0 && sf <= kMaxScale)) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, sf).ptr;
    throw Error(ErrorCode::InvalidQuery,
                "SSB scale factor must be in (0, 300] (lo_orderkey is an INT), got " + std::string(buf, end));
  }
  Plan p;
  p.seed = o.seed;
  p.orders = scaled(1'500'000, sf);
  p.customers = scaled(30'000, sf);
  p.suppliers = scaled(2'000, sf);
  p.parts = sf >= 1 ? 200'000 * static_cast<uint64_t>(std::floor(1 + std::log2(sf))) : scaled(200'000, sf);
  return p;
}

unsigned worker_count(const SsbOptions& o) {
  if (o.threads > 4096) throw Error(ErrorCode::InvalidQuery, "SSB generator: at most 4096 threads");
  return o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
}

const std::array<TableDef, 5>& table_defs() {
  static const std::array<TableDef, 5> defs = [] {
    const Domains& d = domains();
    const auto i = [](const char* name) { return ColumnDef{name, ColumnKind::Int, nullptr}; };
    const auto s = [](const char* name, const Domain& domain) { return ColumnDef{name, ColumnKind::Domain, &domain}; };
    const auto t = [](const char* name) { return ColumnDef{name, ColumnKind::Text, nullptr}; };
    return std::array<TableDef, 5>{{
        {"lineorder",
         {i("lo_orderkey"), i("lo_linenumber"), i("lo_custkey"), i("lo_partkey"), i("lo_suppkey"), i("lo_orderdate"),
          s("lo_orderpriority", d.priority), s("lo_shippriority", d.ship_priority), i("lo_quantity"),
          i("lo_extendedprice"), i("lo_ordtotalprice"), i("lo_discount"), i("lo_revenue"), i("lo_supplycost"),
          i("lo_tax"), i("lo_commitdate"), s("lo_shipmode", d.ship_mode)},
         4096,
         [](const Plan& p) { return p.orders; },
         lineorder_rows},
        {"date",
         {i("d_datekey"), t("d_date"), t("d_dayofweek"), t("d_month"), i("d_year"), i("d_yearmonthnum"),
          t("d_yearmonth"), i("d_daynuminweek"), i("d_daynuminmonth"), i("d_daynuminyear"), i("d_monthnuminyear"),
          i("d_weeknuminyear"), t("d_sellingseason"), i("d_lastdayinweekfl"), i("d_lastdayinmonthfl"), i("d_holidayfl"),
          i("d_weekdayfl")},
         kDays,
         [](const Plan&) { return uint64_t{kDays}; },
         date_rows},
        {"customer",
         {i("c_custkey"), t("c_name"), t("c_address"), s("c_city", d.city), s("c_nation", d.nation),
          s("c_region", d.region), t("c_phone"), s("c_mktsegment", d.segment)},
         16384,
         [](const Plan& p) { return p.customers; },
         party_rows<true>},
        {"supplier",
         {i("s_suppkey"), t("s_name"), t("s_address"), s("s_city", d.city), s("s_nation", d.nation),
          s("s_region", d.region), t("s_phone")},
         16384,
         [](const Plan& p) { return p.suppliers; },
         party_rows<false>},
        {"part",
         {i("p_partkey"), s("p_name", d.name), s("p_mfgr", d.mfgr), s("p_category", d.category), s("p_brand1", d.brand),
          s("p_color", d.color), s("p_type", d.type), i("p_size"), s("p_container", d.container)},
         16384,
         [](const Plan& p) { return p.parts; },
         part_rows},
    }};
  }();
  return defs;
}

uint64_t count_lines(const Plan& p, uint64_t first, uint64_t end) {
  uint64_t lines = 0;
  for (uint64_t i = first; i < end; ++i)
    lines += static_cast<uint64_t>(RowRng(p.seed, TableId::Lineorder, i).uniform(1, 7));
  return lines;
}

std::vector<std::vector<bool>> selected_columns(const SsbOptions& options) {
  const auto& defs = table_defs();
  std::vector<bool> tables(defs.size(), options.tables.empty());
  for (const std::string& name : options.tables) {
    const auto it = std::find_if(defs.begin(), defs.end(), [&](const TableDef& t) { return name == t.name; });
    if (it == defs.end())
      throw Error(ErrorCode::InvalidQuery,
                  "SSB generator: unknown table '" + name + "' (lineorder, date, customer, supplier, part)");
    tables[static_cast<size_t>(it - defs.begin())] = true;
  }
  std::vector<std::vector<bool>> keep(defs.size());
  for (size_t t = 0; t < defs.size(); ++t) keep[t].assign(defs[t].columns.size(), tables[t] && options.columns.empty());
  for (const std::string& name : options.columns) {
    bool found = false;
    for (size_t t = 0; t < defs.size() && !found; ++t)
      for (size_t k = 0; k < defs[t].columns.size() && !found; ++k) {
        if (name != defs[t].columns[k].name) continue;
        if (!tables[t])
          throw Error(ErrorCode::InvalidQuery, "SSB generator: column '" + name + "' is of table " + defs[t].name +
                                                   ", which the selected tables leave out");
        keep[t][k] = found = true;
      }
    if (!found) throw Error(ErrorCode::InvalidQuery, "SSB generator: unknown column '" + name + "'");
  }
  return keep;
}

namespace {

Error thread_error(const std::system_error& e) {
  return Error(ErrorCode::Internal, std::string("SSB generator: cannot start a worker thread: ") + e.what());
}

std::string io_message(const std::string& what, const std::string& path) {
  return "SSB generator: cannot " + what + " '" + path + "': " + std::strerror(errno);
}

// Formats the chunks of a table on `threads` workers and writes them to `file` in order: chunk c
// goes to slot c % slots, which it may fill once chunk c - slots has been written.
uint64_t write_chunks(std::FILE* file, const std::string& path, const TableDef& table, const std::vector<bool>& keep,
                      const Plan& plan, uint64_t chunk_units, unsigned threads) {
  const uint64_t units = table.units(plan);
  const uint64_t chunks = (units + chunk_units - 1) / chunk_units;
  const auto workers = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(threads, chunks)));
  const uint64_t slots = 2ull * workers;
  std::vector<CsvColumn> columns;
  for (size_t k = 0; k < table.columns.size(); ++k)
    if (keep[k]) {
      const ColumnDef& c = table.columns[k];
      columns.push_back({k, c.kind, c.kind == ColumnKind::Domain ? c.domain->csv.data() : nullptr});
    }
  struct Slot {
    std::string text;
    uint64_t rows = 0;
    uint64_t chunk = 0;
    bool ready = false;
  };
  std::vector<Slot> ring(slots);
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<uint64_t> next{0};
  uint64_t written = 0;  // chunks written so far (guarded by mutex)
  bool stop = false;     // guarded by mutex
  std::exception_ptr failure;

  auto work = [&] {
    for (;;) {
      const uint64_t c = next++;
      if (c >= chunks) return;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || written + slots > c; });
        if (stop) return;
      }
      Slot& slot = ring[c % slots];
      try {
        slot.text.clear();
        const uint64_t first = c * chunk_units;
        CsvRows rows{&columns, &slot.text};
        slot.rows = table.rows(plan, first, std::min(chunk_units, units - first), RowSink{&rows, csv_row});
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
        changed.notify_all();
        return;
      }
      {
        std::lock_guard lock(mutex);
        slot.chunk = c;
        slot.ready = true;
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers);
  try {
    for (unsigned t = 0; t < workers; ++t) pool.emplace_back(work);
  } catch (const std::system_error& e) {  // the started threads must not wait for the writer
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    changed.notify_all();
    for (auto& t : pool) t.join();
    throw thread_error(e);
  }

  uint64_t rows = 0;
  std::string write_error;
  for (uint64_t c = 0; c < chunks; ++c) {
    Slot& slot = ring[c % slots];
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return stop || (slot.ready && slot.chunk == c); });
      if (stop) break;
    }
    if (std::fwrite(slot.text.data(), 1, slot.text.size(), file) != slot.text.size()) {
      write_error = io_message("write", path);
      std::lock_guard lock(mutex);
      stop = true;
      changed.notify_all();
      break;
    }
    rows += slot.rows;
    {
      std::lock_guard lock(mutex);
      slot.ready = false;
      ++written;
    }
    changed.notify_all();
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (!write_error.empty()) throw Error(ErrorCode::Io, write_error);
  return rows;
}

uint64_t write_table(const std::filesystem::path& dir, const TableDef& table, const std::vector<bool>& keep,
                     const Plan& plan, uint64_t chunk_rows, unsigned threads) {
  const std::string path = (dir / (std::string(table.name) + ".csv")).string();
  const std::string tmp = path + ".tmp";
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  if (!file) throw Error(ErrorCode::Io, io_message("create", tmp));
  uint64_t rows = 0;
  try {
    std::string header;
    for (size_t k = 0; k < table.columns.size(); ++k) {
      if (!keep[k]) continue;
      if (!header.empty()) header += ',';
      header += table.columns[k].name;
      header += table.columns[k].kind == ColumnKind::Int ? ":int" : ":string";
    }
    header += '\n';
    if (std::fwrite(header.data(), 1, header.size(), file) != header.size())
      throw Error(ErrorCode::Io, io_message("write", tmp));
    rows = write_chunks(file, tmp, table, keep, plan, chunk_rows ? chunk_rows : table.default_chunk, threads);
  } catch (...) {
    std::fclose(file);
    std::remove(tmp.c_str());
    throw;
  }
  if (std::fclose(file) != 0) {
    const std::string message = io_message("write", tmp);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::Io, message);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string message = io_message("rename to", path);
    std::remove(tmp.c_str());
    throw Error(ErrorCode::Io, message);
  }
  return rows;
}

}  // namespace

}  // namespace gfxq::detail::ssb

namespace gfxq {

using namespace detail::ssb;

const std::vector<std::string>& ssb_table_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const TableDef& t : table_defs()) v.emplace_back(t.name);
    return v;
  }();
  return names;
}

std::vector<std::string> ssb_column_names(std::string_view table) {
  for (const TableDef& t : table_defs())
    if (table == t.name) {
      std::vector<std::string> names;
      for (const ColumnDef& c : t.columns) names.emplace_back(c.name);
      return names;
    }
  throw Error(ErrorCode::InvalidQuery,
              "SSB generator: unknown table '" + std::string(table) + "' (lineorder, date, customer, supplier, part)");
}

SsbCardinalities ssb_cardinalities(const SsbOptions& options) {
  const Plan plan = make_plan(options);
  const unsigned threads = static_cast<unsigned>(std::min<uint64_t>(worker_count(options), plan.orders));
  std::vector<uint64_t> partial(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  try {
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(
          [&, t] { partial[t] = count_lines(plan, plan.orders * t / threads, plan.orders * (t + 1) / threads); });
  } catch (const std::system_error& e) {
    for (auto& t : pool) t.join();
    throw thread_error(e);
  }
  for (auto& t : pool) t.join();
  SsbCardinalities c;
  for (uint64_t x : partial) c.lineorder += x;
  c.date = kDays;
  c.customer = plan.customers;
  c.supplier = plan.suppliers;
  c.part = plan.parts;
  return c;
}

SsbCardinalities generate_ssb(const SsbOptions& options) {
  const Plan plan = make_plan(options);
  const unsigned threads = worker_count(options);
  if (options.out_dir.empty()) throw Error(ErrorCode::InvalidQuery, "SSB generator: no output folder given");
  const std::vector<std::vector<bool>> keep = selected_columns(options);
  const auto selected = [&](size_t t) { return std::find(keep[t].begin(), keep[t].end(), true) != keep[t].end(); };
  const std::filesystem::path dir(options.out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::Io, "SSB generator: cannot create '" + options.out_dir + "': " + ec.message());

  const auto& defs = table_defs();
  SsbCardinalities c;
  c.lineorder = selected(0) ? write_table(dir, defs[0], keep[0], plan, options.chunk_rows, threads)
                            : ssb_cardinalities(options).lineorder;
  c.date = kDays;
  c.customer = plan.customers;
  c.supplier = plan.suppliers;
  c.part = plan.parts;
  for (size_t t = 1; t < defs.size(); ++t)
    if (selected(t)) write_table(dir, defs[t], keep[t], plan, options.chunk_rows, threads);
  return c;
}

}  // namespace gfxq
