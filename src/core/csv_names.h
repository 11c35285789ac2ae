#pragma once
// The header-name rule the CSV reader and writer share: which names stand bare (unquoted).

#include <string_view>

namespace gfxq::detail {

//! A name read and written unquoted in a CSV header: a letter or '_', then letters, digits, '_'
//! and the characters of result names ('.', '(', ')', '*'): `a`, `r.a`, `SUM(a)`, `COUNT(*)`.
inline bool is_bare_csv_name(std::string_view s) noexcept {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (s.empty() || !letter(s.front())) return false;
  for (char c : s)
    if (!(letter(c) || (c >= '0' && c <= '9') || c == '.' || c == '(' || c == ')' || c == '*')) return false;
  return true;
}

}  // namespace gfxq::detail
