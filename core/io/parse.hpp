#pragma once
// Internal helpers shared by the text readers in core/io (not part of the public API):
// blank-separated tokenizing, strict number parsing with std::from_chars (no iostreams per token),
// plausibility checks that keep a lying header from sizing an allocation, and the duplicate search
// used after a file has been read.
#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/csr.hpp"
#include "core/io/line_reader.hpp"

namespace fk::io::detail {

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// `s` without the blanks at either end.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// True when the line holds nothing but blanks.
inline bool blank_line(std::string_view s) {
  for (char c : s)
    if (!is_blank(c)) return false;
  return true;
}

// Splits `line` at runs of blanks. Stores at most `max` tokens in `out` but keeps counting, so the
// return value is the true number of tokens (callers report "expected 3 fields, found 5").
inline std::size_t split_blanks(std::string_view line, std::string_view* out, std::size_t max) {
  std::size_t n = 0, i = 0;
  const std::size_t len = line.size();
  while (true) {
    while (i < len && is_blank(line[i])) ++i;
    if (i == len) return n;
    const std::size_t b = i;
    while (i < len && !is_blank(line[i])) ++i;
    if (n < max) out[n] = line.substr(b, i - b);
    ++n;
  }
}

// Calls f(token) for every blank-separated token of `line`.
template <typename F>
void for_each_token(std::string_view line, F&& f) {
  std::size_t i = 0;
  const std::size_t len = line.size();
  while (true) {
    while (i < len && is_blank(line[i])) ++i;
    if (i == len) return;
    const std::size_t b = i;
    while (i < len && !is_blank(line[i])) ++i;
    f(line.substr(b, i - b));
  }
}

// A token quoted for an error message, cut to a readable length.
std::string quote(std::string_view token);

// Parses the whole token as a base-10 integer (an optional leading '+' or '-'). False on anything
// else: empty, trailing junk ("12abc", "1.0"), overflow of int64.
inline bool parse_int(std::string_view tok, std::int64_t& v) {
  if (!tok.empty() && tok.front() == '+') tok.remove_prefix(1);
  if (tok.empty()) return false;
  const char* end = tok.data() + tok.size();
  auto [p, ec] = std::from_chars(tok.data(), end, v);
  return ec == std::errc() && p == end;
}

enum class NumberStatus { kOk, kNotANumber, kNotFinite, kTooLarge };

// Parses the whole token as a finite real number that fits a float (the value type of every
// matrix we build). Accepts what strtod accepts in the C locale, decimal only; "nan" and "inf"
// parse but give kNotFinite; magnitudes beyond FLT_MAX give kTooLarge; underflow rounds toward
// zero.
NumberStatus parse_real(std::string_view tok, double& v);

// "expected a number, found 'x'" / "value 'x' is not finite" / ... for a failed parse_real.
std::string describe(NumberStatus s, std::string_view tok);

// How many bytes the decoded text of `in` can hold at most: the file size for a plain file, and
// 1032x the compressed size for gzip (deflate's largest expansion ratio).
std::int64_t max_text_bytes(const LineReader& in);

// Fails (at the current line) when `count` items of at least `min_bytes` bytes each cannot fit in
// the file: a header that declares 10^12 entries in a 1 kB file is caught before any allocation.
void check_count_fits(const LineReader& in, std::int64_t count, std::int64_t min_bytes,
                      const char* what);

// A safe capacity to reserve for `count` items of at least `min_bytes` bytes each: never more than
// the file could hold (and never more than 8x its size for gzip, the growth of push_back covers the
// rare better-compressed file); for a pipe, whose size is unknown, at most 2^20.
std::size_t reserve_cap(const LineReader& in, std::int64_t count, std::int64_t min_bytes);

// Largest dimension (rows or columns) a header may declare. Dimensions are not checked by the body
// (a matrix may have empty rows), yet the CSR result allocates rows + 1 offsets and the apps
// allocate per-row and per-column factors; so a dimension must fit 32-bit indices and stay within
// max(2^24, 8 x the file's text bytes): at most ~64 bytes of offsets per byte of input.
std::int64_t max_dimension(const LineReader& in);
void check_dimension(const LineReader& in, std::int64_t value, const char* what);
// For gzip, the text size above is only bounded (1032 x the compressed size), so a 20 kB file of
// incompressible comment lines may claim 10^8 rows, gigabytes of offsets for no entries. Called
// once the whole file is read (its text size now known), before the per-row arrays are made: the
// dimension declared at `line` is checked against the text the file really held. Nothing to do
// for a plain file, whose size was exact the first time.
void check_dimension_read(const LineReader& in, std::int64_t line, std::int64_t value,
                          const char* what);

// Shortest text that reads back to exactly the same value (std::to_chars), appended to `out`.
inline void append_int(std::string& out, std::int64_t v) {
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}
inline void append_real(std::string& out, float v) {
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}
inline void append_real(std::string& out, double v) {
  char b[40];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

// The writers append their text to `buf` and hand it to `os` in pieces of 1 MiB or more: once
// `buf` holds that much it is written and cleared. The caller writes what is left at the end.
inline void flush_if_large(std::string& buf, std::ostream& os) {
  if (buf.size() >= (std::size_t{1} << 20)) {
    os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
}

// Entries as the readers collect them, with 32-bit rows (every reader caps dimensions at 2^31-1
// through check_dimension): 12 bytes per entry, the arrays of a HostCoo (read_matrix_market_coo
// moves them into one). Reading then converting to CSR peaks at about 16 bytes per entry (12 when
// the rows come in order: triplets_to_csr).
struct Triplets {
  std::vector<std::int32_t> row, col;
  std::vector<float> val;

  void reserve(std::size_t n) {
    row.reserve(n);
    col.reserve(n);
    val.reserve(n);
  }
  void push(std::int64_t r, std::int64_t c, float v) {
    row.push_back(static_cast<std::int32_t>(r));
    col.push_back(static_cast<std::int32_t>(c));
    val.push_back(v);
  }
  std::size_t size() const { return row.size(); }
};

// rows x cols CSR from n (row, col[, val]) entries by a stable counting sort on rows (file order
// is kept within a row). Host arrays of n entries each; `val` may be null (no values). Indices
// must be in range (the readers have checked them).
HostCsr csr_from_arrays(std::int64_t rows, std::int64_t cols, const std::int32_t* row,
                        const std::int32_t* col, const float* val, std::size_t n);
// The same from Triplets, which are emptied on return: with the rows in order their columns and
// values are moved into the result; else each of the two is freed once sorted into the result's,
// so 4 bytes an entry are held beyond the triplets, not 8.
HostCsr triplets_to_csr(std::int64_t rows, std::int64_t cols, Triplets& t);

// Searches `m` for a (row, column) pair stored twice. Returns true and sets row/col when found.
// Extra memory: one marker per column when cols is small next to nnz, else a per-row scratch copy.
bool find_duplicate(const HostCsr& m, std::int64_t& row, std::int32_t& col);
// The same for n unordered (row, col) pairs (host arrays); groups the columns by row first, which
// costs 4 bytes per pair plus 8 per row.
bool find_duplicate_pair(std::int64_t rows, std::int64_t cols, const std::int32_t* row,
                         const std::int32_t* col, std::size_t n, std::int64_t& dup_row,
                         std::int32_t& dup_col);

}  // namespace fk::io::detail
