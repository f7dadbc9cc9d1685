#include "core/io/parse.hpp"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

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
    if (!tok.empty() && (tok.front() == '+' || tok.front() == '-')) return NumberStatus::kNotANumber;
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
  std::int64_t bytes = in.file_size();
  if (in.gzipped()) bytes = bytes > std::numeric_limits<std::int64_t>::max() / 8 ? bytes : bytes * 8;
  const std::int64_t cap = std::min<std::int64_t>(count, bytes / std::max<std::int64_t>(1, min_bytes) + 1);
  return static_cast<std::size_t>(std::max<std::int64_t>(0, cap));
}

std::int64_t max_dimension(const LineReader& in) {
  const std::int64_t bytes = max_text_bytes(in);
  const std::int64_t by_size =
      bytes > std::numeric_limits<std::int64_t>::max() / 8 ? std::numeric_limits<std::int64_t>::max()
                                                            : bytes * 8;
  return std::min<std::int64_t>(std::numeric_limits<std::int32_t>::max(),
                                std::max<std::int64_t>(std::int64_t{1} << 24, by_size));
}

void check_dimension(const LineReader& in, std::int64_t value, const char* what) {
  if (value < 0) in.fail(std::string(what) + " must not be negative, found " + std::to_string(value));
  const std::int64_t limit = max_dimension(in);
  if (value > limit) {
    in.fail(std::string(what) + " " + std::to_string(value) + " is implausible for a file of " +
            std::to_string(in.file_size()) + " bytes (limit " + std::to_string(limit) +
            (limit == std::numeric_limits<std::int32_t>::max() ? ", the 32-bit index range" : "") +
            ")");
  }
}

bool find_duplicate(const HostCsr& m, std::int64_t& row, std::int32_t& col) {
  const std::int64_t nnz = m.nnz();
  if (nnz < 2) return false;
  if (m.cols <= 4 * nnz + 4096) {
    // mark[c] = 1 + the last row that used column c.
    std::vector<std::int64_t> mark(static_cast<std::size_t>(m.cols), 0);
    for (std::int64_t r = 0; r < m.rows; ++r) {
      for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j) {
        const std::int32_t c = m.col_idx[j];
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
  for (std::int64_t r = 0; r < m.rows; ++r) {
    scratch.assign(m.col_idx.begin() + m.row_ptr[r], m.col_idx.begin() + m.row_ptr[r + 1]);
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

}  // namespace fk::io::detail
