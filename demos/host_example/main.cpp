// A host program using the gfxq library API: first a query spec built in C++ (a CNF selection and
// aggregates) run by an Engine, then a gfxq::Database (tables and one engine together) answering SQL
// twice, the second time from the columns left resident on the GPU. Prints results and reports.
#include <gfxq/gfxq.h>

#include <algorithm>
#include <iostream>

int main() {
  try {
    // A generated table: a uniform INT column and a FLOAT column.
    gfxq::Catalog catalog;
    catalog.add("t", gfxq::generate_table({{"a", gfxq::Type::Int32, gfxq::Distribution::Uniform, 0, 999},
                                           {"x", gfxq::Type::Float32, gfxq::Distribution::Uniform, 0, 1}},
                                          10000, /*seed=*/7));

    // WHERE (a >= 100 OR x < 0.5) AND (a < 900)
    gfxq::Cnf where;
    where.clauses.push_back({{{{"", "a"}, gfxq::CmpOp::Ge, 100.0}, {{"", "x"}, gfxq::CmpOp::Lt, 0.5}}});
    where.clauses.push_back({{{{"", "a"}, gfxq::CmpOp::Lt, 900.0}}});

    gfxq::Query query;
    query.table = "t";
    query.where = where;
    query.items = {gfxq::Aggregate{gfxq::AggKind::Count}, gfxq::Aggregate{gfxq::AggKind::Sum, gfxq::ColumnRef{"", "a"}},
                   gfxq::Aggregate{gfxq::AggKind::Median, gfxq::ColumnRef{"", "x"}}};

    gfxq::Engine engine;
    gfxq::Result result = engine.execute(query, catalog, gfxq::Backend::Auto);
    std::cout << query.text() << "\n";
    gfxq::write_csv(std::cout, result.table, /*typed_header=*/false);
    std::cout << result.report.text();

    // The COUNT must agree with a direct count over the table.
    const auto& a = catalog.get("t").column("a").as<int32_t>();
    const auto& x = catalog.get("t").column("x").as<float>();
    int64_t expected = 0;
    for (size_t i = 0; i < a.size(); ++i) expected += (a[i] >= 100 || x[i] < 0.5f) && a[i] < 900;
    const int64_t got = result.table.columns[0].as<int64_t>()[0];
    if (got != expected) {
      std::cerr << "COUNT mismatch: " << got << " != " << expected << "\n";
      return 1;
    }

    // A database keeps its tables' columns on the GPU between queries: the second run of the same
    // SQL reads them resident (no "upload" pass in its report) where a compute device exists.
    gfxq::Database db;
    db.add("t", catalog.get("t"));
    const std::string sql =
        "SELECT a / 100 AS hundreds, COUNT(*) AS n, SUM(a) AS total FROM t WHERE x < 0.5 "
        "GROUP BY a / 100 ORDER BY hundreds";
    const gfxq::Result first = db.sql(sql);
    const gfxq::Result second = db.sql(sql);
    std::cout << "\n" << sql << "\n";
    gfxq::write_csv(std::cout, second.table, /*typed_header=*/false);
    const auto uploads = [](const gfxq::Result& r) {
      return std::count_if(r.report.passes.begin(), r.report.passes.end(),
                           [](const gfxq::PassRecord& p) { return p.kind == "upload"; });
    };
    std::cout << "uploads: first run " << uploads(first) << ", second run " << uploads(second) << "\n";
    if (second.table.rows() != 10 || uploads(second) > uploads(first)) {
      std::cerr << "database: unexpected second run (" << second.table.rows() << " groups)\n";
      return 1;
    }
    return 0;
  } catch (const gfxq::Error& e) {
    std::cerr << gfxq::to_string(e.code()) << ": " << e.what() << "\n";
    return 1;
  }
}
