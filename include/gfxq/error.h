#pragma once
//! \file error.h
//! The one exception type the library throws, with a machine-readable code.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gfxq {

//! What kind of failure an Error reports; callers branch on this, not on the message.
enum class ErrorCode {
  InvalidQuery,       //!< the query text or spec is wrong (syntax, unknown column, bad parameter)
  InvalidInput,       //!< input data is wrong (CSV field count, unparsable number, duplicate name)
  Unsupported,        //!< the chosen backend cannot answer this query exactly; says which operator and why
  OutOfDeviceMemory,  //!< a GPU allocation failed; the message carries the sizes involved
  ResultTooLarge,     //!< a result or intermediate would exceed a documented limit
  Overflow,           //!< an exact integer result does not fit its type (e.g. SUM over int64)
  DeviceLost,         //!< the GPU context or device was lost
  Timeout,            //!< a GPU wait ran past its limit
  Io,                 //!< a file could not be read or written
  Internal,           //!< a bug in gfxq or a driver failure it could not classify
};

//! Short stable name of a code, e.g. "InvalidQuery".
const char* to_string(ErrorCode code) noexcept;

//! `text` as an error message quotes it: control characters escaped (`\r`, `\n`, `\t`, `\x00`),
//! and past `max_bytes` cut (at a UTF-8 character boundary) and marked with its full length, e.g.
//! `abcabc... (10485760 bytes)`. Messages never repeat a whole bad field or line.
std::string excerpt(std::string_view text, size_t max_bytes = 64);

//! The typed error of gfxq. The library never calls exit() or abort(); every failure is one of these.
class Error : public std::runtime_error {
 public:
  //! An error of kind `code` with a message that says what is wrong and where.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  //! The kind of failure.
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace gfxq
