#pragma once
// Streams a text file line by line, plain or gzip-compressed (detected from the magic bytes, not
// the name), keeping the 1-based line number for error messages. Memory use is one line, whatever
// the file size. Opening a directory, a missing file, or reading a truncated/corrupt gzip stream
// throws fk::InputError with the path (and line).
#include <cstdint>
#include <memory>
#include <string>

namespace fk::io {

class LineReader {
 public:
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into `line` (without the trailing '\n' or "\r\n"). False at end of file.
  bool next(std::string& line);
  std::int64_t line_number() const { return line_no_; }
  const std::string& path() const { return path_; }
  // Throws InputError("path:line: message") at the current line.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::int64_t line_no_ = 0;
};

}  // namespace fk::io
