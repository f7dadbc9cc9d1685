#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../kernels/problems.hpp"
#include "core/io/matrix_market.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

const char* kBanner = "%%MatrixMarket matrix coordinate real general\n";

// Writes `body` to a fresh file and returns its path.
std::string mm_file(const test::TempDir& dir, const std::string& body,
                    const std::string& name = "m.mtx") {
  const std::string p = dir.file(name);
  test::write_bytes(p, body);
  return p;
}

// (row, col, value) triplets of a CSR in storage order.
std::vector<std::tuple<std::int64_t, std::int32_t, float>> triplets(const HostCsr& m) {
  std::vector<std::tuple<std::int64_t, std::int32_t, float>> t;
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j)
      t.emplace_back(r, m.col_idx[j], m.vals.empty() ? 1.0f : m.vals[j]);
  return t;
}

TEST(IoMatrixMarket, ReadsSmallGeneralRealExactly) {
  test::TempDir dir;
  const auto p =
      mm_file(dir, std::string(kBanner) +
                       "% a comment\n%another\n\n3 4 4\n1 1 1.5\n3 4 -2e3\n1 3 +0.25\n\n2 2 7\n");
  const HostCsr m = io::read_matrix_market(p);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 4);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 2, 1, 3}));  // file order within a row
  EXPECT_EQ(m.vals, (std::vector<float>{1.5f, 0.25f, 7.0f, -2000.0f}));
  const HostCoo coo = io::read_matrix_market_coo(p);
  EXPECT_EQ(coo.row, (std::vector<std::int32_t>{0, 2, 0, 1}));
  EXPECT_EQ(coo.col, (std::vector<std::int32_t>{0, 3, 2, 1}));
  EXPECT_EQ(coo.val, (std::vector<float>{1.5f, -2000.0f, 0.25f, 7.0f}));
}

TEST(IoMatrixMarket, RowsInOrderReadAsTheSameCsrAsShuffledOnes) {
  // Sorted by row (the reader then keeps the entries where they are) with empty first, middle and
  // last rows and a row whose columns are out of order; and the same entries shuffled.
  test::TempDir dir;
  const std::string sorted = "5 4 5\n2 3 1\n2 1 2\n2 4 3\n4 2 4\n4 1 5\n";
  const std::string shuffled = "5 4 5\n4 2 4\n2 3 1\n2 1 2\n4 1 5\n2 4 3\n";
  for (const std::string& body : {sorted, shuffled}) {
    const HostCsr m = io::read_matrix_market(mm_file(dir, std::string(kBanner) + body));
    EXPECT_EQ(m.rows, 5);
    EXPECT_EQ(m.cols, 4);
    EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 0, 3, 3, 5, 5})) << body;
    EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{2, 0, 3, 1, 0})) << body;
    EXPECT_EQ(m.vals, (std::vector<float>{1, 2, 3, 4, 5})) << body;
  }
}

TEST(IoMatrixMarket, ShuffledEntriesKeepFileOrderWithinEachRow) {
  // Each awkward pattern's entries in a random order, which the CSR reader sorts by rows one array
  // at a time. The value of an entry is its place in the file: each row of the CSR must hold its
  // columns and values in file order, and the COO the entries exactly as written.
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  test::TempDir dir;
  for (const auto& prob : test::awkward_problems(seed)) {
    const HostCsr& s = prob.s;
    std::vector<std::int32_t> row, col;
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
        row.push_back(static_cast<std::int32_t>(r));
        col.push_back(s.col_idx[j]);
      }
    for (std::size_t k = row.size(); k > 1; --k) {
      const std::size_t other = rng.below(k);
      std::swap(row[k - 1], row[other]);
      std::swap(col[k - 1], col[other]);
    }
    std::string text = std::string(kBanner) + std::to_string(s.rows) + " " +
                       std::to_string(s.cols) + " " + std::to_string(row.size()) + "\n";
    std::vector<float> val;
    std::vector<std::vector<std::pair<std::int32_t, float>>> by_row(s.rows);
    for (std::size_t k = 0; k < row.size(); ++k) {
      text += std::to_string(row[k] + 1) + " " + std::to_string(col[k] + 1) + " " +
              std::to_string(k) + "\n";
      val.push_back(static_cast<float>(k));  // exact: every problem has fewer than 2^24 entries
      by_row[row[k]].emplace_back(col[k], val.back());
    }
    const std::string p = mm_file(dir, text, prob.name + ".mtx");

    const HostCsr m = io::read_matrix_market(p);
    std::vector<std::int32_t> want_col;
    std::vector<float> want_val;
    for (const auto& entries : by_row)
      for (const auto& [c, v] : entries) {
        want_col.push_back(c);
        want_val.push_back(v);
      }
    EXPECT_EQ(m.row_ptr, s.row_ptr) << prob.name;
    EXPECT_EQ(m.col_idx, want_col) << prob.name;
    EXPECT_EQ(m.vals, want_val) << prob.name;

    const HostCoo coo = io::read_matrix_market_coo(p);
    EXPECT_EQ(coo.row, row) << prob.name;
    EXPECT_EQ(coo.col, col) << prob.name;
    EXPECT_EQ(coo.val, val) << prob.name;
  }
}

TEST(IoMatrixMarket, IntegerAndPatternFields) {
  test::TempDir dir;
  const auto pi = mm_file(
      dir, "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -5\n2 1 9\n", "i.mtx");
  EXPECT_EQ(io::read_matrix_market(pi).vals, (std::vector<float>{-5.0f, 9.0f}));
  const auto pp =
      mm_file(dir, "%%matrixmarket MATRIX Coordinate Pattern General\n2 3 2\n2 3\n1 1\n", "p.mtx");
  const HostCsr m = io::read_matrix_market(pp);
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(m.vals, (std::vector<float>{1.0f, 1.0f}));  // pattern entries read as 1
}

TEST(IoMatrixMarket, SymmetricIsExpandedWithoutDuplicatingTheDiagonal) {
  test::TempDir dir;
  const auto p = mm_file(
      dir, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 4\n");
  const HostCsr m = io::read_matrix_market(p);
  EXPECT_EQ(m.nnz(), 6);  // 2 diagonal + 2 x 2 off-diagonal
  EXPECT_EQ(triplets(m), (std::vector<std::tuple<std::int64_t, std::int32_t, float>>{
                             {0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {1, 2, 3}, {2, 1, 3}, {2, 2, 4}}));
  const auto ps =
      mm_file(dir, "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 5\n", "s.mtx");
  EXPECT_EQ(triplets(io::read_matrix_market(ps)),
            (std::vector<std::tuple<std::int64_t, std::int32_t, float>>{{0, 1, -5}, {1, 0, 5}}));
}

TEST(IoMatrixMarket, ArrayIsColumnMajorInTheFile) {
  test::TempDir dir;
  const auto p =
      mm_file(dir, "%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n3\n4\n5\n6\n");
  const HostDense<float> d = io::read_matrix_market_array(p);
  ASSERT_EQ(d.rows(), 2);
  ASSERT_EQ(d.cols(), 3);
  EXPECT_EQ(d.values(), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(IoMatrixMarket, RoundTripsEveryAwkwardProblemExactly) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  test::TempDir dir;
  for (auto& prob : test::awkward_problems(seed)) {
    HostCsr m = prob.s;
    // Values across the float range, so the writer must print enough digits to round-trip.
    for (float& v : m.vals) v = static_cast<float>(v * std::pow(10.0, rng.uniform(-30, 30)));
    const std::string p = dir.file(prob.name + ".mtx");
    io::write_matrix_market(p, m);
    const HostCsr back = io::read_matrix_market(p);
    EXPECT_EQ(back.rows, m.rows) << prob.name;
    EXPECT_EQ(back.cols, m.cols) << prob.name;
    EXPECT_EQ(back.row_ptr, m.row_ptr) << prob.name;
    EXPECT_EQ(back.col_idx, m.col_idx) << prob.name;
    EXPECT_EQ(back.vals, m.vals) << prob.name;
    // Pattern-only matrices are written as 'pattern' and read back with value 1.
    HostCsr pattern = prob.s;
    pattern.vals.clear();
    io::write_matrix_market(p, pattern);
    const HostCsr pb = io::read_matrix_market(p);
    EXPECT_EQ(pb.col_idx, pattern.col_idx) << prob.name;
    EXPECT_EQ(pb.vals, std::vector<float>(pattern.col_idx.size(), 1.0f)) << prob.name;
  }
  EXPECT_EQ(test::list_dir(dir.path()).size(),
            test::awkward_problems(seed).size());  // no temporaries
}

TEST(IoMatrixMarket, ArrayRoundTrip) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  HostDense<float> d(37, 5);
  for (float& v : d.storage())
    v = static_cast<float>(rng.normal() * std::pow(10.0, rng.uniform(-20, 20)));
  test::TempDir dir;
  const std::string p = dir.file("d.mtx");
  io::write_matrix_market_array(p, d);
  const HostDense<float> back = io::read_matrix_market_array(p);
  EXPECT_EQ(back.rows(), 37);
  EXPECT_EQ(back.cols(), 5);
  EXPECT_EQ(back.storage(), d.storage());
}

TEST(IoMatrixMarket, GzippedFileReadsTheSame) {
  test::TempDir dir;
  const std::string text = std::string(kBanner) + "2 2 2\n1 2 3\n2 1 4\n";
  const auto p = mm_file(dir, test::gzip(text), "m.mtx.gz");
  EXPECT_EQ(io::read_matrix_market(p).vals, (std::vector<float>{3, 4}));
  const std::string gz = test::gzip(text);
  test::write_bytes(p, gz.substr(0, gz.size() / 2));
  EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(p); }, p, -1, {"truncated"}));
}

// Each bad file: the body, the line the error must name, and a fragment of the message.
struct BadCase {
  const char* what;
  std::string text;
  std::int64_t line;
  const char* fragment;
};

TEST(IoMatrixMarket, EveryKindOfBadInputIsOneInputErrorWithFileAndLine) {
  const std::string b = kBanner;
  const std::vector<BadCase> cases = {
      {"empty file", "", 0, "empty file"},
      {"UCI file given", "3\n4\n2\n1 1 1\n2 3 1\n", 1, "not a Matrix Market file"},
      {"smtx file given", "2, 2, 1\n0 1 1\n0\n", 1, "not a Matrix Market file"},
      {"short banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "banner"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "complex"},
      {"bad symmetry", "%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "symmetry"},
      {"no size line", b + "% only comments\n", 2, "before the size line"},
      {"size line junk", b + "3 x 2\n", 2, "expected an integer"},
      {"size line too short", b + "3 3\n", 2, "size line"},
      {"negative rows", b + "-3 3 0\n", 2, "negative"},
      {"nnz above rows*cols", b + "2 2 5\n1 1 1\n", 2, "at most 4"},
      {"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2,
       "square"},
      {"row out of range", b + "2 2 2\n1 1 1\n3 1 1\n", 4, "row index 3 out of range 1..2"},
      {"column zero", b + "2 2 2\n1 1 1\n1 0 1\n", 4, "column index 0 out of range"},
      {"negative index", b + "2 2 1\n-1 1 1\n", 3, "row index -1"},
      {"missing value", b + "2 2 2\n1 1 1\n2 2\n", 4, "found 2 fields"},
      {"extra field", b + "2 2 1\n1 1 1 9\n", 3, "found 4 fields"},
      {"value not a number", b + "2 2 1\n1 1 abc\n", 3, "expected a number, found 'abc'"},
      {"index not integer", b + "2 2 1\n1.5 1 1\n", 3, "row index: expected an integer"},
      {"NaN value", b + "2 2 2\n1 1 1\n2 2 nan\n", 4, "not finite"},
      {"inf value", b + "2 2 1\n2 2 -Inf\n", 3, "not finite"},
      {"float overflow", b + "2 2 1\n2 2 1e39\n", 3, "too large"},
      {"integer field with real",
       "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
       "expected an integer value"},
      {"too many entries", b + "2 2 2\n1 1 1\n2 2 1\n1 2 1\n", 5, "more entries than the 2"},
      {"too few entries", b + "3 3 4\n1 1 1\n2 2 1\n\n", 5, "ends after 2 of the 4"},
      {"duplicate", b + "3 3 3\n1 1 1\n2 3 1\n2 3 5\n", 5,
       "duplicate entry (2, 3), first given at line 4"},
      {"symmetric pair given twice",
       "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n", 4,
       "first given at line 3"},
      {"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3,
       "diagonal"},
      {"lying nnz", b + "1000 1000 999999\n1 1 1\n", 2, "cannot hold that many"},
      {"huge dimension", b + "3000000000 3 1\n1 1 1\n", 2, "implausible"},
      {"array given", "%%MatrixMarket matrix array real general\n1 1\n1\n", 1,
       "a sparse 'coordinate' one is expected"},
  };
  test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = mm_file(dir, c.text, std::string("bad.mtx"));
    EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(p); }, p, c.line, {c.fragment}));
    EXPECT_TRUE(
        throws_input_error([&] { io::read_matrix_market_coo(p); }, p, c.line, {c.fragment}));
  }
}

TEST(IoMatrixMarket, BadArrayFiles) {
  test::TempDir dir;
  const std::vector<BadCase> cases = {
      {"too few values", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
       "ends after 3 of the 4"},
      {"too many values", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", 5,
       "more values"},
      {"NaN", "%%MatrixMarket matrix array real general\n1 2\n1\nNaN\n", 4, "not finite"},
      {"pattern array", "%%MatrixMarket matrix array pattern general\n1 1\n", 1,
       "cannot be 'pattern'"},
      {"lying size", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", 2,
       "cannot hold"},
      {"coordinate given", "%%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
       "read_matrix_market"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = mm_file(dir, c.text, "bad_array.mtx");
    EXPECT_TRUE(
        throws_input_error([&] { io::read_matrix_market_array(p); }, p, c.line, {c.fragment}));
  }
}

TEST(IoMatrixMarket, DirectoryAndMissingFile) {
  test::TempDir dir;
  EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(dir.path()); }, dir.path(), 0,
                                 {"directory"}));
  const std::string missing = dir.file("missing.mtx");
  EXPECT_TRUE(
      throws_input_error([&] { io::read_matrix_market(missing); }, missing, 0, {"no such file"}));
}

TEST(IoMatrixMarket, LyingHeaderFailsFastWithoutAllocating) {
  // A header that claims 10^14 entries in a 100-byte gzip file: rejected at the size line,
  // before any reservation (an allocation of that size would throw bad_alloc instead).
  test::TempDir dir;
  const auto p =
      mm_file(dir, test::gzip(std::string(kBanner) + "16000000 16000000 100000000000000\n1 1 1\n"),
              "lie.mtx.gz");
  EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(p); }, p, 2, {"cannot hold"}));
}

TEST(IoMatrixMarket, GzipRowCountIsCheckedAgainstTheTextItHolds) {
  // Found by review while fuzzing: 4 kB of incompressible comment give a gzip file a bound of
  // ~27M rows (1032 x its size x 8), so the size line's 20M rows passed, and 320 MB of row
  // offsets were made for one entry (150M rows took 2 GB). The text is 4 kB: 2^24 rows at most.
  test::TempDir dir;
  std::string filler;
  for (unsigned char c = '!'; c <= '~'; ++c) filler += static_cast<char>(c);
  const std::string text =
      std::string(kBanner) + "% " + test::random_filler(4000, filler) + "\n20000000 2 1\n1 1 1\n";
  const auto p = mm_file(dir, test::gzip(text), "rows.mtx.gz");
  for (bool coo : {false, true}) {
    SCOPED_TRACE(coo ? "COO" : "CSR");
    EXPECT_TRUE(throws_input_error(
        [&] { coo ? (void)io::read_matrix_market_coo(p) : (void)io::read_matrix_market(p); }, p, 3,
        {"row count 20000000 is implausible for the", "bytes of text this gzip file holds"}));
  }
  // The column count too; a plain file of that text was already refused at its size line.
  const auto cols =
      mm_file(dir,
              test::gzip(std::string(kBanner) + "% " + test::random_filler(4000, filler) +
                         "\n2 20000000 1\n1 1 1\n"),
              "cols.mtx.gz");
  EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(cols); }, cols, 3,
                                 {"column count 20000000 is implausible"}));
  const auto plain = mm_file(dir, text, "rows.mtx");
  EXPECT_TRUE(throws_input_error([&] { io::read_matrix_market(plain); }, plain, 3,
                                 {"row count 20000000 is implausible for a file of"}));
}

TEST(IoMatrixMarket, WriterRefusesNonFiniteValuesAndLeavesNoFile) {
  test::TempDir dir;
  HostCsr m;
  m.rows = m.cols = 2;
  m.row_ptr = {0, 1, 2};
  m.col_idx = {0, 1};
  m.vals = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  const std::string p = dir.file("nan.mtx");
  test::write_bytes(p, "old content");
  EXPECT_THROW(io::write_matrix_market(p, m), Error);
  EXPECT_EQ(test::read_bytes(p), "old content");  // the old file is untouched
  EXPECT_EQ(test::list_dir(dir.path()), (std::vector<std::string>{"nan.mtx"}));
}

}  // namespace
}  // namespace fk
