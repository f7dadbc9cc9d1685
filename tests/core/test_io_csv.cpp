#include <string>
#include <vector>

#include "core/io/csv.hpp"
#include "core/random.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

TEST(IoCsv, EscapeQuotesOnlyWhenNeeded) {
  EXPECT_EQ(io::csv_escape("plain"), "plain");
  EXPECT_EQ(io::csv_escape(""), "");
  EXPECT_EQ(io::csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(io::csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(io::csv_escape("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(io::csv_escape(" padded"), "\" padded\"");
}

TEST(IoCsv, SplitUndoesQuoting) {
  std::vector<std::string> f;
  bool ok = false;
  EXPECT_TRUE(io::split_csv_record("a,\"b,c\",,\"d\"\"e\"", f, ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(f, (std::vector<std::string>{"a", "b,c", "", "d\"e"}));
  EXPECT_FALSE(io::split_csv_record("a,\"open", f, ok));  // record continues on the next line
  EXPECT_TRUE(io::split_csv_record("a,\"x\"y", f, ok));
  EXPECT_FALSE(ok);  // text after a closing quote
}

TEST(IoCsv, SplitDropsBlanksOutsideQuotes) {
  std::vector<std::string> f;
  bool ok = false;
  // "1, 2, 5" as people type it: the blanks are separators' padding, not part of the ids.
  EXPECT_TRUE(io::split_csv_record("1, 2,\t5 ", f, ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(f, (std::vector<std::string>{"1", "2", "5"}));
  // Inside quotes blanks stay; blanks between a closing quote and the comma are allowed.
  EXPECT_TRUE(io::split_csv_record(" \" a \" , b c ,  ", f, ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(f, (std::vector<std::string>{" a ", "b c", ""}));
  EXPECT_TRUE(io::split_csv_record("\"a\" x", f, ok));
  EXPECT_FALSE(ok);  // text, not blanks, after a closing quote
}

TEST(IoCsv, WriterReaderRoundTripOfAwkwardFields) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  const std::string alphabet = "ab ,\"\n\r\t;x\xc3\xa9";
  std::vector<std::vector<std::string>> rows;
  for (int r = 0; r < 300; ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < 4; ++c) {
      std::string field;
      const auto len = rng.below(8);
      for (std::uint64_t k = 0; k < len; ++k) field += alphabet[rng.below(alphabet.size())];
      row.push_back(field);
    }
    rows.push_back(row);
  }
  test::TempDir dir;
  const std::string p = dir.file("t.csv");
  {
    io::CsvWriter w(p, {"id", "name, full", "quote\"d", "x"});
    for (const auto& row : rows) w.row(row);
    w.commit();
  }
  io::CsvReader in(p);
  EXPECT_EQ(in.header(), (std::vector<std::string>{"id", "name, full", "quote\"d", "x"}));
  std::vector<std::string> f;
  std::size_t k = 0;
  while (in.next(f)) {
    ASSERT_LT(k, rows.size());
    // "\r\n" inside a quoted field reads back as "\n" (documented in csv.hpp): normalise.
    auto norm = rows[k];
    for (auto& s : norm) {
      std::string t;
      for (std::size_t i = 0; i < s.size(); ++i)
        if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) t += s[i];
      s = t;
    }
    EXPECT_EQ(f, norm) << "record " << k;
    ++k;
  }
  EXPECT_EQ(k, rows.size());
}

TEST(IoCsv, SingleEmptyFieldRowsSurvive) {
  test::TempDir dir;
  const std::string p = dir.file("one.csv");
  io::CsvWriter w(p, {"only"});
  w.row({""});
  w.row({"x"});
  w.commit();
  io::CsvReader in(p);
  std::vector<std::string> f;
  ASSERT_TRUE(in.next(f));
  EXPECT_EQ(f, std::vector<std::string>{""});
  ASSERT_TRUE(in.next(f));
  EXPECT_EQ(f, std::vector<std::string>{"x"});
  EXPECT_FALSE(in.next(f));
}

TEST(IoCsv, WrongWidthRowThrowsAndUncommittedFileNeverAppears) {
  test::TempDir dir;
  const std::string p = dir.file("w.csv");
  {
    io::CsvWriter w(p, {"a", "b"});
    w.row({"1", "2"});
    EXPECT_THROW(w.row({"1"}), Error);
  }  // destroyed without commit
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

TEST(IoCsv, ReaderErrorsNameFileAndLine) {
  test::TempDir dir;
  const std::string p = dir.file("bad.csv");
  test::write_bytes(p, "a,b\n1,2\n3\n");
  EXPECT_TRUE(throws_input_error(
      [&] {
        io::CsvReader in(p);
        std::vector<std::string> f;
        while (in.next(f)) {
        }
      },
      p, 3, {"expected 2 fields", "found 1"}));
  test::write_bytes(p, "a,b\n1,\"open\n2\n");
  EXPECT_TRUE(throws_input_error(
      [&] {
        io::CsvReader in(p);
        std::vector<std::string> f;
        while (in.next(f)) {
        }
      },
      p, 3, {"still open"}));
  test::write_bytes(p, "");
  EXPECT_TRUE(throws_input_error([&] { io::CsvReader in(p); }, p, 0, {"empty file"}));
}

}  // namespace
}  // namespace fk
