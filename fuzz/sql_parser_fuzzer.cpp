// libFuzzer target: the SQL parser. Any input must either parse or throw gfxq::Error (never crash,
// hang, overflow the stack, or throw anything else); a parsed query's canonical text
// (Query::text()) must parse back to the same query.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gfxq/error.h"
#include "gfxq/sql.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gfxq::Query query;
  try {
    query = gfxq::sql::parse(text);
  } catch (const gfxq::Error&) {
    return 0;  // a typed error is the expected answer to a bad query
  }
  const std::string canonical = query.text();
  try {
    if (gfxq::sql::parse(canonical) == query) return 0;
    std::fprintf(stderr, "canonical text parses to another query: %s\n", canonical.c_str());
  } catch (const gfxq::Error& e) {
    std::fprintf(stderr, "canonical text does not parse: %s\n  %s\n", canonical.c_str(), e.what());
  }
  std::abort();
}
