#include <string>
#include <vector>

#include "../kernels/problems.hpp"
#include "core/io/smtx.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

TEST(IoSmtx, ReadsSmallFileExactly) {
  test::TempDir dir;
  const std::string p = dir.file("m.smtx");
  test::write_bytes(p, "3, 5, 4\n0 2 2 4\n4 0 1 3\n");
  const HostCsr m = io::read_smtx(p);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 5);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 2, 4}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{4, 0, 1, 3}));
  EXPECT_TRUE(m.vals.empty());  // pattern only
  // No final newline, trailing blanks, CRLF: all fine.
  test::write_bytes(p, "3, 5, 4\r\n0 2 2 4 \r\n4 0 1 3");
  EXPECT_EQ(io::read_smtx(p).col_idx, m.col_idx);
  // An empty matrix may leave line 3 out.
  test::write_bytes(p, "2, 2, 0\n0 0 0\n");
  EXPECT_EQ(io::read_smtx(p).nnz(), 0);
}

TEST(IoSmtx, RoundTripIncludingLinesLongerThanTheReadPieces) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  auto problems = test::awkward_problems(seed);
  // ~60k indices of up to 6 digits: line 3 spans several 64 KiB pieces, so numbers get cut
  // between pieces and must be carried over.
  problems.push_back({"long_lines", test::random_pattern(3000, 200000, rng, [&](std::int64_t) {
                        return rng.below(40);
                      })});
  test::TempDir dir;
  for (const auto& prob : problems) {
    const std::string p = dir.file(prob.name + ".smtx");
    io::write_smtx(p, prob.s);
    const HostCsr back = io::read_smtx(p);
    EXPECT_EQ(back.rows, prob.s.rows) << prob.name;
    EXPECT_EQ(back.cols, prob.s.cols) << prob.name;
    EXPECT_EQ(back.row_ptr, prob.s.row_ptr) << prob.name;
    EXPECT_EQ(back.col_idx, prob.s.col_idx) << prob.name;
    EXPECT_TRUE(back.vals.empty());
    // And through gzip.
    const std::string gz = dir.file(prob.name + ".smtx.gz");
    test::write_bytes(gz, test::gzip(test::read_bytes(p), 1));
    EXPECT_EQ(io::read_smtx(gz).col_idx, prob.s.col_idx) << prob.name;
  }
}

struct BadCase {
  const char* what;
  std::string text;
  std::int64_t line;
  const char* fragment;
};

TEST(IoSmtx, EveryKindOfBadInputIsOneInputErrorWithFileAndLine) {
  const std::vector<BadCase> cases = {
      {"empty file", "", 0, "empty file"},
      {"Matrix Market given", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1\n", 1,
       "Matrix Market"},
      {"UCI given", "3\n4\n1\n1 1 1\n", 1, "UCI"},
      {"header two numbers", "3, 5\n0 0 0 0\n\n", 1, "nrows, ncols, nnz"},
      {"nnz above rows*cols", "2, 2, 5\n0 1 5\n0 1 0 1 0\n", 1, "exceeds nrows x ncols"},
      {"lying header", "100000, 100000, 1000000000\n0\n", 1, "cannot hold"},
      {"huge ncols", "1, 9999999999, 0\n0 0\n", 1, "implausible"},
      {"no offsets line", "2, 2, 1\n", 1, "ends before the row offsets"},
      {"first offset not 0", "2, 2, 1\n1 1 1\n0\n", 2, "first row offset must be 0"},
      {"offsets decrease", "3, 3, 2\n0 2 1 2\n0 1\n", 2, "decrease at row 1"},
      {"offset beyond nnz", "2, 3, 2\n0 3 2\n0 1\n", 2, "exceeds nnz"},
      {"too few offsets", "3, 3, 2\n0 1 2\n0 1\n", 2,
       "holds 3 row offsets, expected nrows + 1 = 4"},
      {"too many offsets", "1, 3, 2\n0 1 2\n0 1\n", 2, "more than nrows + 1 = 2"},
      {"last offset not nnz", "2, 3, 3\n0 1 2\n0 1 2\n", 2, "last row offset is 2, but nnz is 3"},
      {"offset junk", "2, 3, 2\n0 1 x\n0 1\n", 2, "row offset: expected an integer"},
      {"no index line", "2, 3, 2\n0 1 2\n", 2, "ends before the column indices"},
      {"index out of range", "2, 3, 2\n0 1 2\n0 3\n", 3, "column index 3 out of range 0..2"},
      {"negative index", "2, 3, 2\n0 1 2\n-1 0\n", 3, "column index -1"},
      {"too few indices", "2, 3, 2\n0 1 2\n0\n", 3, "holds 1 column indices, expected nnz = 2"},
      {"too many indices", "2, 3, 2\n0 1 2\n0 1 2\n", 3, "more than nnz = 2"},
      {"index junk", "2, 3, 2\n0 1 2\n0 1.0\n", 3, "column index: expected an integer"},
      {"duplicate in a row", "2, 3, 3\n0 2 3\n1 1 0\n", 3, "duplicate column index 1 in row 0"},
      {"content after line 3", "2, 3, 2\n0 1 2\n0 1\n7\n", 4, "unexpected content"},
  };
  test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string p = dir.file("bad.smtx");
    test::write_bytes(p, c.text);
    EXPECT_TRUE(throws_input_error([&] { io::read_smtx(p); }, p, c.line, {c.fragment}));
  }
  EXPECT_TRUE(throws_input_error([&] { io::read_smtx(dir.path()); }, dir.path(), 0, {"directory"}));
}

TEST(IoSmtx, GzipColumnCountIsCheckedAgainstTheTextItHolds) {
  // Found by review while fuzzing: trailing blank lines of random blanks give a gzip file a bound
  // of ~30M columns, which no index backs (the apps then make a factor row per column). The
  // text is 14 kB: 2^24 columns at most.
  test::TempDir dir;
  const std::string blanks = test::random_filler(14000, " \t\v\f") + "\n";
  const std::string p = dir.file("m.smtx.gz");
  test::write_bytes(p, test::gzip("1, 20000000, 1\n0 1\n0\n" + blanks));
  EXPECT_TRUE(throws_input_error(
      [&] { io::read_smtx(p); }, p, 1,
      {"column count 20000000 is implausible for the", "bytes of text this gzip file holds"}));
  test::write_bytes(p, test::gzip("1, 20, 1\n0 1\n0\n" + blanks));
  EXPECT_EQ(io::read_smtx(p).cols, 20);
}

TEST(IoSmtx, TruncatedGzipIsAnError) {
  const std::uint64_t seed = test::fresh_io_seed();
  Rng rng(seed);
  const HostCsr m =
      test::random_pattern(500, 1000, rng, [&](std::int64_t) { return rng.below(50); });
  test::TempDir dir;
  const std::string plain = dir.file("m.smtx"), p = dir.file("m.smtx.gz");
  io::write_smtx(plain, m);
  const std::string gz = test::gzip(test::read_bytes(plain));
  test::write_bytes(p, gz.substr(0, gz.size() - gz.size() / 3));
  EXPECT_TRUE(throws_input_error([&] { io::read_smtx(p); }, p, 3, {"truncated"}));
}

}  // namespace
}  // namespace fk
