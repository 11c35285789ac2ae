#pragma once
// The two runners of the differential checker: through an Engine (every backend), or straight into
// the CPU reference engine (host-only builds: the sanitizer build has no GPU code).

#include "differential/check.h"
#include "gfxq/cpu.h"
#include "gfxq/sql.h"

namespace gfxq::differential {

//! Runs queries through an Engine.
class EngineRunner final : public Runner {
 public:
  //! Uses `engine` (not owned).
  explicit EngineRunner(Engine& engine) : engine_(engine) {}
  Table run(const std::string& sql, const Catalog& catalog, Backend backend) override {
    return engine_.execute_sql(sql, catalog, backend).table;
  }
  std::vector<std::string> take_debug_messages() override { return engine_.take_debug_messages(); }

 private:
  Engine& engine_;
};

//! Runs queries on the CPU reference engine only (sql::parse, then cpu::execute).
class CpuRunner final : public Runner {
 public:
  Table run(const std::string& sql, const Catalog& catalog, Backend backend) override {
    if (backend != Backend::Cpu) throw Error(ErrorCode::Unsupported, "CpuRunner runs the CPU engine only");
    return cpu::execute(sql::parse(sql), catalog).table;
  }
};

}  // namespace gfxq::differential
