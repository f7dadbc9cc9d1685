#include "core/io/smtx.hpp"

#include <string_view>

#include "core/io/atomic_file.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/parse.hpp"

namespace fk::io {
namespace {

using detail::quote;

constexpr std::size_t kPiece = std::size_t{1} << 16;  // bytes of a long line held at a time
constexpr std::size_t kMaxToken = 64;

// Passes every blank-separated token of the next line to f, reading the line in pieces: lines 2
// and 3 of a .smtx file hold all offsets / all column indices, so for a big matrix one line is
// most of the file, and holding it whole would double the memory the result needs. A token cut
// between two pieces is carried over. Returns false when there is no next line.
template <typename F>
bool for_each_token_streamed(LineReader& in, F&& f) {
  std::string part, pending;
  bool line_end = false;
  if (!in.next_part(part, kPiece, line_end)) return false;
  auto check_length = [&] {
    if (pending.size() > kMaxToken)
      in.fail("a number longer than 64 characters: " + quote(pending));
  };
  while (true) {
    std::string_view view = part;
    if (!pending.empty()) {  // finish the token cut at the end of the previous piece
      std::size_t b = 0;
      while (b < view.size() && !detail::is_blank(view[b])) ++b;
      pending.append(view.data(), b);
      view.remove_prefix(b);
      check_length();
      if (view.empty() && !line_end) {  // the whole piece continued the token
        in.next_part(part, kPiece, line_end);
        continue;
      }
      f(std::string_view(pending));
      pending.clear();
    }
    std::size_t cut = view.size();
    if (!line_end) {  // the last token may go on in the next piece
      while (cut > 0 && !detail::is_blank(view[cut - 1])) --cut;
      pending.assign(view.substr(cut));
      check_length();
    }
    detail::for_each_token(view.substr(0, cut), f);
    if (line_end) return true;
    in.next_part(part, kPiece, line_end);
  }
}

}  // namespace

HostCsr read_smtx(const std::string& path) {
  LineReader in(path);
  std::string line;
  if (!in.next(line))
    throw InputError(path, 0, "empty file, expected 'nrows, ncols, nnz' on line 1");
  std::string spaced = line;  // "64, 256, 1638": commas become blanks
  for (char& c : spaced)
    if (c == ',') c = ' ';
  std::string_view tok[4];
  std::int64_t size[3] = {0, 0, 0};
  const std::size_t n = detail::split_blanks(spaced, tok, 4);
  bool ok = n == 3;
  for (std::size_t i = 0; ok && i < 3; ++i) ok = detail::parse_int(tok[i], size[i]);
  if (!ok) {
    std::string hint;
    if (line.rfind("%%MatrixMarket", 0) == 0) hint = " (this is a Matrix Market file)";
    if (n == 1) hint = " (this looks like a UCI docword file)";
    in.fail("expected 'nrows, ncols, nnz' on line 1 of a .smtx file, found " + quote(line) + hint);
  }
  HostCsr m;
  m.rows = size[0];
  m.cols = size[1];
  const std::int64_t nnz = size[2];
  detail::check_dimension(in, m.rows, "row count");
  detail::check_dimension(in, m.cols, "column count");
  if (nnz < 0) in.fail("negative nnz " + std::to_string(nnz));
  if (nnz > m.rows * m.cols) {  // both below 2^31: no overflow
    in.fail("nnz = " + std::to_string(nnz) + " exceeds nrows x ncols = " + std::to_string(m.rows) +
            " x " + std::to_string(m.cols));
  }
  detail::check_count_fits(in, m.rows + 1 + nnz, 2, "numbers (nrows + 1 offsets and nnz indices)");

  // Line 2: the nrows + 1 row offsets.
  const std::int64_t offsets = m.rows + 1;
  m.row_ptr.clear();
  m.row_ptr.reserve(detail::reserve_cap(in, offsets, 2));
  const bool has_line2 = for_each_token_streamed(in, [&](std::string_view t) {
    std::int64_t v = 0;
    if (!detail::parse_int(t, v)) in.fail("row offset: expected an integer, found " + quote(t));
    const auto k = static_cast<std::int64_t>(m.row_ptr.size());
    if (k == offsets) in.fail("more than nrows + 1 = " + std::to_string(offsets) + " row offsets");
    if (k == 0 && v != 0) in.fail("the first row offset must be 0, found " + std::to_string(v));
    if (k > 0 && v < m.row_ptr.back()) {
      in.fail("row offsets decrease at row " + std::to_string(k - 1) + ": " + std::to_string(v) +
              " after " + std::to_string(m.row_ptr.back()));
    }
    if (v > nnz)
      in.fail("row offset " + std::to_string(v) + " exceeds nnz = " + std::to_string(nnz));
    m.row_ptr.push_back(v);
  });
  if (!has_line2) in.fail("the file ends before the row offsets (line 2)");
  if (static_cast<std::int64_t>(m.row_ptr.size()) != offsets) {
    in.fail("line 2 holds " + std::to_string(m.row_ptr.size()) +
            " row offsets, expected nrows + 1 = " + std::to_string(offsets));
  }
  if (m.row_ptr.back() != nnz) {
    in.fail("the last row offset is " + std::to_string(m.row_ptr.back()) + ", but nnz is " +
            std::to_string(nnz));
  }

  // Line 3: the nnz column indices (0-based). An empty matrix may omit the line.
  m.col_idx.reserve(detail::reserve_cap(in, nnz, 2));
  const bool has_line3 = for_each_token_streamed(in, [&](std::string_view t) {
    std::int64_t c = 0;
    if (!detail::parse_int(t, c)) in.fail("column index: expected an integer, found " + quote(t));
    if (c < 0 || c >= m.cols)
      in.fail("column index " + std::to_string(c) + " out of range 0.." +
              std::to_string(m.cols - 1));
    if (static_cast<std::int64_t>(m.col_idx.size()) == nnz)
      in.fail("more than nnz = " + std::to_string(nnz) + " column indices");
    m.col_idx.push_back(static_cast<std::int32_t>(c));
  });
  if (!has_line3 && nnz > 0) in.fail("the file ends before the column indices (line 3)");
  if (m.nnz() != nnz) {
    in.fail("line 3 holds " + std::to_string(m.nnz()) +
            " column indices, expected nnz = " + std::to_string(nnz));
  }
  while (in.next(line))
    if (!detail::blank_line(line))
      in.fail("unexpected content after the column indices: " + quote(line));
  // The row count is backed by its offsets on line 2; nothing backs the column count.
  detail::check_dimension_read(in, 1, m.cols, "column count");

  std::int64_t r = 0;
  std::int32_t c = 0;
  if (detail::find_duplicate(m, r, c)) {
    throw InputError(
        path, 3, "duplicate column index " + std::to_string(c) + " in row " + std::to_string(r));
  }
  return m;
}

void write_smtx(const std::string& path, const HostCsr& m) {
  validate(m.view());
  AtomicFile file(path);
  std::ostream& os = file.stream();
  std::string buf;
  detail::append_int(buf, m.rows);
  buf += ", ";
  detail::append_int(buf, m.cols);
  buf += ", ";
  detail::append_int(buf, m.nnz());
  buf += '\n';
  for (std::int64_t r = 0; r <= m.rows; ++r) {
    if (r) buf += ' ';
    detail::append_int(buf, m.row_ptr[r]);
    detail::flush_if_large(buf, os);
  }
  buf += '\n';
  for (std::int64_t j = 0; j < m.nnz(); ++j) {
    if (j) buf += ' ';
    detail::append_int(buf, m.col_idx[j]);
    detail::flush_if_large(buf, os);
  }
  buf += '\n';
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  file.commit();
}

}  // namespace fk::io
