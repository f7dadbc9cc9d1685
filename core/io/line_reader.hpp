#pragma once
// Streams a text file line by line, plain or gzip-compressed (detected from the magic bytes, not
// the name), keeping the 1-based line number for error messages. Memory use is one line (capped by
// max_line_length()) plus two 1 MiB buffers, whatever the file size. Opening a directory or a
// missing file, a read error, or a truncated/corrupt gzip stream (including a CRC mismatch and
// non-gzip bytes after the last member) throws fk::InputError with the path and line. A file of
// 256 MiB or more logs how far it is every 5 s (log_info: silent under -q).
// Concatenated gzip members (as `cat a.gz b.gz` makes) read as one stream. A UTF-8 byte order
// mark at the start of the data is skipped (it is not part of the first line's first token).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fk::io {

// True when `path` is a regular file (after symlinks), which can be opened and read again; a
// pipe, FIFO or device (/dev/stdin, <(...)) gives its bytes once. Readers that look at a file
// twice (format detection, then parsing; naming the line of a duplicate on the error path) ask
// this first.
bool rereadable(const std::string& path);

class LineReader {
 public:
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into `line` (without the trailing '\n' or "\r\n"). False at end of file.
  // A file that ends without a final newline still yields its last line; a final "\n" does not
  // yield an extra empty line. A line longer than max_line_length() is an InputError.
  bool next(std::string& line);

  // For lines that may be huge (DLMC .smtx stores all column indices on one line): hands the next
  // line over in pieces of at most `max_bytes` bytes. `part` receives the piece; `line_end` is set
  // when the piece ends the line (the newline itself is not included). The first piece of a line
  // advances line_number(). False at end of file (only when asked for a new line). Pieces may cut
  // a token in two; the caller carries it over. Not limited by max_line_length().
  bool next_part(std::string& part, std::size_t max_bytes, bool& line_end);

  // Longest line next() accepts (default 64 MiB): a binary file without newlines fails quickly
  // instead of growing one line to the size of the file.
  void set_max_line_length(std::size_t bytes) { max_line_ = bytes; }
  std::size_t max_line_length() const { return max_line_; }

  std::int64_t line_number() const { return line_no_; }
  const std::string& path() const { return path_; }
  // Size of the file on disk in bytes (the compressed size for gzip).
  std::int64_t file_size() const { return file_size_; }
  // Bytes of text read so far (decompressed for gzip); once next() has returned false, the size
  // of the whole text, which a gzip file's header cannot be checked against while it is read.
  std::int64_t text_bytes() const { return text_bytes_; }
  bool gzipped() const;

  // Throws InputError("path:line: message") at the current line.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  struct Impl;
  bool fill();  // makes decoded bytes available; false at the clean end of the data
  // A log line every few seconds while a large file (256 MiB and up) is read.
  void report_progress();
  void skip_bom();  // at line 1: steps over a UTF-8 byte order mark
  // For next() and next_part() at a line's start: counts the line and makes its first bytes
  // available (stepping over a byte order mark at line 1); false, the count undone, at the end.
  bool start_line();
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::int64_t line_no_ = 0;
  std::int64_t file_size_ = 0;
  std::int64_t text_bytes_ = 0;
  std::size_t max_line_ = std::size_t{64} << 20;
  bool mid_line_ = false;  // next_part() stopped inside a line
};

}  // namespace fk::io
