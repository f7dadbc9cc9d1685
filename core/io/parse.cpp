#include "core/io/parse.hpp"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <vector>

#include "core/memory.hpp"

namespace fk::io::detail {

std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (char c : token.substr(0, kMax)) {
    // Keep messages on one printable line even when the input is binary.
    const auto u = static_cast<unsigned char>(c);
    if (c == '\t') {
      out += "\\t";
    } else {
      out += (u >= 32 && u < 127) ? c : '?';
    }
  }
  if (token.size() > kMax) out += "...";
  out += "'";
  return out;
}

NumberStatus parse_real(std::string_view tok, double& v) {
  if (!tok.empty() && tok.front() == '+') {
    tok.remove_prefix(1);
    if (!tok.empty() && (tok.front() == '+' || tok.front() == '-'))
      return NumberStatus::kNotANumber;
  }
  if (tok.empty()) return NumberStatus::kNotANumber;
  const char* end = tok.data() + tok.size();
  auto [p, ec] = std::from_chars(tok.data(), end, v, std::chars_format::general);
  if (p != end) return NumberStatus::kNotANumber;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow; strtod tells them apart. Underflow to zero
    // or a subnormal is a legitimate (tiny) value.
    const std::string copy(tok);
    errno = 0;
    v = std::strtod(copy.c_str(), nullptr);
    if (std::fabs(v) == HUGE_VAL) return NumberStatus::kTooLarge;
  } else if (ec != std::errc()) {
    return NumberStatus::kNotANumber;
  }
  if (!std::isfinite(v)) return NumberStatus::kNotFinite;
  if (std::fabs(v) > static_cast<double>(FLT_MAX)) return NumberStatus::kTooLarge;
  return NumberStatus::kOk;
}

std::string describe(NumberStatus s, std::string_view tok) {
  switch (s) {
    case NumberStatus::kOk:
      return "ok";
    case NumberStatus::kNotANumber:
      return "expected a number, found " + quote(tok);
    case NumberStatus::kNotFinite:
      return "value " + quote(tok) + " is not finite (NaN or infinity)";
    case NumberStatus::kTooLarge:
      return "value " + quote(tok) + " is too large for a 32-bit float";
  }
  return "bad number " + quote(tok);
}

std::int64_t max_text_bytes(const LineReader& in) {
  const std::int64_t size = in.file_size();
  if (!in.gzipped()) return size;
  constexpr std::int64_t kDeflateMaxRatio = 1032;
  if (size > std::numeric_limits<std::int64_t>::max() / kDeflateMaxRatio)
    return std::numeric_limits<std::int64_t>::max();
  return size * kDeflateMaxRatio;
}

void check_count_fits(const LineReader& in, std::int64_t count, std::int64_t min_bytes,
                      const char* what) {
  if (count < 0) in.fail(std::string("negative ") + what + " count " + std::to_string(count));
  const std::int64_t bytes = max_text_bytes(in);
  // count * min_bytes - 1 (the last item needs no separator) must not exceed the bytes available;
  // the +1 keeps the test overflow-free at the cost of one item of slack.
  if (count > bytes / min_bytes + 1) {
    in.fail("header declares " + std::to_string(count) + " " + what + ", but the file (" +
            std::to_string(in.file_size()) + " bytes" + (in.gzipped() ? " compressed" : "") +
            ") cannot hold that many");
  }
}

std::size_t reserve_cap(const LineReader& in, std::int64_t count, std::int64_t min_bytes) {
  // A pipe's size is unknown (file_size() is the largest int64): no bound on the count, so
  // reserve a modest start and let the vectors grow.
  constexpr std::int64_t kUnknownSizeReserve = std::int64_t{1} << 20;
  if (in.file_size() == std::numeric_limits<std::int64_t>::max())
    return static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, kUnknownSizeReserve));
  std::int64_t bytes = in.file_size();
  if (in.gzipped())
    bytes = bytes > std::numeric_limits<std::int64_t>::max() / 8 ? bytes : bytes * 8;
  const std::int64_t cap =
      std::min<std::int64_t>(count, bytes / std::max<std::int64_t>(1, min_bytes) + 1);
  return static_cast<std::size_t>(std::max<std::int64_t>(0, cap));
}

namespace {
// max_dimension for a file of `bytes` bytes of text.
std::int64_t dimension_limit(std::int64_t bytes) {
  const std::int64_t by_size = bytes > std::numeric_limits<std::int64_t>::max() / 8
                                   ? std::numeric_limits<std::int64_t>::max()
                                   : bytes * 8;
  return std::min<std::int64_t>(std::numeric_limits<std::int32_t>::max(),
                                std::max<std::int64_t>(std::int64_t{1} << 24, by_size));
}
}  // namespace

std::int64_t max_dimension(const LineReader& in) { return dimension_limit(max_text_bytes(in)); }

void check_dimension_read(const LineReader& in, std::int64_t line, std::int64_t value,
                          const char* what) {
  if (!in.gzipped()) return;
  const std::int64_t limit = dimension_limit(in.text_bytes());
  if (value > limit) {
    throw InputError(in.path(), line,
                     std::string(what) + " " + std::to_string(value) + " is implausible for the " +
                         std::to_string(in.text_bytes()) +
                         " bytes of text this gzip file holds (limit " + std::to_string(limit) +
                         ")");
  }
}

void check_dimension(const LineReader& in, std::int64_t value, const char* what) {
  if (value < 0)
    in.fail(std::string(what) + " must not be negative, found " + std::to_string(value));
  const std::int64_t limit = max_dimension(in);
  if (value > limit) {
    in.fail(std::string(what) + " " + std::to_string(value) + " is implausible for a file of " +
            std::to_string(in.file_size()) + " bytes (limit " + std::to_string(limit) +
            (limit == std::numeric_limits<std::int32_t>::max() ? ", the 32-bit index range" : "") +
            ")");
  }
  // The size bound lets a small compressed file claim 2^31 rows (blank lines compress ~1000:1);
  // the arrays of that length that follow (row offsets, their copies, a value per row in the
  // apps: about 24 bytes an entry) must fit in memory as well.
  const double bytes = 24.0 * static_cast<double>(value);
  if (!fits_in_memory(bytes))
    in.fail(std::string(what) + " " + std::to_string(value) + " would need about " +
            memory_shortfall(bytes) + " for its per-row arrays");
}

namespace {

// Row offsets (rows + 1) of n entries with the given rows.
std::vector<std::int64_t> row_offsets(std::int64_t rows, const std::int32_t* row, std::size_t n) {
  std::vector<std::int64_t> ptr(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t j = 0; j < n; ++j) ++ptr[static_cast<std::size_t>(row[j]) + 1];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  return ptr;
}

bool find_duplicate_in_rows(std::int64_t rows, std::int64_t cols, const std::int64_t* ptr,
                            const std::int32_t* col_idx, std::int64_t& row, std::int32_t& col) {
  const std::int64_t nnz = ptr[rows];
  if (nnz < 2) return false;
  if (cols <= 4 * nnz + 4096) {
    // mark[c] = 1 + the last row that used column c.
    std::vector<std::int64_t> mark(static_cast<std::size_t>(cols), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = ptr[r]; j < ptr[r + 1]; ++j) {
        const std::int32_t c = col_idx[j];
        if (mark[c] == r + 1) {
          row = r;
          col = c;
          return true;
        }
        mark[c] = r + 1;
      }
    }
    return false;
  }
  std::vector<std::int32_t> scratch;
  for (std::int64_t r = 0; r < rows; ++r) {
    scratch.assign(col_idx + ptr[r], col_idx + ptr[r + 1]);
    std::sort(scratch.begin(), scratch.end());
    auto it = std::adjacent_find(scratch.begin(), scratch.end());
    if (it != scratch.end()) {
      row = r;
      col = *it;
      return true;
    }
  }
  return false;
}

}  // namespace

HostCsr csr_from_arrays(std::int64_t rows, std::int64_t cols, const std::int32_t* row,
                        const std::int32_t* col, const float* val, std::size_t n) {
  return csr_by_rows(
      rows, cols, static_cast<std::int64_t>(n), [&](std::int64_t j) { return row[j]; }, col, val,
      kEveryEntry);
}

HostCsr triplets_to_csr(std::int64_t rows, std::int64_t cols, Triplets& t) {
  const std::size_t n = t.size();
  HostCsr out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr = row_offsets(rows, t.row.data(), n);
  if (std::is_sorted(t.row.begin(), t.row.end())) {
    // Rows in order (UCI corpora and fk-datagen's files are): the counting sort would leave the
    // entries where they are, so the columns and values become the CSR's as they are. The peak is
    // then the triplets' 12 bytes an entry, not 12 plus the CSR's 8 (nytimes: 1.4 GB -> 0.8 GB).
    out.col_idx = std::move(t.col);
    out.vals = std::move(t.val);
  } else {
    // Rows out of order: csr_from_arrays's stable counting sort, one array at a time, each freed
    // once placed: at most 16 bytes an entry are held at once instead of 20 (the triplets and the
    // whole CSR). It is no slower: a pass that writes one array runs faster than one that writes
    // two (nytimes shuffled: 14% less time in the sort).
    std::vector<std::int64_t> next(out.row_ptr.begin(), out.row_ptr.end() - 1);
    out.col_idx.resize(n);
    for (std::size_t j = 0; j < n; ++j) out.col_idx[next[t.row[j]]++] = t.col[j];
    t.col = std::vector<std::int32_t>();
    std::copy(out.row_ptr.begin(), out.row_ptr.end() - 1, next.begin());
    out.vals.resize(n);
    for (std::size_t j = 0; j < n; ++j) out.vals[next[t.row[j]]++] = t.val[j];
  }
  t = Triplets();  // frees the memory now rather than when the caller's scope ends
  return out;
}

bool find_duplicate(const HostCsr& m, std::int64_t& row, std::int32_t& col) {
  return find_duplicate_in_rows(m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(), row, col);
}

bool find_duplicate_pair(std::int64_t rows, std::int64_t cols, const std::int32_t* row,
                         const std::int32_t* col, std::size_t n, std::int64_t& dup_row,
                         std::int32_t& dup_col) {
  if (n < 2) return false;
  const std::vector<std::int64_t> ptr = row_offsets(rows, row, n);
  // Rows in order (a ratings file written user by user): the pairs are grouped already, and the
  // grouped copy of the columns (4 bytes a pair) is not needed.
  if (std::is_sorted(row, row + n))
    return find_duplicate_in_rows(rows, cols, ptr.data(), col, dup_row, dup_col);
  std::vector<std::int64_t> next(ptr.begin(), ptr.end() - 1);
  std::vector<std::int32_t> grouped(n);
  for (std::size_t j = 0; j < n; ++j) grouped[next[row[j]]++] = col[j];
  return find_duplicate_in_rows(rows, cols, ptr.data(), grouped.data(), dup_row, dup_col);
}

}  // namespace fk::io::detail
