#include "core/io/matrix_market.hpp"

#include <cmath>
#include <string_view>

#include "core/io/atomic_file.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/parse.hpp"

namespace fk::io {
namespace {

using detail::quote;

enum class Field { kReal, kInteger, kPattern };
enum class Symmetry { kGeneral, kSymmetric, kSkew };

struct Header {
  bool coordinate = true;
  Field field = Field::kReal;
  Symmetry symmetry = Symmetry::kGeneral;
  std::int64_t rows = 0, cols = 0;
  std::int64_t entries = 0;  // nnz for coordinate, rows * cols for array
  std::int64_t size_line = 0;  // the line of "rows cols [nnz]"
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// A guess at what a file that is not Matrix Market is, to make the error actionable.
std::string format_hint(std::string_view first_line) {
  std::string_view tok[2];
  const std::size_t n = detail::split_blanks(first_line, tok, 2);
  std::int64_t v = 0;
  if (n == 1 && detail::parse_int(tok[0], v)) return " (it looks like a UCI docword file)";
  if (first_line.find(',') != std::string_view::npos &&
      first_line.find("::") == std::string_view::npos)
    return " (it looks like a DLMC .smtx or CSV file)";
  if (first_line.find("::") != std::string_view::npos) return " (it looks like a ratings file)";
  return "";
}

// Reads the banner and the size line; leaves `in` just after the size line.
Header read_header(LineReader& in, std::string& line, bool want_coordinate) {
  if (!in.next(line)) {
    throw InputError(in.path(), 0,
                     "empty file, expected a Matrix Market header '%%MatrixMarket matrix ...'");
  }
  std::string_view tok[6];
  const std::size_t n = detail::split_blanks(line, tok, 6);
  if (n == 0 || lower(tok[0]) != "%%matrixmarket") {
    in.fail("not a Matrix Market file: the first line must start with '%%MatrixMarket', found " +
            quote(line) + format_hint(line));
  }
  if (n != 5) {
    in.fail(
        "the banner must read '%%MatrixMarket matrix <coordinate|array> <field> <symmetry>', "
        "found " +
        std::to_string(n) + " words");
  }
  Header h;
  if (lower(tok[1]) != "matrix") in.fail("unsupported object " + quote(tok[1]) + ", only 'matrix'");
  const std::string format = lower(tok[2]), field = lower(tok[3]), symmetry = lower(tok[4]);
  if (format == "coordinate") {
    h.coordinate = true;
  } else if (format == "array") {
    h.coordinate = false;
  } else {
    in.fail("unknown format " + quote(tok[2]) + ", expected 'coordinate' or 'array'");
  }
  if (field == "real" || field == "double") {
    h.field = Field::kReal;
  } else if (field == "integer") {
    h.field = Field::kInteger;
  } else if (field == "pattern") {
    h.field = Field::kPattern;
  } else if (field == "complex") {
    in.fail("complex matrices are not supported");
  } else {
    in.fail("unknown field " + quote(tok[3]) + ", expected real, integer or pattern");
  }
  if (symmetry == "general") {
    h.symmetry = Symmetry::kGeneral;
  } else if (symmetry == "symmetric") {
    h.symmetry = Symmetry::kSymmetric;
  } else if (symmetry == "skew-symmetric") {
    h.symmetry = Symmetry::kSkew;
  } else if (symmetry == "hermitian") {
    in.fail("hermitian matrices are not supported");
  } else {
    in.fail("unknown symmetry " + quote(tok[4]) +
            ", expected general, symmetric or skew-symmetric");
  }
  if (!h.coordinate && h.field == Field::kPattern) in.fail("an 'array' matrix cannot be 'pattern'");
  if (!h.coordinate && h.symmetry != Symmetry::kGeneral)
    in.fail("only 'general' array matrices are supported");
  if (want_coordinate && !h.coordinate)
    in.fail("this is an 'array' (dense) Matrix Market file; a sparse 'coordinate' one is expected");
  if (!want_coordinate && h.coordinate)
    in.fail("this is a 'coordinate' (sparse) Matrix Market file; read it with read_matrix_market");

  // Comment lines and blank lines may sit between the banner and the size line.
  do {
    if (!in.next(line)) in.fail("the file ends before the size line");
  } while (detail::blank_line(line) || line[0] == '%');
  const std::size_t want = h.coordinate ? 3 : 2;
  const char* form = h.coordinate ? "'rows cols nnz'" : "'rows cols'";
  if (detail::split_blanks(line, tok, 4) != want)
    in.fail(std::string("expected the size line ") + form + ", found " + quote(line));
  std::int64_t size[3] = {0, 0, 0};
  for (std::size_t i = 0; i < want; ++i)
    if (!detail::parse_int(tok[i], size[i]))
      in.fail(std::string("size line ") + form + ": expected an integer, found " + quote(tok[i]));
  h.rows = size[0];
  h.cols = size[1];
  h.size_line = in.line_number();
  detail::check_dimension(in, h.rows, "row count");
  detail::check_dimension(in, h.cols, "column count");
  if (h.symmetry != Symmetry::kGeneral && h.rows != h.cols) {
    in.fail("a symmetric matrix must be square, the size line says " + std::to_string(h.rows) +
            " x " + std::to_string(h.cols));
  }
  if (h.coordinate) {
    h.entries = size[2];
    if (h.entries < 0) in.fail("negative entry count " + std::to_string(h.entries));
    // Both dimensions are below 2^31, so these products fit in 64 bits.
    std::int64_t most = h.rows * h.cols;
    if (h.symmetry == Symmetry::kSymmetric) most = h.rows * (h.rows + 1) / 2;
    if (h.symmetry == Symmetry::kSkew) most = h.rows * (h.rows - 1) / 2;
    if (h.entries > most) {
      in.fail("the size line declares " + std::to_string(h.entries) + " entries, but a " +
              std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix" +
              (h.symmetry == Symmetry::kGeneral ? "" : " triangle") + " holds at most " +
              std::to_string(most));
    }
    detail::check_count_fits(in, h.entries, h.field == Field::kPattern ? 4 : 6, "entries");
  } else {
    h.entries = h.rows * h.cols;
    detail::check_count_fits(in, h.entries, 2, "values");
  }
  return h;
}

float parse_value(const LineReader& in, const Header& h, std::string_view tok) {
  if (h.field == Field::kInteger) {
    std::int64_t v = 0;
    if (!detail::parse_int(tok, v))
      in.fail("expected an integer value (the header says 'integer'), found " + quote(tok));
    return static_cast<float>(v);
  }
  double v = 0;
  const auto st = detail::parse_real(tok, v);
  if (st != detail::NumberStatus::kOk) in.fail(detail::describe(st, tok));
  return static_cast<float>(v);
}

// Calls emit(row, col, value) (0-based, as stored in the file: one triangle for symmetric files)
// for every entry of a coordinate body, validating each line and the entry count.
template <typename Emit>
void for_each_entry(LineReader& in, const Header& h, std::string& line, Emit&& emit) {
  const std::size_t want = h.field == Field::kPattern ? 2 : 3;
  std::int64_t seen = 0;
  std::string_view tok[4];
  while (in.next(line)) {
    if (detail::blank_line(line) || line[0] == '%') continue;
    const std::size_t n = detail::split_blanks(line, tok, 4);
    if (n != want) {
      in.fail(std::string("expected ") + (want == 2 ? "'row col'" : "'row col value'") +
              ", found " + std::to_string(n) + " field" + (n == 1 ? "" : "s"));
    }
    if (seen == h.entries)
      in.fail("more entries than the " + std::to_string(h.entries) + " declared in the size line");
    std::int64_t r = 0, c = 0;
    if (!detail::parse_int(tok[0], r))
      in.fail("row index: expected an integer, found " + quote(tok[0]));
    if (r < 1 || r > h.rows)
      in.fail("row index " + std::to_string(r) + " out of range 1.." + std::to_string(h.rows));
    if (!detail::parse_int(tok[1], c))
      in.fail("column index: expected an integer, found " + quote(tok[1]));
    if (c < 1 || c > h.cols)
      in.fail("column index " + std::to_string(c) + " out of range 1.." + std::to_string(h.cols));
    const float v = want == 3 ? parse_value(in, h, tok[2]) : 1.0f;
    if (h.symmetry == Symmetry::kSkew && r == c)
      in.fail("a skew-symmetric matrix has no diagonal entries, found (" + std::to_string(r) +
              ", " + std::to_string(c) + ")");
    emit(r - 1, c - 1, v);
    ++seen;
  }
  if (seen < h.entries) {
    in.fail("the file ends after " + std::to_string(seen) + " of the " + std::to_string(h.entries) +
            " entries declared in the size line");
  }
}

// Called once a duplicate (row, col) (0-based, after symmetric expansion) is known to exist: reads
// the file again to name the line that repeats it. Costs nothing unless the input is bad.
[[noreturn]] void report_duplicate(const std::string& path, std::int64_t row, std::int64_t col) {
  if (!rereadable(path))
    throw InputError(path, 0,
                     "duplicate entry (" + std::to_string(row + 1) + ", " +
                         std::to_string(col + 1) +
                         ") (a pipe cannot be read again to name its lines)");
  LineReader in(path);
  std::string line;
  const Header h = read_header(in, line, true);
  const bool sym = h.symmetry != Symmetry::kGeneral;
  std::int64_t first = 0;
  for_each_entry(in, h, line, [&](std::int64_t r, std::int64_t c, float) {
    if ((r == row && c == col) || (sym && r == col && c == row)) {
      if (first == 0) {
        first = in.line_number();
        return;
      }
      in.fail("duplicate entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) +
              "), first given at line " + std::to_string(first) +
              (sym && row != col ? " (a symmetric file stores each off-diagonal pair once)" : ""));
    }
  });
  throw InputError(
      path, 0,
      "duplicate entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ")");
}

// Reads every entry (expanding symmetric files) without the duplicate check; sets rows/cols.
detail::Triplets read_entries(const std::string& path, std::int64_t& rows, std::int64_t& cols) {
  LineReader in(path);
  std::string line;
  const Header h = read_header(in, line, true);
  rows = h.rows;
  cols = h.cols;
  detail::Triplets t;
  const std::int64_t min_bytes = h.field == Field::kPattern ? 4 : 6;
  t.reserve(detail::reserve_cap(in, h.entries, min_bytes) *
            (h.symmetry == Symmetry::kGeneral ? 1 : 2));
  const bool sym = h.symmetry != Symmetry::kGeneral;
  const float mirror = h.symmetry == Symmetry::kSkew ? -1.0f : 1.0f;
  for_each_entry(in, h, line, [&](std::int64_t r, std::int64_t c, float v) {
    t.push(r, c, v);
    if (sym && r != c) t.push(c, r, mirror * v);  // the other triangle; the diagonal is stored once
  });
  detail::check_dimension_read(in, h.size_line, h.rows, "row count");
  detail::check_dimension_read(in, h.size_line, h.cols, "column count");
  return t;
}

}  // namespace

HostCoo read_matrix_market_coo(const std::string& path) {
  HostCoo coo;
  detail::Triplets t = read_entries(path, coo.rows, coo.cols);
  std::int64_t r = 0;
  std::int32_t c = 0;
  if (detail::find_duplicate_pair(coo.rows, coo.cols, t.row.data(), t.col.data(), t.size(), r, c))
    report_duplicate(path, r, c);
  coo.row = std::move(t.row);
  coo.col = std::move(t.col);
  coo.val = std::move(t.val);
  return coo;
}

HostCsr read_matrix_market(const std::string& path) {
  std::int64_t rows = 0, cols = 0;
  detail::Triplets t = read_entries(path, rows, cols);
  HostCsr csr = detail::triplets_to_csr(rows, cols, t);
  std::int64_t r = 0;
  std::int32_t c = 0;
  if (detail::find_duplicate(csr, r, c)) report_duplicate(path, r, c);
  return csr;
}

HostDense<float> read_matrix_market_array(const std::string& path) {
  LineReader in(path);
  std::string line;
  const Header h = read_header(in, line, false);
  std::vector<float> column_major;
  column_major.reserve(detail::reserve_cap(in, h.entries, 2));
  // The format has one value per line; several per line are accepted as well.
  while (in.next(line)) {
    if (!line.empty() && line[0] == '%') continue;
    detail::for_each_token(line, [&](std::string_view tok) {
      if (static_cast<std::int64_t>(column_major.size()) == h.entries) {
        in.fail("more values than the " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                " declared in the size line");
      }
      column_major.push_back(parse_value(in, h, tok));
    });
  }
  if (static_cast<std::int64_t>(column_major.size()) < h.entries) {
    in.fail("the file ends after " + std::to_string(column_major.size()) + " of the " +
            std::to_string(h.entries) + " values of a " + std::to_string(h.rows) + " x " +
            std::to_string(h.cols) + " array");
  }
  HostDense<float> out(h.rows, h.cols);
  for (std::int64_t c = 0; c < h.cols; ++c)
    for (std::int64_t r = 0; r < h.rows; ++r) out(r, c) = column_major[c * h.rows + r];
  return out;
}

void write_matrix_market(const std::string& path, const HostCsr& m) {
  validate(m.view());
  FK_CHECK(
      m.vals.empty() || static_cast<std::int64_t>(m.vals.size()) == m.nnz(),
      "CSR for " << path << " has " << m.vals.size() << " values for " << m.nnz() << " entries");
  const bool pattern = m.vals.empty() && m.nnz() > 0;
  AtomicFile file(path);
  std::ostream& os = file.stream();
  std::string buf;
  buf += pattern ? "%%MatrixMarket matrix coordinate pattern general\n"
                 : "%%MatrixMarket matrix coordinate real general\n";
  detail::append_int(buf, m.rows);
  buf += ' ';
  detail::append_int(buf, m.cols);
  buf += ' ';
  detail::append_int(buf, m.nnz());
  buf += '\n';
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j) {
      detail::append_int(buf, r + 1);
      buf += ' ';
      detail::append_int(buf, m.col_idx[j] + 1);
      if (!pattern) {
        if (!std::isfinite(m.vals[j])) {
          throw Error("cannot write " + path + ": value at (" + std::to_string(r + 1) + ", " +
                      std::to_string(m.col_idx[j] + 1) + ") is not finite");
        }
        buf += ' ';
        detail::append_real(buf, m.vals[j]);
      }
      buf += '\n';
      detail::flush_if_large(buf, os);
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  file.commit();
}

void write_matrix_market_array(const std::string& path, const HostDense<float>& m) {
  AtomicFile file(path);
  std::ostream& os = file.stream();
  std::string buf = "%%MatrixMarket matrix array real general\n";
  detail::append_int(buf, m.rows());
  buf += ' ';
  detail::append_int(buf, m.cols());
  buf += '\n';
  for (std::int64_t c = 0; c < m.cols(); ++c) {
    for (std::int64_t r = 0; r < m.rows(); ++r) {
      const float v = m(r, c);
      if (!std::isfinite(v)) {
        throw Error("cannot write " + path + ": value at (" + std::to_string(r + 1) + ", " +
                    std::to_string(c + 1) + ") is not finite");
      }
      detail::append_real(buf, v);
      buf += '\n';
      detail::flush_if_large(buf, os);
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  file.commit();
}

}  // namespace fk::io
