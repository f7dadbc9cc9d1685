#include "core/io/standard_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/error.hpp"

namespace fk::io {
namespace {

int g_first_error = 0;  // errno of the first failed write through the watch; 0: none, or unknown

// Passes everything on to std::cout's own buffer (stdio's, unbuffered on this side), noting the
// errno of the first write or flush that fails.
class FirstErrorBuf : public std::streambuf {
 public:
  explicit FirstErrorBuf(std::streambuf* inner) : inner_(inner) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const int before = start();
    const int_type r = inner_->sputc(traits_type::to_char_type(c));
    settle(traits_type::eq_int_type(r, traits_type::eof()), before);
    return r;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const int before = start();
    const std::streamsize done = inner_->sputn(s, n);
    settle(done != n, before);
    return done;
  }
  int sync() override {
    const int before = start();
    const int r = inner_->pubsync();
    settle(r != 0, before);
    return r;
  }

 private:
  // errno is cleared around each write, so that a failure that sets none is not given an older
  // call's cause; the caller's errno is put back when the write succeeds.
  static int start() {
    const int before = errno;
    errno = 0;
    return before;
  }
  static void settle(bool failed, int before) {
    if (failed && g_first_error == 0) g_first_error = errno;
    if (!failed) errno = before;
  }
  std::streambuf* inner_;
};

}  // namespace

StandardOutputWatch::StandardOutputWatch()
    : before_(std::cout.rdbuf()), watch_(std::make_unique<FirstErrorBuf>(before_)) {
  g_first_error = 0;
  std::cout.rdbuf(watch_.get());
}

StandardOutputWatch::~StandardOutputWatch() { std::cout.rdbuf(before_); }

void flush_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_error = flushed ? 0 : errno;
  if (std::cout && flushed && !std::ferror(stdout)) return;
  const int cause = g_first_error != 0 ? g_first_error : flush_error;
  throw Error(std::string("cannot write the standard output") +
              (cause ? std::string(" (") + std::strerror(cause) + ")" : std::string()));
}

}  // namespace fk::io
