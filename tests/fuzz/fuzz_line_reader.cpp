// Fuzzes LineReader (plain and gzip, byte order marks, CRLF): whole lines with next() under a small
// max_line_length(), and pieces with next_part(), taking turns line by line. The first byte sets
// the line length limit, the second the piece size; the rest is the file.
#include "core/io/line_reader.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  if (size < 2) return 0;
  const std::size_t max_line = 1 + data[0] % 128;
  const std::size_t piece = data[1] % 16;  // 0 asks for pieces of 1 byte
  const std::string path = fuzz::write_file("input.txt", data + 2, size - 2);
  fuzz::refused([&] {
    io::LineReader in(path);
    in.set_max_line_length(max_line);
    std::string line;
    bool whole = true;
    for (std::int64_t lines = 1;; ++lines, whole = !whole) {
      if (whole) {
        if (!in.next(line)) break;
        fuzz::require(line.size() <= max_line, "next() gave a line over the limit");
        fuzz::require(line.find('\n') == std::string::npos, "next() gave a newline");
      } else {
        bool end = false;
        if (!in.next_part(line, piece, end)) break;
        while (true) {
          fuzz::require(line.size() <= std::max<std::size_t>(piece, 1), "a piece over its size");
          fuzz::require(line.find('\n') == std::string::npos, "next_part() gave a newline");
          if (end) break;
          fuzz::require(in.next_part(line, piece, end), "next_part() ended inside a line");
        }
      }
      fuzz::require(in.line_number() == lines, "line_number() does not count the lines");
    }
  });
  return 0;
}
