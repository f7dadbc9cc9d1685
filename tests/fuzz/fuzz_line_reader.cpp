// Fuzzes LineReader (plain and gzip, byte order marks, CRLF): whole lines with next() under a small
// max_line_length(), and pieces with next_part(), taking turns line by line. The first byte sets
// the line length limit, the second the piece size; the rest is the file. When the first byte's
// top bit is set, the rest is gzip-compressed first (the fuzzer rarely makes a valid stream
// itself), and the second byte's top bits cut the stream short or add bytes after it.
#include <zlib.h>

#include "core/io/line_reader.hpp"
#include "fuzz_util.hpp"

namespace {
std::string gzip(const std::uint8_t* data, std::size_t size) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    fk::fuzz::finding("deflateInit2 failed");
  std::string out(deflateBound(&zs, static_cast<uLong>(size)) + 64, '\0');
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(size);
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) fk::fuzz::finding("deflate failed");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  if (size < 2) return 0;
  const std::size_t max_line = 1 + data[0] % 128;
  const std::size_t piece = data[1] % 16;  // 0 asks for pieces of 1 byte
  std::string path;
  if (data[0] & 0x80) {
    std::string gz = gzip(data + 2, size - 2);
    switch (data[1] >> 6) {
      case 1:  // truncated
        gz.resize(gz.size() - 1 - (data[1] >> 4 & 3) * gz.size() / 4);
        break;
      case 2:  // zero padding, which gzip(1) accepts
        gz.append(1 + (data[1] >> 4 & 3), '\0');
        break;
      case 3:  // a second member, then a byte that starts no member
        gz += gzip(data + 2, (size - 2) / 2) + (data[1] & 0x20 ? "\x1f" : "");
        break;
    }
    path = fuzz::write_file("input.txt.gz", gz.data(), gz.size());
  } else {
    path = fuzz::write_file("input.txt", data + 2, size - 2);
  }
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
