#include <string>
#include <vector>

#include "../kernels/problems.hpp"
#include "core/io/uci.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

const char* kSmall =
    "3\n"
    "4\n"
    "5\n"
    "1 2 3\n"
    "1 4 1\n"
    "3 1 2\n"
    "3 3 7\n"
    "2 2 1\n";

TEST(IoUci, ReadsSmallCorpusWithVocabulary) {
  test::TempDir dir;
  const std::string dw = dir.file("docword.small.txt"), voc = dir.file("vocab.small.txt");
  test::write_bytes(dw, kSmall);
  test::write_bytes(voc, "apple\nbanana\ncherry\ndate\n");
  const io::Corpus c = io::read_uci(dw, voc);
  EXPECT_EQ(c.counts.rows, 3);
  EXPECT_EQ(c.counts.cols, 4);
  EXPECT_EQ(c.counts.row_ptr, (std::vector<std::int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(c.counts.col_idx, (std::vector<std::int32_t>{1, 3, 1, 0, 2}));
  EXPECT_EQ(c.counts.vals, (std::vector<float>{3, 1, 1, 2, 7}));
  EXPECT_EQ(c.vocab, (std::vector<std::string>{"apple", "banana", "cherry", "date"}));
  EXPECT_TRUE(io::read_uci(dw).vocab.empty());  // no vocabulary asked for
}

TEST(IoUci, GzipAndPlainGiveTheSameCorpus) {
  test::TempDir dir;
  const std::string plain = dir.file("docword.txt"), gz = dir.file("docword.txt.gz");
  test::write_bytes(plain, kSmall);
  test::write_bytes(gz, test::gzip(kSmall));
  const io::Corpus a = io::read_uci(plain), b = io::read_uci(gz);
  EXPECT_EQ(a.counts.row_ptr, b.counts.row_ptr);
  EXPECT_EQ(a.counts.col_idx, b.counts.col_idx);
  EXPECT_EQ(a.counts.vals, b.counts.vals);
}

TEST(IoUci, RoundTripOfRandomCorpora) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  test::TempDir dir;
  for (auto& prob : test::awkward_problems(seed)) {
    io::Corpus c;
    c.counts = prob.s;
    for (float& v : c.counts.vals)
      v = static_cast<float>(1 + rng.below(rng.below(10) == 0 ? 100000 : 5));
    for (std::int64_t w = 0; w < c.counts.cols; ++w)
      c.vocab.push_back("w" + std::to_string(rng.below(1000000)) + "_" + std::to_string(w));
    const std::string dw = dir.file("docword." + prob.name + ".txt"),
                      voc = dir.file("vocab." + prob.name + ".txt");
    io::write_uci(dw, voc, c);
    const io::Corpus back = io::read_uci(dw, voc);
    EXPECT_EQ(back.counts.rows, c.counts.rows) << prob.name;
    EXPECT_EQ(back.counts.cols, c.counts.cols) << prob.name;
    EXPECT_EQ(back.counts.row_ptr, c.counts.row_ptr) << prob.name;
    EXPECT_EQ(back.counts.col_idx, c.counts.col_idx) << prob.name;
    EXPECT_EQ(back.counts.vals, c.counts.vals) << prob.name;
    EXPECT_EQ(back.vocab, c.vocab) << prob.name;
  }
}

TEST(IoUci, WriterRejectsNonIntegerCountsAndLeavesNothing) {
  test::TempDir dir;
  io::Corpus c;
  c.counts.rows = 1;
  c.counts.cols = 2;
  c.counts.row_ptr = {0, 2};
  c.counts.col_idx = {0, 1};
  c.counts.vals = {2.0f, 0.5f};
  EXPECT_THROW(io::write_uci(dir.file("d.txt"), "", c), Error);
  c.counts.vals = {2.0f, 3.0f};
  c.vocab = {"only one word"};
  EXPECT_THROW(io::write_uci(dir.file("d.txt"), dir.file("v.txt"), c), Error);
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

struct BadCase {
  const char* what;
  std::string text;
  std::int64_t line;
  const char* fragment;
};

TEST(IoUci, EveryKindOfBadDocwordIsOneInputErrorWithFileAndLine) {
  const std::string h = "3\n4\n3\n";  // D=3, W=4, NNZ=3
  const std::vector<BadCase> cases = {
      {"empty file", "", 0, "empty file"},
      {"header cut short", "3\n4\n", 2, "ends inside the header"},
      {"header not integer", "3\nfour\n3\n", 2, "vocabulary size W"},
      {"header two numbers", "3 4\n4\n3\n", 1, "document count D alone"},
      {"Matrix Market file", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 1 1\n", 1,
       "Matrix Market"},
      {"ratings file", "17\t404\t3\t870000101\n", 1, "ratings"},
      {"negative D", "-3\n4\n3\n", 1, "must not be negative"},
      {"NNZ above D*W", "2\n2\n5\n", 3, "exceeds D x W"},
      {"lying NNZ", "3000\n4000\n11000000\n1 1 1\n", 3, "cannot hold that many"},
      {"huge D", "2147483648\n4\n1\n1 1 1\n", 1, "implausible"},
      {"too few entries", h + "1 1 1\n2 2 2\n", 5, "ends after 2 of the NNZ = 3"},
      {"too many entries", h + "1 1 1\n2 2 2\n3 3 3\n3 4 1\n", 7, "more entries than NNZ = 3"},
      {"doc out of range", h + "1 1 1\n4 2 2\n3 3 3\n", 5, "docID 4 out of range 1..3"},
      {"doc zero", h + "0 1 1\n", 4, "docID 0 out of range"},
      {"word out of range", h + "1 1 1\n2 5 2\n3 3 3\n", 5, "wordID 5 out of range 1..4"},
      {"count zero", h + "1 1 1\n2 2 0\n", 5, "positive integer, found '0'"},
      {"count negative", h + "1 1 -2\n", 4, "positive integer, found '-2'"},
      {"count fraction", h + "1 1 2.5\n", 4, "positive integer, found '2.5'"},
      {"count NaN", h + "1 1 nan\n", 4, "positive integer, found 'nan'"},
      {"count inf", h + "1 1 inf\n", 4, "positive integer, found 'inf'"},
      {"count too big", h + "1 1 99999999\n", 4, "above 2^24"},
      {"id junk", h + "1 x 1\n", 4, "wordID: expected an integer"},
      {"two fields", h + "1 1 1\n2 2\n", 5, "found 2 fields"},
      {"four fields", h + "1 1 1 1\n", 4, "found 4 fields"},
      {"duplicate pair", h + "1 2 1\n3 3 1\n1 2 4\n", 6,
       "duplicate entry (docID 1, wordID 2), first given at line 4"},
  };
  test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string p = dir.file("docword.bad.txt");
    test::write_bytes(p, c.text);
    EXPECT_TRUE(throws_input_error([&] { io::read_uci(p); }, p, c.line, {c.fragment}));
  }
}

TEST(IoUci, TruncatedGzipDocwordIsAnError) {
  // A corpus big enough that the cut lands in the middle of the entries.
  std::string text = "200\n300\n";
  std::string body;
  std::int64_t nnz = 0;
  for (int d = 1; d <= 200; ++d)
    for (int w = 1; w <= 300; w += 1 + (d * w) % 7, ++nnz)
      body += std::to_string(d) + " " + std::to_string(w) + " " + std::to_string(1 + (d + w) % 9) +
              "\n";
  text += std::to_string(nnz) + "\n" + body;
  const std::string gz = test::gzip(text);
  test::TempDir dir;
  const std::string p = dir.file("docword.cut.txt.gz");
  test::write_bytes(p, gz);
  EXPECT_EQ(io::read_uci(p).counts.nnz(), nnz);
  for (std::size_t keep : {gz.size() / 2, gz.size() - 3}) {
    test::write_bytes(p, gz.substr(0, keep));
    EXPECT_TRUE(throws_input_error([&] { io::read_uci(p); }, p, -1, {"truncated"}));
  }
}

TEST(IoUci, GzipDimensionsAreCheckedAgainstTheTextItHolds) {
  // Found by review while fuzzing: blank lines of random blanks give a gzip file a bound of ~30M
  // documents (1032 x its compressed size x 8), so D = 20M passed the header and 160 MB of
  // offsets per array were made for one entry. The text is 14 kB: 2^24 documents at most.
  test::TempDir dir;
  const std::string blanks = test::random_filler(14000, " \t\v\f") + "\n";
  const std::string p = dir.file("docword.big.txt.gz");
  test::write_bytes(p, test::gzip("20000000\n2\n1\n" + blanks + "1 1 1\n"));
  EXPECT_TRUE(throws_input_error(
      [&] { io::read_uci(p); }, p, 1,
      {"document count D 20000000 is implausible for the", "bytes of text this gzip file holds"}));
  test::write_bytes(p, test::gzip("2\n20000000\n1\n" + blanks + "1 1 1\n"));
  EXPECT_TRUE(throws_input_error([&] { io::read_uci(p); }, p, 2,
                                 {"vocabulary size W 20000000 is implausible"}));
  // Blank lines are allowed: within the limit, the same file reads.
  test::write_bytes(p, test::gzip("2\n2\n1\n" + blanks + "1 1 1\n"));
  EXPECT_EQ(io::read_uci(p).counts.nnz(), 1);
}

TEST(IoUci, BadVocabularies) {
  test::TempDir dir;
  const std::string dw = dir.file("docword.txt"), voc = dir.file("vocab.txt");
  test::write_bytes(dw, kSmall);  // W = 4
  const std::vector<BadCase> cases = {
      {"too few words", "a\nb\nc\n", 3, "has 3 words, but the docword file says W = 4"},
      {"too many words", "a\nb\nc\nd\ne\n", 5, "more words than W = 4"},
      {"blank line inside", "a\n\nc\nd\n", 2, "blank line"},
      {"empty file", "", 0, "empty vocabulary"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    test::write_bytes(voc, c.text);
    EXPECT_TRUE(throws_input_error([&] { io::read_uci(dw, voc); }, voc, c.line, {c.fragment}));
  }
  test::write_bytes(voc, "a\nb\nc\nd\n\n\n");  // trailing blank lines are harmless
  EXPECT_EQ(io::read_uci(dw, voc).vocab.size(), 4u);
  // A word listed twice is read (ids stay distinct) and warned about, with its lines.
  test::write_bytes(voc, "a\nb\na\nd\n");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(io::read_uci(dw, voc).vocab.size(), 4u);
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warned.find("1 line repeats a word of an earlier line (first: 'a' at line 3, as at "
                        "line 1)"),
            std::string::npos)
      << warned;
  EXPECT_TRUE(
      throws_input_error([&] { io::read_uci(dw, dir.path()); }, dir.path(), 0, {"directory"}));
  EXPECT_TRUE(throws_input_error([&] { io::read_uci(dir.path()); }, dir.path(), 0, {"directory"}));
}

}  // namespace
}  // namespace fk
