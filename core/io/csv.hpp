#pragma once
// A small CSV writer (RFC 4180 quoting) over an AtomicFile, and the matching streaming reader.
// Records end with "\n" (readers also accept "\r\n"). A field is quoted when it holds a comma, a
// double quote, a newline or a carriage return, or starts or ends with a blank; quotes inside are
// doubled. The reader drops blanks (spaces, tabs) around a field outside its quotes, so "1, 2, 5"
// reads as 1|2|5 (as many CSV readers trim) while a quoted " 1" keeps its blank; it is line-based,
// so a "\r\n" inside a quoted field reads back as "\n".
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/atomic_file.hpp"
#include "core/io/line_reader.hpp"

namespace fk::io {

class CsvWriter {
 public:
  // Starts "<path>" (atomically) with the header row; every later row must have as many fields.
  CsvWriter(const std::string& path, const std::vector<std::string>& header);
  // Throws fk::Error when fields.size() differs from the header's.
  void row(const std::vector<std::string>& fields);
  void commit();  // renames into place; without it the file never appears

 private:
  AtomicFile file_;
  std::size_t columns_;
};

std::string csv_escape(const std::string& field);

// Splits one CSV record into fields, undoing the quoting. Returns false when a quoted field is
// still open at the end of `line` (the record continues on the next line); throws nothing.
// `ok` is set false for malformed quoting (text after a closing quote, a quote inside an unquoted
// field).
bool split_csv_record(std::string_view line, std::vector<std::string>& fields, bool& ok);

// Streams a CSV file with a header row (plain or gzip). Every record must have as many fields as
// the header; quoted fields may span lines. Errors are InputErrors with file and line.
class CsvReader {
 public:
  explicit CsvReader(const std::string& path);
  const std::vector<std::string>& header() const { return header_; }
  // Next record into `fields`; false at end of file. Blank lines are skipped.
  bool next(std::vector<std::string>& fields);
  std::int64_t line_number() const { return in_.line_number(); }

 private:
  bool read_record(std::vector<std::string>& fields);
  LineReader in_;
  std::vector<std::string> header_;
  std::string line_, record_;
};

}  // namespace fk::io
