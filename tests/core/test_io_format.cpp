#include <sys/stat.h>

#include <string>

#include "core/io/format.hpp"
#include "core/io/line_reader.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using io::InputFormat;

TEST(IoFormat, ParseAndToStringRoundTrip) {
  for (auto f : {InputFormat::kAuto, InputFormat::kUci, InputFormat::kMtx, InputFormat::kText,
                 InputFormat::kRatings, InputFormat::kSmtx})
    EXPECT_EQ(io::parse_input_format(io::to_string(f)), f) << io::to_string(f);
  EXPECT_EQ(io::parse_input_format("MTX"), InputFormat::kMtx);
  EXPECT_EQ(io::parse_input_format("matrix-market"), InputFormat::kMtx);
  EXPECT_EQ(io::parse_input_format("dlmc"), InputFormat::kSmtx);
  EXPECT_EQ(io::parse_input_format("txt"), InputFormat::kText);
  try {
    io::parse_input_format("parquet");
    FAIL() << "no exception";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'parquet'"), std::string::npos) << what;
    EXPECT_NE(what.find("ratings"), std::string::npos) << what;  // lists what is accepted
  }
}

TEST(IoFormat, DetectsEachFormatFromContent) {
  test::TempDir dir;
  struct Case {
    const char* name;
    std::string text;
    InputFormat want;
  };
  const std::vector<Case> cases = {
      {"a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n", InputFormat::kMtx},
      {"docword", "3\n4\n2\n1 2 3\n2 4 1\n", InputFormat::kUci},
      {"docword_empty_body", "3\n4\n0\n", InputFormat::kUci},
      {"m.smtx", "3, 5, 4\n0 2 2 4\n4 0 1 3\n", InputFormat::kSmtx},
      {"ratings.dat", "4::812::5::900000001\n4::66::3::900000002\n", InputFormat::kRatings},
      {"ratings.csv",
       "userId,movieId,rating,timestamp\n1,57,2.5,1300000111\n1,804,3.0,1300000222\n",
       InputFormat::kRatings},
      {"headerless.csv", "1,31,2.5\n1,1029,3\n", InputFormat::kRatings},
      {"u.data", "17\t404\t3\t870000101\n52\t9\t5\t870000202\n", InputFormat::kRatings},
      {"names", "alice matrix 4.5\nbob alien 3\n", InputFormat::kRatings},
      // A rating that is not finite or too large for a float is still a rating, so that the
      // ratings reader names its line: fk-gap read these as plain text and ended in "no word
      // is left after filtering".
      {"nan.data", "17\t404\t3\t870000101\n52\t9\tnan\t870000202\n", InputFormat::kRatings},
      {"inf.csv", "1,31,2.5\n1,1029,inf\n", InputFormat::kRatings},
      {"huge.csv", "1,31,2.5\n1,1029,1e39\n", InputFormat::kRatings},
      {"docs.txt", "the cat sat on the mat\na dog barked twice at 3 cats\n", InputFormat::kText},
      {"words.txt", "one two 3\nfour five six\n",
       InputFormat::kText},  // third column not numeric on line 2
  };
  for (const auto& c : cases) {
    const std::string p = dir.file(c.name);
    test::write_bytes(p, c.text);
    EXPECT_EQ(io::to_string(io::detect_format(p)), std::string(io::to_string(c.want))) << c.name;
    // Gzip is looked through.
    test::write_bytes(p + ".gz", test::gzip(c.text));
    EXPECT_EQ(io::to_string(io::detect_format(p + ".gz")), std::string(io::to_string(c.want)))
        << c.name << ".gz";
  }
}

// A ratings file with one damaged line among its first (short, long, badly quoted, a word for a
// rating; first or later) is still ratings, so that the ratings reader names the line: every
// line looked at had to be well-formed, and fk-gap read such a file as plain text and trained on
// it. Text whose lines are mostly not ratings-shaped stays text.
TEST(IoFormat, RatingsWithOneDamagedLineAreStillRatings) {
  test::TempDir dir;
  const std::string tail = "2,1,4\n2,2,3\n3,1,5\n3,3,2\n";
  const std::pair<const char*, std::string> ratings[] = {
      {"short.csv", "user,item,rating\n1,1,5\n1,2\n" + tail},
      {"quoting.csv", "1,1,5\n1,\"2,5\n" + tail},
      {"first_short.csv", "1,1\n1,2,5\n" + tail},
      {"long.csv", "1,1,5\n1,2,5,7,9\n" + tail},
      {"word.data", "1 1 5\n1 2 five\n2 1 4\n2 2 3\n"},
      {"first_short.data", "1 1\n1 2 5\n2 1 4\n2 2 3\n"},
      {"stamps.data", "1\t1\t5\t10\n1\t2\t3\n2\t1\t4\t12\n2\t2\t3\t13\n"},
      {"colons.dat", "1 2 5\n1::3::4::10\n2::1::4::11\n2::2::3::12\n"},
  };
  for (const auto& [name, text] : ratings) {
    const std::string p = dir.file(name);
    test::write_bytes(p, text);
    EXPECT_EQ(io::to_string(io::detect_format(p)), std::string("ratings")) << name;
  }
  const std::pair<const char*, std::string> texts[] = {
      {"tie.txt", "one two 3\nfour five six\n"},
      {"some_numbers.txt", "we ate 3\nthe cat sat\non the mat 7\nthree dogs barked\nat 2 cats\n"},
      {"commas.txt", "red, green, 5\nblue and yellow\nno commas here at all\n"},
  };
  for (const auto& [name, text] : texts) {
    const std::string p = dir.file(name);
    test::write_bytes(p, text);
    EXPECT_EQ(io::to_string(io::detect_format(p)), std::string("text")) << name;
  }
}

TEST(IoFormat, DetectOnEmptyMissingOrDirectoryIsAnInputError) {
  test::TempDir dir;
  const std::string empty = dir.file("empty"), blank = dir.file("blank"),
                    missing = dir.file("missing");
  test::write_bytes(empty, "");
  test::write_bytes(blank, "\n  \n\t\n");
  EXPECT_TRUE(
      test::throws_input_error([&] { io::detect_format(empty); }, empty, 0, {"empty file"}));
  EXPECT_TRUE(
      test::throws_input_error([&] { io::detect_format(blank); }, blank, 0, {"empty file"}));
  EXPECT_TRUE(
      test::throws_input_error([&] { io::detect_format(missing); }, missing, 0, {"no such file"}));
  EXPECT_TRUE(test::throws_input_error([&] { io::detect_format(dir.path()); }, dir.path(), 0,
                                       {"directory"}));
  // Binary data is refused rather than read as plain-text documents.
  const std::string binary = dir.file("binary");
  test::write_bytes(binary, std::string("PK\x03\x04\x14\0\0\0 some text\n", 19));
  EXPECT_TRUE(test::throws_input_error([&] { io::detect_format(binary); }, binary, 0,
                                       {"binary file"}));
}

// A pipe or FIFO gives its bytes once: detection (which parsing would follow with a second open)
// refuses it at once, without opening it (a FIFO's open would wait for a writer).
TEST(IoFormat, DetectRefusesAFifo) {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(io::rereadable(fifo));
  EXPECT_TRUE(test::throws_input_error([&] { io::detect_format(fifo); }, fifo, 0,
                                       {"pipe", "--format"}));
  test::write_bytes(dir.file("plain"), "x\n");
  EXPECT_TRUE(io::rereadable(dir.file("plain")));
}

// A docword file with a broken header goes to the UCI reader, whose error names the line.
TEST(IoFormat, DocwordWithBrokenHeaderIsReadAsUci) {
  test::TempDir dir;
  const std::string p = dir.file("docword.kos.txt");
  test::write_bytes(p, "3430x\n6906\n2\n1 61 2\n1 76 1\n");
  EXPECT_EQ(io::to_string(io::detect_format(p)), std::string("uci"));
}

// A misspelt Matrix Market banner goes to the Matrix Market reader, whose error names the line.
TEST(IoFormat, MisspeltMatrixMarketBannerIsReadAsMatrixMarket) {
  test::TempDir dir;
  const std::string p = dir.file("m.mtx");
  test::write_bytes(p, "%%MatrixMurket matrix coordinate real general\n2 2 1\n1 1 1\n");
  EXPECT_EQ(io::to_string(io::detect_format(p)), std::string("mtx"));
}

// The extensions that name one format decide it, so that a damaged file meets its own reader: a
// banner with one '%' was read as plain text or ratings, a .smtx whose offsets do not start at 0
// as plain text. Other names go by content, .gz or not.
TEST(IoFormat, MtxAndSmtxExtensionsDecide) {
  test::TempDir dir;
  const std::pair<const char*, const char*> cases[] = {
      {"one-percent.mtx", "%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"},
      {"offsets.smtx", "2, 2, 1\n1 1 1\n0\n"},
      {"ratings.txt", "1 2 3\n2 3 4\n3 4 5\n"}};
  const char* expected[] = {"mtx", "smtx", "ratings"};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string p = dir.file(cases[i].first);
    test::write_bytes(p, cases[i].second);
    EXPECT_EQ(io::to_string(io::detect_format(p)), std::string(expected[i])) << cases[i].first;
  }
}

}  // namespace
}  // namespace fk
