#pragma once
//! \file binder.h
//! The binder: a statement's syntax tree (or a Query spec) and a catalog in, the logical plan out.
//!
//! FROM tables and the conditions of WHERE and every `JOIN ... ON` are planned together: conditions
//! on one table become Filters over its Scan; the tables are joined left-deep from the first FROM
//! table (with three tables or more, from the largest: a star schema's fact table), next the first table (in FROM
//! order) that conditions connect to those joined and that has conditions of its own, else the first connected one (a
//! table that none connects waits; a product comes last); `*` still lists the columns in FROM order; equalities of two
//! columns become the join's keys, `r.b BETWEEN l.a - d AND l.a + d` (or the pair of comparisons) its band, the rest
//! its residual. Then GROUP BY / aggregates, HAVING, the select list, DISTINCT, ORDER BY and LIMIT; only the columns
//! some node reads are scanned.

#include <memory>

#include "gfxq/query.h"
#include "gfxq/table.h"
#include "plan/logical.h"
#include "sql/ast.h"

namespace gfxq::plan {

//! The logical plan of `query` over `catalog`. Error(InvalidQuery) saying what is wrong and where
//! ("at 1:8: unknown column 'x' in WHERE (tables: t has a, b)").
std::unique_ptr<Node> bind(const sql::ast::Query& query, const Catalog& catalog);

//! The syntax tree of a Query spec, so that specs and SQL share one binder. Literals keep their
//! exact values (QUANTILE's q as the shortest decimal that reads back to it).
sql::ast::Query to_ast(const Query& query);

}  // namespace gfxq::plan
