#include "sql/lexer.h"

#include <algorithm>
#include <cstdio>

#include "gfxq/error.h"
#include "gfxq/sql.h"

namespace gfxq::sql {

namespace {

// Reserved words: never identifiers. Function names (COUNT, SUM, ...) are not reserved.
constexpr std::string_view kKeywords[] = {"SELECT", "FROM", "INNER", "JOIN",  "ON",  "WHERE", "GROUP", "BY",
                                          "ORDER",  "ASC",  "DESC",  "LIMIT", "AND", "OR",    "NOT",   "BETWEEN"};

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
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    Position end_pos;
    for (skip_space(); i_ < text_.size(); skip_space()) {
      tokens.push_back(next());
      end_pos = pos_;  // just past the token
    }
    tokens.push_back({TokenKind::End, {}, end_pos});
    return tokens;
  }

 private:
  void skip_space() {
    while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\r' || text_[i_] == '\n'))
      advance(1);
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
      case '=': return make(TokenKind::Eq, 1);
      case '<':
        if (at(1) == '=') return make(TokenKind::Le, 2);
        if (at(1) == '>') return make(TokenKind::Ne, 2);
        return make(TokenKind::Lt, 1);
      case '>': return at(1) == '=' ? make(TokenKind::Ge, 2) : make(TokenKind::Gt, 1);
      case '!':
        if (at(1) == '=') return make(TokenKind::Ne, 2);
        break;
      case '\'':
      case '"': fail(pos_, std::string("unexpected character '") + c + "' (string literals are not supported)");
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
    const std::string_view w = text_.substr(i_, n);
    const bool keyword =
        std::any_of(std::begin(kKeywords), std::end(kKeywords), [&](std::string_view k) { return iequals(w, k); });
    return make(keyword ? TokenKind::Keyword : TokenKind::Identifier, n);
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

std::vector<Token> tokenize(std::string_view text) {
  return Lexer(text).run();
}

bool is_identifier(std::string_view name) noexcept {
  if (name.empty() || !is_ident_start(name.front())) return false;
  if (!std::all_of(name.begin(), name.end(), is_ident_char)) return false;
  return std::none_of(std::begin(kKeywords), std::end(kKeywords), [&](std::string_view k) { return iequals(name, k); });
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
  std::string quoted = "'";
  return quoted.append(excerpt(token.text)).append("'");
}

void fail(Position pos, const std::string& what) {
  throw Error(ErrorCode::InvalidQuery,
              "at " + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + what);
}

}  // namespace gfxq::sql
