// The SSB tables in memory (generate_ssb_tables, docs/SSB.md "In memory"): the generator's rows
// (src/core/ssb_rows.h, the same source of values as the CSV files) stored into columns. Chunks of
// rows are filled on worker threads, each straight into its rows' place in the columns (lineorder
// counts each chunk's lines first: one draw per order). The columns come out as read_csv_file reads
// the files: INT columns take the values; a STRING column of a fixed domain (regions, cities,
// brands, ...) takes each string's position in the sorted domain, then the positions that occur are
// renumbered, since a dictionary holds only the strings that occur; a free-text column (names,
// addresses, phones, the date's texts) keeps its strings chunk by chunk and is coded by a parallel
// sort, or by row when its strings already ascend (the names).

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/host_memory.h"
#include "core/parallel.h"
#include "core/ssb_rows.h"
#include "gfxq/error.h"
#include "gfxq/ssb.h"

namespace gfxq::detail::ssb {

namespace {

// The strings of one free-text column in one chunk: their bytes one after another, each row's end.
struct TextPiece {
  std::string bytes;
  std::vector<uint32_t> ends;
};

// Where a kept column's cells go.
struct Target {
  size_t cell;          // the column's index in the table
  ColumnKind kind;      // how the cells give it
  int32_t* values;      // Int and Domain: the column's rows
  const int32_t* rank;  // Domain: raw index to sorted position
  size_t text;          // Text: the column's index among the table's kept text columns
};

// The fill sink of one chunk.
struct FillRows {
  const std::vector<Target>* targets;
  TextPiece* pieces;  // this chunk's piece of each kept text column
  uint64_t row;       // the next row to fill
};

void fill_row(void* context, const Cell* cells) {
  FillRows& f = *static_cast<FillRows*>(context);
  for (const Target& t : *f.targets) {
    const Cell& c = cells[t.cell];
    switch (t.kind) {
      case ColumnKind::Int: t.values[f.row] = static_cast<int32_t>(c.value); break;
      case ColumnKind::Domain: t.values[f.row] = t.rank[c.value]; break;
      case ColumnKind::Text: {
        TextPiece& piece = f.pieces[t.text];
        piece.bytes.append(c.text);
        piece.ends.push_back(static_cast<uint32_t>(piece.bytes.size()));
        break;
      }
    }
  }
  ++f.row;
}

// A dictionary of strings given sorted and distinct, copied into one block.
std::shared_ptr<const Dictionary> dictionary_of(const std::vector<std::string_view>& sorted) {
  std::vector<uint64_t> offsets;
  offsets.reserve(sorted.size() + 1);
  offsets.push_back(0);
  for (std::string_view s : sorted) offsets.push_back(offsets.back() + s.size());
  auto bytes = offsets.back() ? std::make_unique_for_overwrite<char[]>(offsets.back()) : nullptr;
  for (size_t k = 0; k < sorted.size(); ++k)
    if (!sorted[k].empty()) std::memcpy(bytes.get() + offsets[k], sorted[k].data(), sorted[k].size());
  return std::make_shared<const Dictionary>(std::move(bytes), std::move(offsets));
}

// Rows per unit of work of the passes over whole columns.
constexpr size_t kPieceRows = size_t{1} << 20;

size_t pieces_of(size_t rows) {
  return (rows + kPieceRows - 1) / kPieceRows;
}

// Turns `codes` (positions in domain.sorted) into codes of the strings that occur, and returns their
// dictionary. A piece of rows stops looking once it has seen every string.
std::shared_ptr<const Dictionary> code_domain(std::vector<int32_t>& codes, const Domain& domain, unsigned threads) {
  const size_t n = domain.sorted.size();
  std::vector<std::vector<uint8_t>> seen(gfxq::detail::worker_count(threads), std::vector<uint8_t>(n));
  parallel_for_workers(pieces_of(codes.size()), threads, [&](size_t p, unsigned worker) {
    std::vector<uint8_t> local(n);
    size_t found = 0;
    const size_t end = std::min(codes.size(), (p + 1) * kPieceRows);
    for (size_t r = p * kPieceRows; r < end && found < n; ++r) {
      uint8_t& s = local[static_cast<size_t>(codes[r])];
      found += s == 0;
      s = 1;
    }
    for (size_t k = 0; k < n; ++k) seen[worker][k] |= local[k];
  });
  std::vector<int32_t> renumber(n, -1);
  std::vector<std::string_view> present;
  for (size_t k = 0; k < n; ++k)
    if (std::any_of(seen.begin(), seen.end(), [&](const std::vector<uint8_t>& s) { return s[k] != 0; })) {
      renumber[k] = static_cast<int32_t>(present.size());
      present.push_back(domain.sorted[k]);
    }
  if (present.size() < n)
    parallel_for(pieces_of(codes.size()), threads, [&](size_t p) {
      const size_t end = std::min(codes.size(), (p + 1) * kPieceRows);
      for (size_t r = p * kPieceRows; r < end; ++r) codes[r] = renumber[static_cast<size_t>(codes[r])];
    });
  return dictionary_of(present);
}

// Sorts `v` by `less`: a part per thread sorted, then merged pairwise, each round's merges in parallel.
template <class Less>
void parallel_sort(std::vector<uint32_t>& v, Less less, unsigned threads) {
  const size_t parts = std::clamp<size_t>(v.size() / 4096, 1, gfxq::detail::worker_count(threads));
  std::vector<size_t> bound(parts + 1);
  for (size_t p = 0; p <= parts; ++p) bound[p] = v.size() * p / parts;
  parallel_for(parts, threads, [&](size_t p) { std::sort(v.begin() + bound[p], v.begin() + bound[p + 1], less); });
  std::vector<uint32_t> merged(parts > 1 ? v.size() : 0);
  for (size_t width = 1; width < parts; width *= 2) {
    parallel_for((parts + 2 * width - 1) / (2 * width), threads, [&](size_t m) {
      const size_t lo = bound[2 * width * m], mid = bound[std::min(parts, 2 * width * m + width)],
                   hi = bound[std::min(parts, 2 * width * (m + 1))];
      std::merge(v.begin() + lo, v.begin() + mid, v.begin() + mid, v.begin() + hi, merged.begin() + lo, less);
    });
    v.swap(merged);
  }
}

// The STRING column of a free-text column's pieces (piece c holds the rows from start[c]).
Column text_column(const char* name, const std::vector<TextPiece*>& pieces, const std::vector<uint64_t>& start,
                   unsigned threads) {
  const size_t rows = start.back();
  if (rows > size_t{INT32_MAX}) throw Error(ErrorCode::Internal, std::string("SSB column ") + name + ": too many rows");
  std::vector<std::string_view> views(rows);
  parallel_for(pieces.size(), threads, [&](size_t c) {
    uint32_t begin = 0;
    for (size_t k = 0; k < pieces[c]->ends.size(); ++k) {
      const uint32_t end = pieces[c]->ends[k];
      views[start[c] + k] = std::string_view(pieces[c]->bytes).substr(begin, end - begin);
      begin = end;
    }
  });
  std::vector<int32_t> codes(rows);
  std::atomic<bool> ascending{true};
  parallel_for(pieces_of(rows), threads, [&](size_t p) {
    for (size_t r = std::max<size_t>(1, p * kPieceRows); r < std::min(rows, (p + 1) * kPieceRows); ++r)
      if (!(views[r - 1] < views[r])) {
        ascending = false;
        return;
      }
  });
  std::shared_ptr<const Dictionary> dictionary;
  if (ascending) {
    std::iota(codes.begin(), codes.end(), 0);
    dictionary = dictionary_of(views);
  } else {
    std::vector<uint32_t> order(rows);
    std::iota(order.begin(), order.end(), 0u);
    parallel_sort(
        order, [&](uint32_t a, uint32_t b) { return views[a] < views[b]; }, threads);
    std::vector<std::string_view> distinct;
    for (uint32_t r : order) {
      if (distinct.empty() || distinct.back() != views[r]) distinct.push_back(views[r]);
      codes[r] = static_cast<int32_t>(distinct.size() - 1);
    }
    dictionary = dictionary_of(distinct);
  }
  Column column;
  column.name = name;
  column.type = Type::String;
  column.data = std::move(codes);
  column.dictionary = std::move(dictionary);
  return column;
}

Table make_table(const TableDef& def, const std::vector<bool>& keep, const Plan& plan, uint64_t chunk_units,
                 unsigned threads) {
  const uint64_t units = def.units(plan);
  const uint64_t chunks = (units + chunk_units - 1) / chunk_units;
  // Each chunk's first row: lineorder's chunks count their orders' lines.
  const bool orders = &def == &table_defs()[0];
  std::vector<uint64_t> start(chunks + 1);
  parallel_for(chunks, threads, [&](size_t c) {
    const uint64_t first = c * chunk_units, end = std::min(units, first + chunk_units);
    start[c + 1] = orders ? count_lines(plan, first, end) : end - first;
  });
  std::partial_sum(start.begin(), start.end(), start.begin());
  const uint64_t rows = start.back();
  check_host_bytes(rows, 4 * static_cast<uint64_t>(std::count(keep.begin(), keep.end(), true)), 0,
                   std::string("the SSB table ") + def.name);

  std::vector<std::vector<int32_t>> values(def.columns.size());
  std::vector<Target> targets;
  size_t texts = 0;
  for (size_t k = 0; k < def.columns.size(); ++k) {
    if (!keep[k]) continue;
    const ColumnDef& column = def.columns[k];
    if (column.kind == ColumnKind::Text) {
      targets.push_back({k, column.kind, nullptr, nullptr, texts++});
    } else {
      resize_parallel(values[k], rows, threads);
      targets.push_back({k, column.kind, values[k].data(),
                         column.kind == ColumnKind::Domain ? column.domain->rank.data() : nullptr, 0});
    }
  }
  std::vector<TextPiece> pieces(chunks * texts);
  parallel_for(chunks, threads, [&](size_t c) {
    FillRows fill{&targets, pieces.data() + c * texts, start[c]};
    const uint64_t first = c * chunk_units;
    def.rows(plan, first, std::min(chunk_units, units - first), RowSink{&fill, fill_row});
  });

  Table table;
  for (const Target& t : targets) {
    const ColumnDef& def_column = def.columns[t.cell];
    if (t.kind == ColumnKind::Text) {
      std::vector<TextPiece*> column_pieces(chunks);
      for (uint64_t c = 0; c < chunks; ++c) column_pieces[c] = &pieces[c * texts + t.text];
      table.columns.push_back(text_column(def_column.name, column_pieces, start, threads));
      continue;
    }
    Column column;
    column.name = def_column.name;
    if (t.kind == ColumnKind::Domain) {
      column.type = Type::String;
      column.dictionary = code_domain(values[t.cell], *def_column.domain, threads);
    }
    column.data = std::move(values[t.cell]);
    table.columns.push_back(std::move(column));
  }
  return table;
}

}  // namespace

}  // namespace gfxq::detail::ssb

namespace gfxq {

std::vector<std::pair<std::string, Table>> generate_ssb_tables(const SsbOptions& options) {
  using namespace detail::ssb;
  const Plan plan = make_plan(options);
  const unsigned threads = worker_count(options);
  const std::vector<std::vector<bool>> keep = selected_columns(options);
  const auto& defs = table_defs();
  std::vector<std::pair<std::string, Table>> tables;
  for (size_t t = 0; t < defs.size(); ++t)
    if (std::find(keep[t].begin(), keep[t].end(), true) != keep[t].end())
      tables.emplace_back(
          defs[t].name,
          make_table(defs[t], keep[t], plan, options.chunk_rows ? options.chunk_rows : defs[t].default_chunk, threads));
  return tables;
}

}  // namespace gfxq
