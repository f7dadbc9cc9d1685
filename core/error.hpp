#pragma once
// Error types shared by every component. Input problems carry the file and line they were found
// at so that apps can print one precise message and exit non-zero.
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fk {

// Any failure inside factorkit that is not a bad input file (bad option, CUDA failure, ...).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A problem with an input file: what() reads "FILE:LINE: message" (LINE omitted when 0).
class InputError : public Error {
 public:
  InputError(const std::string& file, std::int64_t line, const std::string& message)
      : Error(format(file, line, message)), file_(file), line_(line) {}
  const std::string& file() const { return file_; }
  std::int64_t line() const { return line_; }

 private:
  static std::string format(const std::string& file, std::int64_t line, const std::string& msg) {
    std::ostringstream os;
    os << file;
    if (line > 0) os << ':' << line;
    os << ": " << msg;
    return os.str();
  }
  std::string file_;
  std::int64_t line_;
};

namespace detail {
[[noreturn]] inline void throw_check_failure(const char* cond, const char* file, int line,
                                             const std::string& msg) {
  std::ostringstream os;
  os << msg << " [check '" << cond << "' failed at " << file << ':' << line << ']';
  throw Error(os.str());
}
}  // namespace detail

}  // namespace fk

// FK_REQUIRE(cond, message-stream-expression): throws fk::Error(message) when cond is false. For
// what a user passed (generator specs, option values): the message says all they need, so it
// carries no condition or source location.
#define FK_REQUIRE(cond, msg)                  \
  do {                                         \
    if (!(cond)) {                             \
      std::ostringstream fk_require_os_;       \
      fk_require_os_ << msg;                   \
      throw ::fk::Error(fk_require_os_.str()); \
    }                                          \
  } while (0)

// FK_CHECK(cond, message-stream-expression): throws fk::Error when cond is false; the message
// names the condition and where it failed (an internal invariant, or input a caller checks).
#define FK_CHECK(cond, msg)                                                        \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::ostringstream fk_check_os_;                                             \
      fk_check_os_ << msg;                                                         \
      ::fk::detail::throw_check_failure(#cond, __FILE__, __LINE__, fk_check_os_.str()); \
    }                                                                              \
  } while (0)
