// The Star Schema Benchmark's generator (docs/SSB.md): five typed CSV files written from the
// specification (O'Neil, O'Neil, Chen, revision 3) and the TPC-H value lists it inherits.
//
// Determinism: every row draws its values from its own random stream, seeded from (seed, table,
// row index) (lineorder: one stream per order, whose first draw is the order's line count), so a
// row does not depend on which thread formats it or on the chunking. Chunks of rows are formatted
// on worker threads and written in order by the calling thread; at most two chunks per worker are
// held in memory, whatever the scale factor.

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
#include "gfxq/error.h"
#include "gfxq/ssb.h"

namespace gfxq {

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

  template <class T, size_t N>
  const T& pick(const std::array<T, N>& list) {
    return list[static_cast<size_t>(uniform(0, N - 1))];
  }

 private:
  uint64_t state_;
};

// ---- Sizes ----

constexpr double kMaxScale = 300;  // lo_orderkey stays an int32 up to SF 300 (as the spec says)

struct Plan {
  uint64_t seed;
  uint64_t orders, customers, suppliers, parts;
};

uint64_t scaled(double base, double sf) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
}

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

// ---- CSV text ----

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

void put_zero_padded(std::string& out, int64_t v, int width) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(static_cast<size_t>(std::max<ptrdiff_t>(0, width - (end - buf))), '0');
  out.append(buf, end);
}

void put_address(std::string& out, RowRng& rng) {
  const int64_t length = rng.uniform(10, 40);  // TPC-H: 0.4 to 1.6 times 25 characters
  std::string a;
  for (int64_t i = 0; i < length; ++i) {
    const bool edge = i == 0 || i == length - 1;
    a += kAddressChars[static_cast<size_t>(rng.uniform(0, edge ? kAddressEdgeChars - 1 : kAddressChars.size() - 1))];
  }
  put_str(out, a);
}

// city (nation's first 9 characters, space-padded, then a digit: "UNITED KI1"), nation, region,
// phone (10 + nation index, then three random groups: "34-617-354-1222").
void put_place_and_phone(std::string& out, RowRng& rng) {
  const int64_t n = rng.uniform(0, kNations.size() - 1);
  const Nation& nation = kNations[static_cast<size_t>(n)];
  std::string city(nation.name, std::min<size_t>(9, std::strlen(nation.name)));
  city.resize(9, ' ');
  city += static_cast<char>('0' + rng.uniform(0, 9));
  put_str(out, city);
  out += ',';
  put_str(out, nation.name);
  out += ',';
  put_str(out, kRegions[static_cast<size_t>(nation.region)]);
  out += ',';
  put_int(out, 10 + n);
  out += '-';
  put_int(out, rng.uniform(100, 999));
  out += '-';
  put_int(out, rng.uniform(100, 999));
  out += '-';
  put_int(out, rng.uniform(1000, 9999));
}

// ---- The tables ----

struct TableDef {
  const char* name;
  const char* header;
  uint64_t default_chunk;  // units per chunk
  // Appends the rows of units [first, first + count) to `out`; returns the rows appended.
  uint64_t (*format)(const Plan&, uint64_t first, uint64_t count, std::string& out);
  uint64_t (*units)(const Plan&);  // orders for lineorder, else rows
};

uint64_t format_lineorder(const Plan& p, uint64_t first, uint64_t count, std::string& out) {
  const auto& days = calendar();
  const uint64_t ordering = ordering_customers(p.customers);
  struct Line {
    int64_t partkey, suppkey, quantity, discount, tax, commit_day;
    const char* shipmode;
  };
  uint64_t rows = 0;
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Lineorder, i);
    const int64_t lines = rng.uniform(1, 7);  // first draw: ssb_cardinalities counts with it
    const int64_t order_day = rng.uniform(0, kLastOrderDay);
    const int64_t custkey = ordering_customer(static_cast<uint64_t>(rng.uniform(0, ordering - 1)));
    const char* priority = rng.pick(kPriorities);
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
      x.shipmode = rng.pick(kShipModes);
      const int64_t extended = retail_price(x.partkey) * x.quantity;
      total_price += extended * (100 - x.discount) / 100 * (100 + x.tax) / 100;
    }
    const int64_t key = order_key(i);
    for (int64_t l = 0; l < lines; ++l) {
      const Line& x = line[l];
      const int64_t price = retail_price(x.partkey), extended = price * x.quantity;
      put_int(out, key);
      out += ',';
      put_int(out, l + 1);
      out += ',';
      put_int(out, custkey);
      out += ',';
      put_int(out, x.partkey);
      out += ',';
      put_int(out, x.suppkey);
      out += ',';
      put_int(out, days[static_cast<size_t>(order_day)].key);
      out += ',';
      put_str(out, priority);
      out += ",0,";  // lo_shippriority: always "0", as in dbgen
      put_int(out, x.quantity);
      out += ',';
      put_int(out, extended);
      out += ',';
      put_int(out, total_price);
      out += ',';
      put_int(out, x.discount);
      out += ',';
      put_int(out, extended * (100 - x.discount) / 100);  // lo_revenue
      out += ',';
      put_int(out, 6 * price / 10);  // lo_supplycost
      out += ',';
      put_int(out, x.tax);
      out += ',';
      put_int(out, days[static_cast<size_t>(x.commit_day)].key);
      out += ',';
      put_str(out, x.shipmode);
      out += '\n';
    }
    rows += static_cast<uint64_t>(lines);
  }
  return rows;
}

uint64_t format_customer(const Plan& p, uint64_t first, uint64_t count, std::string& out) {
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Customer, i);
    const auto key = static_cast<int64_t>(i + 1);
    put_int(out, key);
    out += ",Customer#";
    put_zero_padded(out, key, 9);
    out += ',';
    put_address(out, rng);
    out += ',';
    put_place_and_phone(out, rng);
    out += ',';
    put_str(out, rng.pick(kSegments));
    out += '\n';
  }
  return count;
}

uint64_t format_supplier(const Plan& p, uint64_t first, uint64_t count, std::string& out) {
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Supplier, i);
    const auto key = static_cast<int64_t>(i + 1);
    put_int(out, key);
    out += ",Supplier#";
    put_zero_padded(out, key, 9);
    out += ',';
    put_address(out, rng);
    out += ',';
    put_place_and_phone(out, rng);
    out += '\n';
  }
  return count;
}

uint64_t format_part(const Plan& p, uint64_t first, uint64_t count, std::string& out) {
  for (uint64_t i = first; i < first + count; ++i) {
    RowRng rng(p.seed, TableId::Part, i);
    // Three different colors: the first is p_color, the other two p_name ("lace spring").
    int64_t color[3];
    for (int c = 0; c < 3; ++c) {
      do color[c] = rng.uniform(0, kColors.size() - 1);
      while ((c > 0 && color[c] == color[0]) || (c > 1 && color[c] == color[1]));
    }
    const int64_t mfgr = rng.uniform(1, 5), category = rng.uniform(1, 5), brand = rng.uniform(1, 40);
    put_int(out, static_cast<int64_t>(i + 1));
    out += ',';
    out += kColors[static_cast<size_t>(color[1])];
    out += ' ';
    out += kColors[static_cast<size_t>(color[2])];
    out += ",MFGR#";
    put_int(out, mfgr);
    out += ",MFGR#";
    put_int(out, mfgr * 10 + category);
    out += ",MFGR#";
    put_int(out, mfgr * 10 + category);
    put_int(out, brand);
    out += ',';
    out += kColors[static_cast<size_t>(color[0])];
    out += ',';
    out += rng.pick(kTypeSize);
    out += ' ';
    out += rng.pick(kTypeFinish);
    out += ' ';
    out += rng.pick(kTypeMetal);
    out += ',';
    put_int(out, rng.uniform(1, 50));
    out += ',';
    out += rng.pick(kContainerSize);
    out += ' ';
    out += rng.pick(kContainerKind);
    out += '\n';
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

uint64_t format_date(const Plan&, uint64_t first, uint64_t count, std::string& out) {
  const auto& days = calendar();
  for (uint64_t i = first; i < first + count; ++i) {
    const Day& d = days[i];
    const int weekday = static_cast<int>((3 + i) % 7);  // 0 = Sunday; 1992-01-01 was a Wednesday
    const char* month = kMonths[static_cast<size_t>(d.month - 1)];
    put_int(out, d.key);
    out += ',';
    put_str(out, std::string(month) + " " + std::to_string(d.day) + ", " + std::to_string(d.year));
    out += ',';
    out += kWeekdays[static_cast<size_t>(weekday)];
    out += ',';
    out += month;
    out += ',';
    put_int(out, d.year);
    out += ',';
    put_int(out, d.year * 100 + d.month);
    out += ',';
    out.append(month, 3);
    put_int(out, d.year);
    out += ',';
    put_int(out, weekday + 1);
    out += ',';
    put_int(out, d.day);
    out += ',';
    put_int(out, d.day_of_year);
    out += ',';
    put_int(out, d.month);
    out += ',';
    put_int(out, (d.day_of_year - 1) / 7 + 1);
    out += ',';
    out += selling_season(d.month);
    out += ',';
    put_int(out, weekday == 6 ? 1 : 0);
    out += ',';
    put_int(out, d.day == days_in_month(d.year, d.month) ? 1 : 0);
    out += ',';
    put_int(out, is_holiday(d) ? 1 : 0);
    out += ',';
    put_int(out, weekday != 0 && weekday != 6 ? 1 : 0);
    out += '\n';
  }
  return count;
}

const std::array<TableDef, 5> kTables = {{
    {"lineorder",
     "lo_orderkey:int,lo_linenumber:int,lo_custkey:int,lo_partkey:int,lo_suppkey:int,lo_orderdate:int,"
     "lo_orderpriority:string,lo_shippriority:string,lo_quantity:int,lo_extendedprice:int,lo_ordtotalprice:int,"
     "lo_discount:int,lo_revenue:int,lo_supplycost:int,lo_tax:int,lo_commitdate:int,lo_shipmode:string",
     4096, format_lineorder, [](const Plan& p) { return p.orders; }},
    {"date",
     "d_datekey:int,d_date:string,d_dayofweek:string,d_month:string,d_year:int,d_yearmonthnum:int,"
     "d_yearmonth:string,d_daynuminweek:int,d_daynuminmonth:int,d_daynuminyear:int,d_monthnuminyear:int,"
     "d_weeknuminyear:int,d_sellingseason:string,d_lastdayinweekfl:int,d_lastdayinmonthfl:int,d_holidayfl:int,"
     "d_weekdayfl:int",
     kDays, format_date, [](const Plan&) { return uint64_t{kDays}; }},
    {"customer",
     "c_custkey:int,c_name:string,c_address:string,c_city:string,c_nation:string,c_region:string,c_phone:string,"
     "c_mktsegment:string",
     16384, format_customer, [](const Plan& p) { return p.customers; }},
    {"supplier",
     "s_suppkey:int,s_name:string,s_address:string,s_city:string,s_nation:string,s_region:string,s_phone:string", 16384,
     format_supplier, [](const Plan& p) { return p.suppliers; }},
    {"part",
     "p_partkey:int,p_name:string,p_mfgr:string,p_category:string,p_brand1:string,p_color:string,p_type:string,"
     "p_size:int,p_container:string",
     16384, format_part, [](const Plan& p) { return p.parts; }},
}};

// ---- Writing ----

Error thread_error(const std::system_error& e) {
  return Error(ErrorCode::Internal, std::string("SSB generator: cannot start a worker thread: ") + e.what());
}

std::string io_message(const std::string& what, const std::string& path) {
  return "SSB generator: cannot " + what + " '" + path + "': " + std::strerror(errno);
}

// Formats the chunks of a table on `threads` workers and writes them to `file` in order: chunk c
// goes to slot c % slots, which it may fill once chunk c - slots has been written.
uint64_t write_chunks(std::FILE* file, const std::string& path, const TableDef& table, const Plan& plan,
                      uint64_t chunk_units, unsigned threads) {
  const uint64_t units = table.units(plan);
  const uint64_t chunks = (units + chunk_units - 1) / chunk_units;
  const auto workers = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(threads, chunks)));
  const uint64_t slots = 2ull * workers;
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
        slot.rows = table.format(plan, first, std::min(chunk_units, units - first), slot.text);
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

uint64_t write_table(const std::filesystem::path& dir, const TableDef& table, const Plan& plan, uint64_t chunk_rows,
                     unsigned threads) {
  const std::string path = (dir / (std::string(table.name) + ".csv")).string();
  const std::string tmp = path + ".tmp";
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  if (!file) throw Error(ErrorCode::Io, io_message("create", tmp));
  uint64_t rows = 0;
  try {
    const std::string header = std::string(table.header) + "\n";
    if (std::fwrite(header.data(), 1, header.size(), file) != header.size())
      throw Error(ErrorCode::Io, io_message("write", tmp));
    rows = write_chunks(file, tmp, table, plan, chunk_rows ? chunk_rows : table.default_chunk, threads);
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

// The lineorder rows of orders [first, end): the sum of their line counts.
uint64_t count_lines(const Plan& p, uint64_t first, uint64_t end) {
  uint64_t lines = 0;
  for (uint64_t i = first; i < end; ++i)
    lines += static_cast<uint64_t>(RowRng(p.seed, TableId::Lineorder, i).uniform(1, 7));
  return lines;
}

}  // namespace

const std::vector<std::string>& ssb_table_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const TableDef& t : kTables) v.emplace_back(t.name);
    return v;
  }();
  return names;
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
  std::vector<bool> selected(kTables.size(), options.tables.empty());
  for (const std::string& name : options.tables) {
    const auto& names = ssb_table_names();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw Error(ErrorCode::InvalidQuery,
                  "SSB generator: unknown table '" + name + "' (lineorder, date, customer, supplier, part)");
    selected[static_cast<size_t>(it - names.begin())] = true;
  }
  const std::filesystem::path dir(options.out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::Io, "SSB generator: cannot create '" + options.out_dir + "': " + ec.message());

  SsbCardinalities c;
  c.lineorder = selected[0] ? write_table(dir, kTables[0], plan, options.chunk_rows, threads)
                            : ssb_cardinalities(options).lineorder;
  c.date = kDays;
  c.customer = plan.customers;
  c.supplier = plan.suppliers;
  c.part = plan.parts;
  for (size_t t = 1; t < kTables.size(); ++t)
    if (selected[t]) write_table(dir, kTables[t], plan, options.chunk_rows, threads);
  return c;
}

}  // namespace gfxq
