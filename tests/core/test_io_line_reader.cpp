#include <string>
#include <vector>

#include "core/io/line_reader.hpp"
#include "core/random.hpp"
#include "test_io_util.hpp"

namespace fk {
namespace {

std::vector<std::string> all_lines(const std::string& path) {
  io::LineReader in(path);
  std::vector<std::string> lines;
  std::string line;
  while (in.next(line)) {
    lines.push_back(line);
    EXPECT_EQ(in.line_number(), static_cast<std::int64_t>(lines.size()));
  }
  return lines;
}

// Random lines (some empty, some long) whose total size crosses the reader's 1 MiB buffers.
std::vector<std::string> random_lines(Rng& rng, std::size_t bytes) {
  std::vector<std::string> lines;
  std::size_t total = 0;
  while (total < bytes) {
    std::string line(rng.below(8) == 0 ? 0 : rng.below(rng.below(50) == 0 ? 20000 : 80), 'x');
    for (char& c : line) c = static_cast<char>('!' + rng.below(90));
    total += line.size() + 1;
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, const char* eol) {
  std::string s;
  for (const auto& l : lines) s += l + eol;
  return s;
}

TEST(IoLineReader, PlainLinesWithCrlfAndNoFinalNewline) {
  test::TempDir dir;
  const std::string p = dir.file("a.txt");
  test::write_bytes(p, "a\r\nbb\n\nccc");
  EXPECT_EQ(all_lines(p), (std::vector<std::string>{"a", "bb", "", "ccc"}));
  test::write_bytes(p, "x\ny\n");  // a final newline does not make an extra empty line
  EXPECT_EQ(all_lines(p), (std::vector<std::string>{"x", "y"}));
}

// A UTF-8 byte order mark opens the data, not the first line; elsewhere its bytes are kept.
TEST(IoLineReader, ByteOrderMarkAtTheStartIsSkipped) {
  test::TempDir dir;
  const std::string p = dir.file("bom.txt");
  test::write_bytes(p, "\xEF\xBB\xBF" "196\t242\t3\n\xEF\xBB\xBFx\n");
  EXPECT_EQ(all_lines(p), (std::vector<std::string>{"196\t242\t3", "\xEF\xBB\xBFx"}));
  io::LineReader in(p);
  std::string part;
  bool end = false;
  ASSERT_TRUE(in.next_part(part, 2, end));
  EXPECT_EQ(part, "19");
}

TEST(IoLineReader, EmptyFileHasNoLines) {
  test::TempDir dir;
  const std::string p = dir.file("empty.txt");
  test::write_bytes(p, "");
  io::LineReader in(p);
  std::string line = "poison";
  EXPECT_FALSE(in.next(line));
  EXPECT_EQ(in.line_number(), 0);
  EXPECT_FALSE(in.gzipped());
}

TEST(IoLineReader, GzipReadsLikePlainAcrossBufferBoundaries) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  const auto lines = random_lines(rng, 3u << 20);
  test::TempDir dir;
  const std::string plain = dir.file("t.txt"), gz = dir.file("t.txt.gz");
  test::write_bytes(plain, join(lines, "\n"));
  test::write_bytes(gz, test::gzip(join(lines, "\r\n"), 1));
  EXPECT_EQ(all_lines(plain), lines);
  EXPECT_EQ(all_lines(gz), lines);
  io::LineReader in(gz);
  EXPECT_TRUE(in.gzipped());
}

TEST(IoLineReader, DetectsGzipByMagicBytesNotByName) {
  test::TempDir dir;
  const std::string gz_named_txt = dir.file("really_gzip.txt"), txt_named_gz = dir.file("plain.gz");
  test::write_bytes(gz_named_txt, test::gzip("one\ntwo\n"));
  test::write_bytes(txt_named_gz, "one\ntwo\n");
  EXPECT_EQ(all_lines(gz_named_txt), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(all_lines(txt_named_gz), (std::vector<std::string>{"one", "two"}));
}

TEST(IoLineReader, ConcatenatedGzipMembersReadAsOneStream) {
  test::TempDir dir;
  const std::string p = dir.file("multi.gz");
  test::write_bytes(p, test::gzip("a\nb\n") + test::gzip("c\n") + test::gzip(""));
  EXPECT_EQ(all_lines(p), (std::vector<std::string>{"a", "b", "c"}));
  // Zero padding after the last member is tolerated (gzip(1) does the same).
  test::write_bytes(p, test::gzip("a\n") + std::string(100, '\0'));
  EXPECT_EQ(all_lines(p), (std::vector<std::string>{"a"}));
}

TEST(IoLineReader, TruncatedGzipIsAnErrorAtEveryCut) {
  const std::uint64_t seed = test::fresh_io_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Rng rng(seed);
  const auto lines = random_lines(rng, 200000);
  const std::string gz = test::gzip(join(lines, "\n"));
  test::TempDir dir;
  const std::string p = dir.file("cut.gz");
  // Cuts inside the 10-byte header, in the deflate data, and inside the 8-byte CRC/size trailer.
  const std::size_t n = gz.size();
  for (std::size_t keep :
       {std::size_t{2}, std::size_t{11}, n / 3, n / 2, n - 9, n - 8, n - 4, n - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(n) + " bytes");
    test::write_bytes(p, gz.substr(0, keep));
    EXPECT_TRUE(test::throws_input_error([&] { all_lines(p); }, p, -1, {"truncated"}));
  }
}

TEST(IoLineReader, TruncatedGzipNamesTheLineBeingRead) {
  test::TempDir dir;
  const std::string p = dir.file("cut.gz");
  const std::string gz = test::gzip("1\n2\n3\n");
  test::write_bytes(p, gz.substr(0, gz.size() - 4));  // all data there, the size field cut
  io::LineReader in(p);
  std::string line;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(in.next(line));
  EXPECT_TRUE(test::throws_input_error([&] { in.next(line); }, p, 4, {"truncated"}));
}

TEST(IoLineReader, CorruptGzipIsAnError) {
  test::TempDir dir;
  const std::string p = dir.file("bad.gz");
  std::string gz = test::gzip("hello\nworld\n");
  gz[gz.size() - 6] ^= 0x5a;  // inside the CRC-32
  test::write_bytes(p, gz);
  EXPECT_TRUE(test::throws_input_error([&] { all_lines(p); }, p, -1, {"corrupt gzip"}));
  // Junk after a complete member is not silently ignored.
  test::write_bytes(p, test::gzip("hello\n") + "trailing junk");
  EXPECT_TRUE(
      test::throws_input_error([&] { all_lines(p); }, p, -1, {"after the end of the gzip"}));
}

TEST(IoLineReader, MissingFileAndDirectoryAreInputErrors) {
  test::TempDir dir;
  const std::string missing = dir.file("nope.txt");
  EXPECT_TRUE(
      test::throws_input_error([&] { io::LineReader in(missing); }, missing, 0, {"no such file"}));
  EXPECT_TRUE(test::throws_input_error([&] { io::LineReader in(dir.path()); }, dir.path(), 0,
                                       {"directory"}));
}

TEST(IoLineReader, OverlongLineFailsInsteadOfGrowingWithoutBound) {
  test::TempDir dir;
  const std::string p = dir.file("long.txt");
  test::write_bytes(p, "short\n" + std::string(5000, 'z') + "\n");
  io::LineReader in(p);
  in.set_max_line_length(1000);
  std::string line;
  ASSERT_TRUE(in.next(line));
  EXPECT_TRUE(test::throws_input_error([&] { in.next(line); }, p, 2, {"longer than 1000"}));
}

TEST(IoLineReader, NextPartHandsOverALongLineInPieces) {
  test::TempDir dir;
  const std::string p = dir.file("parts.txt");
  const std::string big(10007, 'q');
  test::write_bytes(p, "head\n" + big + "\r\ntail");
  io::LineReader in(p);
  std::string part, got;
  bool end = false;
  ASSERT_TRUE(in.next_part(part, 64, end));
  EXPECT_EQ(part, "head");
  EXPECT_TRUE(end);
  std::size_t pieces = 0;
  do {
    ASSERT_TRUE(in.next_part(part, 64, end));
    EXPECT_LE(part.size(), 64u);
    EXPECT_EQ(in.line_number(), 2);
    got += part;
    ++pieces;
  } while (!end);
  EXPECT_EQ(got, big);
  EXPECT_GE(pieces, 10007u / 64);
  ASSERT_TRUE(in.next(part));
  EXPECT_EQ(part, "tail");
  EXPECT_EQ(in.line_number(), 3);
  EXPECT_FALSE(in.next_part(part, 64, end));
}

}  // namespace
}  // namespace fk
