#pragma once
// Small helpers for the text of pass records (gfxq/result.h): host wall times and key values.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace gfxq {

//! Milliseconds of host wall time since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

//! `v` as eight hex digits, e.g. "0x8000270f".
inline std::string hex8(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace gfxq
