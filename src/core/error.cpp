#include "gfxq/error.h"

#include <cstdio>

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

std::string excerpt(std::string_view text, size_t max_bytes) {
  size_t keep = text.size();
  if (keep > max_bytes) {
    keep = max_bytes;
    // Do not cut a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
  }
  std::string out;
  out.reserve(keep + 32);
  for (size_t i = 0; i < keep; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  if (keep < text.size()) out.append("... (").append(std::to_string(text.size())).append(" bytes)");
  return out;
}

}  // namespace gfxq
