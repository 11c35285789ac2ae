// Order keys and the stable ORDER BY sort.

#include <algorithm>

#include "core/order_key.h"
#include "cpu/internal.h"
#include "gfxq/error.h"

namespace gfxq::cpu {

uint32_t order_key(const Column& column, uint64_t row) {
  switch (column.type) {
    case Type::Int32: return int_key(column.as<int32_t>()[row]);
    case Type::Float32: return float_key(column.as<float>()[row]);
    default:
      throw Error(ErrorCode::Internal,
                  "column '" + column.name + "' is " + to_string(column.type) + ", which has no 32-bit order key");
  }
}

Value value_from_key(Type type, uint32_t key) {
  switch (type) {
    case Type::Int32: return int_from_key(key);
    case Type::Float32: return float_from_key(key);
    default: throw Error(ErrorCode::Internal, std::string("no 32-bit order key for type ") + to_string(type));
  }
}

void stable_sort_rows(const Column& key, std::vector<uint64_t>& rows, bool descending) {
  // std::stable_sort keeps equal elements in their order whichever way the comparison points,
  // so DESC is stable too (it is not the reverse of ASC).
  std::stable_sort(rows.begin(), rows.end(), [&](uint64_t a, uint64_t b) {
    const uint32_t ka = order_key(key, a), kb = order_key(key, b);
    return descending ? ka > kb : ka < kb;
  });
}

}  // namespace gfxq::cpu
