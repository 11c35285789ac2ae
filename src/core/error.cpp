#include "gfxq/error.h"

namespace gfxq {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidQuery: return "InvalidQuery";
    case ErrorCode::InvalidInput: return "InvalidInput";
    case ErrorCode::Unsupported: return "Unsupported";
    case ErrorCode::OutOfDeviceMemory: return "OutOfDeviceMemory";
    case ErrorCode::ResultTooLarge: return "ResultTooLarge";
    case ErrorCode::Overflow: return "Overflow";
    case ErrorCode::DeviceLost: return "DeviceLost";
    case ErrorCode::Timeout: return "Timeout";
    case ErrorCode::Io: return "Io";
    case ErrorCode::Internal: return "Internal";
  }
  return "Unknown";
}

}  // namespace gfxq
