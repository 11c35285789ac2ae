#include "sql/lexer.h"

#include <algorithm>
#include <cstdio>

#include "gfxq/error.h"
#include "gfxq/sql.h"

namespace gfxq::sql {

namespace {

// Reserved words: never identifiers. Function names (COUNT, SUM, ...), DATE (SSB has a table named
// `date`; `DATE '...'` is a literal only where a string follows) and EXTRACT's YEAR, MONTH and DAY
// are not reserved.
constexpr std::string_view kKeywords[] = {
    "SELECT",  "DISTINCT", "FROM", "AS",    "CROSS",  "INNER", "JOIN", "ON",        "WHERE",  "GROUP",  "BY", "HAVING",
    "ORDER",   "ASC",      "DESC", "LIMIT", "OFFSET", "UNION", "ALL",  "INTERSECT", "EXCEPT", "AND",    "OR", "NOT",
    "BETWEEN", "IN",       "CASE", "WHEN",  "THEN",   "ELSE",  "END",  "EXTRACT",   "NULL",   "EXPLAIN"};

bool is_reserved(std::string_view word) {
  return std::any_of(std::begin(kKeywords), std::end(kKeywords), [&](std::string_view k) { return iequals(word, k); });
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
char to_upper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

//! The longest identifier or number token.
constexpr size_t kMaxTokenBytes = 256;

class Lexer {
 public:
  Lexer(std::string_view text, Position origin) : text_(text), pos_(origin) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    Position end_pos = pos_;
    for (skip_space(); i_ < text_.size(); skip_space()) {
      tokens.push_back(next());
      end_pos = pos_;  // just past the token
    }
    tokens.push_back({TokenKind::End, {}, end_pos});
    return tokens;
  }

 private:
  // Skips blanks, `-- ...` to the end of the line and `/* ... */` (which does not nest).
  void skip_space() {
    while (i_ < text_.size()) {
      const char c = at(0);
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        advance(1);
      } else if (c == '-' && at(1) == '-') {
        const size_t end = text_.find('\n', i_);
        advance((end == std::string_view::npos ? text_.size() : end) - i_);
      } else if (c == '/' && at(1) == '*') {
        const size_t end = text_.find("*/", i_ + 2);
        if (end == std::string_view::npos) fail(pos_, "unterminated comment ('/*' without '*/')");
        advance(end + 2 - i_);
      } else {
        return;
      }
    }
  }

  void advance(size_t n) {
    for (; n > 0; --n, ++i_) {
      if (text_[i_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
    }
  }

  char at(size_t offset) const { return i_ + offset < text_.size() ? text_[i_ + offset] : '\0'; }

  Token make(TokenKind kind, size_t length) {
    // Every token an error message may quote is bounded (a 10 MB name is not a query).
    if (length > kMaxTokenBytes)
      fail(pos_, std::string(kind == TokenKind::Number ? "number" : "name") + " '" + excerpt(text_.substr(i_, length)) +
                     "' is longer than " + std::to_string(kMaxTokenBytes) + " bytes");
    Token t{kind, text_.substr(i_, length), pos_};
    advance(length);
    return t;
  }

  Token next() {
    const char c = at(0);
    if (is_ident_start(c)) return word();
    if (c == '\'') return string();
    if (is_digit(c) || (c == '.' && is_digit(at(1)))) return number();
    switch (c) {
      case '*': return make(TokenKind::Star, 1);
      case ',': return make(TokenKind::Comma, 1);
      case '.': return make(TokenKind::Dot, 1);
      case '(': return make(TokenKind::LParen, 1);
      case ')': return make(TokenKind::RParen, 1);
      case ';': return make(TokenKind::Semicolon, 1);
      case '+': return make(TokenKind::Plus, 1);
      case '-': return make(TokenKind::Minus, 1);
      case '/': return make(TokenKind::Slash, 1);
      case '=': return make(TokenKind::Eq, 1);
      case '<':
        if (at(1) == '=') return make(TokenKind::Le, 2);
        if (at(1) == '>') return make(TokenKind::Ne, 2);
        return make(TokenKind::Lt, 1);
      case '>': return at(1) == '=' ? make(TokenKind::Ge, 2) : make(TokenKind::Gt, 1);
      case '!':
        if (at(1) == '=') return make(TokenKind::Ne, 2);
        break;
      case '"':
        fail(pos_, "unexpected character '\"' (quoted names are not supported; string literals take single quotes)");
      default: break;
    }
    if (c > ' ' && c < 0x7f) fail(pos_, std::string("unexpected character '") + c + "'");
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(c));
    fail(pos_, std::string("unexpected character ") + hex);
  }

  Token word() {
    size_t n = 1;
    while (is_ident_char(at(n))) ++n;
    return make(is_reserved(text_.substr(i_, n)) ? TokenKind::Keyword : TokenKind::Identifier, n);
  }

  // '...' with '' for a quote inside; any bytes (UTF-8, newlines) between the quotes. Not bounded
  // like names: messages quote strings through excerpt().
  Token string() {
    size_t n = 1;
    for (;;) {
      if (i_ + n >= text_.size()) fail(pos_, "unterminated string literal (no closing quote)");
      if (at(n) == '\'') {
        if (at(n + 1) != '\'') break;
        ++n;
      }
      ++n;
    }
    Token t{TokenKind::String, text_.substr(i_, n + 1), pos_};
    advance(n + 1);
    return t;
  }

  // digits [. digits] [e [+-] digits]  or  . digits [e [+-] digits]
  Token number() {
    size_t n = 0;
    while (is_digit(at(n))) ++n;
    if (at(n) == '.') {
      ++n;
      while (is_digit(at(n))) ++n;
    }
    if (at(n) == 'e' || at(n) == 'E') {
      size_t m = n + 1;
      if (at(m) == '+' || at(m) == '-') ++m;
      if (is_digit(at(m))) {
        while (is_digit(at(m))) ++m;
        n = m;
      }
    }
    // A letter, digit or dot right after the literal (12abc, 1e, 1.2.3) makes it malformed.
    if (is_ident_char(at(n)) || at(n) == '.') {
      while (is_ident_char(at(n)) || at(n) == '.') ++n;
      fail(pos_, "malformed number '" + excerpt(text_.substr(i_, n)) + "'");
    }
    return make(TokenKind::Number, n);
  }

  std::string_view text_;
  size_t i_ = 0;
  Position pos_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, Position origin) {
  return Lexer(text, origin).run();
}

std::string string_value(const Token& token) {
  std::string value;
  const std::string_view inner = token.text.substr(1, token.text.size() - 2);
  value.reserve(inner.size());
  for (size_t i = 0; i < inner.size(); ++i) {
    value += inner[i];
    if (inner[i] == '\'') ++i;  // '' is one quote
  }
  return value;
}

bool is_identifier(std::string_view name) noexcept {
  if (name.empty() || !is_ident_start(name.front())) return false;
  if (!std::all_of(name.begin(), name.end(), is_ident_char)) return false;
  return !is_reserved(name);
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return to_upper(x) == to_upper(y); });
}

bool is_keyword(const Token& token, std::string_view word) noexcept {
  return token.kind == TokenKind::Keyword && iequals(token.text, word);
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::End) return "end of query";
  std::string s = token.kind == TokenKind::String ? "string " : "'";
  s += excerpt(token.text);
  if (token.kind != TokenKind::String) s += '\'';
  return s;
}

void fail(Position pos, const std::string& what) {
  throw Error(ErrorCode::InvalidQuery,
              "at " + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + what);
}

}  // namespace gfxq::sql
