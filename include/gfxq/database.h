#pragma once
//! \file database.h
//! A database: named tables and the engine that queries them, kept together so that the tables'
//! columns stay resident on the GPU from one query to the next (EngineOptions::resident_bytes).

#include <string>
#include <string_view>

#include "gfxq/engine.h"
#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/table.h"

namespace gfxq {

//! Named tables and one Engine over them. The first query that reads a column on the compute
//! backend uploads it; later queries find it resident (their reports show "resident" passes, no
//! "upload"). A replaced table's old columns leave the device when a query next reads that table;
//! a dropped table's leave by least-recently-used eviction. Not thread-safe, like Engine; after an
//! Error the database is unchanged and usable.
class Database {
 public:
  //! An empty database whose engine has `options`; starts no GPU context yet.
  explicit Database(EngineOptions options = {});

  //! Adds table `name`, or replaces it (the next query uploads its columns). Error(InvalidInput) for an
  //! empty name or a malformed table, with the database unchanged.
  void add(std::string name, Table table);
  //! Loads `path` (.csv, docs/SQL.md "CSV", or .gfxq, docs/FORMATS.md) as table `name`.
  void load(std::string name, const std::string& path);
  //! Removes table `name`; Error(InvalidQuery) if there is none.
  void drop(std::string_view name);
  //! The tables.
  const Catalog& catalog() const noexcept { return catalog_; }

  //! Runs `sql` (docs/SQL.md) on `backend` (Engine::execute_sql).
  Result sql(std::string_view sql, Backend backend = Backend::Auto);
  //! Runs a query spec on `backend` (Engine::execute).
  Result execute(const Query& query, Backend backend = Backend::Auto);
  //! `sql` parsed, bound and placed once for run() (Engine::prepare).
  PreparedStatement prepare(std::string_view sql, Backend backend = Backend::Auto);
  //! Runs a prepared statement (Engine::execute): prepared again first when a table it reads was
  //! replaced since.
  Result run(PreparedStatement& statement);
  //! The placed plan of `sql`, run nothing (Engine::explain_sql).
  ExecutionReport explain(std::string_view sql, Backend backend = Backend::Auto);
  //! The engine (capability records, say).
  Engine& engine() noexcept { return engine_; }

 private:
  Catalog catalog_;
  Engine engine_;
};

}  // namespace gfxq
