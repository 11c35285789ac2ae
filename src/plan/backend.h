#pragma once
// The backend interface and the table of creators (one entry per gfxq::Backend except Auto).

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gfxq/engine.h"

namespace gfxq {

//! One execution engine. execute() answers exactly or throws Error(Unsupported) naming the
//! operator it cannot run; it never falls back to another backend.
class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  //! Which backend this is.
  virtual Backend kind() const noexcept = 0;
  //! Runs a query; the report's backend is kind().
  virtual Result execute(const Query& query, const Catalog& catalog) = 0;
};

//! Shared state the backends reach through: options and the lazily started GPU contexts.
struct EngineState;

//! Creates the backend `b` (not Auto) over `state`.
std::unique_ptr<BackendImpl> create_backend(Backend b, EngineState& state);

//! The operators a query needs, in execution order, as users name them:
//! e.g. {"join (equi)", "selection (WHERE)", "aggregate SUM", "ORDER BY", "LIMIT"}.
std::vector<std::string> required_operators(const Query& query);

}  // namespace gfxq
