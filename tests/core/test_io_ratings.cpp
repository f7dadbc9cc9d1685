#include <sys/stat.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/io/ratings.hpp"
#include "core/random.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

using test::throws_input_error;

io::Ratings read_text(const test::TempDir& dir, const std::string& text,
                      const std::string& name = "r.txt") {
  const std::string p = dir.file(name);
  test::write_bytes(p, text);
  return io::read_ratings(p);
}

// The same four ratings in every dialect: ids map in order of first appearance.
void expect_the_four(const io::Ratings& r) {
  EXPECT_EQ(r.size(), 4);
  EXPECT_EQ(r.user_ids, (std::vector<std::string>{"7", "3"}));
  EXPECT_EQ(r.item_ids, (std::vector<std::string>{"100", "5", "42"}));
  EXPECT_EQ(r.user, (std::vector<std::int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(r.item, (std::vector<std::int32_t>{0, 1, 0, 2}));
  EXPECT_EQ(r.rating, (std::vector<float>{4.5f, 3.0f, 1.0f, 5.0f}));
}

TEST(IoRatings, ReadsEveryDialect) {
  test::TempDir dir;
  expect_the_four(
      read_text(dir, "7::100::4.5::900000001\n7::5::3::900000002\n3::100::1::1\n3::42::5::2\n",
                "ratings.dat"));
  expect_the_four(read_text(
      dir, "userId,movieId,rating,timestamp\n7,100,4.5,900000001\n7,5,3,1\n3,100,1,1\n3,42,5,2\n",
      "ratings.csv"));
  expect_the_four(read_text(dir, "user,item,rating\r\n7,100,4.5\r\n7,5,3\r\n3,100,1\r\n3,42,5\r\n",
                            "crlf.csv"));
  expect_the_four(read_text(dir, "7 :: 100 :: 4.5 :: 1\n7::5::3::1\n3 ::100::1::1\n3::42::5::2\n",
                            "padded.dat"));
  // Blanks after the commas (or before them) pad the fields: "7 " is user 7, not a user of its own.
  expect_the_four(read_text(
      dir, "user, item, rating\n7, 100, 4.5\n7 ,5 , 3\n3, \"100\", 1\n\t3,42,5\n", "padded.csv"));
  expect_the_four(
      read_text(dir, "7\t100\t4.5\t870000101\n7\t5\t3\t1\n3\t100\t1\t1\n3\t42\t5\t2\n", "u.data"));
  expect_the_four(read_text(dir, "7 100 4.5\n\n7  5 3\n3 100 1\n3 42 5\n", "spaces.txt"));
  expect_the_four(read_text(dir, test::gzip("7 100 4.5\n7 5 3\n3 100 1\n3 42 5\n"), "r.txt.gz"));
}

// Ratings from a FIFO (`--input /dev/stdin --format ratings`): read once, and past the 4096 lines
// after which the reader reserves from the file's size, which a pipe does not have.
TEST(IoRatings, ReadsAPipeOnce) {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo);
    for (int j = 0; j < 5000; ++j) out << j % 97 << ' ' << j << ' ' << (j % 5 + 1) << '\n';
  });
  const io::Ratings r = io::read_ratings(fifo);
  writer.join();
  EXPECT_EQ(r.size(), 5000);
  EXPECT_EQ(r.users(), 97);
}

TEST(IoRatings, RawIdsAreArbitraryTokensOfAnyLength) {
  test::TempDir dir;
  const std::string long_id(5000, 'u');
  const io::Ratings r =
      read_text(dir, "alice,\"The Matrix, 1999\",5\n" + long_id + ",item-\xc3\xa9,2\nalice,007,1\n",
                "ids.csv");
  // The first line's rating is a number, so there is no header here.
  EXPECT_EQ(r.user_ids, (std::vector<std::string>{"alice", long_id}));
  EXPECT_EQ(r.item_ids, (std::vector<std::string>{"The Matrix, 1999", "item-\xc3\xa9", "007"}));
  EXPECT_EQ(r.user, (std::vector<std::int32_t>{0, 1, 0}));
  // "7" and "007" are different raw ids: ids are strings, not numbers.
  const io::Ratings s = read_text(dir, "u 7 1\nu 007 2\n");
  EXPECT_EQ(s.items(), 2);
}

TEST(IoRatings, ToCsrIsUsersByItems) {
  test::TempDir dir;
  const io::Ratings r = read_text(dir, "b x 1\na y 2\nb y 3\n");
  const HostCsr m = r.to_csr();
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 2);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1, 1}));
  EXPECT_EQ(m.vals, (std::vector<float>{1, 3, 2}));
}

TEST(IoRatings, CsvRoundTripKeepsRawIdsAndValues) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  io::Ratings r;
  const std::vector<std::string> awkward = {"plain",    "with,comma", "with \"quotes\"",
                                            " padded ", "a::b",       "\xe2\x98\x85"};
  for (int u = 0; u < 60; ++u)
    r.user_ids.push_back(awkward[u % awkward.size()] + std::to_string(u));
  for (int i = 0; i < 90; ++i)
    r.item_ids.push_back("item" + std::to_string(rng.below(1u << 30)) + "_" + std::to_string(i));
  for (int u = 0; u < 60; ++u)
    for (int i = 0; i < 90; ++i)
      if (rng.below(4) == 0) {
        r.user.push_back(u);
        r.item.push_back(i);
        r.rating.push_back(static_cast<float>(rng.uniform(-10, 10)));
      }
  // Ids appear in the file in rating order; renumber the maps to first-appearance order so the
  // expected value is what a reader must produce.
  io::Ratings want;
  std::vector<int> umap(60, -1), imap(90, -1);
  for (std::int64_t k = 0; k < r.size(); ++k) {
    if (umap[r.user[k]] < 0) {
      umap[r.user[k]] = static_cast<int>(want.user_ids.size());
      want.user_ids.push_back(r.user_ids[r.user[k]]);
    }
    if (imap[r.item[k]] < 0) {
      imap[r.item[k]] = static_cast<int>(want.item_ids.size());
      want.item_ids.push_back(r.item_ids[r.item[k]]);
    }
    want.user.push_back(umap[r.user[k]]);
    want.item.push_back(imap[r.item[k]]);
    want.rating.push_back(r.rating[k]);
  }
  test::TempDir dir;
  const std::string p = dir.file("out.csv");
  io::write_ratings_csv(p, r);
  const io::Ratings back = io::read_ratings(p);
  EXPECT_EQ(back.user_ids, want.user_ids);
  EXPECT_EQ(back.item_ids, want.item_ids);
  EXPECT_EQ(back.user, want.user);
  EXPECT_EQ(back.item, want.item);
  EXPECT_EQ(back.rating, want.rating);
}

TEST(IoRatings, WriterRejectsBadInputAndLeavesNothing) {
  test::TempDir dir;
  io::Ratings r;
  r.user_ids = {"a"};
  r.item_ids = {"multi\nline"};
  r.user = {0};
  r.item = {0};
  r.rating = {1};
  EXPECT_THROW(io::write_ratings_csv(dir.file("r.csv"), r), Error);
  r.item_ids = {"x"};
  r.item = {3};  // outside the id map
  EXPECT_THROW(io::write_ratings_csv(dir.file("r.csv"), r), Error);
  EXPECT_TRUE(test::list_dir(dir.path()).empty());
}

struct BadCase {
  const char* what;
  std::string text;
  std::int64_t line;
  const char* fragment;
};

TEST(IoRatings, EveryKindOfBadInputIsOneInputErrorWithFileAndLine) {
  const std::vector<BadCase> cases = {
      {"empty file", "", 0, "empty file"},
      {"only blank lines", "\n\n", 2, "no ratings"},
      {"header only", "userId,movieId,rating,timestamp\n", 1, "no ratings"},
      {"UCI docword given", "3\n4\n2\n1 1 1\n", 1, "3 or 4 fields"},
      {"too many fields", "1 2 3 4 5\n", 1, "found 5"},
      {"field count changes", "1 2 3\n1 3 4\n1 4 5 6\n", 3, "expected 3 fields"},
      {"dialect changes", "1::2::3\n1::3::4\n1 4 5\n", 3, "expected 3 fields separated by '::'"},
      {"rating not a number", "1\t2\t3\n1\t3\tgood\n", 2, "expected a number, found 'good'"},
      {"rating NaN", "1,2,3\n1,3,NaN\n", 2, "not finite"},
      {"rating inf", "1 2 inf\n", 1, "not finite"},
      {"rating too big", "1 2 1e300\n", 1, "too large"},
      {"timestamp junk", "1::2::3::yesterday\n", 1, "timestamp"},
      {"empty user", "::2::3\n", 1, "empty user id"},
      {"empty item", "u,,3\n", 1, "empty item id"},
      {"bad CSV quoting", "u,\"it\"em,3\n", 1, "quoting"},
      {"duplicate pair", "u1 i1 3\nu2 i1 4\nu1 i2 1\nu1 i1 5\n", 4,
       "duplicate rating of item 'i1' by user 'u1', first given at line 1"},
      {"duplicate in CSV", "user,item,rating\n\"a,b\",x,1\n\"a,b\",x,2\n", 3,
       "first given at line 2"},
  };
  test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string p = dir.file("bad_ratings.txt");
    test::write_bytes(p, c.text);
    EXPECT_TRUE(throws_input_error([&] { io::read_ratings(p); }, p, c.line, {c.fragment}));
  }
  EXPECT_TRUE(
      throws_input_error([&] { io::read_ratings(dir.path()); }, dir.path(), 0, {"directory"}));
}

TEST(IoRatings, TruncatedGzipIsAnError) {
  std::string text;
  for (int k = 0; k < 20000; ++k)
    text +=
        std::to_string(k % 97) + "\t" + std::to_string(k) + "\t" + std::to_string(1 + k % 5) + "\n";
  const std::string gz = test::gzip(text);
  test::TempDir dir;
  const std::string p = dir.file("r.data.gz");
  test::write_bytes(p, gz);
  EXPECT_EQ(io::read_ratings(p).size(), 20000);
  test::write_bytes(p, gz.substr(0, gz.size() * 2 / 3));
  EXPECT_TRUE(throws_input_error([&] { io::read_ratings(p); }, p, -1, {"truncated"}));
}

}  // namespace
}  // namespace fk
