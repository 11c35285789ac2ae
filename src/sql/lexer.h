#pragma once
//! \file lexer.h
//! Tokens of the SQL language, with the positions error messages report. Whitespace, `-- line`
//! comments and `/* block */` comments separate tokens.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gfxq::sql {

//! A 1-based line and column (counted in bytes) in the query text.
struct Position {
  size_t line = 1;    //!< line, from 1
  size_t column = 1;  //!< column, from 1
};

//! What a token is.
enum class TokenKind {
  Identifier,  //!< [A-Za-z_][A-Za-z0-9_]* that is not a keyword
  Keyword,     //!< a reserved word (SELECT, FROM, AND, ...), any case
  Number,      //!< unsigned numeric literal: 12, 1.5, .5, 2e-3
  String,      //!< 'text' with '' for a quote inside; `text` holds the quotes (see string_value)
  Star,        //!< *
  Comma,       //!< ,
  Dot,         //!< .
  LParen,      //!< (
  RParen,      //!< )
  Semicolon,   //!< ;
  Plus,        //!< +
  Minus,       //!< -
  Slash,       //!< /
  Lt,          //!< <
  Le,          //!< <=
  Gt,          //!< >
  Ge,          //!< >=
  Eq,          //!< =
  Ne,          //!< <> or !=
  End,         //!< end of the query text
};

//! One token.
struct Token {
  TokenKind kind = TokenKind::End;  //!< what it is
  std::string_view text;            //!< its text as written (empty for End)
  Position pos;                     //!< where it starts (End: just past the last token)
};

//! Splits `text` into tokens, the last one End. Error(InvalidQuery) at an unknown character, a
//! malformed number, a name or number longer than 256 bytes, an unterminated string or comment.
//! Positions count from `origin`: the position of text[0] in a larger script.
std::vector<Token> tokenize(std::string_view text, Position origin = {});

//! The value of a String token: the text between its quotes, with each '' read as one '.
std::string string_value(const Token& token);

//! ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b) noexcept;

//! Whether `token` is the keyword `word` (keywords match in any case).
bool is_keyword(const Token& token, std::string_view word) noexcept;

//! The token as an error message names it: its text in quotes, `string '...'` for a string
//! literal, or "end of query".
std::string describe(const Token& token);

//! Throws Error(InvalidQuery) with the message "at L:C: what".
[[noreturn]] void fail(Position pos, const std::string& what);

}  // namespace gfxq::sql
