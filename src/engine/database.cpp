#include "gfxq/database.h"

#include "gfxq/column_file.h"

namespace gfxq {

Database::Database(EngineOptions options) : engine_(std::move(options)) {}

void Database::add(std::string name, Table table) {
  catalog_.add(std::move(name), std::move(table));
}

void Database::load(std::string name, const std::string& path) {
  add(std::move(name), read_table_file(path));
}

void Database::drop(std::string_view name) {
  catalog_.remove(name);
}

Result Database::sql(std::string_view sql, Backend backend) {
  return engine_.execute_sql(sql, catalog_, backend);
}

PreparedStatement Database::prepare(std::string_view sql, Backend backend) {
  return engine_.prepare(sql, catalog_, backend);
}

Result Database::run(PreparedStatement& statement) {
  return engine_.execute(statement, catalog_);
}

Result Database::execute(const Query& query, Backend backend) {
  return engine_.execute(query, catalog_, backend);
}

ExecutionReport Database::explain(std::string_view sql, Backend backend) {
  return engine_.explain_sql(sql, catalog_, backend);
}

}  // namespace gfxq
